"""file:// references (RL010–RL012) and referenced test files linted with their config."""

from __future__ import annotations

from pathlib import Path

from rubric_lsp.lint import lint_path
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


def test_reference_outside_workspace(tmp_path):
    workspace = tmp_path / "project"
    workspace.mkdir()
    write(tmp_path, "secret.txt", "x")
    result = lint_config(workspace, "prompts: [file://../secret.txt]\nproviders: [x]\n", root=workspace)
    assert lines_of(result, "RL011") == [1]
    assert "RL010" not in codes(result)


def test_output_path_need_not_exist_and_templates_are_skipped(tmp_path):
    text = "prompts: [p]\nproviders: [echo]\noutputPath: file://out/results.csv\ntests:\n  - vars:\n      doc: 'file://docs/{{ name }}.txt'\n"
    assert codes(lint_config(tmp_path, text)) == []


def test_dependencies_are_recorded(tmp_path):
    write(tmp_path, "prompt.txt", "Hi")
    write(tmp_path, "tests.yaml", "- vars: {a: 1}\n")
    result = lint_config(tmp_path, "prompts: [file://prompt.txt]\nproviders: [x]\ntests: file://tests.yaml\n")
    assert {Path(d).name for d in result.dependencies} == {"prompt.txt", "tests.yaml"}


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
