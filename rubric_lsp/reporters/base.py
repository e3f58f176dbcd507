"""What every output format of rubric-lint shares: ``Reporter``, fed each file's result as it comes."""

from __future__ import annotations

from typing import TextIO

from rubric_lsp.diagnostics import Diagnostic, Severity
from rubric_lsp.lint import LintResult
from rubric_lsp.redaction import report_redactor


class Reporter:
    """Findings written file by file as they come, so memory does not grow with the number of files.

    ``add`` takes each file's result once (the caller drops it afterwards); ``close`` writes
    whatever must come last (a summary, the closing brackets). Only counts are kept.
    """

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.redact = report_redactor().report
        self.counts = {s: 0 for s in Severity}
        self.fixable = 0
        self.files_with = 0
        self.checked = 0

    def add(self, result: LintResult) -> None:
        if result.format is not None or result.diagnostics:
            self.checked += 1
        if result.diagnostics:
            self.files_with += 1
        for diag in result.diagnostics:
            self.counts[diag.severity] += 1
            self.fixable += diag.fix is not None and diag.fix.safe
            self.finding(result, diag)

    def finding(self, result: LintResult, diag: Diagnostic) -> None:
        raise NotImplementedError

    def close(self, *, skipped: int = 0, fixed: int = 0) -> None:
        """Finish the output (``skipped``: files of no known kind; ``fixed``: fixes applied)."""
