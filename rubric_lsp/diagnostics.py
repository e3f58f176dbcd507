"""What a check reports: a coded, ranged finding with an optional fix."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

from rubric_lsp.document.issues import TextEdit
from rubric_lsp.document.positions import LineIndex, Range, Span


class Severity(IntEnum):
    # Numbered as in LSP's DiagnosticSeverity, so the server passes them through.
    ERROR = 1
    WARNING = 2
    INFO = 3

    @property
    def label(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Severity:
        try:
            return cls[text.strip().upper()]
        except KeyError:
            raise ValueError(f"unknown severity {text!r} (use error, warning or info)") from None


@dataclass(slots=True)
class Fix:
    """Minimal text edits that repair a finding. ``safe`` fixes are applied by --fix."""

    title: str
    edits: list[TextEdit]
    safe: bool = True

    def to_json(self, lines: LineIndex) -> dict[str, Any]:
        return {
            "title": self.title,
            "safe": self.safe,
            "edits": [{"range": lines.range(edit.span).to_json(), "newText": edit.new_text} for edit in self.edits],
        }


@dataclass(slots=True)
class Related:
    span: Span
    message: str
    path: str | None = None  # None: the same document


@dataclass(slots=True)
class Diagnostic:
    code: str
    severity: Severity
    message: str
    span: Span
    range: Range
    path: str | None = None
    fix: Fix | None = None
    related: list[Related] = field(default_factory=list)

    def sort_key(self) -> tuple[str, int, str]:
        return (self.path or "", self.span.start, self.code)
