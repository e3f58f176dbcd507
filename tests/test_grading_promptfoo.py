"""promptfoo llm-rubric / not-llm-rubric grading through litellm against tests/judge_server.py."""

from __future__ import annotations

import pytest

from rubric_lsp.engine import ERROR_VERDICT, GradingError, grade_text
from rubric_lsp.formats.promptfoo.grading.assertions import decide, parse_rubric_reply
from rubric_lsp.formats.promptfoo.grading.prompts import render
from tests.judge_server import Reply
from tests.promptfoo_grading import settings, verdict

CONFIG = """\
# yaml-language-server: $schema=https://promptfoo.dev/config-schema.json
prompts: ["Answer: {{question}}"]
providers: [openai:gpt-5-mini]
defaultTest:
  options:
    provider:
      id: openai:chat:grader-default
      config: {temperature: 0.3, max_tokens: 77}
tests:
  - vars: {question: What is the capital of France?}
    assert:
      - type: llm-rubric
        value: 'Answers "{{question}}" correctly {{output}}'
      - type: not-llm-rubric
        value: Apologizes
        threshold: 0.5
  - vars: {question: Say hi}
    assert:
      - type: llm-rubric
        value: Greets the user
        provider: openai:own-grader
      - type: contains
        value: hi
"""


@pytest.mark.parametrize(
    "reply, threshold, inverse, expected",
    [
        ({"pass": True, "score": 0}, None, False, (True, 0.0)),  # 0/1 score without threshold always passes
        ({"score": 0.2}, None, False, (True, 0.2)),  # missing pass means PASS
        ({"pass": True, "score": 0.2}, 0.5, False, (False, 0.2)),
        ({"pass": False}, None, False, (False, 0.0)),  # score from Number(pass)
        ({"pass": True, "score": "0.75"}, 0.7, False, (True, 0.75)),
        ({"pass": True, "score": 0.9}, None, True, (False, pytest.approx(0.1))),
        ({"pass": True, "score": 0.3}, 0.5, True, (True, pytest.approx(0.7))),  # threshold first, then inverted
    ],
)
def test_pass_score_threshold_and_inversion(reply, threshold, inverse, expected):
    import json

    passed, score, _, _ = parse_rubric_reply(json.dumps(reply))
    assert decide(passed, score, threshold, inverse) == expected


def test_reasoning_preamble_does_not_become_the_verdict():
    text = 'The format is {"reason": "", "pass": false, "score": 0}. Having checked, {"reason": "fine", "pass": true, "score": 1}'
    passed, score, reason, ambiguous = parse_rubric_reply(text)
    assert (passed, score, reason, ambiguous) == (True, 1.0, "fine", True)


def test_render_like_nunjucks():
    assert (
        render("Q: {{ question }} / {{output}} / {{ obj.a }} / {{ missing }}", {"question": "why", "obj": {"a": 1}})
        == "Q: why /  / 1 / "
    )


def test_a_template_is_compiled_once_and_rendered_afresh_each_time(monkeypatch):
    """An eval renders its grading prompt and each test's rubric once per output: compiling is ~15x rendering."""
    import jinja2

    compiled: list[str] = []
    real = jinja2.Environment.from_string

    def counting(self, source, *args, **kwargs):
        compiled.append(source)
        return real(self, source, *args, **kwargs)

    monkeypatch.setattr(jinja2.Environment, "from_string", counting)
    template = "Grade {{ output }} against {{ rubric | upper }}{% if extra %} and {{ extra }}{% endif %}"
    assert render(template, {"output": "a", "rubric": "r1"}) == "Grade a against R1"
    assert render(template, {"output": "b", "rubric": "r2", "extra": "x"}) == "Grade b against R2 and x"
    assert render(template, {"output": "c", "rubric": "r3"}) == "Grade c against R3"
    assert compiled.count(template) <= 1  # (0 when an earlier test compiled it in this process)
    broken = "{{ unclosed"  # Jinja cannot read it: plain substitution, each time
    assert render(broken, {}) == render(broken, {}) == "{{ unclosed"


async def test_grades_every_test_with_effective_graders(judge_server, tmp_path):
    judge_server.when("Apologizes", verdict(False, 0.1, "no apology"))
    judge_server.when("Greets", verdict(True, 1, "hi"))
    judge_server.default = verdict(True, 0.8, "correct")
    report = await grade_text(CONFIG, "promptfooconfig.yaml", "Paris.", None, settings(judge_server, tmp_path))
    data = report.to_json()
    assert [v["name"] for v in data["verdicts"]] == [
        "test 1: llm-rubric",
        "test 1: not-llm-rubric",
        "test 2: llm-rubric",
        "test 2: contains",
    ]
    # The contains runs as promptfoo runs it: "Paris." has no "hi", so test 2 fails.
    assert [v["verdict"] for v in data["verdicts"]] == ["PASS", "PASS", "PASS", "FAIL"]
    assert [t["passed"] for t in data["tests"]] == [True, False] and data["passed"] is False
    assert data["verdicts"][1]["score"] == pytest.approx(0.9)
    assert data["verdicts"][0]["range"]["start"]["line"] == 11
    by_rubric = {r.text.split("<Rubric>")[-1].strip(): r for r in judge_server.completions}
    first = by_rubric['Answers "What is the capital of France?" correctly \n</Rubric>']
    assert first.model == "grader-default" and first.body["temperature"] == 0.3 and first.body["max_tokens"] == 77
    assert "<Output>\nParis.\n</Output>" in first.text
    assert by_rubric["Greets the user\n</Rubric>"].model == "own-grader"


async def test_cli_model_replaces_only_the_default_grader_slot(judge_server, tmp_path):
    await grade_text(
        CONFIG,
        "promptfooconfig.yaml",
        "Paris.",
        None,
        settings(judge_server, tmp_path, model="openai/replaced"),
        test_index=None,
    )
    models = sorted(r.model for r in judge_server.completions)
    assert models == ["own-grader", "replaced", "replaced"]


@pytest.mark.parametrize("reply", [Reply.server_error(500), Reply.text("no json here"), Reply.garbage()])
async def test_grader_failure_is_never_a_pass_in_either_direction(judge_server, tmp_path, reply):
    judge_server.default = reply
    report = await grade_text(
        CONFIG, "promptfooconfig.yaml", "Paris.", None, settings(judge_server, tmp_path), test_index=0
    )
    assert len(report.verdicts) == 2
    for v in report.verdicts:
        # Counted as unknown: neither a pass nor a fail (`passed` null), in either direction (not- included).
        assert v.verdict == ERROR_VERDICT and v.passed is None and v.error and v.counted_as == "unknown"
    # Never a pass: the test is undecided and the result incomplete (exit 2).
    assert report.passed is None and report.score is None and report.incomplete


async def test_test_index_selects_one_test_and_rejects_missing(judge_server, tmp_path):
    report = await grade_text(
        CONFIG, "promptfooconfig.yaml", "hi", None, settings(judge_server, tmp_path), test_index=1
    )
    assert [v.name for v in report.verdicts] == ["test 2: llm-rubric", "test 2: contains"]
    assert report.passed is True  # "hi" contains "hi"
    with pytest.raises(GradingError, match="no test 5"):
        await grade_text(CONFIG, "promptfooconfig.yaml", "hi", None, settings(judge_server, tmp_path), test_index=4)


async def test_custom_rubric_prompt_and_a_var_named_output(judge_server, tmp_path):
    config = """\
prompts: [x]
providers: [echo]
defaultTest:
  options:
    provider: openai:judge
    rubricPrompt: '[{"role": "system", "content": "Custom judge for {{topic}}"}, {"role": "user", "content": "OUT={{output}} RUB={{rubric}}"}]'
tests:
  - vars: {topic: maths, output: shadow}
    assert:
      - type: llm-rubric
        value: Is right
"""
    report = await grade_text(config, "promptfooconfig.yaml", "real output", None, settings(judge_server, tmp_path))
    request = judge_server.completions[0]
    assert request.messages[0]["content"] == "Custom judge for maths"
    # promptfoo 0.123.1 spreads the test vars first: the graded output wins over a var named output.
    assert request.messages[1]["content"] == "OUT=real output RUB=Is right"
    assert not report.notes
    # Graded as promptfoo 0.121.9 (vars spread last), the var replaces the output, and the report says so.
    old = settings(judge_server, tmp_path, versions=(("promptfoo", "0.121.9"),), cache_dir=tmp_path / "old")
    report = await grade_text(config, "promptfooconfig.yaml", "real output", None, old)
    assert judge_server.completions[1].messages[1]["content"] == "OUT=shadow RUB=Is right"
    assert report.notes and "0.121.9" in report.notes[0]


MAX_SCORE = """\
prompts: [a, b, c]
providers: [echo]
defaultTest:
  options: {provider: openai:judge}
tests:
  - assert:
      - type: llm-rubric
        value: Is accurate
      - type: llm-rubric
        value: Is clear
      - type: contains
        value: x
      - type: max-score
        value: {weights: {llm-rubric: 2}, threshold: 0.3}
"""


async def test_max_score_picks_first_strictly_greater_output(judge_server, tmp_path):
    from rubric_lsp.document import parse_document
    from rubric_lsp.formats.promptfoo.grading.outputs import grade_promptfoo_outputs

    def by_output(request):
        output = request.text.split("<Output>\n")[1].split("\n</Output>")[0]
        scores = {"one": 0.5, "two": 0.9, "three": 0.9}
        return verdict(True, scores[output])

    judge_server.handler = by_output
    judge_server.default = by_output
    doc = parse_document(MAX_SCORE, "promptfooconfig.yaml")
    result = await grade_promptfoo_outputs(doc, ["one", "two", "three"], None, settings(judge_server, tmp_path))
    selection = result["max_score"][0]
    # contains counts as promptfoo counts it (0 for every output here): (2 * s + 2 * s + 0) / 5.
    assert selection["scores"] == [pytest.approx(0.4), pytest.approx(0.72), pytest.approx(0.72)]
    assert selection["winner"] == 1 and selection["passed"] == [False, True, False]
    assert selection["left_out"] == []
    assert judge_server.call_count == 6


async def test_max_score_threshold_and_single_output(judge_server, tmp_path):
    from rubric_lsp.document import parse_document
    from rubric_lsp.formats.promptfoo.grading.outputs import grade_promptfoo_outputs

    judge_server.default = verdict(False, 0.1)
    doc = parse_document(MAX_SCORE, "promptfooconfig.yaml")
    result = await grade_promptfoo_outputs(doc, ["one", "two"], None, settings(judge_server, tmp_path))
    assert result["max_score"][0]["winner"] is None and "threshold" in result["max_score"][0]["reason"]
    with pytest.raises(GradingError, match="at least 2"):
        await grade_promptfoo_outputs(doc, ["one"], None, settings(judge_server, tmp_path))


VARS_CONFIG = """\
prompts: [p]
providers: [echo]
defaultTest:
  options: {provider: openai:judge}
  vars: file://shared_vars.yaml
tests:
  - vars:
      - {topic: cats}
      - file://more_vars.yaml
    assert:
      - type: llm-rubric
        value: Talks about {{topic}} in {{city}} for {{audience}}
"""


def write_vars_config(folder):
    (folder / "shared_vars.yaml").write_text("city: Paris\n")
    (folder / "more_vars.yaml").write_text("audience: children\n")
    config = folder / "promptfooconfig.yaml"
    config.write_text(VARS_CONFIG)
    return config


def test_grading_plan_gives_var_values_not_names(tmp_path):
    # Regression for the reported resolve.py bug (each var's value was its own name): the plan
    # carries values, defaultTest's merged under the test's, from inline, list and file:// vars.
    from rubric_lsp.document import parse_document
    from rubric_lsp.formats.promptfoo.reading import read_config

    config = write_vars_config(tmp_path)
    doc = parse_document(config.read_text(), str(config))
    plan = read_config(doc.root, config, doc).grading_plan(1)
    assert [item.vars for item in plan] == [{"city": "Paris", "topic": "cats", "audience": "children"}]


def test_grading_plan_merges_scenario_config_vars():
    # promptfoo merges each scenarios[].config[] entry's vars into every test of the scenario.
    from rubric_lsp.document import parse_document
    from rubric_lsp.formats.promptfoo.reading import read_config

    text = """\
prompts: [p]
providers: [echo]
scenarios:
  - config:
      - vars: {size: big}
    tests:
      - vars: {topic: fish}
        assert:
          - type: llm-rubric
            value: A {{size}} {{topic}}
"""
    doc = parse_document(text, "promptfooconfig.yaml")
    plan = read_config(doc.root, "promptfooconfig.yaml", doc).grading_plan(1)
    assert [item.vars for item in plan] == [{"size": "big", "topic": "fish"}]


async def test_vars_from_files_and_lists_reach_the_grading_prompt(judge_server, tmp_path):
    config = write_vars_config(tmp_path)
    judge_server.default = verdict(True, 1)
    report = await grade_text(config.read_text(), str(config), "An answer.", None, settings(judge_server, tmp_path))
    assert report.verdicts[0].verdict == "PASS"
    assert "Talks about cats in Paris for children" in judge_server.completions[0].text


MIXED = """\
prompts: ["Answer: {{question}}"]
providers: [openai:gpt-5-mini]
tests:
  - vars: {question: What is the capital of California?}
    assert:
      - type: llm-rubric
        value: Names Sacramento
      - type: answer-relevance
      - type: select-best
        value: Is concise
  - vars: {question: Capital of France?}
    assert:
      - type: context-recall
        value: Paris is the capital of France
"""


async def test_model_graded_types_not_run_here_are_named_not_silently_dropped(judge_server, tmp_path):
    judge_server.default = verdict(True, 1.0)
    report = await grade_text(
        MIXED,
        "promptfooconfig.yaml",
        "Sacramento.",
        None,
        settings(judge_server, tmp_path, model="openai/judge"),
        test_index=0,
    )
    assert [(v.name, v.verdict) for v in report.verdicts] == [
        ("test 1: llm-rubric", "PASS"),
        ("test 1: answer-relevance", "NOT_RUN"),
    ]
    assert judge_server.call_count == 1 and report.passed is None
    assert "not 'answer-relevance' yet" in report.verdicts[1].reason
    assert report.to_json()["notes"] == [
        "test 1: 'select-best' is not part of a test's result; "
        "select-best compares several outputs: give at least 2, with --response once per output."
    ]
    alone = await grade_text(
        MIXED,
        "promptfooconfig.yaml",
        "Paris.",
        None,
        settings(judge_server, tmp_path, model="openai/judge"),
        test_index=1,
    )
    assert [v.verdict for v in alone.verdicts] == ["NOT_RUN"] and judge_server.call_count == 1
    assert (
        alone.incomplete
        == "the result of test 2 (context-recall) rests on what rubric grade does not run; run promptfoo for it"
    )


def test_the_text_report_prints_its_notes(judge_server, tmp_path, capfd):
    from rubric_lsp.cli import main

    judge_server.default = verdict(True, 1.0)

    (tmp_path / "promptfooconfig.yaml").write_text(MIXED)
    (tmp_path / "out.txt").write_text("Sacramento.")
    code = main(
        [
            "grade",
            str(tmp_path / "promptfooconfig.yaml"),
            "--response",
            str(tmp_path / "out.txt"),
            "--test",
            "1",
            "--model",
            "openai/judge",
            "--api-base",
            judge_server.base_url,
            "--no-cache",
        ]
    )
    out = capfd.readouterr().out
    assert code == 2  # answer-relevance is not run: the test is undecided
    assert "note: test 1: 'select-best' is not part of a test's result" in out and "test 1: INCOMPLETE" in out
