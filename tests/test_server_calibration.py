"""Calibration in the editor, end to end against the local judge: with `calibration = { required = true }`
a dataset's criteria without a record are reported; the "Calibrate" lens's command writes the record and the
findings go; the hover shows the record's figures; one changed word makes that criterion stale."""

from __future__ import annotations

import asyncio
import json

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.calibration import dataset, reply_for
from tests.judge_server import JudgeServer
from tests.server_helpers import code_of, findings_until, grading_session_fixture, judge_lifetime

JUDGE = JudgeServer().start()
client = grading_session_fixture(JUDGE)
pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.slow]


_judge_lifetime = judge_lifetime(JUDGE)


async def calibration_findings(s, uri: str) -> list[types.Diagnostic]:
    return [d for d in await s.diagnostics(uri) if code_of(d) == "RL020"]


async def test_calibrate_lens_hover_and_a_stale_criterion(client: LanguageClient):
    s = client.rubric_session
    JUDGE.handler = lambda request: reply_for(request.text)
    (s.root / "rubric-lint.toml").write_text("calibration = { required = true }\n")
    text = json.dumps(dataset(12, f"maths {s.spec}"), indent=2)
    uri = s.open("maths.dataset.json", text, language="json")

    found = await calibration_findings(s, uri)
    assert sorted(d.message.split(":")[0] for d in found) == [
        "The criterion 'correct' has no calibration record",
        "The criterion 'shows_work' has no calibration record",
    ]
    assert found[0].severity == types.DiagnosticSeverity.Warning  # required raises the rule's info

    result = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    lens = next(lens for lens in result or [] if lens.command.title == "▶ Calibrate the judge")
    # the same command as a code action, for clients that show no code lenses (eglot, Helix)
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=types.Position(3, 0), end=types.Position(3, 0)),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    action = next(a for a in actions or [] if a.title == "Calibrate the judge on this file")
    assert (action.command, action.arguments) == (lens.command.command, lens.command.arguments)
    answer = await asyncio.wait_for(
        client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=lens.command.command, arguments=lens.command.arguments)
        ),
        90,
    )
    record_path = s.root / "maths.dataset.json.calibration.json"
    assert answer["record"] == str(record_path) and record_path.exists()
    assert await findings_until(s, uri, "RL020", 0) == []

    record = json.loads(record_path.read_text())
    unit = next(u for u in record["units"] if u["id"] == "shows_work")
    kappa = unit["figures"]["kappa"]
    expected = (
        f"κ {kappa['value']:.2f} [{kappa['interval'][0]:.2f}, {kappa['interval'][1]:.2f}] "
        f"over {unit['figures']['labels']} labels · judge · {record['date']}"
    )
    line = next(n for n, row in enumerate(text.split("\n")) if "Shows the working" in row)
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line, 8))
    )
    assert expected in hover.contents.value

    s.replace(uri, text.replace("Shows the working", "Shows all the working"))
    found = await findings_until(s, uri, "RL020", 1)
    assert len(found) == 1 and found[0].range.start.line == line - 1  # on the criterion's name
    assert "'shows_work' is stale: its text changed" in found[0].message


RUBRIC = "rubric:\n  - name: correct\n    requirement: Gives the right answer\n  - name: shows_work\n    requirement: Shows the working\n"


async def lenses(client: LanguageClient, uri: str) -> list[types.CodeLens]:
    found = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    return [lens for lens in found or [] if lens.command and lens.command.title.startswith("▶ Calibrate")]


async def test_a_rubric_calibrates_the_dataset_its_record_came_from(client: LanguageClient):
    """A rubric whose criteria a dataset's record holds (found through `calibration.path`) gets the lens;
    it calibrates that dataset, rewrites the record where the rubric's lint found it, and the rubric's
    stale criterion is fresh again."""
    s = client.rubric_session
    JUDGE.handler = lambda request: reply_for(request.text)
    team = s.root / "team"
    (team / "sets").mkdir(parents=True)
    (team / "rubric-lint.toml").write_text('calibration = { required = true, path = "sets" }\n')
    labelled = team / "sets" / "maths.dataset.json"
    labelled.write_text(json.dumps(dataset(12, f"team {s.spec}"), indent=2))
    record_path = team / "sets" / "maths.dataset.json.calibration.json"
    first = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="rubric-lsp.calibrate", arguments=[{"uri": labelled.as_uri()}])
    )
    assert first["record"] == str(record_path)  # an unopened dataset, calibrated from its file

    uri = s.open("team/maths.rubric.yaml", RUBRIC)
    assert await findings_until(s, uri, "RL020", 0) == []  # the dataset's record covers the rubric's criteria
    lens = (await lenses(client, uri))[0]
    assert lens.command.title == "▶ Calibrate the judge on maths.dataset.json"
    assert list(lens.command.arguments) == [{"uri": labelled.as_uri(), "record": str(record_path.resolve())}]
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=types.Position(1, 0), end=types.Position(1, 0)),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    action = next(a for a in actions or [] if a.title == "Calibrate the judge on maths.dataset.json")
    assert (action.command, list(action.arguments)) == (lens.command.command, list(lens.command.arguments))
    with pytest.raises(Exception, match=r"\"record\" must name a \*\.calibration\.json file"):
        await client.workspace_execute_command_async(  # the command writes records, and nothing else
            types.ExecuteCommandParams(
                command="rubric-lsp.calibrate", arguments=[{"uri": labelled.as_uri(), "record": str(team / "notes.md")}]
            )
        )
    assert not (team / "notes.md").exists()
    lonely = s.open("lonely.rubric.yaml", "rubric:\n  - name: polite\n    requirement: Is polite\n")
    assert await lenses(client, lonely) == []  # no record names a dataset for it

    # One word reworded in the rubric and in the dataset's copy: stale, until the rubric's lens runs.
    reworded = RUBRIC.replace("Shows the working", "Shows all the working")
    labelled.write_text(labelled.read_text().replace("Shows the working", "Shows all the working"))
    s.replace(uri, reworded)
    found = await findings_until(s, uri, "RL020", 1)
    assert len(found) == 1 and "'shows_work' is stale: its text changed" in found[0].message
    (lens,) = await lenses(client, uri)
    answer = await asyncio.wait_for(
        client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=lens.command.command, arguments=lens.command.arguments)
        ),
        90,
    )
    assert answer["record"] == str(record_path.resolve())
    assert await findings_until(s, uri, "RL020", 0) == []
    entry = next(u for u in json.loads(record_path.read_text())["units"] if u["id"] == "shows_work")
    assert entry["title"] == "Shows all the working"
