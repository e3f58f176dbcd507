"""``rubric grade`` with calibration records (issue 28): ``--require-calibrated`` refuses before any judge
call when a unit's record is missing or stale; a dataset's pass rates are corrected for the judge's
measured sensitivity and specificity (checked against an independent computation and a known answer);
every output carries the judge card, whose figures are the JSON's."""

from __future__ import annotations

import json
import re
from html import unescape

import jsonschema
import numpy as np
import pytest

from rubric_lsp.calibration.card import card_rows, number
from rubric_lsp.cli import main
from rubric_lsp.reporters.grade.html import figure
from tests.calibration import dataset, reply_for, status_for
from tests.conftest import REPO, use_judge
from tests.report_browser import available, load

ITEMS = 12


@pytest.fixture
def labelled(judge_server, tmp_path, monkeypatch):
    use_judge(monkeypatch, judge_server, "sk-test-calibrated", tmp_path / "cache")
    judge_server.handler = lambda request: reply_for(request.text)
    path = tmp_path / "maths.dataset.json"
    path.write_text(json.dumps(dataset(ITEMS, "maths"), indent=2))
    return path


def run(capfd, *argv):
    code = main(list(argv))
    out, err = capfd.readouterr()
    return code, out, err


def calibrated(labelled, capfd):
    code, _, err = run(capfd, "calibrate", str(labelled))
    assert code == 0, err
    return labelled.with_name(labelled.name + ".calibration.json")


def test_require_calibrated_grades_then_refuses_a_changed_criterion_before_any_call(labelled, judge_server, capfd):
    calibrated(labelled, capfd)
    code, out, err = run(capfd, "grade", str(labelled), "--require-calibrated")
    assert code == 0, err
    assert "correct: fresh" in out and "shows_work: fresh" in out

    data = json.loads(labelled.read_text())
    data["rubric"][1]["requirement"] = "Shows all the working"  # one word of one criterion
    labelled.write_text(json.dumps(data, indent=2))
    calls = judge_server.call_count
    code, out, err = run(capfd, "grade", str(labelled), "--require-calibrated", "--no-cache")
    assert code == 2 and out == ""
    assert "shows_work: stale: its text changed" in err and "correct:" not in err
    assert judge_server.call_count == calls  # refused before any judge call

    # Without the flag it grades, and the card says which unit is stale.
    code, out, err = run(capfd, "grade", str(labelled), "--format", "json")
    card = json.loads(out)["judge_card"]
    assert [(u["id"], u["status"], u["stale"]) for u in card["units"]] == [
        ("correct", "fresh", []),
        ("shows_work", "stale", ["text"]),
    ]


def test_a_missing_record_and_another_judge_refuse_naming_why(labelled, judge_server, capfd, tmp_path):
    code, _, err = run(capfd, "grade", str(labelled), "--require-calibrated")
    assert code == 2 and "correct: missing" in err and "shows_work: missing" in err and judge_server.call_count == 0
    record = calibrated(labelled, capfd)
    calls = judge_server.call_count
    code, _, err = run(capfd, "grade", str(labelled), "--require-calibrated", "--model", "openai/other-judge")
    assert code == 2 and "correct: stale: its judge changed" in err and judge_server.call_count == calls
    code, _, err = run(capfd, "grade", str(labelled), "--require-calibrated", "--no-shuffle")
    assert code == 2 and "stale: its settings changed" in err
    # A record named with --calibration; a damaged one refuses with one line naming it.
    moved = tmp_path / "elsewhere.json"
    moved.write_bytes(record.read_bytes())
    record.unlink()
    code, _, err = run(capfd, "grade", str(labelled), "--require-calibrated", "--calibration", str(moved))
    assert code == 0, err
    moved.write_text("{not json")
    code, _, err = run(capfd, "grade", str(labelled), "--require-calibrated", "--calibration", str(moved))
    assert code == 2 and "elsewhere.json: not a calibration record" in err and judge_server.call_count == calls


def test_a_rubric_graded_against_a_datasets_record(labelled, judge_server, capfd, tmp_path):
    record = calibrated(labelled, capfd)
    rubric = tmp_path / "maths.rubric.yaml"
    rubric.write_text(
        "- name: correct\n  requirement: Gives the right answer\n- name: shows_work\n  requirement: Shows the working\n"
    )
    answer = tmp_path / "answer.txt"
    answer.write_text("answer 5: 42 because 6*7")
    argv = ["grade", str(rubric), "--response", str(answer), "--require-calibrated"]
    code, _, err = run(capfd, *argv)
    assert code == 2 and "no calibration record" in err  # none beside the rubric
    code, out, err = run(capfd, *argv, "--calibration", str(record))
    assert code == 0, err
    assert "shows_work: fresh" in out


def rates(truth: list[str], judged: list[str]) -> tuple[float, int, int, int, int]:
    """Se and Sp counts of a judge against labels, independently of the engine."""
    tp = sum(t == j == "MET" for t, j in zip(truth, judged))
    tn = sum(t == j == "UNMET" for t, j in zip(truth, judged))
    return tp / truth.count("MET"), tp, truth.count("MET"), tn, truth.count("UNMET")


def scripted(items: int, requirement: str) -> tuple[list[str], list[str]]:
    rows = dataset(items, "maths")["items"]
    column = 0 if requirement == "Gives the right answer" else 1
    return (
        [item["ground_truth"][column] for item in rows],
        [status_for(f"{item['submission']}\n{requirement}") for item in rows],
    )


def test_pass_rates_are_corrected_for_the_judges_sensitivity_and_specificity(labelled, capfd, tmp_path):
    record = calibrated(labelled, capfd)
    # The known answer: on the labelled set itself the correction gives back the people's pass rate exactly.
    code, out, err = run(capfd, "grade", str(labelled), "--format", "json")
    found = {r["unit"]: r for r in json.loads(out)["pass_rates"]}
    truth, judged = scripted(ITEMS, "Shows the working")
    assert found["shows_work"]["value"] == judged.count("MET") / ITEMS != truth.count("MET") / ITEMS
    assert found["shows_work"]["corrected"] == pytest.approx(truth.count("MET") / ITEMS)  # 0.75 from 0.5

    # Another set, corrected with the first set's record: (p + Sp − 1) / (Se + Sp − 1) computed here.
    other = tmp_path / "more.dataset.json"
    other.write_text(json.dumps(dataset(40, "maths")))
    code, out, err = run(capfd, "grade", str(other), "--format", "json", "--calibration", str(record))
    data = json.loads(out)
    rate = {r["unit"]: r for r in data["pass_rates"]}["shows_work"]
    _, graded = scripted(40, "Shows the working")
    p = graded.count("MET") / 40
    se, tp, positives, tn, negatives = rates(truth, judged)
    sp = tn / negatives
    assert rate["calibration"] == "fresh" and rate["n"] == 40 and rate["value"] == p
    assert rate["corrected"] == pytest.approx(min(1.0, max(0.0, (p + sp - 1) / (se + sp - 1))))
    # The interval carries the calibration's uncertainty: Jeffreys posteriors drawn independently with numpy.
    rng = np.random.default_rng(7)
    draws = 200_000
    pd = rng.beta(graded.count("MET") + 0.5, 40 - graded.count("MET") + 0.5, draws)
    sed = rng.beta(tp + 0.5, positives - tp + 0.5, draws)
    spd = rng.beta(tn + 0.5, negatives - tn + 0.5, draws)
    youden = sed + spd - 1
    kept = youden > 0
    corrected = np.clip((pd[kept] + spd[kept] - 1) / youden[kept], 0, 1)
    low, high = np.percentile(corrected, [2.5, 97.5])
    assert rate["corrected_interval"] == pytest.approx([low, high], abs=0.03)
    assert rate["corrected_interval"][1] - rate["corrected_interval"][0] > 0.2  # 9 and 3 labels: wide

    # The text output says the same.
    code, out, err = run(capfd, "grade", str(other), "--calibration", str(record))
    assert code == 0, err
    assert f"shows_work: {number(p)}" in out and f"→ {number(rate['corrected'])}" in out


def test_the_judge_card_in_json_junit_and_html_holds_the_same_figures(labelled, capfd, tmp_path):
    calibrated(labelled, capfd)
    code, out, _ = run(capfd, "grade", str(labelled), "--format", "json")
    data = json.loads(out)
    schema = json.loads((REPO / "schemas" / "rubric-grade-output.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(data, schema, cls=jsonschema.Draft202012Validator)
    card = data["judge_card"]
    assert card["models"] == ["openai/judge"] and len(card["prompt"]) == 16
    labels = [part["label"] for part in card["format"]]
    assert labels == ["scale", "abstention", "ties", "aggregation", "option order"]
    assert card["coverage"] == {
        "groups": ITEMS,
        "units": 2 * ITEMS,
        "graded": 2 * ITEMS,
        "errors": 0,
        "abstained": 0,
        "not_run": 0,
    }
    record = json.loads(labelled.with_name(labelled.name + ".calibration.json").read_text())
    for unit, recorded in zip(card["units"], record["units"]):
        assert unit["kappa"]["value"] == recorded["figures"]["kappa"]["value"]
        assert unit["labels"] == recorded["figures"]["labels"] == ITEMS

    xmlschema = pytest.importorskip("xmlschema")
    junit_schema = xmlschema.XMLSchema(str(REPO / "tests" / "data" / "junit-10.xsd"))
    code, out, _ = run(capfd, "grade", str(labelled), "--format", "junit")
    junit_schema.validate(out)
    suite = junit_schema.to_dict(out)["testsuite"][0]
    shown = {p["@name"]: p["@value"] for p in suite["properties"][0]["property"]}
    assert list(shown.items()) == card_rows(card)
    assert f"κ {card['units'][1]['kappa']['value']:.2f}" in shown["calibration: shows_work"]

    if not available():
        pytest.skip("headless Chromium is not available")
    report = tmp_path / "report.html"
    code, _, err = run(capfd, "grade", str(labelled), "--report", str(report))
    assert code == 0, err
    page = load(report)
    assert not page.console and not page.requests
    shown_html = {unescape(k): unescape(v) for k, v in re.findall(r'data-card="([^"]+)"[^>]*>([^<]*)<', page.dom)}
    assert shown_html == dict(card_rows(card))
    rate = {r["unit"]: r for r in data["pass_rates"]}["shows_work"]
    assert page.figures()["corrected-rate:shows_work"] == figure(rate["corrected"])


def test_a_format_with_no_calibration_units_cannot_be_required_calibrated(labelled, judge_server, capfd, monkeypatch):
    from rubric_lsp.formats.plugin import Format
    from tests.conftest import SAMPLES

    cases = str(SAMPLES / "northstar" / "cases.json")  # a format with no calibration hook
    code, _, err = run(capfd, "grade", cases, "--require-calibrated")
    assert code == 2 and "names no calibration units" in err and judge_server.call_count == 0
    # A format without a hook grades, and its card has the generic rows (no unit to report on): a Rubrics task
    # with its hook taken away (NorthStar's cases are graded through their request only).
    monkeypatch.setattr(Format, "calibration_hook", lambda self: None)
    judge_server.handler = lambda request: reply_for(request.text)
    code, out, err = run(capfd, "grade", str(SAMPLES / "rubrics-task" / "task.json"), "--format", "json")
    card = json.loads(out)["judge_card"]
    assert card["models"] == ["openai/judge"] and card["units"] == [] and card["coverage"]["units"] > 0


def test_an_uncalibrated_rubrics_task_is_refused_naming_its_units(labelled, judge_server, capfd):
    from tests.conftest import SAMPLES

    task = str(SAMPLES / "rubrics-task" / "task.json")
    code, _, err = run(capfd, "grade", task, "--require-calibrated")
    assert code == 2 and judge_server.call_count == 0
    assert "unit(s) are not calibrated" in err and "preference: missing: no calibration record" in err


def test_a_hostile_records_figures_never_reach_the_card_or_the_correction():
    from rubric_lsp.calibration.card import build
    from rubric_lsp.calibration.status import pass_rates

    figures = {
        "kappa": {"statistic": 3, "value": "0.9", "interval": [0, "x"]},
        "labels": True,
        "sensitivity": {"value": 0.9, "successes": 12, "n": 10},  # more successes than labels
        "specificity": {"value": 0.9, "successes": 9, "n": 10},
    }
    status = {"id": "a", "title": "", "status": "fresh", "stale": [], "figures": figures, "date": None}
    zero = dict.fromkeys(("groups", "units", "graded", "errors", "abstained", "not_run"), 0)
    card = build(models=[], prompt=None, parts=[], coverage=zero, record=None, units=[status])
    assert card["units"][0]["kappa"] == {"statistic": None, "value": None, "interval": None, "n": None}
    assert card["units"][0]["labels"] is None
    (rate,) = pass_rates({"a": (5, 10)}, [status])
    assert rate["value"] == 0.5 and rate["corrected"] is None and rate["corrected_interval"] is None
