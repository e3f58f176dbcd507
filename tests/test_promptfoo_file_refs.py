"""file:// references (RL010–RL012) and referenced test files linted with their config."""

from __future__ import annotations

from pathlib import Path

import pytest

from rubric_lsp.cli import main
from rubric_lsp.diagnostics import Severity
from rubric_lsp.lint import lint_path
from rubric_lsp.settings import settings_for
from tests.helpers import codes, lines_of


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def lint_config(folder: Path, text: str, root: Path | None = None):
    return lint_path(write(folder, "promptfooconfig.yaml", text), root_dir=root or folder)


def test_missing_file_is_reported_on_its_line(tmp_path):
    write(tmp_path, "prompt.txt", "Hi {{name}}")
    result = lint_config(tmp_path, "prompts:\n  - file://prompt.txt\n  - file://missing.txt\nproviders: [x]\n")
    assert lines_of(result, "RL010") == [3]
    assert "missing.txt" in result.diagnostics[0].message


def test_globs_that_match_are_fine_and_empty_globs_are_not(tmp_path):
    write(tmp_path, "prompts/a.txt", "a")
    result = lint_config(tmp_path, "prompts:\n  - file://prompts/*.txt\n  - file://other/*.txt\nproviders: [x]\n")
    assert lines_of(result, "RL010") == [3]
    assert "matches no file" in result.diagnostics[0].message


def test_script_refs_are_only_checked_for_existence(tmp_path):
    marker = tmp_path / "ran"
    write(tmp_path, "assert.py", f"open({str(marker)!r}, 'w').write('x')\n")
    text = "prompts: [p]\nproviders: [x]\ntests:\n  - assert:\n      - type: python\n        value: file://assert.py:check\n      - type: javascript\n        value: file://nope.js:check\n"
    result = lint_config(tmp_path, text)
    assert lines_of(result, "RL010") == [8]
    assert not marker.exists()


def test_reference_outside_workspace_is_a_warning_and_still_checked(tmp_path):
    workspace = tmp_path / "project"
    workspace.mkdir()
    write(tmp_path, "secret.txt", "x")
    text = "prompts: [file://../secret.txt, file://../gone.txt, file://../*.nothing]\nproviders: [x]\n"
    result = lint_config(workspace, text, root=workspace)
    outside = [d for d in result.diagnostics if d.code == "RL011"]
    assert [d.severity for d in outside] == [Severity.WARNING] * 3
    assert str(tmp_path / "secret.txt") in outside[0].message
    # A missing file is RL010 wherever it points: an existing one outside is only RL011.
    assert lines_of(result, "RL010") == [1, 1]
    assert "gone.txt" in next(d for d in result.diagnostics if d.code == "RL010").message


def repo(tmp_path: Path, git_file: bool = False) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    if git_file:  # a worktree or submodule checkout: .git is a file naming the real git folder
        (root / ".git").write_text("gitdir: /elsewhere/.git/worktrees/repo\n")
    else:
        (root / ".git").mkdir()
    write(root, "shared/rubric.md", "Is polite")
    return root


SHARED = "prompts:\n  - file://../shared/rubric.md\n  - file://../../shared/rubric.md\nproviders: [echo]\n"


@pytest.mark.parametrize("git_file", [False, True], ids=["git-folder", "git-file"])
def test_files_elsewhere_in_the_repository_are_inside_the_workspace(tmp_path, git_file):
    root = repo(tmp_path, git_file)
    result = lint_path(write(root / "evals", "promptfooconfig.yaml", SHARED))
    # The second goes one folder too far, out of the repository: a missing file, and outside.
    assert lines_of(result, "RL010") == [3]
    assert lines_of(result, "RL011") == [3]
    assert str(tmp_path / "shared") in next(d for d in result.diagnostics if d.code == "RL010").message


def test_a_missing_file_reached_through_dotdot_is_missing_not_outside(tmp_path):
    root = repo(tmp_path)
    text = "prompts: ['x']\nproviders: [echo]\ntests:\n  - vars:\n      doc: file://../../packages/skills/SKILL.md\n"
    result = lint_path(write(root / "evals" / "suite", "promptfooconfig.yaml", text))
    assert codes(result) == ["RL010"] and lines_of(result, "RL010") == [5]


def test_leaving_the_repository_is_a_warning(tmp_path):
    root = repo(tmp_path)
    write(tmp_path, "elsewhere/doc.txt", "x")
    text = "prompts: ['x']\nproviders: [echo]\ntests:\n  - vars:\n      a: file://../../elsewhere/doc.txt\n      b: file:///etc/passwd\n"
    result = lint_path(write(root / "evals", "promptfooconfig.yaml", text))
    assert [(d.code, d.severity, d.range.start.line + 1) for d in result.diagnostics] == [
        ("RL011", Severity.WARNING, 5),
        ("RL011", Severity.WARNING, 6),
    ]
    assert "/etc/passwd" in result.diagnostics[1].message


def test_tilde_is_not_the_home_folder(tmp_path):
    # promptfoo resolves with Node's path.resolve, which expands no `~`: the file is looked for
    # in a folder named ~ beside the config.
    root = repo(tmp_path)
    result = lint_path(write(root, "promptfooconfig.yaml", "prompts: [file://~/.ssh/id_rsa]\nproviders: [echo]\n"))
    assert codes(result) == ["RL010"]
    assert str(root / "~" / ".ssh") in result.diagnostics[0].message


def test_without_git_the_settings_folder_then_the_current_directory_is_the_workspace(tmp_path, monkeypatch):
    project = tmp_path / "project"
    write(project, "shared/rubric.md", "Is polite")
    config = write(project / "evals", "promptfooconfig.yaml", SHARED.replace("  - file://../../shared/rubric.md\n", ""))
    monkeypatch.chdir(tmp_path)  # the project folder holds neither .git nor settings: the cwd is the workspace
    assert codes(lint_path(config)) == []
    monkeypatch.chdir(config.parent)  # now the cwd is the config's folder, and no settings say otherwise
    assert codes(lint_path(config)) == ["RL011"]
    (project / "rubric-lint.toml").write_text("ignore = []\n")
    assert codes(lint_path(config, settings=settings_for(config))) == []


def test_the_command_line_takes_the_repository_as_the_workspace(tmp_path, monkeypatch, capsys):
    root = repo(tmp_path)
    write(root / "evals", "promptfooconfig.yaml", SHARED.replace("  - file://../../shared/rubric.md\n", ""))
    monkeypatch.chdir(root / "evals")
    assert main(["lint", "promptfooconfig.yaml"]) == 0
    assert "RL011" not in capsys.readouterr().out


def test_output_path_need_not_exist_and_templates_are_skipped(tmp_path):
    text = "prompts: [p]\nproviders: [echo]\noutputPath: file://out/results.csv\ntests:\n  - vars:\n      doc: 'file://docs/{{ name }}.txt'\n"
    assert codes(lint_config(tmp_path, text)) == []


def test_dependencies_are_recorded(tmp_path):
    write(tmp_path, "prompt.txt", "Hi")
    write(tmp_path, "tests.yaml", "- vars: {a: 1}\n")
    result = lint_config(tmp_path, "prompts: [file://prompt.txt]\nproviders: [x]\ntests: file://tests.yaml\n")
    # The calibration record beside the config too, read or absent: the server lints again when it appears.
    assert {Path(d).name for d in result.dependencies} == {
        "prompt.txt",
        "tests.yaml",
        "promptfooconfig.yaml.calibration.json",
    }


def test_referenced_test_files_are_linted_at_the_reference(tmp_path):
    write(
        tmp_path,
        "tests/cases.yaml",
        "- vars: {q: 1}\n  assert:\n    - type: not-empty\n    - type: llm-rubric\n      rubric: Is polite\n",
    )
    result = lint_config(tmp_path, "prompts: [p]\nproviders: [x]\ntests:\n  - file://tests/*.yaml\n")
    assert lines_of(result, "PF100") == [4]
    assert lines_of(result, "PF101") == [4]
    messages = [d.message for d in result.diagnostics]
    assert any(m.startswith("cases.yaml line 3:") for m in messages)
    assert all(d.fix is None for d in result.diagnostics)


def test_external_default_test_is_merged(tmp_path):
    write(tmp_path, "shared/defaultTest.yaml", "assert:\n  - type: contains\n    value: x\n")
    text = "prompts: [a, b]\nproviders: [x]\ndefaultTest: file://shared/defaultTest.yaml\ntests:\n  - assert:\n      - type: max-score\n"
    assert "PF105" not in codes(lint_config(tmp_path, text))


def test_unreadable_referenced_file(tmp_path):
    write(tmp_path, "tests.yaml", "- vars: {a: 1\n")
    result = lint_config(tmp_path, "prompts: [p]\nproviders: [x]\ntests: file://tests.yaml\n")
    assert lines_of(result, "RL012") == [3]


def test_shadowing_var_from_a_vars_file_is_reported_at_the_reference(tmp_path):
    write(tmp_path, "vars.yaml", "topic: cats\noutput: expected\n")
    text = "prompts: [p]\nproviders: [x]\ntests:\n  - vars: file://vars.yaml\n    assert:\n      - type: llm-rubric\n        value: Is about {{topic}}\n"
    result = lint_config(tmp_path, text)
    assert lines_of(result, "PF006") == [4]
    assert next(d for d in result.diagnostics if d.code == "PF006").message.startswith("vars.yaml line 2:")


@pytest.mark.parametrize("in_a_run", [False, True], ids=["alone", "in-a-run"])
def test_links_are_followed_to_where_they_point(tmp_path, in_a_run):
    """A reference is inside or outside the workspace by where it resolves: a link in the workspace to a file
    or a folder outside it is outside (RL011), a link to a file inside is inside, however its path is written; a
    missing file is where its folder resolves."""
    from rubric_lsp.workspace import one_run

    workspace = tmp_path / "project"
    write(workspace, "data/inside.txt", "x")
    write(tmp_path, "elsewhere/outside.txt", "x")
    (workspace / "to-outside.txt").symlink_to(tmp_path / "elsewhere" / "outside.txt")
    (workspace / "to-elsewhere").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    (workspace / "to-inside.txt").symlink_to(workspace / "data" / "inside.txt")
    text = (
        "prompts:\n  - file://to-outside.txt\n  - file://to-elsewhere/outside.txt\n  - file://to-inside.txt\n"
        "  - file://data/../to-inside.txt\n  - file://data/inside.txt\n  - file://to-elsewhere/missing.txt\n"
        "providers: [x]\n"
    )
    if in_a_run:
        with one_run():
            result = lint_config(workspace, text, root=workspace)
    else:
        result = lint_config(workspace, text, root=workspace)
    assert lines_of(result, "RL011") == [2, 3, 7]  # (a missing file is outside where its folder resolves)
    assert lines_of(result, "RL010") == [7]


def test_dotdot_after_a_link_goes_up_from_the_link_as_promptfoo_reads_it(tmp_path):
    """promptfoo reads ``path.resolve(basePath, path)``: `..` undoes the name before it as text, so
    `to-elsewhere/../project/data/inside.txt` is <config folder>/project/data/inside.txt, missing (promptfoo: "File
    does not exist"), though the system, following the link first, would find a file there."""
    workspace = tmp_path / "project"
    write(workspace, "data/inside.txt", "x")
    (tmp_path / "elsewhere").mkdir()
    (workspace / "to-elsewhere").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    assert (workspace / "to-elsewhere/../project/data/inside.txt").exists()  # the system's reading
    text = "prompts:\n  - file://to-elsewhere/../project/data/inside.txt\n  - file://to-elsewhere/../data/inside.txt\nproviders: [x]\n"
    result = lint_config(workspace, text, root=workspace)
    assert lines_of(result, "RL010") == [2]
    assert "does not exist" in next(d.message for d in result.diagnostics if d.code == "RL010")
