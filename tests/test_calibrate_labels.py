"""``rubric calibrate LABELS.csv``: a labels file calibrates a promptfoo assertion and a NorthStar grader
against tests/judge_server.py; each record's figures equal an independent computation from the scripted
verdicts; malformed rows are refused in one line naming the row."""

from __future__ import annotations

import csv
import json

import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.proportion import proportion_confint

from rubric_lsp.cli import main
from tests.calibration import LABELLED, labels_judge
from tests.calibration import LABELS_CONFIG as CONFIG
from tests.calibration import LABELS_REQUEST as REQUEST
from tests.conftest import use_judge


@pytest.fixture
def env(judge_server, tmp_path, monkeypatch):
    use_judge(monkeypatch, judge_server, "sk-test-labels", tmp_path / "cache")
    judge_server.handler = labels_judge
    (tmp_path / "promptfooconfig.yaml").write_text(CONFIG)
    (tmp_path / "run.json").write_text(json.dumps(REQUEST))
    return tmp_path


def calibrate(capfd, *argv):
    code = main(["calibrate", *argv])
    out, err = capfd.readouterr()
    return code, out, err


def write_csv(path, rows):
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def expected_figures(humans: list[bool], judged: list[bool]) -> dict:
    """Accuracy, κ, sensitivity and specificity computed apart from the record's code."""
    n = len(humans)
    agreed = sum(h == j for h, j in zip(humans, judged))
    tp = sum(h and j for h, j in zip(humans, judged))
    tn = sum(not h and not j for h, j in zip(humans, judged))
    return {
        "accuracy": round(agreed / n, 4),
        "accuracy_interval": [round(x, 4) for x in proportion_confint(agreed, n, method="wilson")],
        "kappa": round(float(cohen_kappa_score(humans, judged)), 4),
        "sensitivity": round(tp / sum(humans), 4),
        "specificity": round(tn / (n - sum(humans)), 4),
    }


def check(unit: dict, humans: list[bool], judged: list[bool]) -> None:
    want = expected_figures(humans, judged)
    f = unit["figures"]
    assert f["labels"] == len(humans) and f["balance"] == {"PASS": sum(humans), "FAIL": len(humans) - sum(humans)}
    assert f["accuracy"]["value"] == want["accuracy"] and f["accuracy"]["interval"] == want["accuracy_interval"]
    assert f["kappa"]["value"] == want["kappa"]
    assert f["sensitivity"]["value"] == want["sensitivity"] and f["specificity"]["value"] == want["specificity"]
    assert f["failed"] == 0 and set(unit["fingerprints"]) == {"text", "judge", "prompt", "settings", "all"}


def test_a_promptfoo_assertion_from_a_csv_labels_file(env, capfd):
    rows = [{"test": 1, "assertion": "polite", "output": o, "verdict": v} for o, v in LABELLED]
    rows[0] = {**rows[0], "assertion": "2"}  # by position in the test's assert list: the same assertion
    (env / "outputs").mkdir()
    (env / "outputs" / "last.txt").write_text(LABELLED[-1][0])
    rows[-1] = {**rows[-1], "output": ""}
    for row in rows:
        row["output_file"] = ""
    rows[-1]["output_file"] = "outputs/last.txt"
    write_csv(env / "labels.csv", rows)
    code, out, err = calibrate(capfd, str(env / "labels.csv"), "--config", str(env / "promptfooconfig.yaml"))
    assert code == 0, err
    data = json.loads((env / "promptfooconfig.yaml.calibration.json").read_text())
    assert data["source"] == "labels.csv"
    [unit] = data["units"]
    assert unit["id"] == "test 1 polite" and unit["kind"] == "binary"
    check(unit, [v == "pass" for _, v in LABELLED], ["please" in o for o, _ in LABELLED])
    assert "test 1 polite: 7 labels" in out
    first = (env / "promptfooconfig.yaml.calibration.json").read_bytes()
    assert calibrate(capfd, str(env / "labels.csv"), "--config", str(env / "promptfooconfig.yaml"))[0] == 0
    assert (env / "promptfooconfig.yaml.calibration.json").read_bytes() == first  # a re-run: the same bytes


def test_a_northstar_grader_from_a_jsonl_labels_file_naming_its_config(env, capfd):
    # depth: scores from 0 to 1 (passing at 4 of 0–5, i.e. 0.8); safety: verdicts.
    lines = [{"config": "run.json", "grader": "safety", "output": o, "verdict": v} for o, v in LABELLED]
    scores = [0.9, 1.0, 0.2, 0.79, 0.1, 0.8, 0.85]
    lines += [{"config": "run.json", "grader": "2", "output": o, "score": s} for (o, _), s in zip(LABELLED, scores)]
    (env / "labels.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    code, out, err = calibrate(capfd, str(env / "labels.jsonl"))
    assert code == 0, err
    assert "safety: 7 labels" in out and "depth: 7 labels" in out
    data = json.loads((env / "run.json.calibration.json").read_text())
    safety, depth = data["units"]
    assert (safety["id"], depth["id"]) == ("safety", "depth")
    judged = ["please" in o for o, _ in LABELLED]
    check(safety, [v == "pass" for _, v in LABELLED], judged)
    check(depth, [s >= 0.8 for s in scores], judged)


@pytest.mark.parametrize(
    "rows, message",
    [
        (
            [{"test": 1, "assertion": "polite", "output": "x", "verdict": "maybe"}],
            "row 2: verdict 'maybe' is not pass or fail",
        ),
        (
            [{"test": 1, "assertion": "polite", "output": "x", "score": "7"}],
            "row 2: score '7' is not a number from 0 to 1",
        ),
        ([{"test": 1, "assertion": "polite", "output": "x", "verdict": ""}], "row 2: no human 'verdict'"),
        (
            [{"test": 3, "assertion": "polite", "output": "x", "verdict": "pass"}],
            "row 2: 'test' must be a test number from 1 to 1",
        ),
        (
            [{"test": 1, "assertion": "1", "output": "x", "verdict": "pass"}],
            "row 2: test 1's assertion 1 is a 'contains', not an llm-rubric",
        ),
        (
            [{"test": 1, "assertion": "rude", "output": "x", "verdict": "pass"}],
            "row 2: test 1 has no assertion with metric 'rude'",
        ),
    ],
)
def test_malformed_rows_are_refused_naming_the_row(env, capfd, judge_server, rows, message):
    ok = {"test": 1, "assertion": "polite", "output": "fine", "verdict": "pass", "score": "1"}
    write_csv(env / "labels.csv", [{k: ok[k] for k in rows[0]}, *rows])  # a good row first: row 2
    code, _, err = calibrate(capfd, str(env / "labels.csv"), "--config", str(env / "promptfooconfig.yaml"))
    assert code == 2 and message.replace("row 2", "row 3") in err and len(err.strip().splitlines()) == 1
    assert judge_server.call_count == 0 and not (env / "promptfooconfig.yaml.calibration.json").exists()


def test_a_row_naming_no_config_and_an_unknown_grader(env, capfd):
    (env / "labels.jsonl").write_text(json.dumps({"grader": "safety", "output": "x", "verdict": "pass"}) + "\n")
    code, _, err = calibrate(capfd, str(env / "labels.jsonl"))
    assert code == 2 and "labels.jsonl row 1: no 'config' column and no --config" in err
    code, _, err = calibrate(capfd, str(env / "labels.jsonl"), "--config", str(env / "run.json"))
    assert code == 0, err
    (env / "labels.jsonl").write_text(json.dumps({"grader": "tone", "output": "x", "verdict": "pass"}) + "\n")
    code, _, err = calibrate(capfd, str(env / "labels.jsonl"), "--config", str(env / "run.json"))
    assert code == 2 and "row 1: no LLM grader named 'tone' (the request has 'safety', 'depth')" in err
    (env / "labels.csv").write_text("grader,verdict\nsafety,pass\n")
    code, _, err = calibrate(capfd, str(env / "labels.csv"), "--config", str(env / "run.json"))
    assert code == 2 and "labels.csv row 2: no 'output' or 'output_file' column" in err


def test_rows_are_numbered_as_a_spreadsheet_shows_them(tmp_path):
    from rubric_lsp.calibration.labels import LabelsError, read_labels

    path = tmp_path / "labels.csv"
    path.write_text('grader,output,verdict\nsafety,"two\nlines",pass\nsafety,x,pass,extra\n')
    with pytest.raises(LabelsError, match=r"labels.csv row 3: more cells than the header has columns"):
        read_labels(path, tmp_path / "run.json")
    path.write_text('grader,output,verdict\nsafety,"two\nlines",PASS\nsafety,x,Fail\n')
    rows = read_labels(path, tmp_path / "run.json")
    assert [(r.number, r.output, r.verdict) for r in rows] == [(2, "two\nlines", True), (3, "x", False)]
    assert rows[0].config == tmp_path / "run.json" and rows[0].fields["grader"] == "safety"
