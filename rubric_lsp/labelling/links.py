"""Where a unit or an item is written, as links the page offers: ``vscode://file/PATH:LINE:COLUMN`` (VS Code
opens the file there), ``file://`` (any editor or browser), and the path with its 1-based line and column for
the VS Code webview, which opens the file itself at that place."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

from rubric_lsp.document import Document
from rubric_lsp.document.positions import Span
from rubric_lsp.labelling.hook import LabelItem, LabelUnit


def place(path: Path, doc: Document | None, span: Span | None) -> dict[str, Any]:
    line = column = 1
    if doc is not None and span is not None:
        position = doc.lines.position(span.start)
        line, column = position.line + 1, position.character + 1
    absolute = path.resolve()
    quoted = quote(absolute.as_posix())
    return {
        "path": str(absolute),
        "line": line,
        "column": column,
        "vscode": f"vscode://file{quoted}:{line}:{column}",
        "file": absolute.as_uri(),
    }


def unit_links(labelled: Path, doc: Document, unit: LabelUnit) -> dict[str, Any]:
    if unit.path is not None:
        return place((labelled.parent / unit.path), None, None)
    return place(labelled, doc, unit.where)


def item_links(labelled: Path, doc: Document, item: LabelItem) -> dict[str, Any]:
    return place(labelled, doc, item.span)
