"""``rubric-lint --format json``: an array of findings (schemas/rubric-lint-output.schema.json)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TextIO

from rubric_lsp.diagnostics import Diagnostic
from rubric_lsp.lint import LintResult
from rubric_lsp.redaction import report_redactor
from rubric_lsp.reporters.lint.base import Reporter


def diagnostic_json(result: LintResult, diag: Diagnostic, redact: Callable[[str], str] | None = None) -> dict:
    redact = redact or report_redactor().report
    return {
        "path": diag.path or result.path or "-",
        "code": diag.code,
        "severity": diag.severity.label,
        "message": redact(diag.message),
        "range": diag.range.to_json(),
        "fix": _redacted(diag.fix.to_json(result.document.lines), redact) if diag.fix else None,
    }


def _redacted(value: Any, redact: Callable[[str], str]) -> Any:
    """``value`` (JSON data) with every string passed through ``redact``."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: _redacted(v, redact) for k, v in value.items()}
    if isinstance(value, list):
        return [_redacted(v, redact) for v in value]
    return value


class JsonReporter(Reporter):
    """A JSON array, one finding per line: written as found, and json's C encoder (indent= is pure Python)."""

    def __init__(self, out: TextIO) -> None:
        super().__init__(out)
        self.first = True

    def finding(self, result: LintResult, diag: Diagnostic) -> None:
        self.out.write(
            ("[\n  " if self.first else ",\n  ")
            + json.dumps(diagnostic_json(result, diag, self.redact), ensure_ascii=False)
        )
        self.first = False

    def close(self, *, skipped: int = 0, fixed: int = 0) -> None:
        self.out.write("[]\n" if self.first else "\n]\n")
