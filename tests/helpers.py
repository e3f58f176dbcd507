"""Small helpers for rule tests: lint a snippet, find diagnostics by code and line."""

from __future__ import annotations

import sys
from collections.abc import Callable
from textwrap import dedent

from rubric_lsp.lint import LintResult, lint_text


def lint(text: str, path: str = "test.rubric.yaml", **kwargs) -> LintResult:
    return lint_text(dedent(text).lstrip("\n") if isinstance(text, str) else text, path, **kwargs)


def codes(result: LintResult) -> list[str]:
    return [d.code for d in result.diagnostics]


def lines_of(result: LintResult, code: str) -> list[int]:
    """1-based lines where ``code`` was reported."""
    return [d.range.start.line + 1 for d in result.diagnostics if d.code == code]


def loaded_among(modules: set[str], names: tuple[str, ...]) -> list[str]:
    """Which of ``names`` (modules or packages) are among the loaded ``modules``: the speed guards' check."""
    return sorted(name for name in names if name in modules or any(m.startswith(name + ".") for m in modules))


def python_calls(work: Callable[[], object]) -> int:
    """Python function calls made by ``work()`` in this thread: a count, the same on any machine at any load."""
    count = 0

    def counter(_frame: object, event: str, _arg: object) -> None:
        nonlocal count
        if event == "call":
            count += 1

    previous = sys.getprofile()
    sys.setprofile(counter)
    try:
        work()
    finally:
        sys.setprofile(previous)
    return count
