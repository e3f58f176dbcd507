"""RL020 in ``rubric-lint``: a dataset calibrated with ``rubric calibrate`` against the local test judge is
clean; after one word of one criterion changes, that criterion (and only it) is reported stale, naming
its text; ``calibration = { required = true }`` reports units without a record and makes it a warning."""

from __future__ import annotations

import json
import re

import pytest

from rubric_lsp.calibration import check
from rubric_lsp.cli import lint_main, main
from rubric_lsp.document.positions import Span
from rubric_lsp.lint import lint_path
from rubric_lsp.settings import SettingsError, settings_for, settings_from_mapping
from tests.calibration import dataset, reply_for
from tests.conftest import use_judge

ITEMS = 12


@pytest.fixture
def calibrated(judge_server, tmp_path, monkeypatch, capfd):
    """A dataset and its record, made by `rubric calibrate` against the scripted judge."""
    use_judge(monkeypatch, judge_server, "sk-test-calibration-lint", tmp_path / "cache")
    judge_server.handler = lambda request: reply_for(request.text)
    path = tmp_path / "maths.dataset.json"
    path.write_text(json.dumps(dataset(ITEMS, "maths"), indent=2))
    assert main(["calibrate", str(path)]) == 0, capfd.readouterr().err
    capfd.readouterr()
    (tmp_path / "rubric-lint.toml").write_text("calibration = { required = true }\n")
    return path


def reword(path, old: str, new: str) -> None:
    path.write_text(path.read_text().replace(old, new))


def lint_json(capfd, path) -> tuple[int, list[dict]]:
    """rubric-lint's exit code and its RL020 findings on ``path``."""
    code = lint_main(["--format", "json", str(path)])
    findings = json.loads(capfd.readouterr().out)
    return code, [{**d, "line": d["range"]["start"]["line"] + 1} for d in findings if d["code"] == "RL020"]


def test_a_changed_word_makes_that_criterion_stale_in_the_cli(calibrated, capfd):
    code, found = lint_json(capfd, calibrated)
    assert found == [] and code == 0
    reword(calibrated, "Shows the working", "Shows all the working")
    code, found = lint_json(capfd, calibrated)
    assert code == 1  # required: a warning, which fails rubric-lint by default
    assert len(found) == 1, found
    assert "'shows_work'" in found[0]["message"] and "stale: its text changed" in found[0]["message"]
    assert found[0]["severity"] == "warning"


def records_folder(calibrated):
    """The record moved to a folder the settings name (``calibration.path``)."""
    folder = calibrated.parent / "calibration"
    folder.mkdir()
    record = calibrated.with_name(calibrated.name + ".calibration.json")
    record.rename(folder / record.name)
    return folder


def test_a_record_applies_to_any_file_with_the_same_criterion_text(calibrated, capfd):
    records_folder(calibrated)
    (calibrated.parent / "rubric-lint.toml").write_text('calibration = { required = true, path = "calibration" }\n')
    rubric = calibrated.parent / "maths.rubric.yaml"
    rubric.write_text(
        "- name: correct\n  requirement: Gives the right answer\n"
        "- name: shows_work\n  requirement: Shows the working\n"
        "- name: polite\n  requirement: Is polite\n"
    )
    code, found = lint_json(capfd, rubric)
    # the two criteria the dataset measured are calibrated; the third has no record
    assert [(d["line"], d["message"].split(":")[0]) for d in found] == [
        (5, "The criterion 'polite' has no calibration record")
    ]
    assert code == 1
    reword(rubric, "Gives the right answer", "Gives the correct answer")
    code, found = lint_json(capfd, rubric)
    messages = sorted(d["message"] for d in found)
    assert len(messages) == 2 and "'correct' is stale: its text changed" in messages[0]


def test_a_severity_setting_still_wins_over_required(calibrated, capfd):
    (calibrated.parent / "rubric-lint.toml").write_text(
        'severity = { RL020 = "error" }\ncalibration = { required = true }\n'
    )
    reword(calibrated, "Shows the working", "Shows all the working")
    code, found = lint_json(capfd, calibrated)
    assert code == 1 and [d["severity"] for d in found] == ["error"]


def test_the_hover_line_names_the_statistic_and_what_went_stale():
    unit = check.CalibrationUnit("tone", {"requirement": "x"}, "p", Span(0, 1))
    entry = {
        "figures": {"labels": 40, "kappa": {"statistic": "quadratic-weighted", "value": 0.71, "interval": [0.5, 0.84]}},
        "self_agreement": {"ambiguous": True},
    }
    record = {"date": "2026-11-20", "judge": {"models": ["openai/gpt-4.1-mini"]}}
    line = check.summary(check.Match(unit, record, entry, None, ("text", "prompt")))
    assert line == (
        "QWK 0.71 [0.50, 0.84] over 40 labels · gpt-4.1-mini · 2026-11-20 "
        "(stale: its text and prompt changed since) · ambiguous: the judge disagrees with itself"
    )


def test_without_required_findings_are_info_and_missing_records_are_not_reported(calibrated, capfd):
    (calibrated.parent / "rubric-lint.toml").write_text("")
    other = calibrated.parent / "other.rubric.yaml"
    other.write_text("- name: polite\n  requirement: Is polite\n")
    assert lint_json(capfd, other) == (0, [])
    reword(calibrated, "Shows the working", "Shows all the working")
    code, found = lint_json(capfd, calibrated)
    assert code == 0 and [d["severity"] for d in found] == ["info"]


def test_the_judge_is_compared_when_the_settings_name_one(calibrated, capfd):
    (calibrated.parent / "rubric-lint.toml").write_text('calibration = { judge = "openai/judge" }\n')
    assert lint_json(capfd, calibrated) == (0, [])
    (calibrated.parent / "rubric-lint.toml").write_text('calibration = { judge = ["openai/other"] }\n')
    code, found = lint_json(capfd, calibrated)
    assert code == 0 and len(found) == 2 and all("stale: its judge changed" in d["message"] for d in found)


def test_min_kappa_and_ambiguous_units(calibrated, capfd):
    record = calibrated.with_name(calibrated.name + ".calibration.json")
    data = json.loads(record.read_text())
    kappas = {u["id"]: u["figures"]["kappa"]["value"] for u in data["units"]}
    assert kappas["correct"] == 1.0 and kappas["shows_work"] < 0.9
    (calibrated.parent / "rubric-lint.toml").write_text("calibration = { min-kappa = 0.9 }\n")
    code, found = lint_json(capfd, calibrated)
    assert [d["message"] for d in found] == [
        f"The judge's κ on the criterion 'shows_work' is {kappas['shows_work']:.2f}, below min-kappa 0.9."
    ]
    data["units"][0]["self_agreement"] = {
        "ambiguous": True,
        "unanimous": {"value": 0.5},
        "repeats": 3,
        "threshold": 0.8,
    }
    record.write_text(json.dumps(data))
    code, found = lint_json(capfd, calibrated)
    assert code == 0 and any(
        "'correct' is ambiguous: the judge agreed with itself on 0.50" in d["message"] for d in found
    )


def test_a_damaged_record_is_one_finding_not_a_crash(calibrated, capfd):
    calibrated.with_name(calibrated.name + ".calibration.json").write_text("{not json")
    code, found = lint_json(capfd, calibrated)
    assert code == 1 and found[0]["line"] == 1 and "not a calibration record (not JSON" in found[0]["message"]
    # and, required, both criteria have no usable record
    assert sum("has no calibration record" in d["message"] for d in found) == 2


@pytest.mark.parametrize(
    ("table", "complaint"),
    [
        ({"required": "yes"}, "'required' must be true or false"),
        ({"min-kappa": 2}, "'min-kappa' must be a number between -1 and 1"),
        ({"path": 3}, "'path' must be a record file or a folder"),
        ({"judge": [1]}, "'judge' must be a judge model"),
        ({"floor": 1}, "unknown key(s) 'floor'"),
        ("on", "'calibration' must be a table"),
    ],
)
def test_calibration_settings_are_validated(table, complaint):
    with pytest.raises(SettingsError, match=re.escape(complaint)):
        settings_from_mapping({"calibration": table})


def test_calibration_settings_read_from_pyproject(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.rubric-lint]\ncalibration = { required = true, min-kappa = 0.6, path = "records", judge = "openai/x" }\n'
    )
    found = settings_for(tmp_path / "a.rubric.yaml").calibration
    assert found.required and found.min_kappa == 0.6 and found.judge == ("openai/x",)
    assert found.path == tmp_path / "records"


def test_a_missing_records_path_is_reported_and_the_record_beside_is_a_dependency(tmp_path, capfd):
    (tmp_path / "rubric-lint.toml").write_text('calibration = { path = "nowhere" }\n')
    rubric = tmp_path / "a.rubric.yaml"
    rubric.write_text("- name: polite\n  requirement: Is polite\n")
    code, found = lint_json(capfd, rubric)
    assert code == 0 and [d["message"] for d in found] == [
        f"{tmp_path / 'nowhere'}: the settings' calibration.path does not exist"
    ]
    # the server re-lints the file when its record appears or changes (server/diagnostics.py)
    result = lint_path(rubric, settings=settings_for(rubric))
    assert str(tmp_path / "a.rubric.yaml.calibration.json") in result.dependencies
