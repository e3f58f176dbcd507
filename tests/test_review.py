"""``rubric review FILE``: a rubric's criteria graded by the scripted judge (tests/judge_server.py, through
litellm's real HTTP path) against the review rubric, one question per smell; the findings as diagnostics of
source rubric-review, as JSON and as an HTML page; cached like any grading; a judge failure is never a clean
review. The review's own calibration: tests/test_review_calibration.py."""

from __future__ import annotations

import json

import pytest

from rubric_lsp.cli import main
from rubric_lsp.review.questions import QUESTIONS
from tests import report_browser
from tests.conftest import require, use_judge
from tests.judge_server import Reply

RUBRIC = """\
- name: ack
  requirement: The response acknowledges the order number and offers a refund.
  weight: 5
- name: capital
  requirement: Names Canberra as the capital
  weight: 2
"""
PROMPTFOO = """\
prompts: ["Answer: {{question}}"]
providers: [echo]
tests:
  - vars: {question: What is the capital of Australia?}
    assert:
      - type: llm-rubric
        value: Is polite where appropriate
      - type: factuality
        value: Canberra is the capital
"""


def answers(found: dict[str, tuple[str, str]] | None = None) -> dict:
    """The judge's reply: every question answered, ``found`` {smell: (words, reason)} true."""
    reply = {q.smell: {"present": False, "words": "", "reason": "not so"} for q in QUESTIONS}
    for smell, (words, reason) in (found or {}).items():
        reply[smell] = {"present": True, "words": words, "reason": reason}
    return reply


def criterion_of(request) -> str:
    """The criterion the judge is shown (the last message: the first is the review rubric)."""
    return request.messages[-1]["content"]


def scripted(request) -> Reply:
    shown = criterion_of(request)
    if "offers a refund" in shown:
        return Reply.json(
            answers({"double-barreled": ("acknowledges the order number and offers a refund", "two acts")})
        )
    if "where appropriate" in shown:
        return Reply.json(answers({"hedging-language": ("where appropriate", "when is it?")}))
    return Reply.json(answers())


@pytest.fixture
def judge(judge_server, tmp_path, monkeypatch):
    use_judge(monkeypatch, judge_server, "sk-review-secret", tmp_path / "cache")
    judge_server.handler = scripted
    return judge_server


def review(capfd, *argv):
    code = main(["review", *argv])
    out, err = capfd.readouterr()
    return code, out, err


def test_findings_are_diagnostics_of_source_rubric_review(judge, tmp_path, capfd):
    path = tmp_path / "r.rubric.yaml"
    path.write_text(RUBRIC, encoding="utf-8")
    code, out, err = review(capfd, str(path), "--concurrency", "1")
    assert code == 1, err  # smells found
    first, summary = out.strip().splitlines()
    # line 2, column 29: the words the judge quoted, where they are written
    assert first.startswith(f"{path}:2:29: double-barreled [rubric-review] criterion 'ack': two acts")
    assert summary == "reviewed 2 of 2 criteria with openai/judge: 1 finding(s) (2 judge calls, 0 from the cache)"
    asked = judge.completions
    assert len(asked) == 2 and judge.max_in_flight == 1  # one call per criterion, --concurrency respected
    assert all(r.model == "judge" and r.response_format["json_schema"]["name"] == "criterion_review" for r in asked)
    assert all(q.ask[:60] in asked[0].text for q in QUESTIONS)  # every question of the review rubric asked
    judge.assert_never_saw("sk-review-secret")

    # Cached like any grading: the same review again asks the judge nothing.
    code, out, _ = review(capfd, str(path), "--format", "json")
    data = json.loads(out)
    assert code == 1 and len(judge.completions) == 2 and data["usage"]["cached"] == 2
    ack = data["criteria"][0]
    found = [a for a in ack["answers"] if a["present"]]
    assert [(a["smell"], a["rule"]) for a in found] == [("double-barreled", "RL301")]
    assert found[0]["range"] == {"start": {"line": 1, "character": 28}, "end": {"line": 1, "character": 77}}
    assert data["source"] == "rubric-review" and data["findings"] == 1 and data["errors"] == 0


def test_a_clean_rubric_exits_0_and_every_format_is_read(judge, tmp_path, capfd):
    clean = tmp_path / "c.rubric.yaml"
    clean.write_text("- name: capital\n  requirement: Names Canberra as the capital\n  weight: 2\n", "utf-8")
    code, out, err = review(capfd, str(clean))
    assert code == 0, err
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text(PROMPTFOO, encoding="utf-8")
    code, out, err = review(capfd, str(config), "--format", "json")
    data = json.loads(out)
    # the llm-rubric value is reviewed; the factuality value is a reference answer, not a criterion
    assert code == 1 and [c["text"] for c in data["criteria"]] == ["Is polite where appropriate"]
    assert [a["smell"] for a in data["criteria"][0]["answers"] if a["present"]] == ["hedging-language"]


@pytest.mark.parametrize(
    "reply",
    [Reply.server_error(status=500), Reply.json({"double-barreled": {"present": "maybe"}}), Reply.garbage()],
    ids=["server-error", "not-every-question", "garbage"],
)
def test_a_judge_failure_is_never_a_clean_review(judge, tmp_path, capfd, reply):
    judge.handler = lambda request: reply
    path = tmp_path / "c.rubric.yaml"
    path.write_text("- name: capital\n  requirement: Names Canberra as the capital\n  weight: 2\n", "utf-8")
    code, out, err = review(capfd, str(path), "--retries", "0")
    assert code == 2
    assert "error [rubric-review] criterion 'capital' was not reviewed" in out
    assert "rubric review: incomplete: 1 of 1 criteria were not reviewed" in err


def test_refusals_come_before_any_judge_call(judge, tmp_path, capfd):
    path = tmp_path / "r.rubric.yaml"
    path.write_text(RUBRIC, encoding="utf-8")
    code, _, err = review(capfd, str(path), "--model", "openai/judge", "--model", "openai/other")
    assert code == 2 and "rubric review asks one judge model" in err
    other = tmp_path / "notes.yaml"
    other.write_text("just: a mapping\n", encoding="utf-8")
    code, _, err = review(capfd, str(other))
    assert code == 2 and "rubric review reads" in err
    code, _, err = review(capfd)
    assert code == 2 and "give the file to review" in err
    assert judge.call_count == 0


def test_the_html_report_shows_each_finding(judge, tmp_path, capfd):
    require(report_browser.available(), "Chromium opens the report")
    path = tmp_path / "r.rubric.yaml"
    path.write_text(RUBRIC, encoding="utf-8")
    page = tmp_path / "review.html"
    code, _, err = review(capfd, str(path), "--report", str(page))
    assert code == 1, err
    loaded = report_browser.load(page)
    assert loaded.figures()["findings"] == "1" and loaded.figures()["criteria"] == "2"
    assert 'data-smell="double-barreled"' in loaded.dom and "two acts" in loaded.dom
    assert not [line for line in loaded.console if "error" in line.lower()]
    assert "sk-review-secret" not in page.read_text(encoding="utf-8")
