"""A graded test is the result promptfoo would give, and one exit-code rule covers every request kind.

Issue 25 items 1-3 and issue 26 item 5: deterministic assertions count in every graded test (as
promptfoo's ``runAssertions`` counts them), assertions promptfoo errors on are refused before any
judge call, code assertions leave a result undecided (never a pass), and ``rubric grade`` exits
0 all passed / 1 something failed / 2 refused or incomplete, whatever the request's shape.
Judges: tests/judge_server.py through litellm's real HTTP path.
"""

from __future__ import annotations

import importlib.util
import json

import pytest

from rubric_lsp.cli import main
from tests.conftest import use_judge
from tests.judge_server import Reply

SECRET = "sk-test-SECRET-outcomes-0123456789"
PASSING = Reply.json({"reason": "Polite.", "pass": True, "score": 0.9})

REFUND = """\
prompts: ['Reply to: {{q}}']
providers: [echo]
tests:
  - vars: {q: where is my money}
    assert:
      - type: contains
        value: refund
      - type: llm-rubric
        value: Is polite
"""


@pytest.fixture
def env(judge_server, tmp_path, monkeypatch):
    use_judge(monkeypatch, judge_server, SECRET, tmp_path / "cache")
    judge_server.default = PASSING
    (tmp_path / "out.txt").write_text("We are sorry for the delay.")
    (tmp_path / "out2.txt").write_text("Sorry, it is on its way.")
    return tmp_path


def grade(capfd, env, config: str, *argv: str) -> tuple[int, str, str]:
    (env / "promptfooconfig.yaml").write_text(config)
    code = main(["grade", str(env / "promptfooconfig.yaml"), *argv, "--no-cache"])
    out, err = capfd.readouterr()
    return code, out, err


def test_a_failing_contains_fails_the_test_as_in_promptfoo(env, judge_server, capfd):
    code, out, err = grade(capfd, env, REFUND, "--test", "1", "--response", str(env / "out.txt"), "--format", "json")
    data = json.loads(out)
    assert code == 1, err
    assert [(v["name"], v["verdict"]) for v in data["verdicts"]] == [
        ("test 1: contains", "FAIL"),
        ("test 1: llm-rubric", "PASS"),
    ]
    assert data["verdicts"][0]["reason"] == 'Expected output to contain "refund"'
    assert data["verdicts"][0]["range"]["start"]["line"] == 5  # shown where it is written, in the editor too
    # promptfoo: score (0 + 0.9) / 2, pass false with the failing assertion's reason.
    assert [{key: t[key] for key in ("test", "passed", "score", "reason")} for t in data["tests"]] == [
        {"test": 1, "passed": False, "score": pytest.approx(0.45), "reason": 'Expected output to contain "refund"'}
    ]
    assert data["passed"] is False and judge_server.call_count == 1


def test_a_test_level_threshold_is_applied_as_promptfoo_applies_it(env, judge_server, capfd):
    config = REFUND.replace("    assert:", "    threshold: 0.4\n    assert:")
    code, out, _ = grade(capfd, env, config, "--response", str(env / "out.txt"), "--format", "json")
    test = json.loads(out)["tests"][0]
    # The failed contains no longer decides: 0.45 >= 0.4 (AssertionsResult.testResult).
    assert code == 0 and test["passed"] is True and test["reason"] == "Aggregate score 0.45 ≥ 0.4 threshold"


@pytest.mark.parametrize(
    "assertion, message",
    [
        ("      - type: not-empty\n", "PF100 Unknown assertion type 'not-empty'"),
        ("      - type: llm-rubric\n", "PF103 This llm-rubric has no rubric"),
        ("      - type: contains\n", "PF111 This contains has no value"),
    ],
)
def test_assertions_promptfoo_errors_on_are_refused_before_any_judge_call(env, judge_server, capfd, assertion, message):
    config = REFUND.replace("      - type: contains\n        value: refund\n", assertion)
    code, out, err = grade(capfd, env, config, "--test", "1", "--response", str(env / "out.txt"))
    assert code == 2 and message in err and "test 1 (line 6)" in err
    assert judge_server.call_count == 0 and out == ""


def test_code_assertions_are_not_run_and_the_result_never_passes_on_its_own(env, judge_server, capfd):
    config = REFUND.replace("value: refund", "value: sorry") + "      - type: python\n        value: len(output) > 3\n"
    code, out, err = grade(capfd, env, config, "--response", str(env / "out.txt"))
    assert code == 2
    assert "NOT_RUN  test 1: python" in out and "test 1: INCOMPLETE" in out and "PASS" not in out.split("test 1:")[-1]
    assert "incomplete: the result of test 1 (python) rests on what rubric grade does not run" in err
    # A failure decides whatever the python says: a test without threshold fails.
    failing = config.replace("value: sorry", "value: refund")
    code, out, _ = grade(capfd, env, failing, "--response", str(env / "out.txt"), "--format", "json")
    assert code == 1 and json.loads(out)["tests"][0]["passed"] is False  # decided: the python cannot change it


def _autorubric(env):
    return env / "rubric.yaml"


def _dataset(env) -> str:
    data = {
        "rubric": [{"name": "polite", "requirement": "Is polite", "weight": 1}],
        "items": [
            {"submission": "Thanks!", "description": "a", "ground_truth": ["MET"]},
            {"submission": "Go away.", "description": "b", "ground_truth": ["UNMET"]},
        ],
    }
    path = env / "data.json"
    path.write_text(json.dumps(data))
    return str(path)


MET = Reply.json({"criterion_status": "MET", "explanation": "ok"})
FAILING_JUDGE = Reply.server_error(400)


@pytest.mark.parametrize("fmt", ["text", "json", "junit"])
@pytest.mark.parametrize(
    "kind, judge, expected",
    [
        ("response-pass", None, 0),
        ("response-fail", None, 1),
        ("outputs-pass", None, 0),
        ("outputs-fail", None, 1),
        ("response-judge-down", FAILING_JUDGE, 2),
        ("outputs-judge-down", FAILING_JUDGE, 2),
        ("examples-pass", MET, 0),
        ("examples-fail", Reply.json({"criterion_status": "UNMET", "explanation": "no"}), 1),
        ("examples-judge-down", FAILING_JUDGE, 2),
        ("dataset-measured", MET, 0),
        ("dataset-judge-down", FAILING_JUDGE, 2),
    ],
)
def test_one_exit_code_rule_for_every_request_kind(env, judge_server, capfd, kind, judge, expected, fmt):
    """0 all passed, 1 something failed, 2 refused or incomplete — one output or two, a test or a dataset."""
    if judge is not None:
        judge_server.default = judge
    out1, out2 = str(env / "out.txt"), str(env / "out2.txt")
    failing = REFUND
    passing = REFUND.replace("value: refund", "value: orry")
    config = failing if kind.endswith("fail") else passing
    request, _, _ = kind.partition("-")
    if request == "response":
        code, out, err = grade(capfd, env, config, "--response", out1, "--format", fmt)
    elif request == "outputs":
        code, out, err = grade(capfd, env, config, "--response", out1, "--response", out2, "--format", fmt)
    elif request == "examples":
        rubric = _autorubric(env)
        rubric.write_text(
            "rubric:\n  - name: polite\n    requirement: Is polite\n    weight: 1\n"
            "examples:\n  - name: thanks\n    response: Thanks!\n    expect: {verdicts: {polite: MET}}\n"
        )
        code = main(["grade", str(rubric), "--examples", "--format", fmt, "--no-cache"])
        out, err = capfd.readouterr()
    else:
        code = main(["grade", _dataset(env), "--format", fmt, "--no-cache"])
        out, err = capfd.readouterr()
    assert code == expected, (out, err)
    if expected == 2:
        assert "incomplete" in err


def test_a_dataset_whose_every_judge_call_failed_exits_non_zero(env, judge_server, capfd):
    judge_server.default = FAILING_JUDGE
    code = main(["grade", _dataset(env), "--format", "json", "--no-cache"])
    out, err = capfd.readouterr()
    data = json.loads(out)
    assert code == 2
    assert data["incomplete"] == "2 of 2 judgment(s) failed; the agreement figures leave them out"
    assert "rubric grade: incomplete: 2 of 2 judgment(s) failed" in err


def test_default_assertions_a_transform_and_disable_default_asserts(env, judge_server, capfd):
    """defaultTest's assertions run first unless the test's options.disableDefaultAsserts; an output
    transform (code) runs in V8 before every assertion (not run without the engine), a file:// one is not run."""
    config = (
        "prompts: [p]\nproviders: [echo]\n"
        "defaultTest:\n  assert:\n    - type: contains\n      value: refund\n"
        "tests:\n"
        "  - assert:\n      - type: icontains\n        value: SORRY\n"
        "  - options: {disableDefaultAsserts: true}\n    assert:\n      - type: icontains\n        value: SORRY\n"
        "  - options: {transform: output.toUpperCase()}\n    assert:\n      - type: contains\n        value: SORRY\n"
        "  - options: {transform: 'file://t.js'}\n    assert:\n      - type: icontains\n        value: SORRY\n"
    )
    code, out, _ = grade(capfd, env, config, "--response", str(env / "out.txt"), "--format", "json")
    data = json.loads(out)
    engine = importlib.util.find_spec("py_mini_racer") is not None
    transformed = ("FAIL", "PASS") if engine else ("NOT_RUN", "NOT_RUN")
    assert [(v["name"], v["verdict"]) for v in data["verdicts"]] == [
        ("test 1: contains", "FAIL"),
        ("test 1: icontains", "PASS"),
        ("test 2: icontains", "PASS"),
        ("test 3: contains", transformed[0]),  # WE ARE SORRY FOR THE DELAY. holds no "refund"
        ("test 3: contains", transformed[1]),
        ("test 4: contains", "NOT_RUN"),
        ("test 4: icontains", "NOT_RUN"),
    ]
    assert [t["passed"] for t in data["tests"]] == [False, True, False if engine else None, None]
    assert code == 2 and judge_server.call_count == 0  # no judge needed for deterministic tests
