"""Each ``rubric-lint`` output format (``rubric_lsp/reporters/lint/``, one per module) writes exactly
its snapshot (``tests/snapshots/lint/``) for one fixed pair of files: an error, warnings, a safe fix,
a message quoting characters each format must escape (``<>&%:,``) and a file with no finding.

A deliberate change of an output (or of a rule's text it quotes) is taken with
``RUBRIC_UPDATE_SNAPSHOTS=1 python -m pytest tests/test_lint_reporters.py``; review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rubric_lsp import __version__
from rubric_lsp.cli import lint_main

SNAPSHOTS = Path(__file__).parent / "snapshots" / "lint"

FILES = {
    "a.rubric.yaml": (
        "criteria:\n"
        "  - name: accuracy\n"
        "    requirment: States the final answer\n"  # AR103 (no requirement) and AR001 with a safe fix
        "    weight: 5\n"
        "  - name: clarity\n"
        "    requirement: Explains each step\n"
        "    weight: 0\n"  # AR013
        '    "w<e>&%:, t": 1\n'  # AR001 quoting characters to escape
    ),
    "b.rubric.yaml": "criteria:\n  - name: clear\n    requirement: Explains each step\n    weight: 5\n",
}

# snapshot file -> rubric-lint's arguments after the paths
OUTPUTS = {
    "text.txt": [],
    "json.json": ["--format", "json"],
    "sarif.json": ["--format", "sarif"],
    "github.txt": ["--format", "github"],
    "junit.xml": ["--format", "junit"],
    "gitlab.json": ["--format", "gitlab"],
    "statistics.txt": ["--statistics"],
    "statistics-json.json": ["--statistics", "--format", "json"],
}


@pytest.mark.parametrize("snapshot", OUTPUTS)
def test_the_output_is_its_snapshot(snapshot: str, capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # relative paths in every output
    monkeypatch.delenv("CI_PROJECT_DIR", raising=False)  # gitlab's paths are relative to it
    for name, text in FILES.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    code = lint_main([*FILES, *OUTPUTS[snapshot]])
    out = capsys.readouterr().out.replace(__version__, "<version>")  # SARIF names the release
    assert code == 1
    path = SNAPSHOTS / snapshot
    if os.environ.get("RUBRIC_UPDATE_SNAPSHOTS") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(out, encoding="utf-8", newline="")
    assert out == path.read_text(encoding="utf-8"), f"{snapshot} changed (RUBRIC_UPDATE_SNAPSHOTS=1 takes it)"


def test_every_output_format_has_a_snapshot():
    from rubric_lsp.reporters.lint import FORMATS

    assert set(FORMATS) <= {name.split(".")[0] for name in OUTPUTS}
    assert {path.name for path in SNAPSHOTS.iterdir()} == set(OUTPUTS)
