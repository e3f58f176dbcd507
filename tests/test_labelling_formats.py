"""Labelling the other formats, in each one's own words and places: a Rubrics task's ratings and pick written into
the task as its own annotations are (and read back by ``rubric convert``), a NorthStar request's graders labelled
on eval cases into a labels file that ``rubric calibrate`` reads."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

from rubric_lsp.cli import main
from rubric_lsp.document import parse_document
from rubric_lsp.formats.rubrics_task.convert import task_to_dataset
from rubric_lsp.formats.rubrics_task.view import read_task
from rubric_lsp.labelling.session import Options, Session
from rubric_lsp.lint import lint_text
from tests.conftest import use_judge
from tests.judge_server import Reply

SAMPLES = Path(__file__).parent.parent / "samples"


def unrated_task(tmp_path: Path) -> Path:
    """The sample task with model_b's ratings and the turn's pick taken out (as a task before rating)."""
    data = json.loads((SAMPLES / "rubrics-task" / "task.json").read_text())
    turn = data["threads"][0]["turns"][0]
    turn["messages"][2]["annotations"] = []
    turn["annotations"] = [a for a in turn["annotations"] if a.get("key") != "selected_model_id"]
    path = tmp_path / "task.json"
    path.write_text(json.dumps(data, indent=2) + "\n")
    return path


def added_lines(before: str, after: str) -> list[str]:
    return [
        line[1:].strip() for line in difflib.ndiff(before.splitlines(), after.splitlines()) if line.startswith("+ ")
    ]


def test_a_rubrics_task_is_rated_and_picked_in_its_own_annotations(tmp_path):
    path = unrated_task(tmp_path)
    before = path.read_text()
    session = Session(path, Options(labeller="ann"))
    state = session.state()
    assert state["item"]["title"] == "thread_0/turn_0: model_b"
    units = state["item"]["units"]
    assert [u["id"] for u in units] == ["rubric_0_criteria_0", "rubric_0_criteria_1", "rubric_0_criteria_2"]
    assert [c["word"] for c in units[0]["choices"]] == ["no_issues", "minor_issues", "major_issues"]
    key = state["item"]["key"]
    session.answer(key, "rubric_0_criteria_0", "minor_issues", "rounds to 8")
    first = path.read_text()
    rating = {
        "id": "rubric_0_criteria_0_rating",
        "title": "The answer is 8.05 km (to two decimals).",
        "value": "minor_issues",
        "metadata": {"criteria": "rubric_0_criteria_0"},
    }
    empty = '"source_id": "model_b",\n              "annotations": []'
    assert before.count(empty) == 1
    assert first == before.replace(empty, empty[:-1] + json.dumps(rating, ensure_ascii=False) + "]")
    session.answer(key, "rubric_0_criteria_1", "major_issues")
    session.answer(key, "rubric_0_criteria_2", "minor_issues")
    session.answer(key, "rubric_0_criteria_0", "no_issues")  # a change: its value alone
    state = session.go()
    assert state["item"]["title"] == "thread_0/turn_0: the pick"
    assert [c["word"] for c in state["item"]["units"][0]["choices"]] == ["model_a", "model_b"]
    session.answer(state["item"]["key"], "preference", "model_a")
    after = path.read_text()
    assert added_lines(before, after)[-2:] == ["},", '{"key": "selected_model_id", "value": "model_a"}']
    assert [d.code for d in lint_text(after, str(path)).diagnostics] == []
    view = read_task(parse_document(after, str(path)).root)
    dataset, _notes = task_to_dataset(view)
    assert [item.ground_truth for item in dataset.items] == [
        ["no_issues", "no_issues", "no_issues"],
        ["no_issues", "major_issues", "minor_issues"],
    ]
    for _ in range(5):
        session.undo()
    assert path.read_text() == before


def test_a_northstar_request_is_labelled_on_its_cases_into_a_labels_file(tmp_path, judge_server, monkeypatch, capfd):
    use_judge(monkeypatch, judge_server, "sk-test-label", tmp_path / "cache")
    judge_server.default = Reply.json({"passed": True, "reason": "fine", "feedback": "none"})
    request = tmp_path / "request.json"
    request.write_text(
        json.dumps(
            {
                "graders": [
                    {
                        "type": "rubric",
                        "name": "tone",
                        "model": "openai/judge",
                        "rubric": "Is polite",
                        "scoring": {"mode": "binary"},
                    }
                ]
            },
            indent=2,
        )
    )
    cases = tmp_path / "cases.jsonl"
    cases.write_text((SAMPLES / "northstar" / "cases.jsonl").read_text())
    labels = tmp_path / "labels.csv"
    session = Session(request, Options(labeller="ann", labels=labels, sources=(cases,)))
    state = session.state()
    assert state["progress"] == {"done": 0, "total": 3, "items": 3}
    item = state["item"]
    assert [p["name"] for p in item["inputs"]][:2] == ["goal", "user"]
    assert [(u["id"], u["noun"], [c["word"] for c in u["choices"]]) for u in item["units"]] == [
        ("tone", "grader", ["pass", "fail"])
    ]
    for _ in range(3):
        state = session.answer(state["item"]["key"], "tone", "pass")
        state = session.go()
    rows = labels.read_text().splitlines()
    assert rows[0] == "config,grader,output,query,verdict,labeller" and len(rows) == 4
    assert rows[1].startswith("request.json,tone,")
    capfd.readouterr()
    assert main(["calibrate", str(labels)]) == 0, capfd.readouterr().err
    record = json.loads(request.with_name("request.json.calibration.json").read_text())
    assert [(u["id"], u["figures"]["labels"]) for u in record["units"]] == [("tone", 3)]
