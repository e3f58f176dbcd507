"""Reviewing a rubric from the editor, end to end against the local scripted judge: the "▶ Review this rubric"
lens and code action carry ``rubric-lsp.review``; running it publishes the findings as diagnostics of source
rubric-review beside the lint's (push and pull); they stay through edits elsewhere and go when the words of
their criterion change; a judge failure shows as a criterion not reviewed, never as a clean review."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from rubric_lsp.review.questions import QUESTIONS
from tests.judge_server import JudgeServer, Reply
from tests.server_helpers import grading_session_fixture, judge_lifetime

JUDGE = JudgeServer().start()
client = grading_session_fixture(JUDGE)
pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.slow]
_judge_lifetime = judge_lifetime(JUDGE)

RUBRIC = """\
- name: ack
  requirement: The response acknowledges the order number and offers a refund.
  weight: 5
- name: capital
  requirement: Names Canberra as the capital
  weight: 2
  wieght: 1
"""


def scripted(request) -> Reply:
    shown = request.messages[-1]["content"]
    reply = {q.smell: {"present": False, "words": "", "reason": "no"} for q in QUESTIONS}
    if "offers a refund" in shown:
        reply["double-barreled"] = {"present": True, "words": "offers a refund", "reason": "two acts under one verdict"}
    if "Sydney" in shown:
        return Reply.garbage()
    return Reply.json(reply)


async def review_lens(client: LanguageClient, uri: str) -> types.CodeLens:
    found = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    (lens,) = [lens for lens in found or [] if lens.command and lens.command.title == "▶ Review this rubric"]
    return lens


async def run(client: LanguageClient, command: types.Command) -> dict:
    params = types.ExecuteCommandParams(command=command.command, arguments=command.arguments)
    return await asyncio.wait_for(client.workspace_execute_command_async(params), 120)


async def reviewed(s, uri: str, wanted, timeout: float = 60) -> list[types.Diagnostic]:
    """The document's rubric-review diagnostics once ``wanted(them)`` holds (pulled, or the newest push)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        everything = await s.diagnostics(uri) if s.mode == "pull" else s.client.diagnostics.get(uri, [])
        found = [d for d in everything if d.source == "rubric-review"]
        if wanted(found) or loop.time() > deadline:
            return found
        await asyncio.sleep(0.2)


async def test_the_lens_reviews_and_the_findings_stay_until_their_criterion_changes(client: LanguageClient):
    s = client.rubric_session
    JUDGE.handler = scripted
    uri = s.open("review.rubric.yaml", RUBRIC)
    lens = await review_lens(client, uri)
    assert list(lens.command.arguments) == [{"uri": uri}] and lens.range.start.line == 0
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=types.Position(1, 4), end=types.Position(1, 4)),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    assert any(a.title == "Review this rubric" and a.command == "rubric-lsp.review" for a in actions or [])

    answer = await run(client, lens.command)
    assert answer["kind"] == "review" and answer["findings"] == 1 and answer["errors"] == 0
    found = await reviewed(s, uri, lambda f: len(f) == 1)
    assert [(d.code, d.range.start.line) for d in found] == [("double-barreled", 1)]
    assert found[0].severity == types.DiagnosticSeverity.Information
    assert "two acts under one verdict" in found[0].message
    line = RUBRIC.split("\n")[1]
    assert found[0].range.start.character == line.index("offers a refund")  # the words the judge quoted
    everything = await s.diagnostics(uri)
    assert "AR001" in {str(d.code) for d in everything}  # beside the lint's own findings

    # An edit elsewhere keeps it (moved with its criterion); an edit to its words drops it.
    moved = "# a comment\n" + RUBRIC
    s.replace(uri, moved)
    found = await reviewed(s, uri, lambda f: len(f) == 1 and f[0].range.start.line == 2)
    assert [d.range.start.line for d in found] == [2]
    s.replace(uri, moved.replace("offers a refund", "offers a voucher"))
    assert await reviewed(s, uri, lambda f: not f) == []


async def test_a_judge_failure_shows_a_criterion_not_reviewed(client: LanguageClient):
    s = client.rubric_session
    JUDGE.handler = scripted
    uri = s.open("failed.rubric.yaml", "- name: wrong\n  requirement: Names Sydney as the capital\n  weight: -2\n")
    answer = await run(client, types.Command(title="", command="rubric-lsp.review", arguments=[{"uri": uri}]))
    assert answer["errors"] == 1 and answer["criteria"][0]["error"]
    found = await reviewed(s, uri, lambda f: len(f) == 1)
    assert [(d.code, d.severity) for d in found] == [("not-reviewed", types.DiagnosticSeverity.Warning)]
    assert "was not reviewed" in found[0].message
