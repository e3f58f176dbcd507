"""promptfoo model-graded-closedqa, factuality and g-eval grading through litellm against tests/judge_server.py."""

from __future__ import annotations

import pytest

from rubric_lsp.engine import ERROR_VERDICT, JudgeSettings, grade_text
from tests.judge_server import Reply

QUERY = "What is the capital of France?"


def settings(server, tmp_path, **kw):
    values = dict(
        api_base=server.base_url,
        cache_dir=tmp_path / "c",
        timeout_seconds=5.0,
        max_retries=0,
        env={"OPENAI_API_KEY": "sk-test-0123456789"},
    )
    values.update(kw)
    return JudgeSettings(**values)


def config(assertions: str, options: str = "", prompts: str = "['Answer: {{question}}']") -> str:
    return f"""\
prompts: {prompts}
providers: [echo]
defaultTest:
  options:
    provider: openai:judge
{options}tests:
  - vars: {{question: Capital of France?, topic: geography}}
    assert:
{assertions}"""


def one(type_name: str, value: str = "Names Paris", extra: str = "") -> str:
    return f"      - type: {type_name}\n        value: {value}\n{extra}"


async def grade(server, tmp_path, text, query=QUERY, response="Paris.", cache="c"):
    return await grade_text(
        text, "promptfooconfig.yaml", response, query, settings(server, tmp_path, cache_dir=tmp_path / cache)
    )


def geval_judge(steps_reply: Reply, score_reply: Reply):
    """Answers g-eval's first call (criterion → steps) and its second (rating) by what the request holds."""

    def answer(request):
        return score_reply if "**Evaluation Steps**" in request.text else steps_reply

    return answer


STEPS = Reply.json({"steps": ["Check it names a city", "Check the city is Paris"]})


def geval_score(score, reason="Names Paris."):
    return Reply.json({"score": score, "reason": reason})


# -- model-graded-closedqa -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "reply, verdict, score",
    [
        ("The criterion asks for Paris; the submission says Paris.\nY\nY", "PASS", 1.0),
        ("It names Lyon instead.\nN\n", "FAIL", 0.0),
        ("Reasoning... Final answer: Y  \n\n", "PASS", 1.0),
    ],
)
async def test_closedqa_passes_iff_the_reply_ends_in_Y(judge_server, tmp_path, reply, verdict, score):
    judge_server.default = Reply.text(reply)
    report = await grade(
        judge_server, tmp_path, config(one("model-graded-closedqa", extra="        threshold: 0.99\n"))
    )
    v = report.verdicts[0]
    assert (v.verdict, v.score, v.passed) == (verdict, score, verdict == "PASS")
    request = judge_server.completions[0]
    assert QUERY in request.text and "Paris." in request.text and "Names Paris" in request.text
    assert request.response_format is None  # the reply is prose ending in a letter, not JSON


async def test_not_closedqa_is_ignored_and_an_unreadable_reply_is_an_error_both_ways(judge_server, tmp_path):
    # promptfoo 0.123.1's closedqa handler ignores not-: it grades exactly like the plain type.
    judge_server.default = Reply.text("It names Paris.\nY")
    report = await grade(judge_server, tmp_path, config(one("not-model-graded-closedqa")))
    assert (report.verdicts[0].verdict, report.verdicts[0].score) == ("PASS", 1.0)
    assert any("ignores its not-" in note for note in report.notes)
    judge_server.default = Reply.text("I am not sure. YES")  # ends in neither Y nor N
    report = await grade(
        judge_server, tmp_path, config(one("model-graded-closedqa") + one("not-model-graded-closedqa")), cache="other"
    )
    for v in report.verdicts:
        assert v.verdict == ERROR_VERDICT and v.passed is None and v.error.startswith("parse:")


# -- factuality ------------------------------------------------------------------------------------


@pytest.mark.parametrize("type_name", ["factuality", "model-graded-factuality"])
@pytest.mark.parametrize(
    "reply, verdict, score",
    [
        (Reply.json({"category": "A", "reason": "subset"}), "PASS", 1.0),
        (Reply.json({"category": " c ", "reason": "same"}), "PASS", 1.0),
        (Reply.json({"category": "D", "reason": "says Lyon"}), "FAIL", 0.0),
        (Reply.text("(E) Different wording, same facts."), "PASS", 1.0),  # legacy answer shape
        (Reply.text('```json\n{\n  "category": "D",\n  "reason": "conflict"\n}\n```'), "FAIL", 0.0),
    ],
)
async def test_factuality_default_category_scores(judge_server, tmp_path, type_name, reply, verdict, score):
    judge_server.default = reply
    report = await grade(judge_server, tmp_path, config(one(type_name, "Paris is the capital of France")))
    v = report.verdicts[0]
    assert (v.verdict, v.score) == (verdict, score)
    request = judge_server.completions[0]
    assert "Paris is the capital of France" in request.text and QUERY in request.text
    assert request.response_format is None  # promptfoo's factuality grader is its plain one


@pytest.mark.parametrize(
    "letter, verdict, score", [("A", "PASS", 0.4), ("D", "PASS", 0.2), ("C", "FAIL", 0.0), ("B", "PASS", 1.0)]
)
async def test_factuality_scores_come_from_options_and_threshold_is_ignored(
    judge_server, tmp_path, letter, verdict, score
):
    judge_server.default = Reply.json({"category": letter, "reason": "r"})
    options = "    factuality: {subset: 0.4, disagree: 0.2, agree: 0}\n"
    report = await grade(judge_server, tmp_path, config(one("factuality", extra="        threshold: 0.9\n"), options))
    assert (report.verdicts[0].verdict, report.verdicts[0].score) == (verdict, pytest.approx(score))


async def test_a_tests_factuality_options_replace_the_defaults_whole(judge_server, tmp_path):
    # options merge shallowly: the test's factuality object drops defaultTest's subset: 0.
    text = """\
prompts: ['Q: {{question}}']
providers: [echo]
defaultTest:
  options:
    provider: openai:judge
    factuality: {subset: 0}
tests:
  - vars: {question: Capital?}
    options: {factuality: {disagree: 0.5}}
    assert:
      - type: factuality
        value: Paris
"""
    judge_server.default = Reply.json({"category": "A", "reason": "r"})
    report = await grade(judge_server, tmp_path, text)
    assert (report.verdicts[0].verdict, report.verdicts[0].score) == ("PASS", 1.0)


async def test_not_factuality_is_ignored_and_a_bad_category_is_an_error(judge_server, tmp_path):
    judge_server.default = Reply.json({"category": "B", "reason": "more"})
    report = await grade(judge_server, tmp_path, config(one("not-factuality")))
    assert (report.verdicts[0].verdict, report.verdicts[0].score) == ("PASS", 1.0)
    judge_server.default = Reply.json({"category": "F", "reason": "?"})
    report = await grade(judge_server, tmp_path, config(one("factuality") + one("not-factuality")), cache="other")
    assert [v.verdict for v in report.verdicts] == [ERROR_VERDICT, ERROR_VERDICT]
    assert all(v.passed is None and "category 'F'" in v.error for v in report.verdicts)


# -- g-eval ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw, threshold, verdict",
    [
        (7, None, "PASS"),  # 0.7 >= the 0.7 default
        (6, None, "FAIL"),
        (6, "0.5", "PASS"),  # an explicit threshold replaces the default
        (8, "0.9", "FAIL"),
        ("9", None, "PASS"),  # a numeric string is read as a number
    ],
)
async def test_geval_scores_out_of_ten_against_the_threshold(judge_server, tmp_path, raw, threshold, verdict):
    judge_server.default = geval_judge(STEPS, geval_score(raw))
    extra = f"        threshold: {threshold}\n" if threshold else ""
    report = await grade(judge_server, tmp_path, config(one("g-eval", "Names the right city", extra)))
    v = report.verdicts[0]
    assert (v.verdict, v.score) == (verdict, pytest.approx(float(raw) / 10))
    steps_request, score_request = judge_server.completions
    assert "Names the right city" in steps_request.text and QUERY not in steps_request.text
    assert "- Check it names a city\n- Check the city is Paris" in score_request.text
    assert QUERY in score_request.text and "Paris." in score_request.text


async def test_geval_reads_a_multi_line_json_reply(judge_server, tmp_path):
    # promptfoo's single-line pattern misses this reply; we read it.
    judge_server.default = geval_judge(
        Reply.fenced({"steps": ["Check the city"]}),
        Reply.text('After checking:\n{\n  "score": 8,\n  "reason": "Names Paris."\n}'),
    )
    report = await grade(judge_server, tmp_path, config(one("g-eval")))
    assert (report.verdicts[0].verdict, report.verdicts[0].score, report.verdicts[0].reason) == (
        "PASS",
        pytest.approx(0.8),
        "Names Paris.",
    )


async def test_not_geval_inverts_and_a_list_of_criteria_is_averaged(judge_server, tmp_path):
    judge_server.default = geval_judge(STEPS, geval_score(9))
    report = await grade(judge_server, tmp_path, config(one("not-g-eval")))
    assert (report.verdicts[0].verdict, report.verdicts[0].score) == ("FAIL", pytest.approx(0.1))

    def by_criterion(request):
        if "**Evaluation Steps**" not in request.text:
            return STEPS
        return geval_score(10 if "**Evaluation Criteria**\nIs short\n" in request.text else 5)

    judge_server.default = by_criterion
    report = await grade(judge_server, tmp_path, config("      - type: g-eval\n        value: [Is short, Is polite]\n"))
    assert (report.verdicts[0].verdict, report.verdicts[0].score) == ("PASS", pytest.approx(0.75))
    assert judge_server.call_count == 2 + 4


@pytest.mark.parametrize(
    "steps, score",
    [
        (Reply.json({"steps": []}), geval_score(9)),
        (Reply.json({"steps": ["ok", ""]}), geval_score(9)),
        (STEPS, geval_score(11)),  # outside 0-10
        (STEPS, Reply.json({"score": 9})),  # no reason
        (STEPS, Reply.json({"score": "high", "reason": "r"})),
    ],
)
async def test_geval_unusable_replies_are_parse_errors_both_ways(judge_server, tmp_path, steps, score):
    judge_server.default = geval_judge(steps, score)
    report = await grade(judge_server, tmp_path, config(one("g-eval") + one("not-g-eval")))
    for v in report.verdicts:
        assert v.verdict == ERROR_VERDICT and v.passed is None and v.error.startswith("parse:")


# -- shared behaviour ---------------------------------------------------------------------------


ALL_TYPES = ["model-graded-closedqa", "factuality", "g-eval"]


@pytest.mark.parametrize("type_name", ALL_TYPES)
@pytest.mark.parametrize("reply", [Reply.server_error(500), Reply.garbage(), Reply.text("no verdict here ?")])
async def test_a_grader_failure_is_never_a_pass_in_either_direction(judge_server, tmp_path, type_name, reply):
    judge_server.default = reply
    report = await grade(judge_server, tmp_path, config(one(type_name) + one(f"not-{type_name}")))
    assert len(report.verdicts) == 2
    for v in report.verdicts:
        assert v.verdict == ERROR_VERDICT and v.passed is None and v.error
    # Never a pass: the test is undecided and the result incomplete (exit 2).
    assert report.passed is None and report.score is None and report.incomplete


@pytest.mark.parametrize(
    "type_name, reply",
    [
        ("model-graded-closedqa", Reply.text("ok\nY")),
        ("factuality", Reply.json({"category": "C", "reason": "r"})),
    ],
)
async def test_custom_rubric_prompt_gets_the_types_variables(judge_server, tmp_path, type_name, reply):
    names = {
        "model-graded-closedqa": "{{input}} C={{criteria}} S={{completion}}",
        "factuality": "{{input}} C={{ideal}} S={{completion}}",
    }[type_name]
    prompt = f'[{{"role": "user", "content": "T={names} V={{{{topic}}}} O={{{{rubric}}}}"}}]'
    options = f"    rubricPrompt: '{prompt}'\n"
    judge_server.default = reply
    report = await grade(judge_server, tmp_path, config(one(type_name), options), query=None)
    assert report.verdicts[0].verdict == "PASS"
    request = judge_server.completions[0]
    # no --query: the first prompt rendered with the test vars is the input
    assert request.messages == [
        {"role": "user", "content": "T=Answer: Capital of France? C=Names Paris S=Paris. V=geography O="}
    ]
    assert request.response_format is None
    assert any("first prompt" in note for note in report.notes)


async def test_geval_custom_prompts_are_an_object_of_steps_and_evaluate(judge_server, tmp_path):
    options = (
        "    rubricPrompt:\n"
        "      steps: 'Plan for {{criteria}} {{topic}}; JSON steps'\n"
        '      evaluate: \'[{"role": "system", "content": "{{criteria}}|{{steps}}|{{maxScore}}|{{input}}|{{output}}|{{topic}}"}]\'\n'
    )
    judge_server.default = lambda request: geval_score(8) if "|" in request.text else STEPS
    report = await grade(judge_server, tmp_path, config(one("g-eval"), options))
    assert report.verdicts[0].verdict == "PASS"
    steps_request, score_request = judge_server.completions
    assert steps_request.messages == [
        {"role": "user", "content": "Plan for Names Paris ; JSON steps"}
    ]  # test vars are not passed
    assert score_request.messages == [
        {
            "role": "system",
            "content": f"Names Paris|Check it names a city\n- Check the city is Paris|10|{QUERY}|Paris.|",
        }
    ]


async def test_without_query_or_readable_prompt_it_is_an_error_not_a_guess(judge_server, tmp_path):
    report = await grade(
        judge_server, tmp_path, config(one("factuality") + one("not-g-eval"), prompts="[file://prompt.py]"), query=None
    )
    assert judge_server.call_count == 0
    for v in report.verdicts:
        assert v.verdict == ERROR_VERDICT and v.passed is None and "--query" in v.reason


async def test_verdicts_carry_the_range_and_the_cache_keys_on_the_query(judge_server, tmp_path):
    judge_server.default = Reply.text("fine\nY")
    text = config(one("model-graded-closedqa"))
    first = await grade(judge_server, tmp_path, text)
    assert first.verdicts[0].range["start"]["line"] == text.splitlines().index("      - type: model-graded-closedqa")
    again = await grade(judge_server, tmp_path, text)
    assert again.verdicts[0].cached and judge_server.call_count == 1
    other = await grade(judge_server, tmp_path, text, query="What is the capital of Italy?")
    assert not other.verdicts[0].cached and judge_server.call_count == 2


async def test_factuality_reads_a_sloppy_object_as_promptfoo_does(judge_server, tmp_path):
    # promptfoo's extractFirstJsonObject parses YAML-style: unquoted keys and // comments read.
    judge_server.default = Reply.text("{\n  // my verdict\n  category: D,\n  reason: 'says Lyon'\n}")
    report = await grade(judge_server, tmp_path, config(one("factuality", "Paris is the capital of France")))
    assert (report.verdicts[0].verdict, report.verdicts[0].score, report.verdicts[0].reason) == (
        "FAIL",
        0.0,
        "says Lyon",
    )
