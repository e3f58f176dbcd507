"""Every command's ``--help`` ends with what its exit codes mean, as the README's "Exit codes" table says."""

from __future__ import annotations

import re

import pytest

from rubric_lsp.cli import lint_main, main
from tests.conftest import REPO


def _help(capsys, run, argv: list[str]) -> str:
    try:
        code = run(argv)
    except SystemExit as exc:  # rubric grade and calibrate leave --help to argparse
        code = exc.code
    assert code == 0
    return capsys.readouterr().out


def _codes(help_text: str) -> list[str]:
    table = help_text[help_text.index("exit codes") :]
    return re.findall(r"^  (\d+) ", table, flags=re.M)


@pytest.mark.parametrize(
    ("run", "argv", "codes"),
    [
        (lint_main, ["--help"], ["0", "1", "2", "130"]),
        (main, ["lint", "--help"], ["0", "1", "2", "130"]),
        (main, ["grade", "--help"], ["0", "1", "2", "130"]),
        (main, ["calibrate", "--help"], ["0", "2", "130"]),
    ],
    ids=["rubric-lint", "rubric lint", "rubric grade", "rubric calibrate"],
)
def test_help_lists_the_exit_codes(capsys, run, argv, codes):
    shown = _help(capsys, run, argv)
    assert _codes(shown) == codes, shown[-800:]


def test_the_readme_tables_the_same_codes():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("### Exit codes") :].split("\n\n", 2)[1]
    rows = [line.split("|")[1].strip() for line in table.splitlines()[2:]]
    assert rows == ["0", "1", "2", "130"]
