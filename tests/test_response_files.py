"""A grading that needs a response gets one as a document (issue 35 item 3; server/responses.py).

Over stdio with pytest-lsp, as VS Code, Neovim 0.11 (both open documents the server shows:
``window/showDocument``) and Emacs 29's eglot (which cannot be asked): with no response yet, a
test's "Grade" creates ``<file>.response.md`` beside the config, asks the client to open it and
says what to run in each editor; the response file's "▶ Grade against …" lens and code action
grade the test against what is written there (unsaved edits included); grading the test again
reads it too. Every line of a test belongs to it, the dash and indent of its first line included.
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.configs import TWO_TESTS
from tests.judge_server import JudgeServer, Reply
from tests.server_helpers import grading_session_fixture, judge_lifetime

JUDGE = JudgeServer().start()
PROFILES = [
    ("visual-studio-code", "push", "utf-16"),
    ("neovim@v0.11", "pull", "utf-8"),
    ("emacs@v29.1", "push", "utf-32"),
]
# A server per test: "needs a response" is asked only of a server that has graded no response yet.
IDS = [f"{spec.split('@')[0]}-{mode}" for spec, mode, _ in PROFILES]
client = grading_session_fixture(JUDGE, PROFILES, IDS, scope="function")
lines_client = grading_session_fixture(JUDGE, PROFILES, IDS)  # grades nothing: one server for the module
pytestmark = [pytest.mark.slow]
FRESH = pytest.mark.asyncio(loop_scope="function")
_judge_lifetime = judge_lifetime(JUDGE)

PASS = Reply.json({"reason": "Fine.", "pass": True, "score": 1})
# tests.configs' two tests (tagged: the servers of one module share a verdict cache), a comment after the second
# test's first line, a blank line, and a third test with no description
THIRD = (
    "\n"
    "  - vars: {{question: 'Third'}}\n"
    "    assert:\n"
    "      - type: llm-rubric\n"
    "        value: Answers the third ({tag})\n"
    "        provider: openai:judge\n"
)


def config_text(tag: str) -> str:
    text = TWO_TESTS.replace("as the capital\n", f"as the capital ({tag})\n").replace(
        "politely\n", f"politely ({tag})\n"
    )
    return text.replace("polite refusal\n", "polite refusal  # the second test\n") + THIRD.format(tag=tag)


SECOND = 9  # the line of "  - description: polite refusal"


@pytest.fixture(autouse=True)
def _fresh_judge():
    JUDGE.reset()
    JUDGE.default = PASS
    yield


def tag(client: LanguageClient) -> str:
    s = client.rubric_session
    return f"{s.spec} {s.mode}"


def at(line: int, character: int) -> dict:
    return {"start": {"line": line, "character": character}, "end": {"line": line, "character": character}}


async def execute(client: LanguageClient, command: str, argument: dict | None = None, timeout: float = 300):
    params = types.ExecuteCommandParams(command=command, arguments=None if argument is None else [argument])
    return await asyncio.wait_for(client.workspace_execute_command_async(params), timeout)


async def titles_at(client: LanguageClient, uri: str, line: int, character: int) -> list[str]:
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=types.Position(line, character), end=types.Position(line, character)),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    return [a.title for a in actions or []]


async def lenses(client: LanguageClient, uri: str) -> list[types.CodeLens]:
    found = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    return list(found or [])


def can_show(client: LanguageClient) -> bool:
    return not client.rubric_session.spec.startswith("emacs")


@pytest.mark.asyncio(loop_scope="module")
async def test_every_line_of_a_test_is_the_test(lines_client: LanguageClient):
    """On `  - description:` the code action answers from column 0 (Emacs' back-to-indentation lands on the
    dash); the comment after a test's last value and its indent are its own too; a blank line is no test's."""
    client = lines_client
    s = client.rubric_session
    uri = s.open("lines/promptfooconfig.yaml", config_text(tag(client)))
    lines = config_text(tag(client)).split("\n")
    for character in (0, 1, 2, 3, 4, 20, len(lines[SECOND])):
        graded = [t for t in await titles_at(client, uri, SECOND, character) if t.startswith("Grade this")]
        assert graded == ["Grade this test (polite refusal)"], (character, graded)
    assert [t for t in await titles_at(client, uri, 16, 2) if t.startswith("Grade this")] == [
        "Grade this test (test 3)"
    ]
    assert [t for t in await titles_at(client, uri, 15, 0) if t.startswith("Grade this")] == []
    assert [t for t in await titles_at(client, uri, 8, 30) if t.startswith("Grade this")] == [
        "Grade this test (capital of France)"
    ]


@FRESH
async def test_a_test_without_a_response_opens_a_response_file_to_grade_it_against(client: LanguageClient):
    s = client.rubric_session
    config = s.open("needs/promptfooconfig.yaml", config_text(tag(client)))
    client.shown_documents.clear()
    # the cursor at the very start of the test's first line: that test, not the whole file
    answer = await execute(client, "rubric-lsp.gradeSelection", {"uri": config, "range": at(SECOND, 0)})
    written = s.root / "needs" / "promptfooconfig.yaml.response.md"
    assert answer["needsResponse"] is True and JUDGE.call_count == 0
    assert answer["responseFile"] == written.as_uri() and written.read_text() == ""
    assert answer["unit"] == "test 'polite refusal'"
    message = answer["message"]
    assert f":RubricGrade {written}" in message and f"M-x rubric-grade-with-response RET {written}" in message
    assert "▶ Grade against test 'polite refusal' (promptfooconfig.yaml)" in message
    if can_show(client):
        assert [d.uri for d in client.shown_documents] == [written.as_uri()]
        assert "promptfooconfig.yaml.response.md (opened beside it)" in message
    else:  # eglot before Emacs 30 cannot be asked to open it: the message names the whole path
        assert client.shown_documents == [] and "opened" not in message
    assert any(m.message == message for m in client.messages)

    # still empty: the response file's lens says so and asks no judge
    (lens,) = await lenses(client, written.as_uri())
    assert (lens.range.start.line, lens.command.title) == (
        0,
        "▶ Grade against test 'polite refusal' (promptfooconfig.yaml)",
    )
    empty = await execute(client, lens.command.command, lens.command.arguments[0])
    assert "is empty" in empty["message"] and JUDGE.call_count == 0

    # written and saved: the lens grades test 2 against it
    written.write_text("I'm sorry, I can't share that.\n")
    report = await execute(client, lens.command.command, lens.command.arguments[0])
    asked = [r.text for r in JUDGE.completions]
    assert len(asked) == 1 and "Refuses politely" in asked[0] and "can't share that" in asked[0], asked
    assert report["passed"] is True and [e["range"]["start"]["line"] for e in report["shown"]] == [12]

    # grading the test again (from the config) reads the response file: opened with unsaved edits here
    JUDGE.reset()
    opened = s.open("needs/promptfooconfig.yaml.response.md", "No secrets here, sorry.\n", "markdown", write=False)
    again = await execute(client, "rubric-lsp.gradeSelection", {"uri": config, "range": at(SECOND, 2)})
    asked = [r.text for r in JUDGE.completions]
    assert len(asked) == 1 and "No secrets here" in asked[0] and again["units"] == ["polite refusal"], asked
    # the code action in the response file itself (clients without lenses)
    JUDGE.reset()
    titles = await titles_at(client, written.as_uri(), 0, 3)
    assert "Grade against test 'polite refusal' (promptfooconfig.yaml)" in titles
    # Grade Selection inside the response file: its own unit is the target, no list of targets
    s.replace(opened, "Nothing to share, sorry.\n")
    graded = await execute(client, "rubric-lsp.gradeSelection", {"uri": opened})
    assert graded["passed"] is True and "Nothing to share" in JUDGE.completions[0].text
    assert written.read_text() == "I'm sorry, I can't share that.\n"  # never written by the server

    # a response graded some other way ("text", a selection elsewhere) is the one to use from then on
    await execute(client, "rubric-lsp.grade", {"uri": config, "text": "From a selection.", "test": 2})
    JUDGE.reset()
    report = await execute(client, "rubric-lsp.gradeSelection", {"uri": config, "range": at(SECOND, 0)})
    # graded again (the same response and criterion: from the verdict cache), never against the file's text
    assert report["passed"] is True and report["units"] == ["polite refusal"]
    assert [r.text for r in JUDGE.completions if "No secrets" in r.text or "can't share" in r.text] == []
    assert await lenses(client, written.as_uri()) == []


@FRESH
async def test_a_folder_that_takes_no_file_puts_the_response_file_in_the_temporary_folder(client: LanguageClient):
    """A folder in the way of the response file's name stands for a folder that cannot be written (the tests
    run as root, who can write anywhere): the response file goes to a folder of the temporary directory."""
    s = client.rubric_session
    config = s.open("blocked/promptfooconfig.yaml", config_text(tag(client)))
    (s.root / "blocked" / "promptfooconfig.yaml.response.md").mkdir()
    before = len(client.messages)
    # "show": false, as the VS Code extension sends it: it shows its own toast, with a button, from the answer
    argument = {"uri": config, "range": at(SECOND, 4), "show": False}
    answer = await execute(client, "rubric-lsp.gradeSelection", argument)
    path = Path(unquote(urlparse(answer["responseFile"]).path))
    try:
        assert answer["needsResponse"] is True and len(client.messages) == before
        grade = answer["grade"]
        assert grade["command"] == "rubric-lsp.grade" and grade["arguments"][0]["test"] == 2
        assert grade["title"] == "▶ Grade against test 'polite refusal' (promptfooconfig.yaml)"
        assert path.name == "promptfooconfig.yaml.response.md" and path.is_file()
        assert path.parent.parent.name == "rubric-lsp-responses" and s.root not in path.parents
        assert f":RubricGrade {path}" in answer["message"]
        path.write_text("Sorry, no.\n")
        (lens,) = await lenses(client, answer["responseFile"])
        report = await execute(client, lens.command.command, lens.command.arguments[0])
        assert report["passed"] is True and "Sorry, no." in JUDGE.completions[0].text
    finally:
        shutil.rmtree(path.parent, ignore_errors=True)
