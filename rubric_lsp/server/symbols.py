"""Document symbols (the outline): the format's outline items (its editor hooks), as LSP symbols."""

from __future__ import annotations

import logging

from lsprotocol import types

from rubric_lsp.document.positions import Span
from rubric_lsp.formats.editor import EditorContext, OutlineItem
from rubric_lsp.lint import LintResult
from rubric_lsp.server.app import RubricServer
from rubric_lsp.server.positions import Converter

log = logging.getLogger(__name__)


def to_symbol(convert: Converter, item: OutlineItem) -> types.DocumentSymbol:
    """``item`` as an LSP symbol whose selection lies inside its range (clients reject the answer otherwise)."""
    span, select = item.span, item.selection_span or item.span
    if not (span.start <= select.start and select.end <= span.end):
        span = Span(min(span.start, select.start), max(span.end, select.end))
    return types.DocumentSymbol(
        name=item.name or "(unnamed)",
        kind=getattr(types.SymbolKind, item.kind, types.SymbolKind.Field),
        range=convert.span(span),
        selection_range=convert.span(select),
        detail=item.detail,
        children=[to_symbol(convert, child) for child in item.children] or None,
    )


def document_symbols(ls: RubricServer, result: LintResult) -> list[types.DocumentSymbol]:
    if result.document.root is None or result.format is None:
        return []
    context = EditorContext(result.document, result.view)
    items = result.format.editor_hooks().outline(context)
    convert = ls.converter(result)
    return [to_symbol(convert, item) for item in items]


def register(ls: RubricServer) -> None:
    @ls.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    async def symbols(ls: RubricServer, params: types.DocumentSymbolParams):
        uri = params.text_document.uri
        if uri not in ls.workspace.text_documents:
            return None
        result = await ls.lint(uri)
        try:
            return document_symbols(ls, result)
        except Exception:
            log.exception("outline failed")
            return []
