"""RL020 in ``rubric-lint``: a dataset calibrated with ``rubric calibrate`` against the local test judge is
clean; after one word of one criterion changes, that criterion (and only it) is reported stale, naming
its text; ``calibration = { required = true }`` reports units without a record and makes it a warning."""

from __future__ import annotations

import json
import re
from pathlib import Path

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
    # As `rubric calibrate -o calibration/…` writes it: its source is the set, from the record's folder.
    data = json.loads(record.read_text())
    (folder / record.name).write_text(json.dumps({**data, "source": "../" + data["source"]}))
    record.unlink()
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
    from rubric_lsp.calibration import evidence
    from rubric_lsp.calibration.units import Labelled, UnitSamples

    scale = (0, 1, 2)
    truths = [0, 1, 2, 1] * 10
    verdicts = [0, 1, 1, 1] * 10
    asks = [
        UnitSamples(
            "tone", "x", "ordinal", {}, "p", scale, {0: "bad", 1: "ok", 2: "good"},
            judged={i: v if ask == 0 or i % 2 else (v + 1) % 3 for i, v in enumerate(verdicts)},
            labelled={i: Labelled(f"{i:016x}", "l", t) for i, t in enumerate(truths)},
        )
        for ask in range(2)
    ]  # fmt: skip
    proof = evidence.build([(evidence.column(r), u) for r, u in enumerate(asks, 1)])
    derived = evidence.figures_of(proof, "ordinal", None)
    entry = {"id": "tone", "kind": "ordinal", "figures": derived.figures, "evidence": proof}
    entry["self_agreement"] = {"threshold": 0.8}
    unit = check.CalibrationUnit("tone", {"requirement": "x"}, "p", Span(0, 1))
    record = {"date": "2026-11-20", "judge": {"models": ["openai/gpt-4.1-mini"]}}
    line = check.summary(check.Match(unit, record, entry, Path("r.json"), ("text", "prompt")))
    kappa = derived.figures["kappa"]
    low, high = kappa["interval"]
    assert line == (
        f"QWK {kappa['value']:.2f} [{low:.2f}, {high:.2f}] over 40 labels · gpt-4.1-mini · 2026-11-20 "
        "(stale: its text and prompt changed since 2026-11-20) · ambiguous: the judge disagrees with itself"
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


def test_min_kappa_is_met_by_the_intervals_lower_bound(calibrated, capfd):
    record = calibrated.with_name(calibrated.name + ".calibration.json")
    data = json.loads(record.read_text())
    kappas = {u["id"]: u["figures"]["kappa"] for u in data["units"]}
    assert kappas["correct"]["value"] == 1.0 and kappas["shows_work"]["value"] < 0.9
    floor = round((kappas["correct"]["interval"][0] + kappas["shows_work"]["interval"][0]) / 2, 2)
    (calibrated.parent / "rubric-lint.toml").write_text(f"calibration = {{ min-kappa = {floor} }}\n")
    code, found = lint_json(capfd, calibrated)
    low, high = kappas["shows_work"]["interval"]
    assert code == 0 and [d["message"] for d in found] == [
        f"The criterion 'shows_work' is below min-kappa {floor}: κ {kappas['shows_work']['value']:.2f} "
        f"[{low:.2f}, {high:.2f}] over 12 labels, its lower bound {low:.2f} short of it."
    ]
    # A perfect κ over 12 labels does not show a judge at 0.9: the lower bound decides, not the point.
    (calibrated.parent / "rubric-lint.toml").write_text("calibration = { min-kappa = 0.9 }\n")
    _, found = lint_json(capfd, calibrated)
    assert sum("'correct' is below min-kappa 0.9: κ 1.00" in d["message"] for d in found) == 1


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
