"""Whatever the CLI can grade, the editor can: a results file the config's tool wrote, graded whole over stdio
(pytest-lsp) — the code action on the config, the request ``rubric grade CONFIG --outputs results.json`` makes, a
lens per test entry with each column's pass rate over the tests it runs, a mark per entry with every cell, and the
grid page from ``rubric-lsp.report``. Replays promptfoo 0.123.1's recorded ``grid`` eval
(tests/data/promptfoo-recorded/results), its judge tests/judge_server.py answering by the recording's rules."""

from __future__ import annotations

import asyncio
import json

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.conftest import REPO
from tests.judge_server import JudgeServer, Reply
from tests.server_helpers import grading_session_fixture, judge_lifetime

JUDGE = JudgeServer().start()
PROFILES = [("neovim@v0.11", "pull", "utf-8")]
client = grading_session_fixture(JUDGE, PROFILES)
pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.slow]
_judge_lifetime = judge_lifetime(JUDGE)
HERE = REPO / "tests" / "data" / "promptfoo-recorded" / "results"


async def execute(client: LanguageClient, command: str, argument: dict) -> object:
    params = types.ExecuteCommandParams(command=command, arguments=[argument])
    return await asyncio.wait_for(client.workspace_execute_command_async(params), 120)


def _open(client: LanguageClient, folder: str) -> str:
    JUDGE.reset()
    script = json.loads((HERE / "grid.judge.json").read_text(encoding="utf-8"))
    for match, text in script["rules"]:
        JUDGE.when(match, Reply.text(text))
    JUDGE.default = Reply.text(script["default"])
    session = client.rubric_session
    (session.root / folder).mkdir(parents=True, exist_ok=True)
    (session.root / folder / "results.json").write_text((HERE / "grid.results.json").read_text("utf-8"), "utf-8")
    config = (HERE / "grid.config.yaml").read_text(encoding="utf-8").replace("{API}", JUDGE.base_url)
    return session.open(f"{folder}/promptfooconfig.yaml", config)


async def test_the_code_action_grades_the_results_file_whole_with_lenses_per_entry(client: LanguageClient):
    uri = _open(client, "graded")
    start = types.Position(line=0, character=0)
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=start, end=start),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    [action] = [a for a in actions or [] if "results.json" in a.title]
    assert action.title == "Grade results.json (every output) with promptfooconfig.yaml"
    command = action if isinstance(action, types.Command) else action.command
    answer = await execute(client, command.command, command.arguments[0])
    # the CLI's JSON: every row graded, as promptfoo recorded it
    rows = json.loads((HERE / "grid.results.json").read_text(encoding="utf-8"))["results"]["results"]
    assert len(answer["cells"]) == len(rows) == 24 and answer["differences"] == 0
    passed = sum(c["result"] == "PASS" for c in answer["cells"])
    assert passed == sum(r["success"] for r in rows)
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    titles = {(lens.range.start.line, lens.command.title) for lens in lenses or [] if lens.command}
    assert (
        0,
        f"Graded results.json: {passed}/24 passed ({passed}/24 as promptfoo 0.123.1 recorded) · 0 differ",
    ) in titles
    # each entry: each column's pass rate over the tests it runs (entry 1: tests 1–2; entry 2: tests 3–6)
    text = client.rubric_session.texts[uri].splitlines()
    for description, numbers in (("capital", {1, 2}), ("cities", {3, 4, 5, 6})):
        line = next(i for i, t in enumerate(text) if t.strip() == f"- description: {description}")
        columns = answer["columns"]
        parts = []
        for column in columns:
            mine = [c for c in answer["cells"] if c["test"] in numbers and c["column"] == column["index"]]
            label = column["label"] if len(column["label"]) <= 28 else column["label"][:27] + "…"
            parts.append(f"{label}: {sum(c['result'] == 'PASS' for c in mine)}/{len(mine)}")
        assert (line, "Results: " + " · ".join(parts)) in titles
    marks = {entry["range"]["start"]["line"]: entry for entry in answer["shown"]}
    assert len(marks) == 2 and all(m["label"].endswith(" passed") for m in marks.values())
    # the grid page, as rubric grade --report writes it
    page = await execute(client, "rubric-lsp.report", {"uri": uri})
    assert "grid-row" in page["html"] and "promptfoo 0.123.1" in page["html"]


async def test_grade_results_finds_the_results_file_beside_the_config(client: LanguageClient):
    uri = _open(client, "found")
    answer = await execute(client, "rubric-lsp.gradeResults", {"uri": uri})
    assert len(answer["cells"]) == 24 and answer["results"] == "results.json"


async def test_a_results_file_that_is_not_one_is_refused_in_one_line(client: LanguageClient):
    uri = _open(client, "bad")
    (client.rubric_session.root / "bad" / "other.json").write_text('{"evalId": 1}', encoding="utf-8")
    answer = await execute(client, "rubric-lsp.grade", {"uri": uri, "kind": "results", "results": "other.json"})
    assert "not a promptfoo results file" in json.dumps(answer)
