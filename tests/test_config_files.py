"""Settings without a pyproject.toml (``rubric-lint.toml`` / ``.rubric-lint.toml``, found as ruff finds
``ruff.toml``) and ``kinds``, which maps file globs to kinds ahead of detection (CLI and grading)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rubric_lsp.cli import lint_main
from rubric_lsp.settings import SettingsError, find_config, load_settings, settings_for

# A rubric no detector claims by name or content: only a `kinds` glob makes it one.
ANONYMOUS = '[{"requirment": "Cites a source", "weight": 1}]\n'
KINDS = '[kinds]\n"evals/rubrics/**/*.json" = "autorubric-rubric"\n'


def lint(capsys, *argv: str) -> tuple[int, str, str]:
    code = lint_main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_standalone_file_is_found_by_walking_up(tmp_path):
    (tmp_path / "rubric-lint.toml").write_text('ignore = ["RL005"]\n')
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    assert find_config(deep / "x.yaml") == tmp_path / "rubric-lint.toml"
    settings = settings_for(deep / "x.yaml")
    assert settings.ignore == ("RL005",) and settings.root == tmp_path


def test_precedence_in_one_folder_is_dotted_then_plain_then_pyproject(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.rubric-lint]\nignore = ["RL001"]\n')
    assert settings_for(tmp_path / "x.yaml").ignore == ("RL001",)
    (tmp_path / "rubric-lint.toml").write_text('ignore = ["RL002"]\n')
    assert settings_for(tmp_path / "x.yaml").ignore == ("RL002",)
    (tmp_path / ".rubric-lint.toml").write_text('ignore = ["RL003"]\n')
    assert settings_for(tmp_path / "x.yaml").ignore == ("RL003",)


def test_the_nearest_folder_wins_and_nothing_is_merged(tmp_path):
    (tmp_path / "rubric-lint.toml").write_text('ignore = ["RL002"]\nselect = ["RL"]\n')
    inner = tmp_path / "inner"
    inner.mkdir()
    (inner / "pyproject.toml").write_text('[tool.rubric-lint]\nignore = ["RL005"]\n')
    settings = settings_for(inner / "x.yaml")
    assert settings.ignore == ("RL005",) and settings.select == ()
    # an empty standalone file still counts (as an empty ruff.toml does)
    (inner / "rubric-lint.toml").write_text("")
    assert settings_for(inner / "x.yaml").ignore == ()


def test_a_standalone_file_takes_the_pyproject_keys_at_the_top_level(tmp_path):
    path = tmp_path / "rubric-lint.toml"
    path.write_text('select = ["AR"]\nper-file-ignores = { "legacy/*" = ["AR001"] }\n[severity]\nAR013 = "error"\n')
    settings = load_settings(path)
    assert settings.select == ("AR",) and settings.per_file_ignores == (("legacy/*", ("AR001",)),)
    path.write_text('[tool.rubric-lint]\nselect = ["AR"]\n')  # the pyproject layout is a mistake here
    with pytest.raises(SettingsError, match=r"rubric-lint.toml: has unknown setting\(s\) 'tool'.*top level"):
        load_settings(path)


def test_the_cli_reports_a_broken_standalone_file(capsys, tmp_path):
    (tmp_path / ".rubric-lint.toml").write_text("select = [\n")
    (tmp_path / "a.rubric.yaml").write_text("rubric: []\n")
    code, _out, err = lint(capsys, str(tmp_path))
    assert code == 2 and err.startswith(f"rubric-lint: {tmp_path / '.rubric-lint.toml'}: cannot read settings")


def test_config_option_takes_a_standalone_file(capsys, tmp_path):
    config = tmp_path / "elsewhere" / "rubric-lint.toml"
    config.parent.mkdir()
    config.write_text('ignore = ["AR001", "AR103"]\n')
    rubric = tmp_path / "a.rubric.yaml"
    rubric.write_text("rubric:\n  - requirment: x\n    weight: 1\n")
    assert lint(capsys, str(rubric))[0] == 1
    assert lint(capsys, str(rubric), "--config", str(config))[0] == 0


# -- kinds ---------------------------------------------------------------------------


@pytest.fixture
def evals(tmp_path: Path) -> Path:
    folder = tmp_path / "evals" / "rubrics" / "team"
    folder.mkdir(parents=True)
    (folder / "anything.json").write_text(ANONYMOUS)
    (tmp_path / "evals" / "rubrics" / "top.json").write_text(ANONYMOUS)
    (tmp_path / "evals" / "other.json").write_text(ANONYMOUS)
    return tmp_path


def test_without_kinds_an_unrecognised_folder_is_skipped(capsys, evals):
    code, out, _ = lint(capsys, str(evals / "evals"), "--format", "json")
    assert (code, json.loads(out)) == (0, [])


@pytest.mark.parametrize("config", ["rubric-lint.toml", "pyproject.toml"])
def test_kinds_make_a_folder_of_rubrics_with_any_names_lintable(capsys, evals, config):
    text = KINDS if config == "rubric-lint.toml" else KINDS.replace("[kinds]", "[tool.rubric-lint.kinds]")
    (evals / config).write_text(text)
    code, out, _ = lint(capsys, str(evals / "evals"), "--format", "json")
    assert code == 1
    found = {(Path(f["path"]).name, f["code"]) for f in json.loads(out)}
    # `**/` matches no folder too (evals/rubrics/top.json); evals/other.json is outside the glob
    assert found == {(n, c) for n in ("anything.json", "top.json") for c in ("AR001", "AR103")}


def test_kind_option_still_wins_over_kinds(capsys, evals):
    (evals / "rubric-lint.toml").write_text(KINDS)
    target = evals / "evals" / "rubrics" / "top.json"
    _code, out, _ = lint(capsys, str(target), "--kind", "rubrics-task", "--format", "json")
    codes = {f["code"] for f in json.loads(out)}
    assert codes and not any(code.startswith("AR") for code in codes)


def test_the_first_matching_glob_wins(evals):
    (evals / "rubric-lint.toml").write_text(
        '[kinds]\n"evals/rubrics/team/*.json" = "autorubric-dataset"\n"evals/**/*.json" = "autorubric-rubric"\n'
    )
    settings = settings_for(evals / "evals" / "x.json")
    assert settings.kind_for(str(evals / "evals" / "rubrics" / "team" / "anything.json")) == "autorubric-dataset"
    assert settings.kind_for(str(evals / "evals" / "other.json")) == "autorubric-rubric"
    assert settings.kind_for(str(evals.parent / "outside.json")) is None
    assert settings.kind_for("-") is None


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('kinds = {"*.json" = "autorubric"}', "unknown kind 'autorubric'; known: autorubric-rubric"),
        ('kinds = ["*.json"]', "'kinds' must be a table"),
        ('kinds = {"*.json" = 1}', "'kinds' must be a table"),
    ],
)
def test_a_wrong_kinds_table_is_refused_by_name(tmp_path, table, message):
    (tmp_path / "rubric-lint.toml").write_text(table + "\n")
    with pytest.raises(SettingsError, match=message):
        settings_for(tmp_path / "x.json")


def test_grading_honours_kinds(evals):
    from rubric_lsp.engine.runner import GradingError, grader_for, read

    path = evals / "evals" / "rubrics" / "top.json"
    with pytest.raises(GradingError, match="not a rubric"):
        grader_for(read(ANONYMOUS, str(path)))
    (evals / "rubric-lint.toml").write_text(KINDS)
    assert callable(grader_for(read(ANONYMOUS, str(path))))


# -- versions: the owner tool's release to lint and grade as ------------------------------------------
NEGATED = (
    "prompts: ['Answer: {{q}}']\nproviders: [echo]\n"
    "tests:\n  - vars: {q: paris}\n    assert:\n      - type: not-llm-rubric\n        value: is rude\n"
)


def test_versions_pick_the_promptfoo_release_pf004_checks_against(capsys, tmp_path):
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text(NEGATED)
    code, out, _ = lint(capsys, "--select", "PF004", str(config))
    assert code == 0 and "PF004" not in out  # 0.123.1, the latest tracked, inverts not-llm-rubric
    (tmp_path / "rubric-lint.toml").write_text('versions = {promptfoo = "0.121.9"}\n')
    code, out, _ = lint(capsys, "--select", "PF004", str(config))
    assert code == 1 and "PF004" in out and "checked as promptfoo 0.121.9" in out


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('versions = ["0.121.9"]', "'versions' must be a table"),
        ('versions = {promptfoo = "latest"}', r"'latest' is not a release rubric-lsp tracks \(0\.121\.9, 0\.123\.1\)"),
        (
            'versions = {promptfoo = "0.130.0"}',
            r"'0\.130\.0' is not a release rubric-lsp tracks \(0\.121\.9, 0\.123\.1\)",
        ),
        (
            'versions = {promptfo = "0.123.1"}',
            r"'promptfo': not a tool rubric-lsp tracks \(tracked: autorubric: 1\.6\.1; promptfoo: ",
        ),
    ],
)
def test_a_wrong_versions_table_is_refused_by_name(tmp_path, table, message):
    (tmp_path / "rubric-lint.toml").write_text(table + "\n")
    with pytest.raises(SettingsError, match=message):
        settings_for(tmp_path / "x.yaml")


def test_grading_reads_the_promptfoo_release_from_the_settings_file(tmp_path, monkeypatch):
    from rubric_lsp.engine.settings import JudgeSettings
    from rubric_lsp.formats.promptfoo.grading.judges import promptfoo_version

    config = tmp_path / "promptfooconfig.yaml"
    monkeypatch.delenv("RUBRIC_PROMPTFOO_VERSION", raising=False)
    assert promptfoo_version(JudgeSettings(env={}), str(config)) is None  # the latest tracked
    (tmp_path / "rubric-lint.toml").write_text('versions = {promptfoo = "0.121.9"}\n')
    assert promptfoo_version(JudgeSettings(env={}), str(config)) == "0.121.9"
    # the judge setting and the environment variable come first
    assert promptfoo_version(JudgeSettings(env={"RUBRIC_PROMPTFOO_VERSION": "0.123.1"}), str(config)) == "0.123.1"
    assert promptfoo_version(JudgeSettings(env={}, versions=(("promptfoo", "0.123.1"),)), str(config)) == "0.123.1"
