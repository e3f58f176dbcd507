"""Editor hooks of a promptfoo config: tests and assertions in the outline, a grader's origin on hover,
known assertion types and provider ids in completion."""

from __future__ import annotations

import logging
from pathlib import Path

from rubric_lsp.document import Node
from rubric_lsp.formats.editor import EditorContext, GradableUnit, GradePlan, OutlineItem, key_and_value, short
from rubric_lsp.formats.promptfoo.assertion_types import known_assertion_types

log = logging.getLogger(__name__)

# Provider ids promptfoo understands (prefix:kind:model); the model part is an example.
PROVIDER_IDS = (
    "openai:gpt-4.1-mini",
    "openai:chat:gpt-4.1",
    "openai:gpt-5",
    "openai:responses:o4-mini",
    "anthropic:messages:claude-sonnet-4-5-20250929",
    "anthropic:messages:claude-3-5-haiku-20241022",
    "azureopenai:chat:<deployment>",
    "google:gemini-2.5-pro",
    "vertex:gemini-2.5-pro",
    "bedrock:anthropic.claude-3-5-sonnet-20241022-v2:0",
    "mistral:mistral-large-latest",
    "groq:llama-3.3-70b-versatile",
    "deepseek:deepseek-chat",
    "openrouter:openai/gpt-4o",
    "ollama:chat:llama3.1",
    "vllm:<model>",
    "xai:grok-3",
    "togetherai:meta-llama/Llama-3.3-70B-Instruct-Turbo",
    "fireworks:accounts/fireworks/models/llama-v3p1-70b-instruct",
    "perplexity:sonar",
    "cohere:command-r-plus",
    "github:openai/gpt-4.1",
    "huggingface:text-generation:<model>",
    "echo",
    "python:provider.py",
    "file://provider.py",
    "exec:./provider.sh",
    "http://localhost:8080/generate",
)


# Where a value is a provider id: the key, and a key above it on the path.
_PROVIDER_PARENTS = ("provider", "providers", "targets", "options")


def completion_values(path: list, key: str) -> list:
    """Assertion types after ``type:`` in an assertion; provider ids where a provider goes; red-team
    plugin and strategy ids after ``id:`` in ``redteam.plugins`` / ``redteam.strategies``."""
    values: list = []
    if key == "type" and any(p in ("assert", "assertions") for p in path if isinstance(p, str)):
        values.extend(sorted(known_assertion_types()))
    if key == "provider" or (
        key in ("provider", "id") and any(p in _PROVIDER_PARENTS for p in path[:-1] if isinstance(p, str))
    ):
        values.extend(PROVIDER_IDS)
    if key == "id" and len(path) >= 4 and path[-4] == "redteam" and isinstance(path[-2], int):
        from rubric_lsp.formats.promptfoo import redteam_ids

        if path[-3] == "plugins":
            values.extend(sorted(redteam_ids.PLUGINS))
        elif path[-3] == "strategies":
            runnable = redteam_ids.REGISTERED_STRATEGIES | set(redteam_ids.STRATEGY_COLLECTIONS)
            values.extend(sorted(redteam_ids.STRATEGIES & runnable))
    return values


# -- outline --------------------------------------------------------------------------------------
def outline(ctx: EditorContext) -> list[OutlineItem]:
    root = ctx.root
    out: list[OutlineItem] = []
    if root is None or not root.is_map:
        return out
    default = root.get("defaultTest")
    if default is not None and default.is_map:
        out.append(OutlineItem("defaultTest", "Class", default.span, children=_assertions(default)))
    tests = root.get("tests")
    if tests is not None and tests.is_seq:
        children = []
        for i, test in enumerate(tests.elements()):
            if not test.is_map:
                continue
            description = test.get("description")
            name = (
                short(description.value)
                if description is not None and description.is_scalar and description.value
                else f"test {i + 1}"
            )
            children.append(OutlineItem(name, "Method", test.span, children=_assertions(test)))
        out.append(OutlineItem("tests", "Array", tests.span, children=children))
    for key in ("prompts", "providers", "targets", "redteam", "scenarios"):
        node, key_node = root.get(key), root.key_node(key)
        if node is not None and key_node is not None:
            # The entry runs from its key through its value, so the key (the selection) lies inside it.
            out.append(OutlineItem(key, "Module", key_and_value(key_node, node), key_node.span))
    return out


def _assertions(test: Node) -> list[OutlineItem]:
    found = []
    asserts = test.get("assert")
    for item in asserts.elements() if asserts is not None and asserts.is_seq else []:
        if not item.is_map:
            continue
        kind = item.get("type")
        value = item.get("value")
        name = str(kind.value) if kind is not None and kind.is_scalar else "assertion"
        detail = short(value.value, 50) if value is not None and value.is_scalar and value.value is not None else None
        children = _assertions(item) if name == "assert-set" else []
        found.append(OutlineItem(name, "Boolean", item.span, detail=detail, children=children))
    return found


# -- hover ------------------------------------------------------------------------------------------
def hover(ctx: EditorContext, offset: int) -> list[str]:
    """On a model-graded assertion: which grader judges it, and where that choice comes from."""
    view = ctx.view
    if view is None:
        return []
    try:
        assertion = view.assertion_at(offset)
        if assertion is None or assertion.grader_kind is None:
            return []
        tests = view.tests_using(assertion) or [None]
        by_text: dict[str, list[str]] = {}
        for test in tests:
            choice = view.grader(assertion, test)
            text = choice.describe()
            if ctx.judge and not choice.grades(True):  # the editor's judge replaces it, as --grader would
                text = f"Graded here by the editor's judge {', '.join(ctx.judge)} (rubric.judge.model). {text}"
            by_text.setdefault(text, []).append(test.label if test is not None else "every test")
    except Exception:
        log.exception("resolving the grader failed")
        return []
    head = f"**`{assertion.type}`** is model-graded."
    if len(by_text) == 1:
        return [f"{head}\n\n{next(iter(by_text))}"]
    lines = [head, ""]
    for text, labels in by_text.items():
        shown = ", ".join(labels[:5]) + (f" and {len(labels) - 5} more" if len(labels) > 5 else "")
        lines.append(f"- {shown}: {text}")
    return ["\n".join(lines)]


# -- grading from the editor ------------------------------------------------------------------------
# The most "▶ Grade" lenses (and code actions) one test entry gets: a vars list of hundreds of values would
# bury the entry under its lenses; the rest are graded by number (rubric-lsp.grade {"test": N}, --test N).
LENSES_PER_ENTRY = 20


def gradable_units(ctx: EditorContext) -> list[GradableUnit]:
    """Each test promptfoo runs (``cases``: a vars list is one test per value), graded against the last response
    used for the config, on the entry of the config it comes from: an entry with a list var gets one per value."""
    view = ctx.view  # the lint's ConfigView of the document
    if view is None or not hasattr(view, "numbering"):
        return []
    units = []
    per_entry: dict[int, int] = {}
    for case in view.numbering.cases:
        entry = case.entry
        if entry is None or entry.node is None or not entry.node.is_map or not entry.source.is_config:
            continue  # a test from a file, or promptfoo's empty test: nothing in the config to put it on
        per_entry[id(entry)] = per_entry.get(id(entry), 0) + 1
        if per_entry[id(entry)] > LENSES_PER_ENTRY:
            continue  # a long list of values: the first ones only (every test stays gradable by number)
        description = entry.get("description")
        label = str(description.value) if description is not None and description.is_scalar else ""
        if not label or case.expanded or case.repeat:
            label = f"{label} · {case.label}" if label else case.label
        plan = GradePlan("response", test=case.number)
        units.append(GradableUnit(label, "test", entry.node.span, plan, target=True))
    return units


def examples_plan(ctx: EditorContext) -> GradePlan | None:
    """Every test, against the last response used: a config holds no responses of its own."""
    return GradePlan("response") if ctx.root is not None and ctx.root.is_map and ctx.root.has("tests") else None


# How many results files the editor offers (the newest first), and how much of each is read to recognise one.
RESULTS_OFFERED = 5
_SNIFF_BYTES = 4096
_RESULTS_MARKS = ('"evalId"', '"testIdx"')  # 0.123.1's results.json opens with evalId; a .jsonl row holds testIdx


def results_files(ctx: EditorContext) -> list[str]:
    """``promptfoo eval -o results.json`` (or ``.jsonl``) files in the config's folder, newest first: a JSON file
    whose first bytes hold promptfoo's ``evalId`` (or a row's ``testIdx``)."""
    path = ctx.document.path
    if path is None or ctx.root is None or not ctx.root.is_map:
        return []
    folder = Path(path).parent
    found = []
    try:
        candidates = [p for p in folder.iterdir() if p.suffix in (".json", ".jsonl") and p.name != Path(path).name]
    except OSError:
        return []
    for candidate in candidates[:200]:
        try:
            if not candidate.is_file():  # never a FIFO or a device
                continue
            with candidate.open("rb") as handle:
                head = handle.read(_SNIFF_BYTES).decode("utf-8", "replace")
            if any(mark in head for mark in _RESULTS_MARKS):
                found.append((candidate.stat().st_mtime, str(candidate)))
        except OSError:
            continue
    return [name for _, name in sorted(found, reverse=True)[:RESULTS_OFFERED]]
