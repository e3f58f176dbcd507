"""``rubric grade``: JSON output, --verdicts, datasets, exit codes, and no API key in any output."""

from __future__ import annotations

import gc
import io
import json
import logging
import os
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rubric_lsp.cli import main
from rubric_lsp.formats.autorubric.grading.agreement import cohen_kappa
from tests.conftest import use_judge
from tests.judge_server import Reply

SECRET = "sk-test-SECRET-cli-0123456789abcdef"

RUBRIC = """\
- name: correct
  requirement: Gives the right answer
  weight: 10
- name: harmful
  requirement: Gives harmful advice
  weight: -5
- name: clarity
  requirement: How clear is it?
  options:
    - {label: poor, value: 0}
    - {label: fine, value: 0.5}
    - {label: great, value: 1}
"""


@pytest.fixture
def env(judge_server, tmp_path, monkeypatch):
    use_judge(monkeypatch, judge_server, SECRET, tmp_path / "cache")
    (tmp_path / "rubric.yaml").write_text(RUBRIC)
    (tmp_path / "response.txt").write_text("42, and be careful.")
    return tmp_path


def run(capfd, *argv):
    code = main(["grade", *argv])
    out, err = capfd.readouterr()
    return code, out, err


def choose(label):
    def reply(request):
        for line in request.text.split("<options>")[1].splitlines():
            number, _, text = line.partition(". ")
            if text.strip() == label:
                return Reply.json({"selected_option": int(number), "explanation": label})
        raise AssertionError(label)

    return reply


def test_json_output_has_one_verdict_per_criterion_in_order(env, judge_server, capfd):
    judge_server.when("harmful", Reply.json({"criterion_status": "UNMET", "explanation": "safe"}))
    judge_server.when("How clear", choose("great"))
    code, out, err = run(
        capfd,
        str(env / "rubric.yaml"),
        "--response",
        str(env / "response.txt"),
        "--query",
        "6*7?",
        "--format",
        "json",
        "--no-cache",
    )
    assert code == 0, err
    data = json.loads(out)
    assert [v["name"] for v in data["verdicts"]] == ["correct", "harmful", "clarity"]
    assert [v["index"] for v in data["verdicts"]] == [0, 1, 2]
    assert [v["verdict"] for v in data["verdicts"]] == ["MET", "UNMET", "great"]
    assert data["score"] == 1.0 and data["raw_score"] == 20.0
    assert set(data["usage"]) >= {"calls", "prompt_tokens", "completion_tokens", "total_tokens", "cost_usd"}
    assert data["verdicts"][1]["range"] == {"start": {"line": 3, "character": 2}, "end": {"line": 5, "character": 12}}
    assert SECRET not in out + err


def test_text_output_and_raw(env, judge_server, capfd):
    judge_server.when("How clear", choose("fine"))
    code, out, _ = run(capfd, str(env / "rubric.yaml"), "--response", str(env / "response.txt"), "--raw")
    assert code == 0
    assert "MET" in out and "correct (line 1)" in out
    assert "score: 10 (raw 10)" in out  # 10 - 5 + 5


def test_failures_never_leak_the_key_and_exit_2(env, judge_server, capfd, caplog):
    caplog.set_level(logging.DEBUG)
    judge_server.default = Reply.error(401, f"Incorrect API key provided: {SECRET}")
    code, out, err = run(
        capfd, str(env / "rubric.yaml"), "--response", str(env / "response.txt"), "--format", "json", "--retries", "0"
    )
    assert code == 2  # no judgment at all: incomplete, not a failing response
    data = json.loads(out)
    assert data["score"] is None and "Every criterion" in data["error"]
    assert all(v["verdict"] == "ERROR" and "not authenticated" in v["error"] for v in data["verdicts"])
    assert SECRET not in out + err + caplog.text
    judge_server.assert_never_saw(SECRET)  # only ever in the Authorization header
    assert all(r.headers.get("authorization") == f"Bearer {SECRET}" for r in judge_server.completions)
    files = [p for p in (env / "cache").rglob("*") if p.is_file()] if (env / "cache").exists() else []
    assert all(SECRET.encode() not in p.read_bytes() for p in files)


def test_a_failed_grading_leaves_its_verdict_cache_closed_without_the_collector(env, judge_server, capfd):
    """A judge call that fails leaves no reference cycle holding the judge, and so its verdict cache: its
    SQLite files are closed when the grading ends, not at a full collection, nor never once a freeze
    (runtime/gc.py) caught the cycle (CI: verdicts.sqlite left open after this module)."""
    judge_server.default = Reply.error(401, "Incorrect API key provided")
    cache = env / "cache"
    gc.collect()
    collecting = gc.isenabled()
    gc.disable()  # what only the collector would free stays: the freeze's effect, made certain
    try:
        for _ in range(2):  # the first call in a process imports litellm and takes other paths
            code, _out, _err = run(
                capfd, str(env / "rubric.yaml"), "--response", str(env / "response.txt"), "--retries", "0"
            )
            assert code == 2
        still_open = [target for target in _open_paths() if target.startswith(str(cache))]
    finally:
        if collecting:
            gc.enable()
    assert still_open == []


def _open_paths() -> list[str]:
    paths = []
    for name in os.listdir("/proc/self/fd"):
        try:
            paths.append(os.readlink(f"/proc/self/fd/{name}"))
        except OSError:  # the listing's own descriptor
            continue
    return paths


def test_missing_key_is_reported_before_any_call(env, judge_server, capfd, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    monkeypatch.delenv("RUBRIC_JUDGE_API_BASE")
    code, _out, err = run(capfd, str(env / "rubric.yaml"), "--response", str(env / "response.txt"))
    assert code == 2 and "OPENAI_API_KEY" in err and judge_server.call_count == 0


@pytest.mark.parametrize("strategy, expected", [("skip", "1"), ("zero", "0.5"), ("partial", "0.75"), ("fail", "0.5")])
def test_verdicts_are_scored_without_a_judge(env, judge_server, capfd, strategy, expected):
    (env / "v.json").write_text(json.dumps(["MET", "UNMET", "n/a"]))
    rubric = RUBRIC.replace(
        "{label: great, value: 1}", "{label: great, value: 1}\n    - {label: n/a, value: 0, na: true}"
    )
    (env / "rubric.yaml").write_text(rubric)
    code, out, err = run(
        capfd, str(env / "rubric.yaml"), "--verdicts", str(env / "v.json"), "--cannot-assess", strategy
    )
    assert code == 0, err
    assert out.strip().startswith(f"score: {expected} ")
    assert judge_server.call_count == 0


def test_verdicts_reject_wrong_count_and_unknown_label(env, capfd):
    (env / "v.json").write_text(json.dumps(["MET", "UNMET"]))
    code, _, err = run(capfd, str(env / "rubric.yaml"), "--verdicts", str(env / "v.json"))
    assert code == 2 and "3 criteria" in err
    (env / "v.json").write_text(json.dumps(["MET", "UNMET", "superb"]))
    code, _, err = run(capfd, str(env / "rubric.yaml"), "--verdicts", str(env / "v.json"))
    assert code == 2 and "Label 'superb' not found" in err  # autorubric's compute_score words


def test_dataset_agreement_per_criterion(env, judge_server, capfd):
    dataset = {
        "name": "calibration",
        "prompt": "What is 6*7?",
        "rubric": [
            {"name": "correct", "requirement": "Gives the right answer"},
            {
                "name": "tone",
                "requirement": "Tone?",
                "options": [{"label": "bad", "value": 0}, {"label": "ok", "value": 0.5}, {"label": "good", "value": 1}],
            },
        ],
        "items": [
            {"submission": "42", "description": "right", "ground_truth": ["MET", "good"]},
            {"submission": "41", "description": "wrong", "ground_truth": ["UNMET", "ok"]},
            {"submission": "40", "description": "wrong too", "ground_truth": ["UNMET", "bad"]},
        ],
    }
    (env / "calibration.dataset.json").write_text(json.dumps(dataset))
    judge_server.when(lambda r: "<response>\n42" in r.text and "Tone?" in r.text, choose("good"))
    judge_server.when(lambda r: "Tone?" in r.text, choose("good"))
    judge_server.when(
        lambda r: "<response>\n40" in r.text, Reply.json({"criterion_status": "UNMET", "explanation": "wrong"})
    )
    code, out, err = run(capfd, str(env / "calibration.dataset.json"), "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    correct, tone = data["agreement"]
    assert correct["accuracy"] == pytest.approx(2 / 3) and correct["compared"] == 3
    assert tone["kind"] == "ordinal" and tone["accuracy"] == pytest.approx(1 / 3)
    assert "quadratic_weighted_kappa" in tone and "quadratic_weighted_kappa" not in correct


def test_a_dataset_whose_rubric_autorubric_cannot_grade_is_refused_before_any_call(env, judge_server, capfd):
    dataset = {
        "prompt": "p",
        "rubric": [
            {
                "name": "tone",
                "requirement": "Tone?",
                "scale_type": "nominal",
                "aggregation": "mean",
                "options": [{"label": "a", "value": 0}, {"label": "b", "value": 1}],
            }
        ],
        "items": [{"submission": "x", "description": "d", "ground_truth": ["a"]}],
    }
    (env / "bad.dataset.json").write_text(json.dumps(dataset))
    code, _, err = run(capfd, str(env / "bad.dataset.json"))
    assert code == 2 and "'mean'" in err and "AR108" in err
    assert judge_server.call_count == 0


def test_kappa_on_a_worked_example():
    # 50 pairs: 20 both MET, 15 both UNMET, 5 MET judged UNMET, 10 UNMET judged MET.
    # p_o = 35/50 = 0.7; p_e = (25*30 + 25*20) / 50**2 = 0.5; κ = (0.7 - 0.5) / 0.5 = 0.4.
    pairs = [("MET", "MET")] * 20 + [("UNMET", "UNMET")] * 15 + [("MET", "UNMET")] * 5 + [("UNMET", "MET")] * 10
    assert cohen_kappa(pairs) == pytest.approx(0.4)
    assert cohen_kappa([("a", "a"), ("b", "b")]) == 1.0
    assert cohen_kappa([("a", "b"), ("b", "a")]) == -1.0
    # One label in all: κ is undefined (None), never a made-up 0 or 1.
    assert cohen_kappa([("a", "a"), ("a", "a")]) is None and cohen_kappa([]) is None
    # Quadratic weights: missing by two steps costs four times missing by one.
    near = [(0, 0), (1, 1), (2, 2), (0, 1)]
    far = [(0, 0), (1, 1), (2, 2), (0, 2)]
    assert cohen_kappa(near, "quadratic") > cohen_kappa(far, "quadratic")
    assert cohen_kappa(near) == pytest.approx(cohen_kappa(far))


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=1, max_size=40),
    st.sampled_from([None, "quadratic"]),
)
def test_kappa_equals_scikit_learn_as_autorubric_calls_it(pairs, weights):
    """autorubric's metrics call sklearn's cohen_kappa_score(truth, judged, weights=...) and
    call κ undefined (None) when fewer than two labels occur; ours must give the same figures."""
    import math
    import warnings

    from sklearn.metrics import cohen_kappa_score

    ours = cohen_kappa(pairs, weights)
    if len({label for pair in pairs for label in pair}) < 2:
        assert ours is None
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = float(cohen_kappa_score([t for t, _ in pairs], [j for _, j in pairs], weights=weights))
    if math.isnan(theirs):
        assert ours is None
    else:
        assert ours == pytest.approx(theirs, abs=1e-9)


def test_abstentions_are_left_out_of_accuracy_and_kappa_and_counted_apart(env, judge_server, capfd):
    """autorubric's compute_metrics defaults: cannot_assess="exclude", na_mode="exclude"."""
    dataset = {
        "prompt": "What is 6*7?",
        "rubric": [
            {"name": "correct", "requirement": "Gives the right answer"},
            {
                "name": "tone",
                "requirement": "Tone?",
                "options": [
                    {"label": "bad", "value": 0},
                    {"label": "good", "value": 1},
                    {"label": "n/a", "value": 0, "na": True},
                ],
            },
        ],
        "items": [
            {"submission": "42", "description": "a", "ground_truth": ["MET", "good"]},
            {"submission": "41", "description": "b", "ground_truth": ["CANNOT_ASSESS", "n/a"]},
            {"submission": "40", "description": "c", "ground_truth": ["UNMET", "bad"]},
            {"submission": "39", "description": "d", "ground_truth": ["UNMET", "n/a"]},
        ],
    }
    (env / "abstain.dataset.json").write_text(json.dumps(dataset))
    judge_server.when(lambda r: "<response>\n42" in r.text and "Tone?" in r.text, choose("good"))
    judge_server.when(lambda r: "<response>\n39" in r.text and "Tone?" in r.text, choose("bad"))
    judge_server.when(lambda r: "Tone?" in r.text, choose("n/a"))
    judge_server.when(
        lambda r: "<response>\n41" in r.text, Reply.json({"criterion_status": "CANNOT_ASSESS", "explanation": "?"})
    )
    judge_server.when(
        lambda r: "<response>\n40" in r.text, Reply.json({"criterion_status": "CANNOT_ASSESS", "explanation": "?"})
    )
    judge_server.when(lambda r: "<response>\n39" in r.text, Reply.json({"criterion_status": "MET", "explanation": "?"}))
    code, out, err = run(capfd, str(env / "abstain.dataset.json"), "--format", "json")
    assert code == 0, err
    correct, tone = json.loads(out)["agreement"]
    # correct: a MET/MET, b both abstain, c judge abstains, d UNMET judged MET → 2 compared, 1 agreed.
    assert correct["abstained"] == {"both": 1, "judge_only": 1, "truth_only": 0}
    assert correct["compared"] == 2 and correct["accuracy"] == pytest.approx(0.5)
    # tone: a good/good, b both n/a, c judge n/a on 'bad', d truth n/a judged 'bad' → 1 compared.
    assert tone["abstained"] == {"both": 1, "judge_only": 1, "truth_only": 1}
    assert tone["compared"] == 1 and tone["accuracy"] == 1.0 and tone["cohen_kappa"] is None
    code, out, _ = run(capfd, str(env / "abstain.dataset.json"))
    assert "abstained: both 1, judge only 1, truth only 1" in out and "left out of accuracy and κ" in out


def test_a_converted_multi_turn_rubrics_task_is_graded_per_criterion(env, judge_server, capfd):
    """rubric convert → rubric grade: a second turn's criteria live in its items' own rubrics
    and are measured too, each criterion pooled over the items that hold it."""
    from tests.conftest import SAMPLES

    task = json.loads((SAMPLES / "rubrics-task" / "task.json").read_text(encoding="utf-8"))
    turns = task["threads"][0]["turns"]
    second = (
        json.dumps(turns[0])
        .replace("turn_0", "turn_1")
        .replace("rubric_0_", "rubric_1_")
        .replace("Convert 5 miles", "Convert 3 miles")
    )
    turns.append(json.loads(second))
    (env / "task.json").write_text(json.dumps(task))
    assert (
        main(["convert", str(env / "task.json"), "--to", "autorubric-dataset", "-o", str(env / "task.dataset.json")])
        == 0
    )
    capfd.readouterr()
    converted = json.loads((env / "task.dataset.json").read_text())
    assert "rubric" in converted["items"][-1], "the second turn's items carry their own rubric"
    judge_server.when(lambda r: "<options>" in r.text, choose("no_issues"))
    code, out, err = run(capfd, str(env / "task.dataset.json"), "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert len(data["items"]) == 4 and all(i["score"] == 1.0 for i in data["items"])
    entries = {e["name"]: e for e in data["agreement"]}
    assert sorted(entries) == [f"rubric_{r}_criteria_{n}" for r in (0, 1) for n in range(3)]
    for entry in entries.values():
        assert entry["kind"] == "ordinal" and entry["compared"] == 2 and "quadratic_weighted_kappa" in entry
    # model_a was rated no_issues everywhere (agrees); model_b never was (disagrees).
    assert all(e["accuracy"] == 0.5 for e in entries.values())


def test_not_gradable_file(env, capfd):
    (env / "other.yaml").write_text("just: a mapping\n")
    code, _, err = run(capfd, str(env / "other.yaml"), "--response", str(env / "response.txt"))
    assert code == 2 and "not a rubric" in err


def test_rescoring_a_json_report_keeps_failures_as_failures(env, capfd):
    report = {
        "verdicts": [
            {"name": "correct", "verdict": "MET"},
            {"name": "harmful", "verdict": "ERROR", "error": "infrastructure: timed out"},
            {"name": "clarity", "verdict": "ERROR", "error": "unknown: boom"},
        ]
    }
    (env / "report.json").write_text(json.dumps(report))
    code, out, err = run(capfd, str(env / "rubric.yaml"), "--verdicts", str(env / "report.json"), "--format", "json")
    assert code == 2 and "incomplete: 2 of 3 given verdict(s) are failed judgments" in err
    data = json.loads(out)
    # harmful abstains (skipped); clarity's unknown failure takes its worst option (poor = 0)
    assert data["score"] == pytest.approx(10 / 20)


@pytest.mark.parametrize(
    "option, value, message",
    [
        ("--concurrency", "0", "must be at least 1, got 0"),
        ("--retries", "-1", "must be at least 0, got -1"),
        ("--timeout", "0", "must be a positive number of seconds"),
        ("--timeout", "nan", "must be a positive number of seconds"),
        ("--partial-credit", "1.5", "must be between 0 and 1"),
        ("--limit", "0", "must be at least 1, got 0"),
    ],
)
def test_out_of_range_options_are_refused_before_any_call(env, judge_server, capfd, option, value, message):
    with pytest.raises(SystemExit) as exited:  # argparse's own exit, as for any usage error
        run(capfd, str(env / "rubric.yaml"), "--response", str(env / "response.txt"), option, value)
    assert exited.value.code == 2 and f"argument {option}: {message}" in capfd.readouterr().err
    assert judge_server.call_count == 0


def test_a_response_that_is_not_utf8_is_refused_from_a_file_and_from_stdin(env, judge_server, capfd, monkeypatch):
    latin1 = "café".encode("latin-1")
    (env / "latin1.txt").write_bytes(latin1)
    code, _, err = run(capfd, str(env / "rubric.yaml"), "--response", str(env / "latin1.txt"))
    assert code == 2 and "the response in " in err and "is not UTF-8 text (byte 0xe9 at offset 3)" in err
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(latin1), encoding="utf-8", errors="surrogateescape"))
    code, _, err = run(capfd, str(env / "rubric.yaml"), "--response", "-")
    assert code == 2 and "the response in standard input is not UTF-8 text" in err
    assert judge_server.call_count == 0
