"""Problems found while reading a document, before any format is known.

The document layer only names what it saw (``kind``); the rules layer decides the
code, severity and wording users get.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rubric_lsp.document.positions import Span


@dataclass(frozen=True, slots=True)
class TextEdit:
    span: Span
    new_text: str


@dataclass(slots=True)
class ParseIssue:
    kind: str
    message: str
    span: Span
    related: list[tuple[Span, str]] = field(default_factory=list)
    edits: list[TextEdit] = field(default_factory=list)
    fatal: bool = False  # the document could not be read into nodes


# The kinds the document layer reports (the rules in rules/any_file.py map them).
SYNTAX_ERROR = "syntax-error"
TRAILING_COMMA = "trailing-comma"
DUPLICATE_KEY = "duplicate-key"
YAML11_BOOLEAN = "yaml11-boolean"
YAML11_NUMBER = "yaml11-number"
TOO_LARGE = "too-large"
TOO_DEEP = "too-deep"
ALIAS_BOMB = "alias-bomb"
INVALID_UTF8 = "invalid-utf8"
UTF8_BOM = "utf8-bom"
