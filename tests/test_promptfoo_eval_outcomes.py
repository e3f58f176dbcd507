"""What a graded promptfoo test says when promptfoo errors it, when a threshold decides it without every score, and
when a script fails: each against promptfoo 0.123.1's recorded run (tests/data/promptfoo-recorded/results: ``needs``,
``decided``; record_results.py), in one wording per outcome.
"""

from __future__ import annotations

import importlib.util
import json

import pytest

from rubric_lsp.cli import main
from rubric_lsp.lint import lint_text
from tests.conftest import REPO, require

HERE = REPO / "tests" / "data" / "promptfoo-recorded" / "results"


def _rows(case: str) -> dict[int, dict]:
    rows = json.loads((HERE / f"{case}.results.json").read_text(encoding="utf-8"))["results"]["results"]
    return {r["testIdx"] + 1: r for r in rows}


@pytest.fixture
def grade(tmp_path, monkeypatch, capfd):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-eval-outcomes-0123456789")
    monkeypatch.setenv("RUBRIC_CACHE_DIR", str(tmp_path / "cache"))

    def run(config: str, output: str, *flags: str) -> tuple[int, str, str]:
        (tmp_path / "promptfooconfig.yaml").write_text(config, encoding="utf-8")
        (tmp_path / "out.txt").write_text(output, encoding="utf-8")
        argv = ["grade", str(tmp_path / "promptfooconfig.yaml"), "--response", str(tmp_path / "out.txt"), *flags]
        code = main([*argv, "--no-cache"])
        out, err = capfd.readouterr()
        return code, out, err

    return run


@pytest.mark.parametrize(
    ("number", "code", "said"),
    [(1, "PF117", "Latency assertion must have a threshold"), (2, "PF118", 'requires a "query" variable')],
)
def test_a_test_promptfoo_errors_on_is_refused_in_the_lints_words(grade, number, code, said):
    """promptfoo 0.123.1 recorded these tests as errors (failureReason 2) with the handler's message; rubric grade
    grades nothing of them and says why with the lint's own finding."""
    config = (HERE / "needs.config.yaml").read_text(encoding="utf-8").replace("{API}", "http://127.0.0.1:9")
    row = _rows("needs")[number]
    assert row["failureReason"] == 2 and said in row["error"]
    [finding] = [d for d in lint_text(config, "promptfooconfig.yaml").diagnostics if d.code == code]
    exit_code, out, err = grade(config, row["prompt"]["raw"], "--test", str(number))
    assert exit_code == 2 and out == ""
    assert f"test {number} (line " in err and f"{code} " in err and said in err
    assert finding.message.split(";")[0].split(" (")[0] in err  # the lint's words
    # the test promptfoo ran is graded as it graded it
    assert grade(config, "Answer: oslo", "--test", "3")[0] == 0 and _rows("needs")[3]["success"] is True


def test_a_threshold_decided_fail_gives_the_range_its_score_lies_in(grade):
    config = (HERE / "decided.config.yaml").read_text(encoding="utf-8")
    row = _rows("decided")[1]
    code, out, _ = grade(config, row["response"]["output"])
    lines = out.splitlines()
    assert code == 1 and row["success"] is False
    assert "score: not known (0.333 to 0.667) — FAIL" in lines
    assert any(
        line.startswith("test 1: FAIL score not known (0.333 to 0.667) — Aggregate score at most 0.67")
        for line in lines
    )
    assert "nothing was" not in out and "no score" not in out
    code, out, _ = grade(config, row["response"]["output"], "--format", "json")
    data = json.loads(out)
    low, high = data["score_range"]
    assert data["score"] is None and data["tests"][0]["score_range"] == [low, high]
    assert low <= row["score"] <= high  # promptfoo, which ran is-xml, scored 1/3


RUNAWAY = """\
prompts: ['Answer: {{q}}']
providers: [echo]
tests:
  - vars: {q: paris}
    assert:
      - type: javascript
        value: |
          while (true) {}
          return true;
"""


def test_a_runaway_script_is_an_error_in_one_wording(grade, monkeypatch):
    """Counted as unknown (never as a FAIL, nor a grader call), its test ERROR, the grading incomplete."""
    require(importlib.util.find_spec("py_mini_racer") is not None, "mini-racer (the [grade] extra) runs the script")
    from rubric_lsp.formats.promptfoo.grading import javascript

    monkeypatch.setattr(javascript, "TIME_LIMIT", 0.3)
    code, out, err = grade(RUNAWAY, "Answer: paris")
    lines = out.splitlines()
    assert (
        code == 2 and "rubric grade: incomplete: 1 of 1 judgment(s) failed (script: The JavaScript was stopped" in err
    )
    assert any(line.endswith("— counted as unknown") and "script: The JavaScript was stopped" in line for line in lines)
    assert "test 1: ERROR — a script failed (javascript line 6); the other assertions do not decide the result" in lines
    assert any(line.startswith("no score: incomplete, 1 of 1 judgment(s) failed (script:") for line in lines)
    assert any(
        line.startswith(
            "  abstention: none: every verdict is pass or fail; a failed judge call (or script) is an ERROR counted as unknown"
        )
        for line in lines
    )
    for other in ("Every grader call failed", "counted as FAIL", "fails with score 0", "nothing was"):
        assert other not in out
    code, out, _ = grade(RUNAWAY, "Answer: paris", "--format", "json")
    data = json.loads(out)
    [verdict] = data["verdicts"]
    assert verdict["verdict"] == "ERROR" and "passed" not in verdict and verdict["counted_as"] == "unknown"
    assert "error" not in data and data["tests"][0]["result"] == "ERROR"
