"""NorthStar graders decide as NorthStar's RubricJudge does (its public code, semantics.md §3).

Each case is a reply or request where an earlier, stricter reading disagreed with NorthStar:
how a reply is coerced and which JSON object in it counts, when a judge is skipped, what an
empty reply or an unusual provider error is called, and which graders are not run.
"""

from __future__ import annotations

import json

import pytest

from rubric_lsp.engine import (
    ERROR_VERDICT,
    JudgeSettings,
    MissingCredentials,
    grade_text,
)
from rubric_lsp.engine.calls import GradingError
from tests.judge_server import Reply

SECRET = "sk-or-SECRET-fidelity-0123456789"
INVALID = "LLM judge returned invalid JSON."


def request(*graders):
    return json.dumps({"graders": list(graders)}, indent=2)


NUMERIC = {
    "type": "rubric",
    "name": "correctness",
    "model": "openrouter/deepseek/x",
    "rubric": "Is it correct?",
    "temperature": 0.0,
    "scoring": {"mode": "numeric", "min_score": 0, "max_score": 5, "passing_score": 4},
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


async def grade(server, tmp_path, *graders, query="Is 2+2 4?", **kw):
    return await grade_text(request(*graders), "run.json", "The answer is 4.", query, settings(server, tmp_path, **kw))


@pytest.mark.parametrize(
    "reply, verdict, score",
    [
        ({"score": "4", "reason": "ok", "feedback": "f"}, "PASS", 0.8),  # a number in a string
        ({"score": 3, "reason": "ok", "feedback": "f", "confidence": "0.9"}, "FAIL", 0.6),
        ({"score": True, "reason": "ok", "feedback": "f"}, "FAIL", 0.2),  # pydantic reads true as 1.0
    ],
)
async def test_numeric_replies_are_coerced_as_northstar_coerces_them(judge_server, tmp_path, reply, verdict, score):
    judge_server.default = Reply.json(reply)
    got = (await grade(judge_server, tmp_path, NUMERIC)).verdicts[0]
    assert (got.verdict, got.score) == (verdict, pytest.approx(score))


@pytest.mark.parametrize("passed, verdict", [("true", "PASS"), (1, "PASS"), ("no", "FAIL"), (0, "FAIL")])
async def test_binary_passed_is_coerced_as_northstar_coerces_it(judge_server, tmp_path, passed, verdict):
    judge_server.default = Reply.json({"passed": passed, "reason": "r", "feedback": "f"})
    assert (await grade(judge_server, tmp_path, BINARY)).verdicts[0].verdict == verdict


@pytest.mark.parametrize(
    "reply",
    [
        {"passed": "maybe", "reason": "r", "feedback": "f"},
        {"passed": 2, "reason": "r", "feedback": "f"},
        {"passed": True, "reason": 5, "feedback": "f"},  # a reason must be text
    ],
)
async def test_what_northstar_refuses_is_invalid_json_and_never_a_pass(judge_server, tmp_path, reply):
    judge_server.default = Reply.json(reply)
    got = (await grade(judge_server, tmp_path, BINARY)).verdicts[0]
    assert got.verdict == ERROR_VERDICT and got.passed is False and got.reason == INVALID


async def test_the_first_valid_object_wins_and_a_disagreeing_later_one_is_flagged(judge_server, tmp_path):
    draft = json.dumps({"score": 2, "reason": "draft", "feedback": "f"})
    final = json.dumps({"score": 5, "reason": "final", "feedback": "f"})
    judge_server.default = Reply.text(f"Draft: {draft}\nOn reflection: {final}")
    got = (await grade(judge_server, tmp_path, NUMERIC)).verdicts[0]
    assert (got.verdict, got.score, got.reason, got.ambiguous) == ("FAIL", pytest.approx(0.4), "draft", True)


async def test_objects_that_do_not_validate_are_passed_over(judge_server, tmp_path):
    # the whole reply has an extra key; the object nested in it is a valid reply
    judge_server.default = Reply.json({"result": {"score": 5, "reason": "fine", "feedback": "none"}})
    got = (await grade(judge_server, tmp_path, NUMERIC)).verdicts[0]
    assert (got.verdict, got.ambiguous) == ("PASS", False)
    # a trailing fragment that is not a whole reply does not make it ambiguous
    judge_server.default = Reply.text(json.dumps({"score": 4, "reason": "ok", "feedback": "f"}) + ' note: {"score": 1}')
    got = (await grade(judge_server, tmp_path, NUMERIC, cache_enabled=False)).verdicts[0]
    assert (got.verdict, got.ambiguous) == ("PASS", False)


async def test_feedback_confidence_evidence_are_kept_and_reason_stripped(judge_server, tmp_path):
    judge_server.default = Reply.json(
        {"score": 4, "reason": "  correct  ", "feedback": " add units ", "confidence": 0.75, "evidence": ["4"]}
    )
    report = await grade(judge_server, tmp_path, NUMERIC)
    data = report.to_json()["verdicts"][0]
    assert (data["reason"], data["feedback"], data["confidence"], data["evidence"]) == (
        "correct",
        "add units",
        0.75,
        ["4"],
    )


async def test_an_empty_reply_is_invalid_json_and_says_why(judge_server, tmp_path):
    judge_server.default = Reply.empty()
    got = (await grade(judge_server, tmp_path, NUMERIC)).verdicts[0]
    assert got.verdict == ERROR_VERDICT and got.passed is False
    assert got.reason == INVALID and got.error == f"parse: {INVALID}" and "empty" in got.feedback


async def test_a_judge_with_no_rubric_and_no_goal_is_skipped_without_a_call(judge_server, tmp_path):
    bare = {k: v for k, v in NUMERIC.items() if k != "rubric"}
    report = await grade(judge_server, tmp_path, bare, query=None)
    assert report.verdicts[0].verdict == "SKIPPED" and "--query" in report.verdicts[0].reason
    assert judge_server.call_count == 0 and report.passed is None


async def test_a_judge_with_a_goal_but_no_rubric_gets_northstars_goal_rubric(judge_server, tmp_path):
    bare = {k: v for k, v in NUMERIC.items() if k != "rubric"}
    judge_server.default = Reply.json({"score": 5, "reason": "r", "feedback": "f"})
    await grade(judge_server, tmp_path, bare, query="Say 4")
    payload = json.loads(judge_server.completions[0].messages[1]["content"])
    assert (
        payload["goal"] == "Say 4" and payload["rubric"] == "Pass only if the final response satisfies the stated goal."
    )


async def test_the_judge_is_told_the_pass_mark_and_given_the_reply_schema(judge_server, tmp_path):
    judge_server.default = Reply.json({"score": 5, "reason": "r", "feedback": "f"})
    await grade(judge_server, tmp_path, NUMERIC)
    sent = judge_server.completions[0]
    assert "from 0 to 5" in sent.messages[0]["content"] and "4 or more" in sent.messages[0]["content"]
    schema = sent.response_format["json_schema"]["schema"]
    assert schema["properties"]["score"]["maximum"] == 5 and schema["additionalProperties"] is False
    assert set(schema["required"]) == {"reason", "feedback", "score"}


async def test_an_unknown_grader_type_refuses_the_request(judge_server, tmp_path):
    with pytest.raises(GradingError, match=r"type 'Rubric'.*does not know"):
        await grade(judge_server, tmp_path, dict(NUMERIC, type="Rubric", name="typo"), NUMERIC)
    assert judge_server.call_count == 0


async def test_non_llm_graders_are_named_in_a_note(judge_server, tmp_path):
    regex = {"type": "regex", "name": "mentions-four", "pattern": "4"}
    judge_server.default = Reply.json({"score": 5, "reason": "r", "feedback": "f"})
    report = await grade(judge_server, tmp_path, regex, NUMERIC)
    assert [v.name for v in report.verdicts] == ["correctness"]
    assert any("'mentions-four' (regex)" in note for note in report.notes)
    with pytest.raises(GradingError, match=r"no LLM graders.*mentions-four"):
        await grade(judge_server, tmp_path, regex)


async def test_a_grader_without_a_model_uses_northstars_default_judge(judge_server, tmp_path):
    no_model = {k: v for k, v in NUMERIC.items() if k != "model"}
    with pytest.raises(MissingCredentials, match=r"openrouter/deepseek/deepseek-v4-flash.*OPENROUTER_API_KEY"):
        await grade(judge_server, tmp_path, no_model, model=None)
    assert judge_server.call_count == 0


@pytest.mark.parametrize(
    "status, body, message",
    [
        (400, "This model's maximum context length is 8192 tokens.", "exceeded its context window."),
        (400, "The model `x` does not exist or you do not have access to it.", "was not found."),
        (400, "Incorrect API key provided.", "is not authenticated."),
    ],
)
async def test_provider_errors_are_named_by_what_they_say(judge_server, tmp_path, status, body, message):
    judge_server.default = Reply.error(status, body)
    got = (await grade(judge_server, tmp_path, NUMERIC)).verdicts[0]
    assert got.verdict == ERROR_VERDICT and got.passed is False
    assert message in got.reason and SECRET not in json.dumps(got.to_json())


def test_the_text_report_shows_northstars_feedback(judge_server, tmp_path, monkeypatch, capfd):
    from rubric_lsp.cli import main

    (tmp_path / "run.json").write_text(request(NUMERIC))
    (tmp_path / "answer.txt").write_text("4")
    for name, value in {
        "OPENAI_API_KEY": SECRET,
        "RUBRIC_JUDGE_API_BASE": judge_server.base_url,
        "RUBRIC_JUDGE_MODEL": "openai/judge",
        "RUBRIC_CACHE_DIR": str(tmp_path / "cache"),
    }.items():
        monkeypatch.setenv(name, value)
    judge_server.default = Reply.json({"score": 3, "reason": "no working shown", "feedback": "show the sum"})
    code = main(["grade", str(tmp_path / "run.json"), "--response", str(tmp_path / "answer.txt"), "--query", "2+2?"])
    out = capfd.readouterr().out
    assert code == 1 and "no working shown" in out and "feedback: show the sum" in out
