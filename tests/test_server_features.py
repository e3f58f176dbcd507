"""End-to-end: hover, completion and the outline, in every client profile's encoding."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from rubric_lsp.formats.promptfoo.assertion_types import known_assertion_types
from tests.server_helpers import column, session_fixture

client = session_fixture()
pytestmark = pytest.mark.asyncio(loop_scope="module")

RUBRIC = (
    "rubric:\n"
    '  - {name: "Café 🎉 greeting", weight: 8, requirement: "Greets the user"}\n'
    "  - name: sign-off\n"
    "    weight: 2\n"
    "    requirement: Signs off politely\n"
    "  - name: rude\n"
    "    weight: -5\n"
    "    requirement: Insults the user\n"
    "    name: rude-again\n"
)

PROMPTFOO = (
    "prompts: ['Answer: {{question}}']\n"
    "providers: [openai:gpt-4.1-mini]\n"
    "defaultTest:\n"
    "  options:\n"
    "    provider: anthropic:messages:claude-sonnet-4-5-20250929\n"
    "tests:\n"
    "  - description: capital ✓\n"
    "    vars: {question: 'Capital of France?'}\n"
    "    assert:\n"
    "      - type: llm-rubric\n"
    "        value: Names Paris\n"
    "      - type: contains\n"
    "        value: Paris\n"
)


def at(s, text: str, needle: str, occurrence: int = 1, delta: int = 0) -> types.Position:
    """Client position of the ``occurrence``-th ``needle`` (+ ``delta`` code points)."""
    index = -1
    for _ in range(occurrence):
        index = text.index(needle, index + 1)
    index += delta
    line = text.count("\n", 0, index)
    line_start = text.rfind("\n", 0, index) + 1
    return types.Position(line=line, character=column(text[line_start:], index - line_start, s.encoding))


async def hover(client: LanguageClient, uri: str, pos: types.Position) -> str:
    result = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=pos)
    )
    return result.contents.value if result is not None else ""


async def test_hover_rule_docs_on_a_finding(client: LanguageClient):
    s = client.rubric_session
    uri = s.open("hover/a.rubric.yaml", RUBRIC)
    await s.diagnostics(uri)
    text = await hover(client, uri, at(s, RUBRIC, "name: rude-again", delta=1))
    assert "RL002" in text and "duplicate-key" in text and "/docs/rules.md#rl002" in text


async def test_hover_criterion_share_and_verdict_effects(client: LanguageClient):
    s = client.rubric_session
    uri = s.open("hover/b.rubric.yaml", RUBRIC)
    # on the requirement of the flow-mapped criterion, after é and an emoji
    text = await hover(client, uri, at(s, RUBRIC, "Greets the user", delta=3))
    assert "Carries **80%** of the maximum score" in text
    assert "| MET | 1.00 |" in text and "| UNMET | 0.20 |" in text and "| CANNOT_ASSESS | 1.00 |" in text
    assert "`skip`" in text
    penalty = await hover(client, uri, at(s, RUBRIC, "Insults"))
    assert "A penalty" in penalty and "| MET | 0.50 |" in penalty


async def test_hover_key_description(client: LanguageClient):
    s = client.rubric_session
    uri = s.open("hover/c.rubric.yaml", RUBRIC)
    text = await hover(client, uri, at(s, RUBRIC, "weight: 8", delta=2))  # on the key, after the emoji
    assert "Contribution to the score" in text and "**`weight`**" in text


async def test_hover_effective_grader_of_a_promptfoo_assertion(client: LanguageClient):
    s = client.rubric_session
    uri = s.open("hover/promptfooconfig.yaml", PROMPTFOO)
    text = await hover(client, uri, at(s, PROMPTFOO, "llm-rubric", delta=2))
    assert "anthropic:messages:claude-sonnet-4-5-20250929" in text
    assert "defaultTest.options.provider" in text
    plain = await hover(client, uri, at(s, PROMPTFOO, "type: contains", delta=8))
    assert "grader" not in plain.lower()


async def completion_items(client: LanguageClient, uri: str, pos: types.Position) -> list[types.CompletionItem]:
    result = await client.text_document_completion_async(
        types.CompletionParams(text_document=types.TextDocumentIdentifier(uri=uri), position=pos)
    )
    return list(result.items if isinstance(result, types.CompletionList) else (result or []))


async def completion_labels(client: LanguageClient, uri: str, pos: types.Position) -> list[str]:
    return [item.label for item in await completion_items(client, uri, pos)]


async def test_complete_criterion_keys(client: LanguageClient):
    s = client.rubric_session
    text = "rubric:\n  - requirement: Says hi ✓\n    we\n"
    uri = s.open("complete/a.rubric.yaml", text)
    items = await completion_items(client, uri, at(s, text, "we", delta=2))
    labels = [item.label for item in items]
    assert "weight" in labels and "options" in labels and "scale_type" in labels
    assert "requirement" not in labels  # already there
    weight = next(item for item in items if item.label == "weight")
    # replaces the word typed so far ("we"), in the client's encoding
    assert weight.text_edit.new_text == "weight: "
    assert (
        weight.text_edit.range.start.line,
        weight.text_edit.range.start.character,
        weight.text_edit.range.end.character,
    ) == (2, 4, 6)


async def test_complete_top_level_keys(client: LanguageClient):
    s = client.rubric_session
    text = "rubric:\n  - requirement: Says hi\n\n"
    uri = s.open("complete/b.rubric.yaml", text)
    labels = await completion_labels(client, uri, types.Position(line=2, character=0))
    assert "guidelines" in labels and "examples" in labels and "rubric" not in labels


async def test_complete_enum_values(client: LanguageClient):
    s = client.rubric_session
    text = "rubric:\n  - requirement: Tone ✓\n    scale_type: \n"
    uri = s.open("complete/c.rubric.yaml", text)
    labels = await completion_labels(client, uri, at(s, text, "scale_type: ", delta=len("scale_type: ")))
    assert labels == ["ordinal", "nominal"]
    # triggered by typing ':' (no space yet): the value comes with its space
    text = "rubric:\n  - requirement: Tone ✓\n    scale_type:\n"
    uri = s.open("complete/c2.rubric.yaml", text)
    items = await completion_items(client, uri, at(s, text, "scale_type:", delta=len("scale_type:")))
    assert [i.text_edit.new_text for i in items] == [" ordinal", " nominal"]


async def test_complete_assertion_types_and_provider_ids(client: LanguageClient):
    s = client.rubric_session
    text = PROMPTFOO.replace("      - type: contains\n", "      - type: \n") + "    options:\n      provider: \n"
    uri = s.open("complete/promptfooconfig.yaml", text)
    items = await completion_items(client, uri, at(s, text, "- type: \n", delta=len("- type: ")))
    labels = [item.label for item in items]
    assert "llm-rubric" in labels and "contains" in labels and "g-eval" in labels
    # each assertion type comes with its documentation (the schema's enumDescriptions)
    documented = {item.label for item in items if item.documentation}
    assert len(known_assertion_types()) == 136 and set(known_assertion_types()) <= documented  # promptfoo 0.123.1
    providers = await completion_labels(client, uri, at(s, text, "provider: \n", delta=len("provider: ")))
    assert any(p.startswith("openai:") for p in providers) and any(p.startswith("anthropic:") for p in providers)


async def test_outline(client: LanguageClient):
    s = client.rubric_session
    uri = s.open("outline/a.rubric.yaml", RUBRIC)
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert [sym.name for sym in symbols] == ["Café 🎉 greeting", "sign-off", "rude-again"]
    assert symbols[1].range.start.line == 2 and symbols[1].detail.startswith("weight 2")
    uri = s.open("outline/promptfooconfig.yaml", PROMPTFOO)
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    tests = next(sym for sym in symbols if sym.name == "tests")
    assert [t.name for t in tests.children] == ["capital ✓"]
    assert [a.name for a in tests.children[0].children] == ["llm-rubric", "contains"]
    # Clients reject the whole answer when a selection is outside its symbol (prompts/providers once were).
    assert {"prompts", "providers"} <= {sym.name for sym in symbols}
    for sym in _all(symbols):
        assert _inside(sym.selection_range, sym.range), sym


def _all(symbols):
    for sym in symbols:
        yield sym
        yield from _all(sym.children or [])


def _inside(inner: types.Range, outer: types.Range) -> bool:
    start, end = (inner.start.line, inner.start.character), (inner.end.line, inner.end.character)
    return (outer.start.line, outer.start.character) <= start and end <= (outer.end.line, outer.end.character)


async def test_promptfoo_keys_follow_the_assertion_kind(client: LanguageClient):
    s = client.rubric_session
    text = PROMPTFOO.replace("        value: Names Paris\n", "        value: Names Paris\n        thr\n")
    uri = s.open("complete/keys/promptfooconfig.yaml", text)
    labels = await completion_labels(client, uri, at(s, text, "thr\n", delta=3))
    assert "threshold" in labels and "rubricPrompt" in labels
    assert "assert" not in labels  # only an assert-set has it, and this is an llm-rubric
    text = PROMPTFOO.replace("        value: Names Paris\n", "        value: Names Paris\n        threshold: 0.5\n")
    uri = s.open("hover/keys/promptfooconfig.yaml", text)
    shown = await hover(client, uri, at(s, text, "threshold", delta=2))
    from rubric_lsp.formats.registry import get_format

    schema = get_format("promptfoo-config").json_schema()
    defs = schema.get("$defs") or schema.get("definitions")
    assert defs["Assertion"]["properties"]["threshold"]["description"] in shown
    assert defs["AssertionSet"]["properties"]["threshold"]["description"] not in shown
