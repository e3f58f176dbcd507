"""Each graded test's result equals promptfoo 0.123.1's own ``runAssertions`` on the same test and output.

The recordings (tests/data/promptfoo-recorded/outcomes/test-outcomes.json, made by ``record_outcomes.py``
beside it with promptfoo's functions under Node) cover a failing contains beside a passing
llm-rubric, a test threshold that overrides a failure and one that fails, weights (0 included)
and metrics, an assert-set with its own threshold, weight and inner metric, templated metrics.
Replayed through ``rubric grade --format json`` with tests/judge_server.py giving the recorded
judge reply, through litellm's real HTTP path.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rubric_lsp.cli import main
from tests.conftest import use_judge
from tests.judge_server import Reply

RECORDED = json.loads(
    (Path(__file__).parent / "data" / "promptfoo-recorded" / "outcomes" / "test-outcomes.json").read_text()
)


@pytest.mark.parametrize("case", RECORDED["cases"], ids=[c["name"] for c in RECORDED["cases"]])
def test_a_graded_test_is_promptfoos_result(case, judge_server, tmp_path, monkeypatch, capfd):
    use_judge(monkeypatch, judge_server, "sk-test-outcomes-recorded-0123456789", tmp_path / "cache")
    judge_server.default = Reply.json(RECORDED["judge"])
    test = {"vars": case.get("vars", {}), "assert": case["assert"]}
    if "threshold" in case:
        test["threshold"] = case["threshold"]
    config = {"prompts": ["Reply"], "providers": ["echo"], "tests": [test]}
    (tmp_path / "promptfooconfig.yaml").write_text(json.dumps(config))
    (tmp_path / "out.txt").write_text(case["output"])
    code = main(
        [
            "grade",
            str(tmp_path / "promptfooconfig.yaml"),
            "--response",
            str(tmp_path / "out.txt"),
            "--format",
            "json",
            "--no-cache",
        ]
    )
    data = json.loads(capfd.readouterr().out)
    recorded = case["recorded"]
    [ours] = data["tests"]
    assert ours["passed"] is recorded["pass"] and code == (0 if recorded["pass"] else 1)
    assert ours["score"] == pytest.approx(recorded["score"]) and ours["reason"] == recorded["reason"]
    assert ours.get("named_scores", {}) == pytest.approx(recorded["namedScores"])
    # Each assertion (an assert-set's own result aside) with promptfoo's pass, score and reason.
    theirs = [c for c in recorded["components"] if c.get("type") is not None]
    assert [(v["name"].split(": ", 1)[1], v["score"], v["reason"]) for v in data["verdicts"]] == [
        (c["type"], pytest.approx(c["score"]), c["reason"]) for c in theirs
    ]
    assert [v["passed"] for v in data["verdicts"] if v.get("weight") != 0] == [
        c["pass"] for c, v in zip(theirs, data["verdicts"]) if v.get("weight") != 0
    ]


@pytest.mark.parametrize(
    "entry", RECORDED["checks"], ids=[f"{c['assertion']['type']}-{i}" for i, c in enumerate(RECORDED["checks"])]
)
def test_a_deterministic_assertion_is_promptfoos_run_assertion(entry):
    """Each check (its pass, score and reason) as promptfoo's own runAssertion gave it: quoted fields,
    an empty contains-all, strict deep equality (true is not 1), a missing equals value, JSON.parse's NaN."""
    from rubric_lsp.formats.promptfoo.grading.deterministic import check
    from rubric_lsp.formats.promptfoo.grading.prompts import UNDEFINED

    assertion = entry["assertion"]
    ours = check(assertion["type"], assertion.get("value", UNDEFINED), entry["output"], entry["vars"])
    recorded = entry["recorded"]
    assert ours is not None
    assert (ours.passed, ours.score, ours.reason) == (recorded["pass"], recorded["score"], recorded["reason"])
