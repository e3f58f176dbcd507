"""Every output of ``rubric grade`` says what its exit code says (issue 34, item 5).

A test its threshold rescues passes everywhere (JUnit too) with exit 0; a grading that exits 2 says INCOMPLETE at
the top of its HTML page with every failed judgment's reason, never a bare score; an assert-set shows its own
score, threshold and result; a failed judgment has one wording (counted as unknown, its test ERROR, no score:
incomplete); notes come in test order; a score not known is "not known", never "n/a" beside a FAIL badge. Graded
through litellm's real HTTP path against tests/judge_server.py; pages opened in headless Chromium.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest

from rubric_lsp.cli import main
from rubric_lsp.reporters.grade.html import figure
from tests.conftest import SAMPLES, use_judge
from tests.judge_server import Reply
from tests.report_browser import available, load

KEY = "sk-test-agree-0123456789abcdefXYZ"
needs_chromium = pytest.mark.skipif(not available(), reason="needs /usr/bin/chromium")

RESCUED = """\
prompts: ['Answer: {{q}}']
providers: [echo]
defaultTest:
  options: {provider: openai:judge}
tests:
  - description: rescued by its threshold
    vars: {q: paris}
    threshold: 0.5
    assert:
      - type: contains
        value: Rome
      - type: llm-rubric
        value: is polite
      - type: llm-rubric
        value: is short
  - description: a set that fails inside a passing test
    vars: {q: oslo}
    assert:
      - type: icontains
        value: OSLO
      - type: assert-set
        threshold: 0.5
        weight: 2
        assert:
          - type: contains
            value: Oslo
          - type: contains
            value: Bergen
"""


@pytest.fixture
def grade(judge_server, tmp_path, monkeypatch, capfd):
    use_judge(monkeypatch, judge_server, KEY, tmp_path / "cache")
    judge_server.default = Reply.json({"pass": True, "score": 0.9, "reason": "Fine."})

    def run(config: str, response: str, *flags: str) -> tuple[int, str, str]:
        (tmp_path / "promptfooconfig.yaml").write_text(config, encoding="utf-8")
        (tmp_path / "out.txt").write_text(response, encoding="utf-8")
        argv = ["grade", str(tmp_path / "promptfooconfig.yaml"), "--response", str(tmp_path / "out.txt")]
        code = main([*argv, "--no-cache", "--retries", "0", *flags])
        out, err = capfd.readouterr()
        return code, out, err

    run.dir = tmp_path  # type: ignore[attr-defined]
    return run


def test_a_test_rescued_by_its_threshold_passes_in_every_output(grade):
    code, out, _ = grade(RESCUED, "Answer: paris. Oslo is nice.", "--test", "1", "--format", "junit")
    assert code == 0
    root = ET.fromstring(out)
    (case,) = root.iter("testcase")
    assert root.get("failures") == "0" and case.find("failure") is None  # its contains failed: not a failure
    assert "contains: FAIL (fail)" in case.find("system-out").text
    code, out, _ = grade(RESCUED, "Answer: paris. Oslo is nice.", "--test", "1")
    assert code == 0 and "test 1: PASS score 0.6 — Aggregate score 0.60 ≥ 0.5 threshold" in out.splitlines()


def test_an_assert_set_shows_its_own_score_threshold_and_result(grade):
    code, out, _ = grade(RESCUED, "Answer: oslo. Oslo is nice.", "--test", "2", "--format", "json")
    assert code == 0
    (test,) = json.loads(out)["tests"]
    own = next(a for a in test["assertions"] if a["type"] == "assert-set")
    # contains Oslo passes, contains Bergen fails: 0.5 ≥ 0.5, the set passes; the test is (1 + 2 × 0.5) / 3
    assert own["set"] == {
        "passed": True,
        "score": 0.5,
        "threshold": 0.5,
        "reason": "Aggregate score 0.50 ≥ 0.5 threshold",
    }
    assert own["weight"] == 2.0 and test["result"] == "PASS" and test["score"] == pytest.approx(2 / 3)
    children = [a for a in test["assertions"] if a.get("in_assert_set")]
    assert [a["type"] for a in children] == ["contains", "contains"]


@needs_chromium
def test_the_page_shows_the_sets_own_row_beside_its_failed_child(grade):
    page = grade.dir / "report.html"
    code, out, _ = grade(
        RESCUED, "Answer: oslo. Oslo is nice.", "--test", "2", "--format", "json", "--report", str(page)
    )
    data = json.loads(out)
    figures = load(page).figures()
    own = data["tests"][0]["assertions"][1]["set"]
    assert figures["verdict:set:1:2"] == "PASS" and figures["assertion_score:set:1:2"] == "0.500"
    assert figures["set_threshold:2:1"] == "0.500" and figures["test_result:2"] == "PASS"
    assert own["passed"] is True and "incomplete" not in figures and code == 0


JUDGE_DOWN = """\
prompts: ['Answer: {{q}}']
providers: [echo]
defaultTest:
  options: {provider: openai:judge}
tests:
  - vars: {q: paris}
    assert:
      - type: llm-rubric
        value: JUDGE-DOWN mentions paris
      - type: contains
        value: paris
"""


def test_a_failed_judgment_has_one_wording(judge_server, grade):
    judge_server.when("JUDGE-DOWN", Reply.server_error())
    code, out, err = grade(JUDGE_DOWN, "Answer: paris")
    assert code == 2 and "rubric grade: incomplete: 1 of 2 judgment(s) failed" in err
    lines = out.splitlines()
    assert any(line.endswith("— counted as unknown") for line in lines)  # neither a pass nor a fail
    assert (
        "test 1: ERROR — a judge call failed (llm-rubric line 8); the other assertions do not decide the result"
        in lines
    )
    assert any(line.startswith("no score: incomplete, 1 of 2 judgment(s) failed") for line in lines)
    for other in ("counted as FAIL", "UNDECIDED", "the others decide", "nothing was left to score"):
        assert other not in out


@needs_chromium
def test_an_incomplete_grading_says_so_at_the_top_of_its_page_with_every_failed_reason(
    judge_server, grade, tmp_path, capfd
):
    """autorubric: the refund window's judge call fails; the others are MET, so a bare score would read 1.000."""
    judge_server.default = Reply.json({"criterion_status": "MET", "explanation": "Met."})
    judge_server.when("30 days", Reply.server_error())
    judge_server.when("<options>", Reply.json({"selected_option": 2, "explanation": "Warm."}))
    (tmp_path / "answer.txt").write_text("Your refund is on its way.", encoding="utf-8")
    page = tmp_path / "rubric.html"
    rubric = str(SAMPLES / "autorubric" / "refund-reply.rubric.yaml")
    argv = ["grade", rubric, "--response", str(tmp_path / "answer.txt"), "--no-cache", "--retries", "0"]
    assert main([*argv, "--format", "json", "--report", str(page)]) == 2
    data = json.loads(capfd.readouterr().out)
    figures = load(page).figures()
    errors = [v["error"] for v in data["verdicts"] if "error" in v]
    assert errors and figures["incomplete"] == "INCOMPLETE" and figures["incomplete_reason"] == data["incomplete"]
    assert [figures[f"failed_judgment:{i}"] for i in range(len(errors))] == errors
    assert figures["score"] == figure(data["score"])  # whatever score is shown, under the banner that qualifies it


def test_notes_come_in_test_order(grade):
    tests = "".join(
        f"  - vars: {{q: q{n}}}\n    assert:\n      - type: select-best\n        value: best\n"
        "      - type: contains\n        value: q\n"
        for n in range(1, 13)
    )
    config = (
        "prompts: ['{{q}}']\nproviders: [echo]\ndefaultTest:\n  options: {provider: openai:judge}\ntests:\n" + tests
    )
    code, out, _ = grade(config, "q")
    notes = [line for line in out.splitlines() if line.startswith("note: test ")]
    numbers = [int(re.match(r"note: test (\d+):", line).group(1)) for line in notes]
    assert code == 0 and numbers == list(range(1, 13))


@needs_chromium
def test_a_failed_test_whose_score_is_not_known_says_not_known_never_n_a(judge_server, grade):
    judge_server.when("JUDGE-DOWN", Reply.server_error())
    config = JUDGE_DOWN.replace("value: paris", "value: rome")  # contains fails: the test fails, its score unknown
    page = grade.dir / "report.html"
    code, out, _ = grade(config, "Answer: paris", "--format", "json", "--report", str(page))
    (test,) = json.loads(out)["tests"]
    assert code == 2 and test["result"] == "FAIL" and test["score"] is None
    loaded = load(page)
    figures = loaded.figures()
    assert figures["test_result:1"] == "FAIL" and figures["test_score:1"] == "not known"
    section = re.search(r'<section class="test fail".*?</section>', loaded.dom, re.S).group(0)
    assert "n/a" not in section
