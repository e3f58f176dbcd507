"""Issue 15 items 1, 2, 8: judge failures and ambiguous replies count as autorubric 1.6.1 counts
them, and a dataset without ground truth is refused with autorubric's reason.

Every case runs autorubric's own ``CriterionGrader`` and our engine against the same scripted
judge (tests/judge_server.py, litellm's real HTTP path) and compares verdicts and scores.
"""

from __future__ import annotations

import asyncio
import json

import pytest
import yaml

from rubric_lsp.cli import main
from rubric_lsp.engine import ERROR_VERDICT, JudgeSettings, grade_text
from rubric_lsp.formats.autorubric.options import GRADE_OPTIONS
from tests.autorubric_reference import SECRET, empty_choices_body, reference_grade
from tests.conftest import import_or_require, use_judge
from tests.judge_server import Reply

OPTION_NAMES = {option.name for option in GRADE_OPTIONS}  # passed in the request, not the settings

J1 = ["openai/judge-a"]
NA_LABEL = "Cannot assess / not applicable"
J3 = ["openai/judge-a", "openai/judge-b", "openai/judge-c"]
MET = {"criterion_status": "MET", "explanation": "yes"}
UNMET = {"criterion_status": "UNMET", "explanation": "no"}
NO_CONTENT = {"content: null": Reply.empty(), "choices: []": Reply(raw_body=empty_choices_body())}
AMBIGUOUS = {
    "two objects": Reply.text(json.dumps(UNMET) + "\n" + json.dumps(MET)),
    "two agreeing objects": Reply.text(json.dumps(MET) + "\n" + json.dumps(MET)),
    "an array": Reply.text(json.dumps([MET])),
    "a fenced array": Reply.text("```json\n" + json.dumps([UNMET, MET]) + "\n```"),
}


def _text(request):
    return request.messages[-1]["content"] if request.messages else request.text


def script(server, table):
    """table: {(model, text in the criterion): Reply}; anything else answers MET."""
    server.reset()
    server.default = Reply.json(MET)
    for (model, text), reply in table.items():
        name = model.split("/", 1)[1]
        server.when(lambda r, name=name, text=text: r.model == name and text in _text(r), reply)


def ours(server, rubric, models, **overrides):
    values = dict(
        model=models[0],
        models=list(models[1:]),
        api_base=server.base_url,
        cache_enabled=False,
        timeout_seconds=10.0,
        max_retries=0,
        env={"OPENAI_API_KEY": SECRET},
    )
    options = {name: overrides.pop(name) for name in list(overrides) if name in OPTION_NAMES}  # the format's
    values.update(overrides)
    return asyncio.run(grade_text(rubric, "r.yaml", "The response.", None, JudgeSettings(**values), options=options))


def both(server, rubric, table, models, aggregation="majority"):
    import_or_require("autorubric")
    from autorubric import Rubric

    script(server, table)
    expected = reference_grade(
        server, Rubric.from_dict(yaml.safe_load(rubric)), "The response.", models, aggregation=aggregation
    )
    script(server, table)
    return ours(server, rubric, models, aggregation=aggregation), expected


def assert_same(report, expected):
    score, verdicts = expected
    ours_verdicts = [v.counted_as if v.verdict == ERROR_VERDICT else v.verdict for v in report.verdicts]
    ours_verdicts = [NA_LABEL if v == "abstained (NA)" else v for v in ours_verdicts]
    assert ours_verdicts == verdicts
    assert (report.score is None) == (score is None)
    if score is not None:
        assert report.score == pytest.approx(score)


RUBRIC = """\
- name: capital
  requirement: AAA names the capital
  weight: 10
- name: insult
  requirement: BBB insults the user
  weight: -5
"""


@pytest.mark.parametrize("empty", sorted(NO_CONTENT))
def test_an_empty_reply_on_a_penalty_is_the_worst_case_not_an_abstention(judge_server, empty):
    """The issue's case: MET on +10 and an empty reply on −5 scored 1.0 here, 0.5 in autorubric."""
    report, expected = both(judge_server, RUBRIC, {("openai/judge-a", "BBB"): NO_CONTENT[empty]}, J1)
    assert_same(report, expected)
    verdict = report.verdicts[1]
    assert verdict.verdict == ERROR_VERDICT and verdict.error.startswith("unknown:")
    assert verdict.counted_as == "MET" and report.score == pytest.approx(0.5)


@pytest.mark.parametrize("empty", sorted(NO_CONTENT))
def test_an_empty_reply_on_a_positive_criterion_counts_unmet(judge_server, empty):
    report, expected = both(judge_server, RUBRIC, {("openai/judge-a", "AAA"): NO_CONTENT[empty]}, J1)
    assert_same(report, expected)
    assert report.verdicts[0].counted_as == "UNMET" and report.score == pytest.approx(0.0)


def test_an_empty_reply_in_a_unanimous_ensemble_votes_the_worst_case(judge_server):
    """MET / HTTP 500 / empty under ``unanimous`` was MET here, UNMET in autorubric."""
    table = {
        ("openai/judge-a", "AAA"): Reply.json(MET),
        ("openai/judge-b", "AAA"): Reply.server_error(500),
        ("openai/judge-c", "AAA"): Reply.empty(),
    }
    report, expected = both(judge_server, RUBRIC, table, J3, "unanimous")
    assert_same(report, expected)
    assert report.verdicts[0].verdict == "UNMET"
    assert report.verdicts[0].votes[2] == "ERROR (unknown; counted as UNMET)"


def test_an_empty_reply_on_a_multi_choice_criterion_picks_the_worst_option(judge_server):
    rubric = (
        "- name: depth\n  requirement: CCC how deep\n"
        "  options: [{label: none, value: 0}, {label: some, value: 0.5}, {label: lots, value: 1}]\n"
    )
    report, expected = both(judge_server, rubric, {("openai/judge-a", "CCC"): Reply.empty()}, J1)
    assert_same(report, expected)
    assert report.verdicts[0].counted_as == "none"


def test_an_empty_string_reply_is_a_parse_failure_as_in_autorubric(judge_server):
    """``content: ""`` reaches autorubric's ``json.loads`` (a ValueError): it abstains."""
    report, expected = both(judge_server, RUBRIC, {("openai/judge-a", "BBB"): Reply.text("")}, J1)
    assert_same(report, expected)
    assert report.verdicts[1].error.startswith("parse:") and report.verdicts[1].counted_as == "CANNOT_ASSESS"


@pytest.mark.parametrize("reply", sorted(AMBIGUOUS))
def test_an_ambiguous_reply_abstains_as_in_autorubric(judge_server, reply):
    """Two JSON objects or an array: autorubric cannot parse it and abstains; we no longer read the last object."""
    report, expected = both(judge_server, RUBRIC, {("openai/judge-a", "AAA"): AMBIGUOUS[reply]}, J1)
    assert_same(report, expected)
    verdict = report.verdicts[0]
    assert verdict.verdict == ERROR_VERDICT and verdict.error.startswith("parse:")
    assert verdict.counted_as == "CANNOT_ASSESS"


def test_an_ambiguous_multi_choice_reply_abstains(judge_server):
    rubric = "- requirement: CCC how deep\n  options: [{label: none, value: 0}, {label: lots, value: 1}]\n- requirement: AAA x\n"
    two = Reply.text('{"selected_option": 1, "explanation": "a"}\n{"selected_option": 2, "explanation": "b"}')
    report, expected = both(judge_server, rubric, {("openai/judge-a", "CCC"): two}, J1)
    assert_same(report, expected)
    assert report.verdicts[0].error.startswith("parse:")


def test_a_dataset_without_ground_truth_is_refused_with_autorubrics_reason(judge_server, tmp_path, capfd, monkeypatch):
    import_or_require("autorubric")
    from autorubric import RubricDataset
    from autorubric.metrics import compute_metrics  # noqa: F401 - the refusal below is compute_metrics'

    use_judge(monkeypatch, judge_server, SECRET, tmp_path / "cache")
    data = {
        "prompt": "What is 6*7?",
        "rubric": [{"requirement": "Gives the right answer"}],
        "items": [{"submission": "42", "description": "a"}, {"submission": "41", "description": "b"}],
    }
    path = tmp_path / "none.dataset.json"
    path.write_text(json.dumps(data))
    RubricDataset.from_file(path)  # autorubric loads it ...
    code = main(["grade", str(path)])
    err = capfd.readouterr().err
    assert code == 2 and "No valid items with ground truth found" in err  # ... and refuses to measure it
    assert judge_server.call_count == 0
