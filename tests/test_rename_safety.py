"""Fix safety of renames (issue 13 item 5): a fuzzy "did you mean" is never a *safe* fix.

The reproductions are the renames ``rubric-lint --fix`` once applied on its own:
promptfoo's ``outputs:`` → ``outputPath:`` and ``options`` → ``evaluateOptions``, a results
file's ``createdAt`` → ``redteam`` and ``results`` → ``tests``, and a rubric's
``description`` → ``sections``.
"""

from __future__ import annotations

import pytest

from rubric_lsp.cli import lint_main
from rubric_lsp.rules.suggest import rename_is_safe, suggest
from tests.helpers import lint

PROMPTFOO = "promptfooconfig.yaml"
HEAD = "prompts: [p.txt]\nproviders: [openai:gpt-4o-mini]\n"


def _fixes(text: str, path: str, code: str) -> list[tuple[str, bool]]:
    return [(d.fix.title, d.fix.safe) for d in lint(text, path).diagnostics if d.code == code and d.fix is not None]


@pytest.mark.parametrize(
    ("path", "text", "code", "title"),
    [
        (PROMPTFOO, HEAD + "outputs:\n  - type: csv\n", "PF001", "Rename 'outputs' to 'outputPath'"),
        (PROMPTFOO, HEAD + "options:\n  maxConcurrency: 2\n", "PF001", "Rename 'options' to 'evaluateOptions'"),
        (PROMPTFOO, HEAD + "createdAt: 2024-05-01\n", "PF001", "Rename 'createdAt' to 'redteam'"),
        ("x.rubric.yaml", "description: x\ncriteria:\n  - requirement: Cites sources\n", "AR021", None),
    ],
    ids=["outputs", "options", "createdAt", "description"],
)
def test_guessed_renames_are_unsafe(path, text, code, title):
    fixes = _fixes(text, path, code)
    assert fixes, "the rename is still offered (in the editor, and with --unsafe-fixes)"
    assert all(not safe for _title, safe in fixes), fixes
    if title is not None:
        assert title in [t for t, _safe in fixes]


def test_results_file_keys_are_not_renamed_safely():
    """A promptfoo results file detected as a config: ``results`` is no typo of ``tests``."""
    text = '{"evalId": "e", "createdAt": 1, "results": {"prompts": []}, "config": {}}\n'
    found = lint(text, PROMPTFOO.replace(".yaml", ".json")).diagnostics
    renames = [d.fix for d in found if d.fix is not None and d.fix.title.startswith("Rename")]
    assert len(renames) == 2  # createdAt → redteam, results → tests
    assert all(not fix.safe for fix in renames)


@pytest.mark.parametrize(
    ("path", "text", "code", "title"),
    [
        (
            "x.rubric.yaml",
            "criteria:\n  - requirment: Cites sources\n",
            "AR001",
            "Rename 'requirment' to 'requirement'",
        ),
        ("x.rubric.yaml", "criteria:\n  - requirement: x\n    Weight: 2\n", "AR001", "Rename 'Weight' to 'weight'"),
        (PROMPTFOO, HEAD + "tests:\n  - vars: {a: 1}\n    asert: []\n", "PF001", "Rename 'asert' to 'assert'"),
        (PROMPTFOO, HEAD + "tests:\n  - vars: {a: 1}\n    Description: x\n", "PF001", None),
    ],
    ids=["dropped-letter", "case", "promptfoo-typo", "promptfoo-case"],
)
def test_unambiguous_typos_stay_safe(path, text, code, title):
    fixes = _fixes(text, path, code)
    assert fixes and all(safe for _title, safe in fixes), fixes
    if title is not None:
        assert title in [t for t, _safe in fixes]


@pytest.mark.parametrize(
    ("word", "name", "pool", "safe"),
    [
        ("Max_Score", "max_score", ["max_score", "min_score"], True),  # case and separator only
        ("output-path", "outputPath", ["outputPath", "prompts"], True),
        ("weigth", "weight", ["weight", "name"], True),  # neighbours swapped
        ("requirment", "requirement", ["requirement"], True),
        ("rubric_1_criteria_4", "rubric_1_criteria_1", ["rubric_1_criteria_1", "rubric_1_criteria_2"], False),
        ("ids", "id", ["id"], False),  # too short for a one-edit typo
        ("outputs", "outputPath", ["outputPath"], False),
        ("description", "sections", ["sections", "criteria"], False),
        ("createdAt", "redteam", ["redteam", "tests"], False),
        ("tets", "tests", ["tests", "test"], False),  # one edit from two names
        ("x", "y", ["z"], False),  # the suggestion must be a candidate
    ],
)
def test_rename_is_safe_criterion(word, name, pool, safe):
    assert rename_is_safe(word, name, pool) is safe


def test_suggest_keeps_closest_hint_but_marks_it_unsafe():
    found = suggest("description", ["sections", "criteria"])
    assert found is not None and found.name == "sections" and not found.safe


def test_cli_fix_leaves_guessed_renames_alone(tmp_path, capsys):
    path = tmp_path / PROMPTFOO
    original = HEAD + "outputs:\n  - type: csv\noptions:\n  cache: false\ntests:\n  - vars: {a: 1}\n    asert: []\n"
    path.write_text(original)
    lint_main(["--select", "PF001", "--fix", str(path)])
    fixed = path.read_text()
    assert "outputs:" in fixed and "options:" in fixed
    assert "outputPath" not in fixed and "evaluateOptions" not in fixed
    assert "    assert: []" in fixed  # the unambiguous typo is repaired
    capsys.readouterr()
    lint_main(["--select", "PF001", "--fix", "--unsafe-fixes", str(path)])
    assert "outputPath:" in path.read_text()


def test_every_fixable_rule_documents_its_fix_safety():
    from rubric_lsp.formats.registry import all_rules

    missing = [r.code for r in all_rules() if r.fixable and not r.fix_safety]
    assert missing == []
    stray = [r.code for r in all_rules() if r.fix_safety and not r.fixable]
    assert stray == []
    assert all(r.fix_safety.split(":")[0].split()[0] in ("Safe", "Unsafe") for r in all_rules() if r.fix_safety)


def test_rule_docs_show_fix_safety(capsys):
    from rubric_lsp.cli import main

    main(["rule", "PF001"])
    out = capsys.readouterr().out
    assert "**Fix safety:** Safe only when the key is an unambiguous typo" in out
    assert "`outputs` → `outputPath`" in out
