"""``rubric calibrate TASK.json``: a Rubrics task calibrated through its conversion — the criteria's figures
are those of the converted dataset, and the preference (the judge's highest-scored response against the
human ``selected_model_id``) agrees as an independent count says, with its Wilson interval."""

from __future__ import annotations

import json

import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.proportion import proportion_confint

from rubric_lsp.cli import lint_main, main
from tests.conftest import use_judge
from tests.rubrics_task_labels import CRITERIA, RATING, TURNS, human_rating, rate, task


@pytest.fixture
def task_file(judge_server, tmp_path, monkeypatch):
    use_judge(monkeypatch, judge_server, "sk-test-task", tmp_path / "cache")
    judge_server.handler = rate
    path = tmp_path / "task.json"
    path.write_text(json.dumps(task(), indent=2))
    return path


def test_the_record_holds_each_criterion_and_the_preference(task_file, capfd):
    code = main(["calibrate", str(task_file)])
    out, err = capfd.readouterr()
    assert code == 0, err
    data = json.loads(task_file.with_name("task.json.calibration.json").read_text())
    units = {u["id"]: u for u in data["units"]}
    assert list(units)[-1] == "preference" and len(units) == 1 + 2 * len(TURNS)

    # A criterion: quadratic-weighted κ over its one turn's responses, as scikit-learn computes it.
    scale = {"major_issues": 0, "minor_issues": 1, "no_issues": 2}
    texts = TURNS[0][0]
    truth = [scale[human_rating(0, r, 1)] for r in range(len(texts))]
    judged = [scale[RATING[t.split()[0]]] for t in texts]
    figures = units["rubric_0_criteria_1"]["figures"]
    assert figures["labels"] == 2 and figures["accuracy"]["value"] == 0.5
    assert figures["kappa"]["value"] == round(float(cohen_kappa_score(truth, judged, weights="quadratic")), 4)

    # The preference, counted independently: turns 0 and 3 agree, 1 does not; 2 is a tie, 4 has no human pick.
    preference = units["preference"]["figures"]
    assert preference["labels"] == 3 and preference["accuracy"]["successes"] == 2
    low, high = proportion_confint(2, 3, method="wilson")
    assert preference["accuracy"]["interval"] == [round(low, 4), round(high, 4)]
    assert preference["abstained"] == {"both": 0, "judge_only": 1, "truth_only": 1}
    assert preference["failed"] == 0
    assert "preference: 3 labels · accuracy 0.67" in out


def test_rubric_grade_reports_the_preference_per_turn(task_file, capfd):
    code = main(["grade", str(task_file), "--format", "json"])
    out, err = capfd.readouterr()
    assert code == 0, err
    preference = json.loads(out)["preference"]
    assert [(t["judge"], t["human"]) for t in preference["turns"]] == [(0, 0), (2, 1), (None, 0), (1, 1), (1, None)]
    assert preference["agreement"]["value"] == pytest.approx(2 / 3)
    assert main(["grade", str(task_file)]) == 0
    assert "preference (judge's highest-scored response vs selected_model_id): 2 of 3 turn(s) agree (67%" in (
        capfd.readouterr().out
    )


def retitle(path, turn: int, criterion: int, title: str) -> None:
    """One turn's criterion reworded in the task (its annotation's title: the requirement the judge reads)."""
    data = json.loads(path.read_text())
    key = f"rubric_{turn}_criteria_{criterion}"
    annotation = next(a for a in data["threads"][0]["turns"][turn]["annotations"] if a.get("key") == key)
    annotation["title"] = title
    path.write_text(json.dumps(data, indent=2))


def test_the_task_hook_names_the_records_units(task_file, capfd):
    """The lint's units, the grading's and the record's are the same: ids, text and prompt, one conversion."""
    from rubric_lsp.calibration import record as records
    from rubric_lsp.document import parse_document
    from rubric_lsp.engine.request import GradeRequest
    from rubric_lsp.formats.registry import formats

    assert main(["calibrate", str(task_file)]) == 0, capfd.readouterr().err
    data = json.loads(task_file.with_name("task.json.calibration.json").read_text())
    text = task_file.read_text()
    doc = parse_document(text, str(task_file))
    hook = next(f for f in formats() if f.name == "rubrics-task").calibration_hook()
    assert hook is not None
    written = hook.document_units(doc, None)
    current = hook.current_units(doc, GradeRequest(text, str(task_file)))
    ids = [u["id"] for u in data["units"]]
    assert [u.id for u in written] == [u.id for u in current] == ids
    marks = [u["fingerprints"] for u in data["units"]]
    assert [records.fingerprint(u.text) for u in written] == [m["text"] for m in marks]
    assert [u.prompt for u in current] == [m["prompt"] for m in marks]
    # Each criterion is reported on the task's own criterion text, the preference on the first selected_model_id.
    assert [text[u.span.start : u.span.end] for u in written[:2]] == [json.dumps(c) for c in CRITERIA]
    assert text[written[-1].span.start : written[-1].span.end] == '"m0"'


def test_require_calibrated_then_one_reworded_criterion_refuses_naming_it(task_file, capfd, judge_server, tmp_path):
    assert main(["calibrate", str(task_file)]) == 0
    capfd.readouterr()
    code = main(["grade", str(task_file), "--require-calibrated", "--format", "json"])
    out, err = capfd.readouterr()
    assert code == 0, err
    card = json.loads(out)["judge_card"]
    assert {u["status"] for u in card["units"]} == {"fresh"} and len(card["units"]) == 1 + 2 * len(TURNS)
    assert [part["label"] for part in card["format"]][-1] == "preference"
    assert "ordinal options (10 criteria)" in card["format"][0]["value"]

    (tmp_path / "rubric-lint.toml").write_text("calibration = { required = true }\n")
    code = lint_main(["--format", "json", str(task_file)])
    assert code == 0 and [d for d in json.loads(capfd.readouterr().out) if d["code"] == "RL020"] == []

    retitle(task_file, 1, 1, "Is courteous.")
    calls = judge_server.call_count
    code = main(["grade", str(task_file), "--require-calibrated", "--no-cache"])
    out, err = capfd.readouterr()
    assert code == 2 and out == "" and judge_server.call_count == calls  # refused before any judge call
    # The reworded criterion, and the preference, which the criteria's verdicts decide: 2 of 11.
    assert "2 of 11 unit(s)" in err and "rubric_1_criteria_1: stale: its text changed" in err
    assert "preference: stale: its text changed" in err

    code = lint_main(["--format", "json", str(task_file)])
    found = sorted(
        (d for d in json.loads(capfd.readouterr().out) if d["code"] == "RL020"),
        key=lambda d: "preference" in d["message"],
    )
    assert code == 1 and len(found) == 2, found
    assert "criterion 'rubric_1_criteria_1' is stale: its text changed" in found[0]["message"]
    assert "unit 'preference' is stale: its text changed" in found[1]["message"]
    lines = task_file.read_text().splitlines()
    assert '"Is courteous."' in lines[found[0]["range"]["start"]["line"]]
