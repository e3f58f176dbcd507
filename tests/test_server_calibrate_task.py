"""The "▶ Calibrate the judge" lens on a Rubrics task holding human ratings, end to end against the local judge:
the lens (and its code action) is there, running it writes the very record `rubric calibrate task.json`
writes for the same judge answers, RL020 goes from uncalibrated or stale to fresh, and the hover on a
criterion shows its record."""

from __future__ import annotations

import asyncio
import json

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from rubric_lsp.cli import main
from tests.conftest import use_judge
from tests.judge_server import JudgeServer
from tests.rubrics_task_labels import CRITERIA, rate, task
from tests.server_helpers import findings_until, grading_session_fixture, judge_lifetime

JUDGE = JudgeServer().start()
client = grading_session_fixture(JUDGE)
pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.slow]


_judge_lifetime = judge_lifetime(JUDGE)


async def calibrate_lenses(client: LanguageClient, uri: str) -> list[types.CodeLens]:
    found = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    return [lens for lens in found or [] if lens.command and lens.command.title.startswith("▶ Calibrate")]


async def run_lens(client: LanguageClient, lens: types.CodeLens) -> dict:
    command = types.ExecuteCommandParams(command=lens.command.command, arguments=lens.command.arguments)
    return await asyncio.wait_for(client.workspace_execute_command_async(command), 90)


def title_position(text: str, key: str) -> types.Position:
    """The task's criterion ``key`` (a turn's annotation): the line after its ``key``, on its title."""
    lines = text.split("\n")
    line = next(n for n, row in enumerate(lines) if f'"key": "{key}"' in row) + 1
    return types.Position(line, lines[line].index('"title"') + len('"title": "'))


async def test_the_task_lens_writes_what_rubric_calibrate_writes(client: LanguageClient, monkeypatch):
    s = client.rubric_session
    JUDGE.handler = rate
    (s.root / "rubric-lint.toml").write_text("calibration = { required = true }\n")
    text = json.dumps(task(), indent=2)
    (s.root / "task.json").write_text(text)
    uri = s.open("task.json", text)
    assert await findings_until(s, uri, "RL020", bool)  # required, and no record yet

    (lens,) = await calibrate_lenses(client, uri)
    assert lens.command.title == "▶ Calibrate the judge" and list(lens.command.arguments) == [{"uri": uri}]
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=types.Position(1, 0), end=types.Position(1, 0)),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    action = next(a for a in actions or [] if a.title == "Calibrate the judge on this file")
    assert (action.command, list(action.arguments)) == (lens.command.command, list(lens.command.arguments))

    record_path = s.root / "task.json.calibration.json"
    answer = await run_lens(client, lens)
    assert answer["record"] == str(record_path) and answer["failed"] == 0
    # Every criterion and the preference: fresh.
    assert await findings_until(s, uri, "RL020", lambda found: found == []) == []
    written = record_path.read_bytes()
    units = [u["id"] for u in json.loads(written)["units"]]
    assert units[-1] == "preference" and "rubric_0_criteria_0" in units

    # The same judge, through `rubric calibrate task.json`: the same record, byte for byte.
    record_path.unlink()
    use_judge(monkeypatch, JUDGE, "sk-test-task-lens", s.root / "cli-cache")
    assert await asyncio.to_thread(main, ["calibrate", str(s.root / "task.json")]) == 0
    assert record_path.read_bytes() == written

    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=title_position(text, "rubric_0_criteria_0")
        )
    )
    shown = hover.contents.value if hover is not None else ""
    assert "over 2 labels" in shown and json.loads(written)["date"] in shown, shown

    # A criterion reworded (in the editor and on disk): stale, until the lens runs again.
    reworded = text.replace(CRITERIA[1], "Is polite and kind.")
    (s.root / "task.json").write_text(reworded)
    s.replace(uri, reworded)
    stale = await findings_until(s, uri, "RL020", bool)
    assert stale and all("stale" in d.message for d in stale), [d.message for d in stale]
    (lens,) = await calibrate_lenses(client, uri)
    await run_lens(client, lens)
    assert await findings_until(s, uri, "RL020", lambda found: found == []) == []


async def test_a_task_without_human_ratings_gets_no_lens(client: LanguageClient):
    s = client.rubric_session
    unrated = task()
    for turn in unrated["threads"][0]["turns"]:
        for message in turn["messages"]:
            message["annotations"] = []  # nobody rated a response: nothing to measure the judge against
    uri = s.open("unrated.json", json.dumps(unrated, indent=2))
    assert await calibrate_lenses(client, uri) == []
