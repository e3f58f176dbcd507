"""Several judges on an autorubric rubric: votes, failed votes and aggregation, against autorubric 1.6.1.

Both our engine and autorubric's ``CriterionGrader`` are pointed at the same fake
OpenAI-compatible server (tests/judge_server.py) through litellm's real HTTP client; the
server answers by judge model and criterion text, so both see the same replies and we
compare their final verdicts and scores.
"""

from __future__ import annotations

import asyncio
import json
import os
import re

import pytest

from rubric_lsp.cli import main
from rubric_lsp.engine import (
    ERROR_VERDICT,
    GradingError,
    JudgeSettings,
    grade_text,
)
from rubric_lsp.formats.autorubric.options import GRADE_OPTIONS
from tests.conftest import import_or_require
from tests.judge_server import Reply

OPTION_NAMES = {option.name for option in GRADE_OPTIONS}  # passed in the request, not the settings

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

SECRET = "sk-test-SECRET-ensemble-0123456789"
J2 = ["openai/judge-a", "openai/judge-b"]
J3 = ["openai/judge-a", "openai/judge-b", "openai/judge-c"]
NA_LABEL = "Cannot assess / not applicable"
# A reply both graders fail on with an error that is neither an API error nor a ValueError
# (json's decoder raises RecursionError on deep nesting): autorubric and we call it "unknown".
UNKNOWN = Reply.text('{"criterion_status": ' + "[" * 100_000 + "]" * 100_000 + ', "explanation": "x"}')
FAILURES = {
    "infrastructure": Reply.server_error(500),
    "parse": Reply.text("I would say it is met."),
    "unknown": UNKNOWN,
}


def status(value):
    return Reply.json({"criterion_status": value, "explanation": f"said {value}"})


def _user_text(request):
    return request.messages[-1]["content"] if request.messages else request.text


def pick(label):
    """Choose the option shown as ``label`` (wherever a shuffle put it), in our prompt and autorubric's."""

    def reply(request):
        for line in _user_text(request).splitlines():
            match = re.match(r"\s*(\d+)\.\s*(.*)$", line)
            if (
                match
                and re.sub(
                    r"\s*\((cannot assess / not applicable|choose this when[^)]*)\)$", "", match.group(2)
                ).strip()
                == label
            ):
                return Reply.json({"selected_option": int(match.group(1)), "explanation": f"picked {label}"})
        raise AssertionError(f"option {label!r} not shown in {_user_text(request)[-400:]}")

    return reply


def script(server, table):
    """table: {(model, text in the criterion): Reply | callable}; the model is matched without its provider."""
    server.reset()
    for (model, text), reply in table.items():
        name = model.split("/", 1)[1]
        server.when(lambda r, name=name, text=text: r.model == name and text in _user_text(r), reply)


def ours(server, tmp_path, rubric, models, **overrides):
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


def reference(server, rubric, models, *, aggregation="majority", shuffle=True):
    import_or_require("autorubric")
    import yaml
    from autorubric import Rubric
    from autorubric.graders.criterion_grader import CriterionGrader, JudgeSpec
    from autorubric.llm import LLMConfig

    judges = [
        JudgeSpec(
            LLMConfig(
                model=m,
                api_base=server.base_url,
                api_key=SECRET,
                max_retries=1,
                retry_min_wait=0.0,
                retry_max_wait=0.0,
                timeout=10.0,
            ),
            m,
        )
        for m in models
    ]
    grader = CriterionGrader(judges=judges, aggregation=aggregation, seed=0, shuffle_options=shuffle)
    report = asyncio.run(grader.grade("The response.", Rubric.from_dict(yaml.safe_load(rubric)).rubric))
    verdicts = []
    for entry in report.report:
        if entry.final_verdict is not None:
            verdicts.append(entry.final_verdict.value)
        else:
            verdicts.append(entry.final_multi_choice_verdict.selected_label)
    return report.score, verdicts


def both(server, tmp_path, rubric, table, models, aggregation="majority"):
    script(server, table)
    expected = reference(server, rubric, models, aggregation=aggregation)
    script(server, table)
    report = ours(server, tmp_path, rubric, models, aggregation=aggregation)
    return report, expected


def assert_same(report, expected):
    score, verdicts = expected
    assert [v.verdict for v in report.verdicts] == verdicts
    assert (report.score is None) == (score is None)
    if score is not None:
        assert report.score == pytest.approx(score)


ANCHOR = "- name: anchor\n  requirement: AAA anchor criterion\n  weight: 10\n"


def anchored(models):
    return {(m, "AAA"): status("MET") for m in models}


# --- binary aggregation -------------------------------------------------------------------


@pytest.mark.parametrize("aggregation", ["majority", "weighted", "unanimous", "any"])
@pytest.mark.parametrize("weight", [10, -4])
def test_binary_aggregations_match_autorubric(judge_server, tmp_path, aggregation, weight):
    rubric = ANCHOR + f"- name: b\n  requirement: BBB binary criterion\n  weight: {weight}\n"
    table = {**anchored(J2), ("openai/judge-a", "BBB"): status("MET"), ("openai/judge-b", "BBB"): status("UNMET")}
    report, expected = both(judge_server, tmp_path, rubric, table, J2, aggregation)
    assert_same(report, expected)
    assert report.verdicts[1].votes == ["MET", "UNMET"]


def test_binary_any_passes_on_one_met_vote(judge_server, tmp_path):
    rubric = ANCHOR + "- name: b\n  requirement: BBB binary criterion\n"
    table = {
        **anchored(J3),
        ("openai/judge-a", "BBB"): status("UNMET"),
        ("openai/judge-b", "BBB"): status("MET"),
        ("openai/judge-c", "BBB"): status("UNMET"),
    }
    report, expected = both(judge_server, tmp_path, rubric, table, J3, "any")
    assert_same(report, expected)
    assert report.verdicts[1].verdict == "MET"


# --- failed votes among several judges ----------------------------------------------------


@pytest.mark.parametrize("category", ["infrastructure", "parse", "unknown"])
@pytest.mark.parametrize("weight", [10, -4])
def test_a_failed_vote_counts_as_autorubric_counts_it_binary(judge_server, tmp_path, category, weight):
    rubric = ANCHOR + f"- name: b\n  requirement: BBB binary criterion\n  weight: {weight}\n"
    table = {**anchored(J2), ("openai/judge-a", "BBB"): status("MET"), ("openai/judge-b", "BBB"): FAILURES[category]}
    report, expected = both(judge_server, tmp_path, rubric, table, J2)
    assert_same(report, expected)
    verdict = report.verdicts[1]
    assert verdict.error is None  # one judge answered: a real, aggregated verdict
    stand_in = "CANNOT_ASSESS" if category != "unknown" else ("UNMET" if weight > 0 else "MET")
    assert verdict.votes == ["MET", f"ERROR ({category}; counted as {stand_in})"]
    assert (
        "1 of 2 judges failed" in verdict.reason
        and f"judge-b: {category} failure (counted as {stand_in})" in verdict.reason
    )
    if category == "unknown" and weight > 0:
        assert verdict.verdict == "UNMET"  # MET + unknown failure is a 1-1 tie: the worst case, never a pass


@pytest.mark.parametrize("category", ["infrastructure", "parse", "unknown"])
def test_a_failed_vote_counts_as_autorubric_counts_it_multi_choice(judge_server, tmp_path, category):
    rubric = (
        ANCHOR
        + "- name: m\n  requirement: MMM how good\n  options: [{label: Poor, value: 0}, {label: OK, value: 0.5}, {label: Good, value: 1}]\n"
    )
    table = {
        **anchored(J3),
        ("openai/judge-a", "MMM"): pick("Good"),
        ("openai/judge-b", "MMM"): pick("Good"),
        ("openai/judge-c", "MMM"): FAILURES[category],
    }
    report, expected = both(judge_server, tmp_path, rubric, table, J3)
    assert_same(report, expected)
    # infrastructure/parse abstain (mean of Good, Good = Good); unknown votes Poor (mean 0.67 → OK)
    assert report.verdicts[1].verdict == ("OK" if category == "unknown" else "Good")
    stand_in = "Poor" if category == "unknown" else NA_LABEL
    assert report.verdicts[1].votes == ["Good", "Good", f"ERROR ({category}; counted as {stand_in})"]


def test_when_every_judge_fails_the_criterion_stays_a_failure_whatever_the_judge_order(judge_server, tmp_path):
    rubric = ANCHOR + "- name: b\n  requirement: BBB binary criterion\n"
    table = {**anchored(J2), ("openai/judge-a", "BBB"): FAILURES["infrastructure"], ("openai/judge-b", "BBB"): UNKNOWN}
    report, expected = both(judge_server, tmp_path, rubric, table, J2)
    assert expected[0] == pytest.approx(report.score)  # autorubric: CANNOT_ASSESS + UNMET → UNMET; so do we count it
    verdict = report.verdicts[1]
    assert verdict.verdict == ERROR_VERDICT and verdict.error.startswith("unknown: every judge failed")
    assert verdict.counted_as == "UNMET" and report.score == pytest.approx(0.5)
    script(judge_server, table)
    swapped = ours(judge_server, tmp_path, rubric, list(reversed(J2)))
    assert swapped.verdicts[1].error == verdict.error and swapped.verdicts[1].counted_as == verdict.counted_as
    # abstaining failures only: an abstention, and no score once every criterion failed
    script(judge_server, {(m, t): FAILURES["parse"] for m in J2 for t in ("AAA", "BBB")})
    report = ours(judge_server, tmp_path, rubric, J2)
    assert all(
        v.verdict == ERROR_VERDICT
        and v.counted_as == "CANNOT_ASSESS"
        and v.error.startswith("parse: every judge failed")
        for v in report.verdicts
    )
    assert report.score is None and "Every criterion" in report.error


# --- multi-choice aggregation -------------------------------------------------------------

OPTIONS = "[{label: Poor, value: 0}, {label: OK, value: 0.5}, {label: Good, value: 1}]"


def multi(extra, options=OPTIONS, weight=10):
    return ANCHOR + f"- name: m\n  requirement: MMM how good\n  weight: {weight}\n  options: {options}\n" + extra


def votes(models, labels):
    table = anchored(models)
    for model, label in zip(models, labels):
        table[(model, "MMM")] = pick(label)
    return table


@pytest.mark.parametrize(
    "extra, labels, want",
    [
        ("  scale_type: nominal\n", ("Poor", "Good", "Good"), "Good"),  # default mode
        ("  scale_type: nominal\n  aggregation: mode\n", ("Poor", "OK", "Good"), "Poor"),  # count tie → worst
        ("  scale_type: nominal\n  aggregation: weighted_mode\n", ("Good", "Good", "OK"), "Good"),
        ("  scale_type: nominal\n  aggregation: unanimous\n", ("Good", "Good", "Good"), "Good"),
        (
            "  scale_type: nominal\n  aggregation: unanimous\n",
            ("Poor", "Poor", "Good"),
            NA_LABEL,
        ),  # disagreement abstains
        ("  aggregation: median\n", ("Poor", "Good", "Good"), "Good"),
        ("  aggregation: min\n", ("OK", "Good", "Good"), "OK"),
        ("  aggregation: max\n", ("Poor", "OK", "Poor"), "OK"),
        ("  aggregation: mode\n", ("Poor", "Good", "Good"), "Good"),
        ("  aggregation: weighted_mean\n", ("Poor", "Good", "Good"), "OK"),
        (
            "  aggregation: medain\n",
            ("Poor", "Poor", "Good"),
            "OK",
        ),  # unknown ordinal name → mean 0.33 → OK (mode: Poor)
        ("  aggregation: unanimous\n", ("Poor", "Poor", "Good"), "OK"),  # nominal-only name on ordinal → mean
        ("  aggregation: weighted_mode\n", ("Poor", "Good", "Good"), "OK"),  # → mean 0.67 → OK, not the mode Good
    ],
)
def test_per_criterion_aggregation_matches_autorubric(judge_server, tmp_path, extra, labels, want):
    report, expected = both(judge_server, tmp_path, multi(extra), votes(J3, labels), J3)
    assert_same(report, expected)
    assert report.verdicts[1].verdict == want


@pytest.mark.parametrize("weight, want", [(10, "p1"), (-10, "p2")])
def test_mean_snaps_near_ties_with_a_tolerance_to_the_worst_option(judge_server, tmp_path, weight, want):
    # mean(0.0, 0.3) = 0.15: |0.1 - 0.15| and |0.2 - 0.15| differ by float noise only
    options = "[{label: p0, value: 0.0}, {label: p1, value: 0.1}, {label: p2, value: 0.2}, {label: p3, value: 0.3}]"
    report, expected = both(judge_server, tmp_path, multi("", options, weight), votes(J2, ("p0", "p3")), J2)
    assert_same(report, expected)
    assert report.verdicts[1].verdict == want


def test_unknown_nominal_aggregation_is_refused_before_any_call(judge_server, tmp_path):
    rubric = multi("  scale_type: nominal\n  aggregation: mean\n")
    script(judge_server, votes(J2, ("Good", "Good")))
    with pytest.raises(Exception) as crashed:  # autorubric itself crashes on it
        reference(judge_server, rubric, J2)
    assert not isinstance(crashed.value, AssertionError)
    judge_server.reset()
    for models in (J2, J2[:1]):
        with pytest.raises(
            GradingError,
            match=r"line 4.*'m' is nominal and its aggregation 'mean' is none of mode, weighted_mode, unanimous",
        ):
            ours(judge_server, tmp_path, rubric, models)
    assert judge_server.call_count == 0


# --- replies, judges, prompts -------------------------------------------------------------


@pytest.mark.parametrize(
    "selected, accepted",
    [("2", True), (2.0, True), (" 2 ", True), ("2.0", True), (2.5, False), ("two", False), (None, False)],
)
def test_selected_option_is_read_like_autorubrics_pydantic(judge_server, tmp_path, selected, accepted):
    rubric = multi("")
    table = {
        **anchored(J2[:1]),
        ("openai/judge-a", "MMM"): Reply.json({"selected_option": selected, "explanation": "x"}),
    }
    script(judge_server, table)
    expected = reference(judge_server, rubric, J2[:1], shuffle=False)
    script(judge_server, table)
    report = ours(judge_server, tmp_path, rubric, J2[:1], shuffle_options=False)
    verdict = report.verdicts[1]
    if accepted:
        assert verdict.verdict == "OK" == expected[1][1]
    else:
        assert verdict.verdict == ERROR_VERDICT and verdict.error.startswith("parse:")
        assert expected[1][1] == NA_LABEL  # autorubric: a parse failure abstains through the NA option
    from pydantic import TypeAdapter, ValidationError

    try:
        TypeAdapter(int).validate_python(selected)
        assert accepted
    except ValidationError:
        assert not accepted


def test_a_model_given_twice_votes_once(judge_server, tmp_path):
    script(judge_server, {("openai/judge-a", "AAA"): status("UNMET"), ("openai/judge-b", "AAA"): status("MET")})
    report = ours(judge_server, tmp_path, ANCHOR, ["openai/judge-a", "openai/judge-b", "openai/judge-b"])
    assert judge_server.call_count == 2
    assert report.verdicts[0].votes == ["UNMET", "MET"] and report.verdicts[0].verdict == "UNMET"
    assert report.usage.calls == 2


def test_authored_na_option_is_tagged_in_the_prompt(judge_server, tmp_path):
    options = "[{label: Poor, value: 0}, {label: Good, value: 1}, {label: Skip it, value: 0, na: true}, {label: n/a here, value: 0, na: true}]"
    script(judge_server, votes(J2[:1], ("Skip it",)))
    report = ours(judge_server, tmp_path, multi("", options), J2[:1])
    assert report.verdicts[1].verdict == "Skip it" and report.verdicts[1].score is None
    text = next(_user_text(r) for r in judge_server.completions if "MMM" in _user_text(r))
    lines = [line for line in text.splitlines() if re.match(r"\d+\. ", line)]
    assert any(
        line.endswith(
            "Skip it (choose this when the response gives no way to judge the criterion, or it does not apply)"
        )
        for line in lines
    )
    assert any(line.endswith(". n/a here") for line in lines)  # already says so: no tag
    assert any(line.endswith(". Poor") for line in lines)


# --- rubric grade --verdicts --------------------------------------------------------------

CLI_RUBRIC = (
    ANCHOR + "- name: m\n  requirement: MMM how good\n  options: [{label: Poor, value: 0}, {label: Good, value: 1}]\n"
)


def run_cli(capfd, *argv):
    code = main(["grade", *argv])
    out, err = capfd.readouterr()
    return code, out, err


def test_verdicts_where_every_criterion_failed_have_no_score(tmp_path, capfd):
    (tmp_path / "r.yaml").write_text(CLI_RUBRIC)
    entries = [
        {"name": "anchor", "verdict": "ERROR", "error": "unknown: boom"},
        {"name": "m", "verdict": "ERROR", "error": "infrastructure: down"},
    ]
    (tmp_path / "v.json").write_text(json.dumps({"verdicts": entries}))
    code, out, _ = run_cli(capfd, str(tmp_path / "r.yaml"), "--verdicts", str(tmp_path / "v.json"), "--format", "json")
    data = json.loads(out)
    # No judgment at all: incomplete (exit 2), never a score.
    assert code == 2 and data["score"] is None and data["raw_score"] is None and "every criterion" in data["error"]
    code, out, _ = run_cli(capfd, str(tmp_path / "r.yaml"), "--verdicts", str(tmp_path / "v.json"))
    assert code == 2 and out.startswith("no score")
    # one real verdict: a score again (the unknown failure counts as UNMET)
    entries[1] = {"name": "m", "verdict": "Good"}
    (tmp_path / "v.json").write_text(json.dumps({"verdicts": entries}))
    code, out, _ = run_cli(capfd, str(tmp_path / "r.yaml"), "--verdicts", str(tmp_path / "v.json"), "--format", "json")
    # A score again, resting on one failed judgment: incomplete still.
    assert code == 2 and json.loads(out)["score"] == pytest.approx(0.5)


def test_verdicts_accept_the_automatic_na_label(tmp_path, capfd):
    """A plain list of labels is scored as autorubric's Rubric.compute_score does: the automatic
    "Cannot assess / not applicable" option the judge is shown is no label of the rubric, so autorubric
    raises "Label … not found" and rubric grade refuses it the same way (issue 24 item 9). A row of
    rubric grade's own JSON output holding it is the abstention autorubric's grader reported."""
    (tmp_path / "r.yaml").write_text(CLI_RUBRIC)
    (tmp_path / "v.json").write_text(json.dumps(["MET", "cannot assess / NOT applicable "]))
    code, out, err = run_cli(
        capfd, str(tmp_path / "r.yaml"), "--verdicts", str(tmp_path / "v.json"), "--format", "json"
    )
    assert code == 2 and out == "", err
    assert "Label 'cannot assess / NOT applicable ' not found" in err
    # a criterion with its own NA option is shown no automatic one: the label stays unknown
    (tmp_path / "r.yaml").write_text(
        CLI_RUBRIC.replace("{label: Good, value: 1}]", "{label: Good, value: 1}, {label: skip, value: 0, na: true}]")
    )
    code, _, err = run_cli(capfd, str(tmp_path / "r.yaml"), "--verdicts", str(tmp_path / "v.json"))
    assert code == 2 and "not found" in err
