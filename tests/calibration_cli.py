"""Running `rubric` and `rubric-lint` in process for the calibration tests: exit codes, output and RL020
findings, shared by the promptfoo and NorthStar calibration tests."""

from __future__ import annotations

import json

from rubric_lsp.cli import lint_main, main

CSV_HEADER = "test,assertion,output,verdict\n"


def run(capfd, *argv):
    code = main(list(argv))
    out, err = capfd.readouterr()
    return code, out, err


def lint(capfd, path) -> tuple[int, list[dict]]:
    """rubric-lint's exit code and its RL020 findings (with 1-based lines) on ``path``."""
    code = lint_main(["--format", "json", str(path)])
    findings = json.loads(capfd.readouterr().out)
    return code, [{**d, "line": d["range"]["start"]["line"] + 1} for d in findings if d["code"] == "RL020"]


def line_of(path, text: str) -> int:
    return next(n for n, row in enumerate(path.read_text().splitlines(), 1) if text in row)


def answer(env, text: str, name: str = "answer.txt") -> str:
    (env / name).write_text(text)
    return str(env / name)
