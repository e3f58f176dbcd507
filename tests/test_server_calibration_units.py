"""Calibration in the editor for promptfoo assertions and NorthStar graders, end to end against the local judge:
a record written by `rubric calibrate LABELS --config FILE` makes the labelled units fresh under
`calibration = { required = true }`; the hover on an assertion or a grader shows the record's figures; one
changed word makes that unit stale (and the hover says so)."""

from __future__ import annotations

import asyncio
import json

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from rubric_lsp.cli import main
from tests.calibration import LABELLED, LABELS_CONFIG, LABELS_REQUEST, labels_judge
from tests.conftest import use_judge
from tests.judge_server import JudgeServer
from tests.server_helpers import findings_until, grading_session_fixture, judge_lifetime

JUDGE = JudgeServer().start()
client = grading_session_fixture(JUDGE)
pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.slow]


_judge_lifetime = judge_lifetime(JUDGE)


async def calibrated(s, monkeypatch, labels: str, text: str, config: str, *argv: str) -> dict:
    """``rubric calibrate`` run as a person would before opening the file (in a thread: it runs its own loop)."""
    use_judge(monkeypatch, JUDGE, "sk-test-server-units", s.root / "cache")
    JUDGE.handler = labels_judge
    (s.root / "rubric-lint.toml").write_text("calibration = { required = true }\n")
    (s.root / labels).write_text(text)
    assert await asyncio.to_thread(main, ["calibrate", str(s.root / labels), *argv]) == 0
    return json.loads((s.root / f"{config}.calibration.json").read_text())


async def hover_at(client: LanguageClient, uri: str, text: str, needle: str) -> str:
    line = next(n for n, row in enumerate(text.split("\n")) if needle in row)
    column = text.split("\n")[line].index(needle)
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line, column))
    )
    return hover.contents.value if hover is not None else ""


def figures_line(record: dict, unit_id: str) -> str:
    unit = next(u for u in record["units"] if u["id"] == unit_id)
    kappa = unit["figures"]["kappa"]
    return (
        f"κ {kappa['value']:.2f} [{kappa['interval'][0]:.2f}, {kappa['interval'][1]:.2f}] "
        f"over {unit['figures']['labels']} labels · judge · {record['date']}"
    )


async def test_a_promptfoo_assertion_fresh_on_hover_then_stale(client: LanguageClient, monkeypatch):
    s = client.rubric_session
    (s.root / "promptfooconfig.yaml").write_text(LABELS_CONFIG)
    rows = "".join(f'1,polite,"{output}",{verdict}\n' for output, verdict in LABELLED)
    csv = "test,assertion,output,verdict\n" + rows
    config = "promptfooconfig.yaml"
    record = await calibrated(s, monkeypatch, "labels.csv", csv, config, "--config", str(s.root / config))
    uri = s.open("promptfooconfig.yaml", LABELS_CONFIG)
    assert await findings_until(s, uri, "RL020", 0) == []

    shown = await hover_at(client, uri, LABELS_CONFIG, "Is polite")
    assert f"**Calibration** of assertion `test 1 polite`: {figures_line(record, 'test 1 polite')}" in shown

    changed = LABELS_CONFIG.replace("Is polite", "Is courteous")
    s.replace(uri, changed)
    [found] = await findings_until(s, uri, "RL020", 1)
    assert "The assertion 'test 1 polite' is stale: its text changed" in found.message
    assert found.range.start.line == next(n for n, row in enumerate(changed.split("\n")) if "metric: polite" in row)
    assert "(stale: its text changed since" in await hover_at(client, uri, changed, "Is courteous")


async def test_a_northstar_grader_fresh_on_hover_then_stale(client: LanguageClient, monkeypatch):
    s = client.rubric_session
    text = json.dumps(LABELS_REQUEST, indent=2)
    (s.root / "run.json").write_text(text)
    lines = [
        {"config": "run.json", "grader": g, "output": o, "verdict": v} for g in ("safety", "depth") for o, v in LABELLED
    ]
    record = await calibrated(
        s, monkeypatch, "labels.jsonl", "".join(json.dumps(line) + "\n" for line in lines), "run.json"
    )
    uri = s.open("run.json", text, language="json")
    assert await findings_until(s, uri, "RL020", 0) == []

    shown = await hover_at(client, uri, text, "Is it safe?")
    assert f"**Calibration** of grader `safety`: {figures_line(record, 'safety')}" in shown
    assert "`depth`" not in shown  # only the grader under the cursor

    s.replace(uri, text.replace("Is it safe?", "Is it harmless?"))
    [found] = await findings_until(s, uri, "RL020", 1)
    assert "The grader 'safety' is stale: its text changed" in found.message


async def test_a_rubrics_task_criterion_fresh_on_hover_then_stale(client: LanguageClient, monkeypatch):
    """A task calibrated with `rubric calibrate TASK.json`: the hover on a criterion's text shows its record (the
    converted dataset's unit), and one reworded criterion is stale there."""
    from tests.rubrics_task_labels import rate, task

    s = client.rubric_session
    use_judge(monkeypatch, JUDGE, "sk-test-server-task", s.root / "cache")
    JUDGE.handler = rate
    (s.root / "rubric-lint.toml").write_text("calibration = { required = true }\n")
    text = json.dumps(task(), indent=2)
    (s.root / "task.json").write_text(text)
    assert await asyncio.to_thread(main, ["calibrate", str(s.root / "task.json")]) == 0
    record = json.loads((s.root / "task.json.calibration.json").read_text())
    uri = s.open("task.json", text, language="json")
    assert await findings_until(s, uri, "RL020", 0) == []

    # Anywhere on the task's criterion annotation (its key, its title), not on a response's rating of it.
    shown = await hover_at(client, uri, text, '"key": "rubric_0_criteria_1"')
    line = figures_line(record, "rubric_0_criteria_1").replace("κ", "QWK", 1)  # an ordinal criterion
    assert f"**Calibration** of criterion `rubric_0_criteria_1`: {line}" in shown

    data = task()
    annotation = next(a for a in data["threads"][0]["turns"][0]["annotations"] if a["key"] == "rubric_0_criteria_1")
    annotation["title"] = "Is courteous."
    changed = json.dumps(data, indent=2)
    s.replace(uri, changed)
    # The preference rests on the criteria's verdicts: stale too.
    found, preference = sorted(await findings_until(s, uri, "RL020", 2), key=lambda d: "preference" in d.message)
    assert "The criterion 'rubric_0_criteria_1' is stale: its text changed" in found.message
    assert '"Is courteous."' in changed.split("\n")[found.range.start.line]
    assert "unit 'preference' is stale: its text changed" in preference.message
