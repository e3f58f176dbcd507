"""What a checker sees and how it reports."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rubric_lsp.calibration.settings import CalibrationSettings
from rubric_lsp.diagnostics import Diagnostic, Fix, Related, Severity
from rubric_lsp.document import Document, Node
from rubric_lsp.document.issues import TextEdit
from rubric_lsp.document.positions import Span
from rubric_lsp.rules.registry import Rule

if TYPE_CHECKING:
    from rubric_lsp.calibration.check import CalibrationUnit


@dataclass
class CheckContext:
    document: Document
    format_name: str | None
    root_dir: Path | None  # the workspace root, for file:// references
    loader: str | None = None  # how the format's owner reads the file (Format.loader: "pyyaml", "js-yaml")
    is_enabled: Callable[[str], bool] = lambda code: True
    # The release of each owner tool to check as (settings ``versions``; absent: the latest tracked).
    versions: dict[str, str] = field(default_factory=dict)
    # Per place (settings ``extra-keys``): keys the user's own scripts read, not reported as unknown.
    extra_keys: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Settings ``calibration = {…}`` and the units a format names (``Format.calibration``'s
    # ``document_units``), read on demand.
    calibration: CalibrationSettings | None = None
    calibration_units: Callable[[], list[CalibrationUnit]] | None = None
    # What a calibration record's labelled set holds now (``gate.LabelledNow``), by the set's path.
    calibration_labelled: Callable[[Path], Any] | None = None
    # The format's criterion texts for the smell rules (``Format.criteria``: ``rules.smells.criteria.RubricTexts``),
    # read on demand; None when the format names none.
    criteria: Callable[[], list[Any]] | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    # Shared results computed once per document (e.g. a validated model, resolution).
    cache: dict[str, Any] = field(default_factory=dict)
    # Other files a check read (file:// references), for the server to watch.
    dependencies: set[str] = field(default_factory=set)

    @property
    def path(self) -> str | None:
        return self.document.path

    def view(self, key: str, read: Callable[[Node], Any]) -> Any:
        """A format's view of this document (``read(root)``), built once and shared by checkers.

        None when the document has no root (empty file).
        """
        if key not in self.cache:
            root = self.document.root
            self.cache[key] = read(root) if root is not None else None
        return self.cache[key]

    def enabled(self, rule: Rule) -> bool:
        return self.is_enabled(rule.code)

    def report(
        self,
        rule: Rule,
        where: Node | Span,
        message: str | None = None,
        *,
        fix: Fix | None = None,
        related: Sequence[tuple[Node | Span | None, str]] | None = None,
        severity: Severity | None = None,
    ) -> None:
        """Report ``rule`` at ``where``; ``severity`` overrides the rule's where the owner tool decides it."""
        if not self.is_enabled(rule.code):
            return
        if fix is not None and all(self.document.text[e.span.start : e.span.end] == e.new_text for e in fix.edits):
            fix = None  # an edit that changes nothing would be offered for ever and never settle
        span = where.span if isinstance(where, Node) else where
        self.diagnostics.append(
            Diagnostic(
                code=rule.code,
                severity=severity if severity is not None else rule.severity,
                message=message or rule.summary,
                span=span,
                range=self.document.lines.range(span),
                path=self.document.path,
                fix=fix,
                related=[
                    Related(r.span if isinstance(r, Node) else r, text) for r, text in (related or []) if r is not None
                ],
            )
        )

    # -- small helpers checkers share ------------------------------------------
    def replace(self, where: Node | Span, new_text: str, title: str, safe: bool = True) -> Fix:
        span = where.span if isinstance(where, Node) else where
        return Fix(title, [TextEdit(span, new_text)], safe)

    def quoted_like(self, node: Node, text: str) -> str:
        """``text`` written to replace the string scalar (or key) ``node``, keeping its quoting.

        JSON strings and double-quoted YAML get a JSON string, single-quoted YAML doubles its
        quotes, plain YAML stays plain.
        """
        source = self.source(node)
        if source[:1] == "'":
            return "'" + text.replace("'", "''") + "'"
        if source[:1] == '"' or self.document.language in ("json", "jsonl"):
            return json.dumps(text, ensure_ascii=False)
        return text

    def rename(self, node: Node, text: str, title: str, safe: bool = True) -> Fix:
        """A fix that replaces the string scalar or key ``node`` by ``text``, quoted like it."""
        return self.replace(node, self.quoted_like(node, text), title, safe)

    def source(self, where: Node | Span) -> str:
        span = where.span if isinstance(where, Node) else where
        return self.document.text[span.start : span.end]

    def compact(self, node: Node) -> Node | Span:
        """``node`` itself, or only its first line when it is long (a whole list or mapping)."""
        return node if node.end - node.start < 200 else self.line_span(node)

    def line_span(self, node: Node) -> Span:
        """The node's span clipped to its first line (for multi-line values)."""
        lines = self.document.lines
        pos = lines.position(node.start)
        return Span(node.start, max(node.start, min(node.end, lines.line_end(pos.line))))
