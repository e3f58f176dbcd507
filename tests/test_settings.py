"""``[tool.rubric-lint]`` settings: discovery, select/ignore, per-file-ignores, severity."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rubric_lsp.cli import lint_main
from rubric_lsp.diagnostics import Severity
from rubric_lsp.settings import Settings, SettingsError, find_pyproject, settings_for, settings_from_mapping
from tests.helpers import codes, lint

BAD = """\
criteria:
  - name: yes
    weight: 5
    requirement: States the correct final answer
    requirement: States the final answer
"""


def lint_json(capsys, *argv: str) -> tuple[int, list[dict], str]:
    code = lint_main(["--format", "json", *argv])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip() else []), err


def project(tmp_path: Path, settings: str) -> Path:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n\n[tool.rubric-lint]\n" + settings)
    return tmp_path


# -- discovery ---------------------------------------------------------------------


def test_settings_are_found_by_walking_up_from_the_file(tmp_path):
    root = project(tmp_path, 'ignore = ["RL005"]\n')
    deep = root / "a" / "b" / "c"
    deep.mkdir(parents=True)
    (deep / "x.rubric.yaml").write_text(BAD)
    assert find_pyproject(deep / "x.rubric.yaml") == root / "pyproject.toml"
    settings = settings_for(deep / "x.rubric.yaml")
    assert settings.ignore == ("RL005",) and settings.root == root


def test_a_pyproject_without_the_table_is_passed_over(tmp_path):
    root = project(tmp_path, 'ignore = ["RL005"]\n')
    inner = root / "pkg"
    inner.mkdir()
    (inner / "pyproject.toml").write_text("[project]\nname = 'inner'\n")
    assert find_pyproject(inner / "x.yaml") == root / "pyproject.toml"


def test_the_nearest_table_wins(tmp_path, capsys):
    root = project(tmp_path, 'ignore = ["RL005"]\n')
    inner = root / "pkg"
    inner.mkdir()
    (inner / "pyproject.toml").write_text('[tool.rubric-lint]\nignore = ["RL002"]\n')
    (inner / "x.rubric.yaml").write_text(BAD)
    (root / "y.rubric.yaml").write_text(BAD)
    _, found, _ = lint_json(capsys, "--select", "RL", str(root))
    by_file = {}
    for row in found:
        by_file.setdefault(Path(row["path"]).name, set()).add(row["code"])
    assert by_file == {"x.rubric.yaml": {"RL005"}, "y.rubric.yaml": {"RL002"}}


def test_no_settings_means_every_rule():
    settings = Settings()
    assert settings.is_enabled("RL005") and settings.is_enabled("AR001")


def test_config_option_uses_one_file_for_all(tmp_path, capsys):
    config = tmp_path / "conf" / "pyproject.toml"
    config.parent.mkdir()
    config.write_text('[tool.rubric-lint]\nselect = ["RL002"]\n')
    (tmp_path / "x.rubric.yaml").write_text(BAD)
    _, found, _ = lint_json(capsys, "--config", str(config), str(tmp_path / "x.rubric.yaml"))
    assert [r["code"] for r in found] == ["RL002"]


# -- select / ignore / per-file-ignores / severity ------------------------------------


def test_select_and_ignore_by_prefix_most_specific_wins():
    settings = settings_from_mapping({"select": ["RL"], "ignore": ["RL00"], "extend-select": ["RL005"]})
    assert settings.is_enabled("RL005")  # extend-select RL005 is more specific than ignore RL00
    assert not settings.is_enabled("RL002")
    assert not settings.is_enabled("AR001")  # not selected
    assert settings_from_mapping({"ignore": ["ALL"]}).is_enabled("RL005") is False


def test_select_in_settings_limits_findings(tmp_path, capsys):
    root = project(tmp_path, 'select = ["RL002"]\n')
    (root / "x.rubric.yaml").write_text(BAD)
    _, found, _ = lint_json(capsys, str(root / "x.rubric.yaml"))
    assert [r["code"] for r in found] == ["RL002"]


def test_cli_select_overrides_settings_and_cli_ignore_adds(tmp_path, capsys):
    root = project(tmp_path, 'select = ["RL002"]\n')
    (root / "x.rubric.yaml").write_text(BAD)
    _, found, _ = lint_json(capsys, "--select", "RL005", str(root / "x.rubric.yaml"))
    assert [r["code"] for r in found] == ["RL005"]
    _, found, _ = lint_json(capsys, "--ignore", "RL002", str(root / "x.rubric.yaml"))
    assert found == []


def test_per_file_ignores_match_paths_relative_to_the_project(tmp_path, capsys):
    root = project(
        tmp_path, '[tool.rubric-lint.per-file-ignores]\n"legacy/*.yaml" = ["RL005"]\n"*.old.rubric.yaml" = ["RL"]\n'
    )
    (root / "legacy").mkdir()
    (root / "legacy" / "a.rubric.yaml").write_text(BAD)
    (root / "b.rubric.yaml").write_text(BAD)
    (root / "c.old.rubric.yaml").write_text(BAD)
    _, found, _ = lint_json(capsys, "--select", "RL", str(root))
    by_file = {}
    for row in found:
        by_file.setdefault(Path(row["path"]).name, set()).add(row["code"])
    assert by_file == {"a.rubric.yaml": {"RL002"}, "b.rubric.yaml": {"RL002", "RL005"}}


def test_severity_overrides_change_the_reported_severity(tmp_path, capsys):
    root = project(tmp_path, '[tool.rubric-lint.severity]\nRL005 = "error"\nRL = "info"\n')
    (root / "x.rubric.yaml").write_text(BAD)
    code, found, _ = lint_json(capsys, "--select", "RL", str(root / "x.rubric.yaml"))
    assert {r["code"]: r["severity"] for r in found} == {"RL005": "error", "RL002": "info"}
    assert code == 1


def test_severity_for_longest_prefix():
    settings = settings_from_mapping({"severity": {"AR": "info", "AR1": "warning", "AR101": "error"}})
    assert settings.severity_for("AR101", Severity.WARNING) == Severity.ERROR
    assert settings.severity_for("AR105", Severity.ERROR) == Severity.WARNING
    assert settings.severity_for("AR001", Severity.WARNING) == Severity.INFO
    assert settings.severity_for("RL001", Severity.ERROR) == Severity.ERROR


def test_settings_apply_through_the_library_api():
    settings = settings_from_mapping({"ignore": ["RL005"]})
    result = lint(BAD, "x.rubric.yaml", settings=settings)
    assert "RL005" not in codes(result) and "RL002" in codes(result)


def test_exclude_skips_files_when_walking(tmp_path, capsys):
    root = project(tmp_path, 'exclude = ["vendor/*"]\n')
    (root / "vendor").mkdir()
    (root / "vendor" / "x.rubric.yaml").write_text(BAD)
    (root / "y.rubric.yaml").write_text(BAD)
    _, found, _ = lint_json(capsys, "--select", "RL005", str(root))
    assert {Path(r["path"]).name for r in found} == {"y.rubric.yaml"}


def test_max_file_size_setting(tmp_path, capsys):
    root = project(tmp_path, "max-file-size = 50\n")
    (root / "x.rubric.yaml").write_text(BAD)
    _, found, _ = lint_json(capsys, str(root / "x.rubric.yaml"))
    assert [r["code"] for r in found] == ["RL003"]
    assert "max-file-size" in found[0]["message"]


# -- invalid settings: exit 2 with a clear message -----------------------------------------


@pytest.mark.parametrize(
    "toml, phrase",
    [
        ('selekt = ["RL"]\n', "did you mean 'select'"),
        ('select = "RL005"\n', "'select' must be a list"),
        ('select = ["RL0005"]\n', "'RL0005' is not a rule code or prefix"),
        ('ignore = ["XYZ"]\n', "'XYZ' is not a rule code or prefix"),
        ('severity = { RL005 = "fatal" }\n', "unknown severity 'fatal'"),
        ("severity = { RL005 = 2 }\n", "'severity' for RL005"),
        ('severity = { NOPE1 = "error" }\n', "'NOPE1' is not a rule code"),
        ('per-file-ignores = ["x"]\n', "'per-file-ignores' must be a table"),
        ('per-file-ignores = { "*.yaml" = "RL005" }\n', "'per-file-ignores' entry '*.yaml' must be a list"),
        ("max-file-size = -1\n", "'max-file-size' must be a positive number"),
        ('exclude = "vendor"\n', "'exclude' must be a list"),
        ("select = [\n", "cannot read settings"),
        ("select = " + "[" * 5000 + "]" * 5000 + "\n", "cannot read settings: nested too deeply"),
    ],
)
def test_invalid_settings_exit_two_with_a_clear_message(tmp_path, capsys, toml, phrase):
    root = project(tmp_path, toml)
    (root / "x.rubric.yaml").write_text(BAD)
    code = lint_main([str(root / "x.rubric.yaml")])
    err = capsys.readouterr().err
    assert code == 2
    assert phrase in err
    assert str(root / "pyproject.toml") in err
    assert "Traceback" not in err


def test_settings_error_is_a_value_error():
    with pytest.raises(SettingsError):
        settings_from_mapping({"select": [1]})


def test_what_settings_say_of_a_code_is_remembered_per_settings_never_across_overrides():
    """A folder run shares one Settings per folder and remembers its answer per code; an override (the
    command line's --select / --ignore) is another Settings with answers of its own."""
    base = Settings(ignore=("PF0",))
    assert base.is_enabled("AR101") and not base.is_enabled("PF001")
    assert base.is_enabled("AR101") and not base.is_enabled("PF001")  # remembered, the same
    narrowed = base.with_overrides(select=["PF001"])
    assert narrowed.is_enabled("PF001") and not narrowed.is_enabled("AR101")
    widened = base.with_overrides(ignore=["AR1"])
    assert not widened.is_enabled("AR101") and not widened.is_enabled("PF001")
    assert base.is_enabled("AR101") and not base.is_enabled("PF001")  # the base's answers untouched
    per_file = Settings(per_file_ignores=(("tests/*", ("AR1",)),), root=Path("/repo"))
    assert per_file.is_enabled("AR101", "/repo/rubric.yaml") and not per_file.is_enabled("AR101", "/repo/tests/r.yaml")
