"""Grading autorubric rubrics through litellm's real HTTP client against tests/judge_server.py."""

from __future__ import annotations

import sys
import time

import pytest

from rubric_lsp.engine import (
    ERROR_VERDICT,
    GradingError,
    JudgeSettings,
    MissingCredentials,
    grade_examples,
    grade_text,
)
from rubric_lsp.engine.store.cache import VerdictCache
from rubric_lsp.formats.autorubric.options import GRADE_OPTIONS
from tests.judge_server import Reply

OPTION_NAMES = {option.name for option in GRADE_OPTIONS}  # passed in the request, not the settings

SECRET = "sk-test-SECRET-0123456789abcdef"

RUBRIC = """\
guidelines: Judge strictly.
rubric:
  - name: capital
    requirement: States that Paris is the capital of France
    weight: 10
  - name: insult
    requirement: Insults the user
    weight: -5
  - name: depth
    requirement: How much detail does it give?
    options:
      - {label: none, value: 0}
      - {label: some, value: 0.5}
      - {label: lots, value: 1}
"""


def met(reason="ok"):
    return Reply.json({"criterion_status": "MET", "explanation": reason})


def unmet(reason="no"):
    return Reply.json({"criterion_status": "UNMET", "explanation": reason})


def pick_label(label):
    """A reply choosing the option whose text is ``label``, wherever the shuffle put it."""

    def reply(request):
        lines = request.text.split("<options>")[1].splitlines()
        for line in lines:
            number, _, text = line.partition(". ")
            if text.strip() == label:
                return Reply.json({"selected_option": int(number), "explanation": f"picked {label}"})
        raise AssertionError(f"option {label!r} not shown")

    return reply


def settings(server, tmp_path, **overrides):
    values = dict(
        model="openai/judge",
        api_base=server.base_url,
        cache_dir=tmp_path / "cache",
        timeout_seconds=5.0,
        max_retries=2,
        env={"OPENAI_API_KEY": SECRET},
    )
    values.update(overrides)
    return JudgeSettings(**values)


async def grade(
    server, tmp_path, rubric=RUBRIC, response="Paris is the capital.", query="Capital of France?", **overrides
):
    """Graded with ``overrides``: the format's options (``aggregation``, …) go in the request, the rest in the settings."""
    options = {name: overrides.pop(name) for name in list(overrides) if name in OPTION_NAMES}
    return await grade_text(rubric, "r.yaml", response, query, settings(server, tmp_path, **overrides), options=options)


async def test_verdicts_score_and_ranges(judge_server, tmp_path):
    judge_server.when("Insults", unmet("polite"))
    judge_server.when("How much detail", pick_label("some"))
    report = await grade(judge_server, tmp_path)
    data = report.to_json()
    assert [v["verdict"] for v in data["verdicts"]] == ["MET", "UNMET", "some"]
    assert data["verdicts"][2]["option"] == 1
    assert data["verdicts"][0]["range"]["start"] == {"line": 2, "character": 4}
    assert data["verdicts"][2]["range"]["start"]["line"] == 8
    # (10 * 1 + (-5) * 0 + 10 * 0.5) / 20
    assert data["score"] == pytest.approx(0.75)
    assert data["raw_score"] == pytest.approx(15.0)
    assert judge_server.call_count == 3
    assert data["usage"]["calls"] == 3 and data["usage"]["prompt_tokens"] == 300
    # guidelines, query and the penalty hint reach the judge; a JSON schema is requested
    insult = next(r for r in judge_server.completions if "Insults" in r.text)
    assert "Judge strictly." in insult.text and "Capital of France?" in insult.text and "flaw" in insult.text
    assert insult.response_format["json_schema"]["schema"]["required"] == ["criterion_status", "explanation"]


async def test_multi_choice_shows_na_option_last_and_maps_shuffle_back(judge_server, tmp_path):
    judge_server.when("How much detail", pick_label("Cannot assess / not applicable"))
    judge_server.when("Insults", unmet())
    report = await grade(judge_server, tmp_path)
    request = next(r for r in judge_server.completions if "How much detail" in r.text)
    shown = [line.split(". ", 1)[1] for line in request.text.split("<options>")[1].strip().splitlines() if ". " in line]
    assert sorted(shown) == sorted(["none", "some", "lots", "Cannot assess / not applicable"])
    depth = report.verdicts[2]
    assert depth.verdict == "Cannot assess / not applicable" and depth.option is None and depth.error is None
    # NA abstains: skipped from numerator and denominator -> 10 / 10
    assert report.score == pytest.approx(1.0)


async def test_shuffle_is_deterministic_per_response(judge_server, tmp_path):
    judge_server.when("How much detail", pick_label("lots"))
    orders = []
    for response in ("one answer", "one answer", "another answer entirely"):
        judge_server.reset()
        judge_server.when("How much detail", pick_label("lots"))
        report = await grade(judge_server, tmp_path, response=response, cache_enabled=False)
        assert report.verdicts[2].verdict == "lots"
        request = next(r for r in judge_server.completions if "How much detail" in r.text)
        orders.append(request.text.split("<options>")[1])
    assert orders[0] == orders[1]


async def test_fenced_json_and_reasoning_preamble_take_the_concluded_verdict(judge_server, tmp_path):
    judge_server.when("States that Paris", Reply.fenced({"criterion_status": "UNMET", "explanation": "fenced"}))
    judge_server.when(
        "Insults",
        Reply.preamble(
            {"criterion_status": "UNMET", "explanation": "final"},
            'If it were rude I would say {"criterion_status": "MET", "explanation": "draft"}. It is not.',
        ),
    )
    judge_server.when(
        "How much detail",
        Reply.text(
            '<think>{"selected_option": 1, "explanation": "scratch"}</think>{"selected_option": 2, "explanation": "done"}'
        ),
    )
    report = await grade(judge_server, tmp_path, shuffle_options=False)
    capital, insult, depth = report.verdicts
    assert (capital.verdict, capital.reason) == ("UNMET", "fenced")
    # Two verdict objects (a draft quoted in the reasoning): autorubric cannot parse the reply and
    # abstains, and so do we (issue 15, item 2); one object wrapped in prose or fences is read.
    assert (
        insult.verdict == ERROR_VERDICT and insult.error.startswith("parse:") and insult.counted_as == "CANNOT_ASSESS"
    )
    assert (depth.verdict, depth.reason, depth.ambiguous) == ("some", "done", False)


async def test_rate_limit_is_retried_honouring_retry_after(judge_server, tmp_path):
    judge_server.queue(Reply.rate_limited(retry_after=1))
    start = time.monotonic()
    report = await grade(judge_server, tmp_path, rubric="- requirement: Says hello\n")
    assert report.verdicts[0].verdict == "MET"
    assert judge_server.call_count == 2
    assert time.monotonic() - start >= 0.9


async def test_server_errors_retry_then_become_infrastructure_abstentions(judge_server, tmp_path):
    judge_server.when("Insults", Reply.server_error(500))
    report = await grade(judge_server, tmp_path, max_retries=1)
    insult = report.verdicts[1]
    assert insult.verdict == ERROR_VERDICT and insult.error.startswith("infrastructure:")
    assert insult.counted_as == "CANNOT_ASSESS" and insult.passed is None
    assert sum(1 for r in judge_server.completions if "Insults" in r.text) == 2
    # the failure abstains: score over the other two only
    assert report.score == pytest.approx(1.0)
    assert report.usage.calls == 4


async def test_timeout_is_an_infrastructure_failure(judge_server, tmp_path):
    judge_server.queue(Reply.hang())
    start = time.monotonic()
    report = await grade(
        judge_server, tmp_path, rubric="- requirement: Says hello\n", timeout_seconds=1.0, max_retries=0
    )
    assert time.monotonic() - start < 8
    verdict = report.verdicts[0]
    assert (
        verdict.verdict == ERROR_VERDICT
        and verdict.error.startswith("infrastructure:")
        and "timed out" in verdict.error
    )
    assert report.score is None and "Every criterion" in report.error


@pytest.mark.parametrize(
    "reply, category",
    [
        (Reply.garbage(), "infrastructure"),
        (Reply.text("I think it is met."), "parse"),
        (Reply.json({"criterion_status": "met", "explanation": "lowercase"}), "parse"),
        (Reply.json({"criterion_status": "MET"}), "parse"),
        (Reply.text("   "), "parse"),
    ],
)
async def test_unusable_replies_are_failures_not_verdicts(judge_server, tmp_path, reply, category):
    judge_server.default = reply
    report = await grade(
        judge_server,
        tmp_path,
        rubric="- requirement: Says hello\n- requirement: Is rude\n  weight: -3\n",
        max_retries=0,
    )
    for verdict in report.verdicts:
        assert verdict.verdict == ERROR_VERDICT and verdict.error.startswith(category + ":")
        assert verdict.counted_as == "CANNOT_ASSESS"
    assert report.score is None and report.error
    assert len(VerdictCache(tmp_path / "cache")) == 0  # failures are never cached


async def test_out_of_range_option_is_a_parse_failure(judge_server, tmp_path):
    judge_server.default = Reply.json({"selected_option": 9, "explanation": "?"})
    report = await grade(
        judge_server,
        tmp_path,
        rubric="- requirement: Depth\n  options: [{label: a, value: 0}, {label: b, value: 1}]\n- requirement: Other\n",
    )
    assert report.verdicts[0].error.startswith("parse:") and "outside" in report.verdicts[0].error


async def test_cache_hit_makes_no_call_and_editing_one_criterion_makes_one(judge_server, tmp_path):
    judge_server.when("How much detail", pick_label("lots"))
    first = await grade(judge_server, tmp_path)
    assert judge_server.call_count == 3
    again = await grade(judge_server, tmp_path)
    assert judge_server.call_count == 3 and again.usage.cached == 3
    assert all(v.cached for v in again.verdicts) and again.score == first.score
    edited = RUBRIC.replace("Insults the user", "Insults the user or the question")
    await grade(judge_server, tmp_path, rubric=edited)
    assert judge_server.call_count == 4
    await grade(judge_server, tmp_path, query="Another question?")
    assert judge_server.call_count == 7  # the query is part of the key
    await grade(judge_server, tmp_path, cache_enabled=False)
    assert judge_server.call_count == 10
    for path in (tmp_path / "cache").rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes()


async def test_missing_key_is_reported_before_any_call(judge_server, tmp_path):
    with pytest.raises(MissingCredentials, match="OPENAI_API_KEY"):
        await grade(judge_server, tmp_path, api_base=None, env={})
    with pytest.raises(MissingCredentials, match="ANTHROPIC_API_KEY"):
        await grade(judge_server, tmp_path, model="anthropic:messages:claude-x", env={})
    assert judge_server.call_count == 0


async def test_invalid_rubric_is_a_grading_error(judge_server, tmp_path):
    with pytest.raises(GradingError, match="options"):
        await grade(judge_server, tmp_path, rubric="- requirement: x\n  options: [{label: a, value: 0}]\n")
    assert judge_server.call_count == 0


async def test_several_judges_vote(judge_server, tmp_path):
    judge_server.when(lambda r: r.model == "judge-b", unmet())
    judge_server.when(lambda r: r.model == "judge-c", unmet())
    report = await grade(
        judge_server,
        tmp_path,
        rubric="- requirement: Says hello\n",
        model="openai/judge-a",
        models=["openai/judge-b", "openai/judge-c"],
    )
    assert report.verdicts[0].verdict == "UNMET" and report.verdicts[0].votes == ["MET", "UNMET", "UNMET"]
    assert judge_server.call_count == 3


async def test_cancellation_stops_in_flight_calls(judge_server, tmp_path):
    import asyncio

    judge_server.default = Reply.hang()
    task = asyncio.ensure_future(grade(judge_server, tmp_path, timeout_seconds=30))
    for _ in range(100):
        await asyncio.sleep(0.05)
        if judge_server.call_count == 3:
            break
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert len(VerdictCache(tmp_path / "cache")) == 0


async def test_examples_check_expectations(judge_server, tmp_path):
    rubric = (
        RUBRIC
        + """\
examples:
  - name: good
    response: Paris is the capital.
    expect: {min_score: 0.5, verdicts: {capital: MET, insult: UNMET}}
  - name: bad
    response: London, you fool.
    expect: {verdicts: [MET]}
"""
    )
    judge_server.when("London", unmet())
    judge_server.when("Insults", unmet())
    results = await grade_examples(rubric, "r.yaml", settings(judge_server, tmp_path))
    assert [r.name for r in results] == ["good", "bad"]
    assert results[0].met is True and results[0].range["start"]["line"] == 15
    assert results[1].met is False and "capital: expected MET, the judge said UNMET" in results[1].failures[0]


def test_import_does_not_load_litellm():
    import subprocess

    code = "import sys, rubric_lsp.engine, rubric_lsp.formats.autorubric.score; print('litellm' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


async def test_several_judges_tie_takes_worst_case_and_unanimous(judge_server, tmp_path):
    judge_server.when(lambda r: r.model == "judge-b", unmet())
    two = dict(model="openai/judge-a", models=["openai/judge-b"])
    rubric = "- requirement: Says hello\n- requirement: Is rude\n  weight: -2\n"
    report = await grade(judge_server, tmp_path, rubric=rubric, **two)
    assert [v.verdict for v in report.verdicts] == ["UNMET", "MET"]  # ties: worst case for the weight's sign
    report = await grade(judge_server, tmp_path, rubric=rubric, aggregation="unanimous", **two)
    assert [v.verdict for v in report.verdicts] == ["UNMET", "UNMET"]


async def test_several_judges_ordinal_mean_snaps_to_nearest_option(judge_server, tmp_path):
    judge_server.when(lambda r: r.model == "judge-a", pick_label("none"))
    judge_server.when(lambda r: r.model == "judge-b", pick_label("lots"))
    judge_server.when(lambda r: r.model == "judge-c", pick_label("lots"))
    rubric = "- requirement: How much detail?\n  options: [{label: none, value: 0}, {label: some, value: 0.5}, {label: lots, value: 1}]\n"
    report = await grade(
        judge_server, tmp_path, rubric=rubric, model="openai/judge-a", models=["openai/judge-b", "openai/judge-c"]
    )
    assert report.verdicts[0].verdict == "some"  # mean 0.67 is nearest to 0.5
    assert report.verdicts[0].votes == ["none", "lots", "lots"]


def test_failure_categories_and_their_effect_on_the_score():
    from rubric_lsp.engine.failures import JudgeFailure
    from rubric_lsp.formats.autorubric.grading.criteria import failure_outcome
    from rubric_lsp.formats.autorubric.model import Criterion
    from rubric_lsp.formats.autorubric.score import compute_score

    good = Criterion(requirement="good", weight=10)
    bad = Criterion(requirement="bad", weight=-5)
    choice = Criterion.model_validate(
        {"requirement": "c", "weight": -2, "options": [{"label": "lo", "value": 0.2}, {"label": "hi", "value": 0.9}]}
    )
    unknown = JudgeFailure("unknown", "boom")
    assert failure_outcome(good, unknown)[1] == "UNMET"
    assert failure_outcome(bad, unknown)[1] == "MET"
    assert failure_outcome(choice, unknown)[1] == "hi"  # worst for a penalty: the highest value
    for category in ("infrastructure", "parse"):
        outcome, counted = failure_outcome(good, JudgeFailure(category, "x"))
        assert outcome.abstained and counted == "CANNOT_ASSESS"
    # unknown failures count against the response; infrastructure ones are skipped
    outcomes = [failure_outcome(good, unknown)[0], failure_outcome(bad, JudgeFailure("infrastructure", "x"))[0]]
    assert compute_score(outcomes) == 0.0


async def test_retry_wait_frees_the_concurrency_slot(judge_server, tmp_path):
    # With one slot, a rate-limited criterion waits out its back-off (0.25-0.5 s) without the
    # slot, so the other criterion is judged meanwhile instead of queueing behind the wait. (A
    # 429 *with* Retry-After pauses the whole run instead: tests/test_rate_limits.py.)
    judge_server.queue(Reply.rate_limited(retry_after=None))
    judge_server.default = met()
    rubric = "- name: first\n  requirement: Says hello\n- name: second\n  requirement: Says goodbye\n"
    report = await grade(judge_server, tmp_path, rubric=rubric, concurrency=1, cache_enabled=False)
    assert [v.verdict for v in report.verdicts] == ["MET", "MET"]
    first, second, retry = judge_server.completions
    assert second.received_at - first.received_at < 0.2 <= 0.25 <= retry.received_at - first.received_at
    assert "Says hello" in first.text and "Says goodbye" in second.text and "Says hello" in retry.text
