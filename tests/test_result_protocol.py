"""The result protocol (``engine/result.py``): each result kind's units, with the outcome its format gave them.

The faces (JUnit, CSV, the HTML page, the server's marks) render these outcomes and read no verdict
word, so what is checked here is what every face shows.
"""

from __future__ import annotations

import pytest

from rubric_lsp.engine.report import ExampleResult, ExamplesResult, GradeReport, Subject
from rubric_lsp.engine.result import Outcome, counts
from rubric_lsp.formats.autorubric.grading.agreement import CriterionAgreement, DatasetResult
from rubric_lsp.reporters.grade.rows import rows


def _item(index: int, verdicts: list[str], truth: list[str] | None, error: str | None = None) -> dict:
    reasons = [f"why {v}" for v in verdicts]
    return {
        "index": index,
        "description": None,
        "error": error,
        "verdicts": verdicts,
        "ground_truth": truth,
        "reasons": reasons,
    }


def test_a_dataset_label_agrees_disagrees_abstains_or_was_not_compared():
    criteria = [
        CriterionAgreement(0, "binary", "binary", abstain=frozenset({"CANNOT_ASSESS"})),
        CriterionAgreement(1, "scale", "ordinal", abstain=frozenset({2}), labels=("Bad", "Good", "N/A")),
    ]
    items = [
        _item(0, ["MET", "good"], ["met", "Good"]),  # labels match case-blind
        _item(1, ["UNMET", "Bad"], ["MET", "Good"]),
        _item(2, ["CANNOT_ASSESS", "N/A"], ["MET", "Bad"]),  # an abstention is counted apart, not a disagreement
        _item(3, ["ERROR", "Good"], None),
    ]
    units = DatasetResult(items, criteria).units()
    assert [u.outcome.value for u in units] == [
        "pass",
        "pass",
        "fail",
        "fail",
        "abstain",
        "abstain",
        "error",
        "not-run",
    ]
    assert [u.path for u in units[:2]] == [("items", 0, "verdicts", 0), ("items", 0, "verdicts", 1)]
    assert units[2].title == "binary" and units[2].expected == "MET" and units[2].verdict == "UNMET"
    assert units[6].error == "why ERROR" and units[6].reason == ""
    assert [r.outcome for r in rows(DatasetResult(items, criteria))][4:] == ["skipped", "skipped", "error", "skipped"]


def test_examples_carry_their_verdicts_then_their_expectations():
    report = GradeReport("x", [Subject("c", 0, None, 2.0).judged("YES", "r", passed=True)])
    result = ExamplesResult([ExampleResult("good", None, report, met=False, failures=["wanted more"])])
    units = result.units()
    assert [(u.group, u.title, u.outcome) for u in units] == [
        ("good", "c", Outcome.PASS),
        ("good", "expectations", Outcome.FAIL),
    ]
    assert units[0].path == (0, "report", "verdicts", 0) and units[1].reason == "wanted more"
    assert counts(units)[Outcome.FAIL] == 1 and counts(units)[Outcome.LOSS] == 0


def test_a_grade_that_failed_before_any_verdict_is_one_error_unit():
    report = GradeReport("x", error="every judge call failed", test_index=2)
    (unit,) = report.units()
    assert (unit.group, unit.title, unit.outcome, unit.error) == (
        "response (test 3)",
        "score",
        Outcome.ERROR,
        "every judge call failed",
    )


def test_a_comparison_of_outputs_is_a_unit_of_its_test():
    from rubric_lsp.formats.promptfoo.grading.grader import OutputsResult

    chosen = {"test": 2, "winner": 1, "scores": [0.2, 0.9], "reason": "", "method": "average"}
    refused = {"test": 3, "winner": None, "error": "parse: no number", "reason": ""}
    units = OutputsResult({"outputs": [], "max_score": [chosen], "select_best": [refused]}).units()
    assert [(u.group, u.outcome, u.choice, u.scores, u.path) for u in units] == [
        ("test 2", Outcome.PASS, 1, (0.2, 0.9), ("max_score", 0)),
        ("test 3", Outcome.ERROR, None, (), ("select_best", 0)),
    ]


def test_a_credit_counts_only_when_the_unit_counts():
    subject = Subject("c", 0, None, 3.0)
    judged = subject.judged("HALF", "r", score=0.5, outcome=Outcome.PASS).unit("g", ())
    abstained = subject.judged("N/A", "r", score=0.5, outcome=Outcome.ABSTAIN).unit("g", ())
    failed = subject.failure("r", "parse: x", "FAIL").unit("g", ())
    assert (judged.credit, abstained.credit, failed.credit) == (0.5, None, None)
    with pytest.raises(ValueError):
        subject.judged("HALF", "r")  # a verdict the format did not read
