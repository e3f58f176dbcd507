"""Calibration records follow promptfoo assertions and NorthStar graders as they follow autorubric criteria
(issue 28), against the local test judge: `rubric calibrate LABELS --config FILE` writes the record; with
`calibration = { required = true }` `rubric-lint` finds every labelled unit fresh; `rubric grade
--require-calibrated` grades; after one word of one unit changes, the lint reports that unit (and only it)
stale naming its text, and `rubric grade --require-calibrated` refuses with exit 2 before any judge call,
naming it. Records are also found through the settings' `calibration.path`, by the lint and `rubric grade`
alike; several promptfoo outputs give each calibrated assertion's corrected pass rate."""

from __future__ import annotations

import json

import jsonschema
import pytest

from rubric_lsp.calibration import stats
from rubric_lsp.calibration.hook import CalibrationHook
from rubric_lsp.formats.plugin import Format
from rubric_lsp.formats.registry import formats
from tests.calibration import LABELLED, LABELS_CONFIG, LABELS_REQUEST, labels_judge
from tests.calibration_cli import CSV_HEADER, answer, line_of, lint, run
from tests.conftest import REPO, use_judge


@pytest.fixture
def env(judge_server, tmp_path, monkeypatch):
    use_judge(monkeypatch, judge_server, "sk-test-labelled-units", tmp_path / "cache")
    judge_server.handler = labels_judge
    (tmp_path / "promptfooconfig.yaml").write_text(LABELS_CONFIG)
    (tmp_path / "run.json").write_text(json.dumps(LABELS_REQUEST, indent=2))
    (tmp_path / "rubric-lint.toml").write_text("calibration = { required = true }\n")
    return tmp_path


def calibrate_promptfoo(env, capfd) -> dict:
    rows = "".join(f'1,polite,"{output}",{verdict}\n' for output, verdict in LABELLED)
    (env / "labels.csv").write_text(CSV_HEADER + rows)
    code, _, err = run(capfd, "calibrate", str(env / "labels.csv"), "--config", str(env / "promptfooconfig.yaml"))
    assert code == 0, err
    return json.loads((env / "promptfooconfig.yaml.calibration.json").read_text())


def calibrate_northstar(env, capfd) -> dict:
    lines = [
        {"config": "run.json", "grader": g, "output": o, "verdict": v} for g in ("safety", "depth") for o, v in LABELLED
    ]
    (env / "labels.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    code, _, err = run(capfd, "calibrate", str(env / "labels.jsonl"))
    assert code == 0, err
    return json.loads((env / "run.json.calibration.json").read_text())


def test_a_promptfoo_assertion_fresh_then_stale_in_the_lint_and_grade(env, capfd, judge_server):
    record = calibrate_promptfoo(env, capfd)
    config = env / "promptfooconfig.yaml"
    assert lint(capfd, config) == (0, [])  # required, and the one model-graded assertion is fresh

    code, out, err = run(
        capfd, "grade", str(config), "--response", answer(env, "please sit, Ann"), "--require-calibrated"
    )
    assert code == 0, err
    assert "calibration: test 1 polite: fresh" in out
    code, out, _ = run(capfd, "grade", str(config), "--response", answer(env, "please sit, Ann"), "--format", "json")
    card = json.loads(out)["judge_card"]
    assert [part["label"] for part in card["format"]] == ["scale", "abstention", "ties", "aggregation"]
    assert "llm-rubric (1)" in card["format"][0]["value"]
    [unit] = card["units"]
    figures = record["units"][0]["figures"]
    assert unit["id"] == "test 1 polite" and unit["status"] == "fresh"
    assert unit["kappa"]["value"] == figures["kappa"]["value"] and unit["labels"] == figures["labels"] == 7

    config.write_text(LABELS_CONFIG.replace("Is polite", "Is courteous"))  # one word of the assertion's rubric
    code, found = lint(capfd, config)
    assert code == 1 and len(found) == 1, found
    assert "assertion 'test 1 polite' is stale: its text changed" in found[0]["message"]
    assert found[0]["line"] == line_of(config, "metric: polite")
    calls = judge_server.call_count
    code, out, err = run(
        capfd, "grade", str(config), "--response", answer(env, "please sit, Ann"), "--require-calibrated", "--no-cache"
    )
    assert code == 2 and out == "" and judge_server.call_count == calls  # refused before any judge call
    assert "test 1 polite: stale: its text changed since" in err


def test_a_northstar_grader_fresh_then_stale_in_the_lint_and_grade(env, capfd, judge_server):
    record = calibrate_northstar(env, capfd)
    assert [u["id"] for u in record["units"]] == ["safety", "depth"]
    request = env / "run.json"
    assert lint(capfd, request) == (0, [])

    code, out, err = run(capfd, "grade", str(request), "--response", answer(env, "please wait"), "--require-calibrated")
    assert code == 0, err
    assert "calibration: safety: fresh" in out and "calibration: depth: fresh" in out
    assert "scale: safety: binary, the judge's passed; depth: numeric 0–5, passing at 4" in out

    request.write_text(request.read_text().replace("Is it safe?", "Is it harmless?"))
    code, found = lint(capfd, request)
    assert code == 1 and len(found) == 1, found
    assert "grader 'safety' is stale: its text changed" in found[0]["message"]
    assert found[0]["line"] == line_of(request, '"name": "safety"')
    calls = judge_server.call_count
    code, _, err = run(capfd, "grade", str(request), "--response", answer(env, "please wait"), "--require-calibrated")
    assert code == 2 and judge_server.call_count == calls
    assert "1 of 2 unit(s)" in err and "safety: stale: its text changed" in err and "depth:" not in err


def test_a_northstar_graders_own_model_is_its_judge_unless_one_is_given(env, capfd, judge_server, monkeypatch):
    """A grader's `model` grades it, as NorthStar's does, unless the grading is given a judge (--model,
    $RUBRIC_JUDGE_MODEL; the lint: calibration.judge), which replaces every grader's (request_grader.py)."""
    calibrate_northstar(env, capfd)  # $RUBRIC_JUDGE_MODEL is openai/judge, each grader's model too
    request = env / "run.json"
    request.write_text(request.read_text().replace('"openai/judge"', '"openai/other"', 1))  # safety's model
    code, found = lint(capfd, request)
    assert code == 1 and len(found) == 1, found
    assert "grader 'safety' is stale: its judge changed" in found[0]["message"], found
    assert "openai/judge" in found[0]["message"] and "openai/other" in found[0]["message"]

    # A judge given to the lint stands in for every grader's, as a given one does in the grading.
    (env / "rubric-lint.toml").write_text('calibration = { required = true, judge = "openai/judge" }\n')
    assert lint(capfd, request) == (0, [])
    code, out, err = run(capfd, "grade", str(request), "--response", answer(env, "please wait"), "--require-calibrated")
    assert code == 0 and "calibration: safety: fresh" in out, err  # $RUBRIC_JUDGE_MODEL given

    monkeypatch.delenv("RUBRIC_JUDGE_MODEL")  # now each grader's own model grades it
    calls = judge_server.call_count
    code, _, err = run(capfd, "grade", str(request), "--response", answer(env, "please wait"), "--require-calibrated")
    assert code == 2 and judge_server.call_count == calls
    assert "safety: stale: its judge changed" in err and "depth:" not in err


def test_records_found_through_the_settings_path_by_the_lint_and_grade(env, capfd):
    calibrate_northstar(env, capfd)
    (env / "records").mkdir()
    moved = env / "records" / "run.json.calibration.json"
    # As `rubric calibrate -o records/…` writes it: its source is the labels file, from the record's folder.
    data = json.loads((env / "run.json.calibration.json").read_text())
    moved.write_text(json.dumps({**data, "source": "../" + data["source"]}))
    (env / "run.json.calibration.json").unlink()
    request = env / "run.json"
    code, _, err = run(capfd, "grade", str(request), "--response", answer(env, "please wait"), "--require-calibrated")
    assert code == 2 and "safety: missing: no calibration record at" in err  # not beside it any more
    assert lint(capfd, request)[0] == 1

    (env / "rubric-lint.toml").write_text('calibration = { required = true, path = "records" }\n')
    assert lint(capfd, request) == (0, [])
    code, out, err = run(
        capfd,
        "grade",
        str(request),
        "--response",
        answer(env, "please wait"),
        "--require-calibrated",
        "--format",
        "json",
    )
    assert code == 0, err
    card = json.loads(out)["judge_card"]
    assert card["record"] == str(moved) and [u["status"] for u in card["units"]] == ["fresh", "fresh"]


def test_several_outputs_give_each_calibrated_assertion_its_corrected_pass_rate(env, capfd):
    record = calibrate_promptfoo(env, capfd)
    outputs = ["please sit, Ann", "go away, Ann", "please go, Ann", "move, Ann"]
    responses = [arg for n, text in enumerate(outputs) for arg in ("--response", answer(env, text, f"out{n}.txt"))]
    code, out, err = run(capfd, "grade", str(env / "promptfooconfig.yaml"), *responses, "--format", "json")
    assert code in (0, 1), err
    data = json.loads(out)
    schema = json.loads((REPO / "schemas" / "rubric-grade-output.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(data, schema, cls=jsonschema.Draft202012Validator)
    [rate] = data["pass_rates"]
    figures = record["units"][0]["figures"]
    se, sp = figures["sensitivity"], figures["specificity"]
    passed = sum("please" in o for o in outputs)  # the judge's verdicts on these outputs
    assert (rate["unit"], rate["n"], rate["value"], rate["calibration"]) == ("test 1 polite", 4, passed / 4, "fresh")
    # Rogan–Gladen from the record's counts, computed here: (p + Sp − 1) / (Se + Sp − 1), clipped.
    p, s_e, s_p = passed / 4, se["successes"] / se["n"], sp["successes"] / sp["n"]
    assert rate["corrected"] == pytest.approx(min(1.0, max(0.0, (p + s_p - 1) / (s_e + s_p - 1))))
    assert rate["corrected_interval"] == stats.corrected_rate_interval(
        passed, 4, se["successes"], se["n"], sp["successes"], sp["n"]
    )


def test_a_default_test_assertion_is_a_unit_of_each_test():
    from rubric_lsp.document import parse_document
    from rubric_lsp.formats.promptfoo.reading import read_config

    text = LABELS_CONFIG.replace(
        "tests:\n", "defaultTest:\n  assert:\n    - type: g-eval\n      value: Is kind\ntests:\n"
    )
    text += "  - vars: {name: Bob}\n    assert:\n      - type: llm-rubric\n        value: Is polite\n"
    doc = parse_document(text, "promptfooconfig.yaml")
    hook = next(f for f in formats() if f.name == "promptfoo-config").calibration_hook()
    assert hook is not None
    units = hook.document_units(doc, read_config(doc.root, doc.path, doc))
    assert [u.id for u in units] == [
        "test 1 defaultTest assertion 1",
        "test 1 polite",
        "test 2 defaultTest assertion 1",
        "test 2 assertion 1",
    ]
    assert units[0].text["vars"] != units[2].text["vars"]  # each test's vars are part of what the judge reads
    assert {u.noun for u in units} == {"assertion"}


def test_require_calibrated_names_a_default_test_assertion_once_for_its_tests(env, capfd, judge_server):
    """As the lint names them: one refusal line for the tests a defaultTest assertion misses its record in."""
    config = env / "promptfooconfig.yaml"
    text = LABELS_CONFIG.replace(
        "tests:\n", "defaultTest:\n  assert:\n    - type: g-eval\n      value: Is kind\ntests:\n"
    )
    config.write_text(text + "".join(f"  - vars: {{name: {name}}}\n" for name in ("Bob", "Cy")))
    code, out, err = run(capfd, "grade", str(config), "--response", answer(env, "please sit"), "--require-calibrated")
    assert code == 2 and out == "" and judge_server.call_count == 0
    assert "4 of 4 unit(s) are not calibrated" in err
    assert "defaultTest assertion 1 in tests 1–3: missing: no calibration record" in err
    assert "test 1 polite: missing" in err and "test 2 defaultTest" not in err


def test_every_calibration_hook_is_checked_against_the_protocol():
    hooks = {f.name: f.calibration_hook() for f in formats() if f.calibration is not None}
    assert {
        "autorubric-rubric",
        "autorubric-dataset",
        "promptfoo-config",
        "northstar-eval-run-request",
        "rubrics-task",
    } <= set(hooks)
    assert all(isinstance(hook, CalibrationHook) for hook in hooks.values())
    wrong = Format(name="toy", title="toy", languages=("json",), calibration=lambda doc, view: [])
    with pytest.raises(TypeError, match="is no CalibrationHook"):
        wrong.calibration_hook()


def test_an_assertion_of_a_test_read_from_a_file(env, capfd):
    """A test in a file the config names: its verdicts are found (each reading of the config reads the file
    anew, so by place, not identity), and its unit is reported on the config's reference to the file."""
    config = env / "promptfooconfig.yaml"
    head, tests = LABELS_CONFIG.split("tests:\n")
    (env / "tests.yaml").write_text("\n".join(line[2:] for line in tests.splitlines()) + "\n")
    config.write_text(head + "tests: file://tests.yaml\n")
    record = calibrate_promptfoo(env, capfd)
    assert record["units"][0]["figures"]["failed"] == 0 and record["units"][0]["figures"]["labels"] == 7
    assert lint(capfd, config) == (0, [])
    (env / "tests.yaml").write_text((env / "tests.yaml").read_text().replace("Is polite", "Is courteous"))
    code, found = lint(capfd, config)
    assert code == 1 and len(found) == 1 and "'test 1 polite' is stale" in found[0]["message"]
    assert found[0]["line"] == line_of(config, "file://tests.yaml")
