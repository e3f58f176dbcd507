"""``rubric grade``: JSON output, --verdicts, datasets, exit codes, and no API key in any output."""

from __future__ import annotations

import io
import json
import logging
import sys

import pytest

from rubric_lsp.cli import main
from rubric_lsp.grading.agreement import cohen_kappa
from tests.judge_server import Reply, judge_server  # noqa: F401 - fixture

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
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("RUBRIC_JUDGE_API_BASE", judge_server.base_url)
    monkeypatch.setenv("RUBRIC_JUDGE_MODEL", "openai/judge")
    monkeypatch.setenv("RUBRIC_CACHE_DIR", str(tmp_path / "cache"))
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
    code, out, err = run(capfd, str(env / "rubric.yaml"), "--response", str(env / "response.txt"), "--query", "6*7?", "--format", "json", "--no-cache")
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


def test_failures_never_leak_the_key_and_exit_1(env, judge_server, capfd, caplog):
    caplog.set_level(logging.DEBUG)
    judge_server.default = Reply.error(401, f"Incorrect API key provided: {SECRET}")
    code, out, err = run(capfd, str(env / "rubric.yaml"), "--response", str(env / "response.txt"), "--format", "json", "--retries", "0")
    assert code == 1
    data = json.loads(out)
    assert data["score"] is None and "Every criterion" in data["error"]
    assert all(v["verdict"] == "ERROR" and "not authenticated" in v["error"] for v in data["verdicts"])
    assert SECRET not in out + err + caplog.text
    judge_server.assert_never_saw(SECRET)  # only ever in the Authorization header
    assert all(r.headers.get("authorization") == f"Bearer {SECRET}" for r in judge_server.completions)
    files = [p for p in (env / "cache").rglob("*") if p.is_file()] if (env / "cache").exists() else []
    assert all(SECRET not in p.read_text() for p in files)


def test_missing_key_is_reported_before_any_call(env, judge_server, capfd, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    monkeypatch.delenv("RUBRIC_JUDGE_API_BASE")
    code, out, err = run(capfd, str(env / "rubric.yaml"), "--response", str(env / "response.txt"))
    assert code == 2 and "OPENAI_API_KEY" in err and judge_server.call_count == 0


@pytest.mark.parametrize("strategy, expected", [("skip", "1"), ("zero", "0.5"), ("partial", "0.75"), ("fail", "0.5")])
def test_verdicts_are_scored_without_a_judge(env, judge_server, capfd, strategy, expected):
    (env / "v.json").write_text(json.dumps(["MET", "UNMET", "n/a"]))
    rubric = RUBRIC.replace("{label: great, value: 1}", "{label: great, value: 1}\n    - {label: n/a, value: 0, na: true}")
    (env / "rubric.yaml").write_text(rubric)
    code, out, err = run(capfd, str(env / "rubric.yaml"), "--verdicts", str(env / "v.json"), "--cannot-assess", strategy)
    assert code == 0, err
    assert out.strip().startswith(f"score: {expected} ")
    assert judge_server.call_count == 0


def test_verdicts_reject_wrong_count_and_unknown_label(env, capfd):
    (env / "v.json").write_text(json.dumps(["MET", "UNMET"]))
    code, _, err = run(capfd, str(env / "rubric.yaml"), "--verdicts", str(env / "v.json"))
    assert code == 2 and "3 criteria" in err
    (env / "v.json").write_text(json.dumps(["MET", "UNMET", "superb"]))
    code, _, err = run(capfd, str(env / "rubric.yaml"), "--verdicts", str(env / "v.json"))
    assert code == 2 and "'superb' is not an option" in err


def test_dataset_agreement_per_criterion(env, judge_server, capfd):
    dataset = {
        "name": "calibration",
        "prompt": "What is 6*7?",
        "rubric": [{"name": "correct", "requirement": "Gives the right answer"},
                   {"name": "tone", "requirement": "Tone?", "options": [{"label": "bad", "value": 0}, {"label": "ok", "value": 0.5}, {"label": "good", "value": 1}]}],
        "items": [
            {"submission": "42", "description": "right", "ground_truth": ["MET", "good"]},
            {"submission": "41", "description": "wrong", "ground_truth": ["UNMET", "ok"]},
            {"submission": "40", "description": "wrong too", "ground_truth": ["UNMET", "bad"]},
        ],
    }
    (env / "calibration.dataset.json").write_text(json.dumps(dataset))
    judge_server.when(lambda r: "<response>\n42" in r.text and "Tone?" in r.text, choose("good"))
    judge_server.when(lambda r: "Tone?" in r.text, choose("good"))
    judge_server.when(lambda r: "<response>\n40" in r.text, Reply.json({"criterion_status": "UNMET", "explanation": "wrong"}))
    code, out, err = run(capfd, str(env / "calibration.dataset.json"), "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    correct, tone = data["agreement"]
    assert correct["accuracy"] == pytest.approx(2 / 3) and correct["compared"] == 3
    assert tone["kind"] == "ordinal" and tone["accuracy"] == pytest.approx(1 / 3)
    assert "quadratic_weighted_kappa" in tone and "quadratic_weighted_kappa" not in correct


def test_kappa_values():
    assert cohen_kappa([("a", "a"), ("b", "b")], ["a", "b"]) == 1.0
    assert cohen_kappa([("a", "b"), ("b", "a")], ["a", "b"]) == -1.0
    pairs = [(0, 0), (1, 2), (2, 2), (2, 1)]
    assert cohen_kappa(pairs, [0, 1, 2], "quadratic") > cohen_kappa(pairs, [0, 1, 2])
    assert cohen_kappa([], ["a"]) is None


def test_not_gradable_file(env, capfd):
    (env / "other.yaml").write_text("just: a mapping\n")
    code, _, err = run(capfd, str(env / "other.yaml"), "--response", str(env / "response.txt"))
    assert code == 2 and "not a rubric" in err


def test_rescoring_a_json_report_keeps_failures_as_failures(env, capfd):
    report = {"verdicts": [
        {"name": "correct", "verdict": "MET"},
        {"name": "harmful", "verdict": "ERROR", "error": "infrastructure: timed out"},
        {"name": "clarity", "verdict": "ERROR", "error": "unknown: boom"},
    ]}
    (env / "report.json").write_text(json.dumps(report))
    code, out, err = run(capfd, str(env / "rubric.yaml"), "--verdicts", str(env / "report.json"), "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    # harmful abstains (skipped); clarity's unknown failure takes its worst option (poor = 0)
    assert data["score"] == pytest.approx(10 / 20)


@pytest.mark.parametrize("option, value, message", [
    ("--concurrency", "0", "must be at least 1, got 0"),
    ("--retries", "-1", "must be at least 0, got -1"),
    ("--timeout", "0", "must be a positive number of seconds"),
    ("--timeout", "nan", "must be a positive number of seconds"),
    ("--partial-credit", "1.5", "must be between 0 and 1"),
    ("--limit", "0", "must be at least 1, got 0"),
])
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
