"""promptfoo select-best over several outputs, through litellm against tests/judge_server.py."""

from __future__ import annotations

import json

import pytest

from rubric_lsp.document import parse_document
from rubric_lsp.engine import GradingError, JudgeSettings, grade_text
from rubric_lsp.formats.promptfoo.grading.outputs import grade_promptfoo_outputs
from tests.judge_server import Reply
from tests.select_best_helpers import SECRET, comparing, run_cli

CONFIG = """\
prompts: [a, b]
providers: [echo]
defaultTest:
  options: {provider: openai:judge}
tests:
  - vars: {topic: cats}
    assert:
      - type: llm-rubric
        value: Is about {{topic}}
      - type: select-best
        value: Funniest joke about {{topic}}
"""

ONLY_SELECT_BEST = """\
prompts: [a, b]
providers: [echo]
defaultTest:
  options: {provider: openai:judge}
tests:
  - assert:
      - type: select-best
        value: Most polite
"""


def settings(server, tmp_path, **kw):
    values = dict(
        api_base=server.base_url,
        cache_dir=tmp_path / "c",
        timeout_seconds=5.0,
        max_retries=0,
        env={"OPENAI_API_KEY": SECRET},
    )
    values.update(kw)
    return JudgeSettings(**values)


def rubric_reply(request):
    return Reply.json({"reason": "ok", "pass": True, "score": 0.8})


async def grade(server, tmp_path, config, outputs, **kw):
    return await grade_promptfoo_outputs(
        parse_document(config, "promptfooconfig.yaml"), outputs, None, settings(server, tmp_path), **kw
    )


def select_best_verdicts(result):
    return [[v for v in output["verdicts"] if v["name"].endswith("select-best")] for output in result["outputs"]]


async def test_the_winner_passes_with_score_1_and_the_others_fail_with_0(judge_server, tmp_path):
    judge_server.default = rubric_reply
    judge_server.when(comparing, Reply.json({"best": 1, "reason": "The pun lands."}))
    result = await grade(judge_server, tmp_path, CONFIG, ["joke A", "joke B", "joke C"])
    [entry] = result["select_best"]
    assert entry["winner"] == 1 and entry["passed"] == [False, True, False] and entry["scores"] == [0.0, 1.0, 0.0]
    assert entry["reason"] == "The pun lands." and entry["range"]["start"]["line"] == 9 and "error" not in entry
    # promptfoo passes the value as written: test vars are not rendered into it.
    [compare] = [r for r in judge_server.completions if comparing(r)]
    assert "Funniest joke about {{topic}}" in compare.text
    assert '<Text index="0">\njoke A\n</Text>' in compare.text and '<Text index="2">\njoke C\n</Text>' in compare.text
    verdicts = select_best_verdicts(result)
    assert [[(v["verdict"], v["score"], v["passed"]) for v in vs] for vs in verdicts] == [
        [("FAIL", 0.0, False)],
        [("PASS", 1.0, True)],
        [("FAIL", 0.0, False)],
    ]
    assert [o["passed"] for o in result["outputs"]] == [False, True, False]
    # The report's score stays the mean of the other assertions (select-best is left out, as max-score leaves it out).
    assert [o["score"] for o in result["outputs"]] == [pytest.approx(0.8)] * 3
    assert result["select_best_usage"]["calls"] == 1


async def test_an_output_numbered_10_or_more_can_win(judge_server, tmp_path):
    judge_server.when(
        comparing, Reply.text('Candidates 3 and 11 are close; 11 is tighter.\n{"best": 11, "reason": "tighter"}')
    )
    outputs = [f"answer {i}" for i in range(12)]
    result = await grade(judge_server, tmp_path, ONLY_SELECT_BEST, outputs)
    [entry] = result["select_best"]
    assert entry["winner"] == 11 and entry["passed"] == [False] * 11 + [True]
    assert entry["promptfoo_reads"] == 3  # promptfoo takes the first number in the reply
    assert result["outputs"][11]["passed"] is True and result["outputs"][11]["score"] == 1.0
    assert result["outputs"][3]["passed"] is False and result["outputs"][3]["score"] == 0.0


@pytest.mark.parametrize(
    "reply, best, ambiguous",
    [
        ("Output 0 rambles and output 2 is rude, so my answer is:\n**1**", 1, False),
        ("Comparing 0 with 1.\n\nIndex: 1.", 1, False),
        ('At first {"best": 0, "reason": "short"} looked right, but no: {"best": 1, "reason": "kinder"}', 1, True),
    ],
)
async def test_the_concluded_index_wins_not_a_number_in_the_preamble(judge_server, tmp_path, reply, best, ambiguous):
    judge_server.when(comparing, Reply.text(reply))
    result = await grade(judge_server, tmp_path, ONLY_SELECT_BEST, ["x", "y", "z"])
    [entry] = result["select_best"]
    assert entry["winner"] == best and entry["passed"] == [i == best for i in range(3)]
    assert entry.get("ambiguous", False) is ambiguous
    assert entry["promptfoo_reads"] == 0


@pytest.mark.parametrize(
    "reply, message",
    [
        ("They are all equally good.", "holds no output number"),
        ('{"best": 3, "reason": "the last one"}', "numbered 0 to 2"),
        ("7", "numbered 0 to 2"),
        ('{"best": "the second", "reason": "?"}', "not an output number"),
    ],
)
async def test_an_unreadable_reply_or_an_index_out_of_range_fails_every_output(judge_server, tmp_path, reply, message):
    judge_server.default = rubric_reply
    judge_server.when(comparing, Reply.text(reply))
    result = await grade(judge_server, tmp_path, CONFIG, ["x", "y", "z"])
    [entry] = result["select_best"]
    assert (
        entry["winner"] is None and entry["passed"] == [False, False, False] and entry["scores"] == [None, None, None]
    )
    assert entry["error"].startswith("parse: ") and message in entry["error"]
    for output, [verdict] in zip(result["outputs"], select_best_verdicts(result)):
        assert verdict["verdict"] == "ERROR" and verdict["passed"] is False and verdict["counted_as"] == "unknown"
        assert output["passed"] is False


async def test_a_select_best_only_test_whose_judge_fails_has_no_score(judge_server, tmp_path):
    judge_server.when(comparing, Reply.server_error())
    result = await grade(judge_server, tmp_path, ONLY_SELECT_BEST, ["x", "y"])
    assert result["select_best"][0]["error"].startswith("infrastructure: ")
    for output in result["outputs"]:
        assert (
            output["passed"] is False
            and output["score"] is None
            and output["error"].startswith("Every grader call failed")
        )


CUSTOM = """\
prompts: [a, b]
providers: [echo]
tests:
  - vars: {tone: dry}
    assert:
      - type: select-best
        value: Wittiest
        provider: openai:picker
        rubricPrompt: |
          Pick one: {{ criteria }} ({{ tone }} humour).
          {% for o in outputs %}[{{ loop.index0 }}/{{ loop.index }}] {{ o }}
          {% endfor %}All: {{ outputs }}
          Reply with the bare index.
"""


async def test_a_custom_rubric_prompt_gets_criteria_outputs_and_the_test_vars(judge_server, tmp_path):
    judge_server.when(comparing, Reply.text("0"))
    result = await grade(judge_server, tmp_path, CUSTOM, ["plain", '{"joke":  "pun"}'])
    [request] = judge_server.completions
    assert (
        request.model == "picker" and request.body.get("response_format") is None
    )  # the custom prompt sets the reply shape
    assert "Pick one: Wittiest (dry humour)." in request.text
    assert (
        "[0/1] plain\n" in request.text and '[1/2] {"joke":"pun"}\n' in request.text
    )  # JSON outputs are re-serialised, as promptfoo
    assert 'All: plain,{"joke":"pun"}' in request.text
    assert result["select_best"][0]["winner"] == 0 and "promptfoo_reads" not in result["select_best"][0]


async def test_a_var_named_outputs_does_not_replace_the_outputs(judge_server, tmp_path):
    # promptfoo 0.123.1 spreads the test vars first: its own criteria and outputs win.
    config = CUSTOM.replace("{tone: dry}", "{tone: dry, outputs: [mine]}")
    judge_server.when(comparing, Reply.text("1"))
    result = await grade(judge_server, tmp_path, config, ["plain", "pun"])
    [request] = judge_server.completions
    assert "[0/1] plain\n" in request.text and "mine" not in request.text
    assert "note" not in result["select_best"][0]


async def test_only_the_first_select_best_runs_and_a_non_string_value_is_an_error(judge_server, tmp_path):
    config = ONLY_SELECT_BEST.replace(
        "        value: Most polite\n", "        value: {x: 1}\n      - type: select-best\n        value: Shortest\n"
    )
    result = await grade(judge_server, tmp_path, config, ["x", "y"])
    [entry] = result["select_best"]
    assert (
        judge_server.call_count == 0
        and "string value" in entry["error"]
        and "Only the first select-best" in entry["note"]
    )


async def test_a_single_output_names_select_best_as_needing_several(judge_server, tmp_path):
    with pytest.raises(GradingError, match="select-best compares several outputs: give at least 2"):
        await grade_text(
            ONLY_SELECT_BEST, "promptfooconfig.yaml", "x", None, settings(judge_server, tmp_path, model="openai/judge")
        )
    judge_server.default = rubric_reply
    report = await grade_text(
        CONFIG, "promptfooconfig.yaml", "x", None, settings(judge_server, tmp_path, model="openai/judge")
    )
    assert [v.name for v in report.verdicts] == ["test 1: llm-rubric"] and judge_server.call_count == 1
    assert any("'select-best'" in note and "give at least 2" in note for note in report.notes)


def test_the_cli_prints_one_line_per_select_best(judge_server, tmp_path, capfd, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    judge_server.default = rubric_reply
    judge_server.when(comparing, Reply.text('Output 0 is flat.\n{"best": 1, "reason": "The pun lands."}'))
    code = run_cli(tmp_path, judge_server, CONFIG, ["joke A", "joke B"], "--test", "1")
    out = capfd.readouterr().out
    assert code == 0
    assert "output 1: test 1: llm-rubric PASS, test 1: select-best FAIL" in out
    assert "output 2: test 1: llm-rubric PASS, test 1: select-best PASS" in out
    assert (
        "test 1 select-best: → output 2\n  The pun lands.\n  promptfoo reads this reply as index 0: output 1 wins"
        in out
    )


def test_the_cli_json_carries_the_comparison_and_its_failure(judge_server, tmp_path, capfd, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    judge_server.when(comparing, Reply.text("No idea."))
    code = run_cli(tmp_path, judge_server, ONLY_SELECT_BEST, ["x", "y"], "--format", "json")
    result = json.loads(capfd.readouterr().out)
    assert code == 2 and result["max_score"] == []  # the comparison's judge call failed: incomplete
    [entry] = result["select_best"]
    assert (
        entry["test"] == 1
        and entry["winner"] is None
        and entry["passed"] == [False, False]
        and entry["error"].startswith("parse: ")
    )
    assert [o["verdicts"][0]["verdict"] for o in result["outputs"]] == ["ERROR", "ERROR"]
    code = run_cli(tmp_path, judge_server, ONLY_SELECT_BEST, ["x", "y"])
    assert "test 1 select-best: no winner, every output fails — parse: " in capfd.readouterr().out
