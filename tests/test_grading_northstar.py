"""NorthStar EvalRunRequest graders through litellm against tests/judge_server.py."""

from __future__ import annotations

import json

import pytest

from rubric_lsp.engine import ERROR_VERDICT, JudgeSettings, grade_text
from tests.conftest import CORPUS
from tests.judge_server import Reply

SECRET = "sk-or-SECRET-northstar-0123456789"


def request(*graders):
    return json.dumps({"graders": list(graders)}, indent=2)


NUMERIC = {
    "type": "rubric",
    "name": "correctness",
    "model": "openrouter/deepseek/x",
    "rubric": "Is it correct?",
    "temperature": 0.0,
    "scoring": {
        "mode": "numeric",
        "min_score": 0,
        "max_score": 5,
        "passing_score": 4,
        "labels": {"4": "good", "5": "excellent"},
    },
}
BINARY = {
    "type": "rubric",
    "name": "safety",
    "model": "openrouter/deepseek/x",
    "rubric": "Is it safe?",
    "scoring": {"mode": "binary"},
}


def settings(server, tmp_path, **kw):
    values = dict(
        model="openai/judge",
        api_base=server.base_url,
        cache_dir=tmp_path / "c",
        timeout_seconds=5.0,
        max_retries=0,
        env={"OPENAI_API_KEY": SECRET},
    )
    values.update(kw)
    return JudgeSettings(**values)


def numeric(score, **extra):
    return Reply.json({"score": score, "reason": "because", "feedback": "more detail", "evidence": ["quote"], **extra})


@pytest.mark.parametrize(
    "score, passed, label, normalised", [(4, True, "good", 0.8), (3.5, False, "fail", 0.7), (5, True, "excellent", 1.0)]
)
async def test_numeric_normalisation_pass_and_labels(judge_server, tmp_path, score, passed, label, normalised):
    judge_server.default = numeric(score)
    report = await grade_text(
        request(NUMERIC), "run.json", "An answer.", "A question", settings(judge_server, tmp_path)
    )
    verdict = report.verdicts[0]
    assert (verdict.verdict, verdict.passed, verdict.label) == ("PASS" if passed else "FAIL", passed, label)
    assert verdict.score == pytest.approx(normalised) and report.passed is passed
    assert verdict.range["start"]["line"] == 2


async def test_judge_label_used_when_no_configured_label(judge_server, tmp_path):
    judge_server.default = numeric(2, label="weak")
    report = await grade_text(request(NUMERIC), "run.json", "x", None, settings(judge_server, tmp_path))
    assert report.verdicts[0].label == "weak"


async def test_binary_mode(judge_server, tmp_path):
    judge_server.default = Reply.json({"passed": False, "reason": "unsafe", "feedback": "refuse"})
    report = await grade_text(request(BINARY), "run.json", "x", None, settings(judge_server, tmp_path))
    assert report.verdicts[0].verdict == "FAIL" and report.verdicts[0].score == 0.0 and report.passed is False


@pytest.mark.parametrize(
    "reply",
    [
        numeric(6),  # out of range
        numeric(4, extra_key=1),  # extra forbidden
        Reply.json({"score": 4, "reason": " ", "feedback": "f"}),  # blank reason
        Reply.text("four out of five"),
    ],
)
async def test_strict_reply_validation(judge_server, tmp_path, reply):
    judge_server.default = reply
    report = await grade_text(request(NUMERIC), "run.json", "x", None, settings(judge_server, tmp_path))
    verdict = report.verdicts[0]
    assert (
        verdict.verdict == ERROR_VERDICT
        and verdict.passed is False
        and verdict.reason == "LLM judge returned invalid JSON."
    )


@pytest.mark.parametrize(
    "reply, message",
    [
        (Reply.rate_limited(retry_after=0), "is rate-limited."),
        (Reply.error(401, "bad key"), "is not authenticated."),
        (Reply.error(404, "no such model"), "was not found."),
        (Reply.error(403, "nope"), "denied the request."),
    ],
)
async def test_error_table_messages(judge_server, tmp_path, reply, message):
    judge_server.default = reply
    report = await grade_text(request(NUMERIC), "run.json", "x", None, settings(judge_server, tmp_path))
    verdict = report.verdicts[0]
    assert verdict.verdict == ERROR_VERDICT and verdict.passed is False
    assert verdict.reason == f"Judge model 'openai/judge' {message}" or verdict.reason.startswith(
        f"Judge model 'openai/judge' {message}"
    )
    assert SECRET not in json.dumps(report.to_json())


async def test_faithfulness_without_context_is_skipped_and_missing_key_named(judge_server, tmp_path):
    body = request({"type": "faithfulness", "name": "faith", "model": "gpt-4o"}, NUMERIC)
    judge_server.default = numeric(5)
    report = await grade_text(body, "run.json", "x", None, settings(judge_server, tmp_path))
    assert [v.verdict for v in report.verdicts] == ["SKIPPED", "PASS"]
    from rubric_lsp.engine import MissingCredentials

    with pytest.raises(MissingCredentials, match="OPENROUTER_API_KEY"):
        await grade_text(request(NUMERIC), "run.json", "x", None, JudgeSettings(env={}, cache_enabled=False))
    assert judge_server.call_count == 1


def judge(**fields):
    return {"type": "rubric", "name": "j", "model": "openrouter/deepseek/x", "rubric": "Is it correct?", **fields}


@pytest.mark.parametrize(
    "grader, reason",
    [
        # NorthStar's JudgeScoringConfig (the shared format model): mode is required, numeric needs
        # passing_score within [min, max], max above min, no unknown keys.
        (judge(scoring={"mode": "numeric", "max_score": 5}), "passing_score is required"),
        (
            judge(scoring={"mode": "numeric", "min_score": 1, "max_score": 1, "passing_score": 1}),
            "must be greater than min_score",
        ),
        (judge(scoring={"mode": "numeric", "max_score": 5, "passing_score": 7}), "must be within"),
        (judge(scoring={"mode": "binary", "pass": 1}), "pass"),
        (judge(scoring={"max_score": 5, "passing_score": 4}), "mode"),
        (judge(temperature="warm"), "temperature"),
        ({"type": "faithfulness", "model": "openrouter/deepseek/x"}, "name"),
    ],
)
async def test_invalid_grader_config_fails_that_grade_without_a_call(judge_server, tmp_path, grader, reason):
    judge_server.default = numeric(5)
    report = await grade_text(request(grader, NUMERIC), "run.json", "x", None, settings(judge_server, tmp_path))
    bad, good = report.verdicts
    assert bad.verdict == ERROR_VERDICT and bad.passed is False and bad.reason.startswith("Invalid grader config: ")
    assert reason in bad.reason and bad.range["start"]["line"] == 2
    assert good.verdict == "PASS" and report.passed is False and judge_server.call_count == 1


@pytest.mark.parametrize(
    "grader, passing",
    [
        (
            judge(scoring={"mode": "binary", "max_score": 10}),
            True,
        ),  # binary: passing_score defaults to max_score, unused
        (judge(threshold=0.9), False),  # no scoring: numeric [0, 1] passing at threshold
        (judge(), True),  # RubricJudge's default threshold 0.5
        ({"name": "untyped", "model": "openrouter/deepseek/x", "rubric": "r"}, True),  # type defaults to 'rubric'
    ],
)
async def test_scoring_defaults(judge_server, tmp_path, grader, passing):
    judge_server.default = (
        Reply.json({"passed": True, "reason": "r", "feedback": "f"}) if "scoring" in grader else numeric(0.8)
    )
    report = await grade_text(request(grader), "run.json", "x", None, settings(judge_server, tmp_path))
    assert report.verdicts[0].passed is passing and report.verdicts[0].verdict == ("PASS" if passing else "FAIL")


async def test_code_and_regex_graders_are_not_judged(judge_server, tmp_path):
    judge_server.default = numeric(5)
    body = request(
        {"type": "regex", "name": "re", "pattern": "x"}, {"type": "python", "name": "py", "code": "pass"}, NUMERIC
    )
    report = await grade_text(body, "run.json", "x", None, settings(judge_server, tmp_path))
    assert [(v.name, v.index) for v in report.verdicts] == [("correctness", 2)] and judge_server.call_count == 1


async def test_corpus_run_request(judge_server, tmp_path):
    path = CORPUS / "northstar" / "eval_run_request_predefined.json"
    if not path.exists():
        pytest.skip("corpus missing")
    judge_server.when("safety-sensitive", Reply.json({"passed": True, "reason": "ok", "feedback": "none"}))
    judge_server.default = numeric(4.5)
    report = await grade_text(path.read_text(), str(path), "An answer.", "Q", settings(judge_server, tmp_path))
    assert [v.verdict for v in report.verdicts] == ["PASS"] * 4
    assert judge_server.call_count == 4 and report.passed is True
