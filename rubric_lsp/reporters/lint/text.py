"""``rubric-lint`` (``--format text``): ``path:line:col: CODE severity message``, then a summary."""

from __future__ import annotations

from typing import TextIO

from rubric_lsp.diagnostics import Diagnostic, Severity
from rubric_lsp.lint import LintResult
from rubric_lsp.reporters.lint.base import Reporter


class TextReporter(Reporter):
    def __init__(self, out: TextIO, *, show_fixes: bool = True, summary: bool = True) -> None:
        super().__init__(out)
        self.show_fixes = show_fixes
        self.summary = summary

    def finding(self, result: LintResult, diag: Diagnostic) -> None:
        path = diag.path or result.path or "-"
        self.out.write(
            f"{path}:{diag.range.start.line + 1}:{diag.range.start.character + 1}: "
            f"{diag.code} {diag.severity.label} {self.redact(diag.message)}"
            + (" [*]" if self.show_fixes and diag.fix and diag.fix.safe else "")
            + "\n"
        )

    def close(self, *, skipped: int = 0, fixed: int = 0) -> None:
        if not self.summary:
            return
        counts = self.counts
        total = sum(counts.values())
        parts = [
            f"{counts[Severity.ERROR]} error(s)",
            f"{counts[Severity.WARNING]} warning(s)",
            f"{counts[Severity.INFO]} info",
        ]
        line = f"Found {total} problem(s) in {self.files_with} of {self.checked} file(s) checked: " + ", ".join(parts)
        if skipped:
            line += f"; {skipped} file(s) of no known kind skipped"
        self.out.write(line + ".\n")
        if self.fixable:
            self.out.write(f"[*] {self.fixable} fixable with --fix.\n")
        if fixed:
            self.out.write(f"Fixed {fixed} problem(s).\n")
