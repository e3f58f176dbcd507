"""Reviewing a rubric from the editor (docs/review.md): a "Review this rubric" code lens and code action, and
``rubric-lsp.review``, which every client can run (Neovim and Emacs: docs/editors.md).

The command reviews the document as ``rubric review FILE`` does, with the editor's judge settings, progress and
cancel (:func:`rubric_lsp.server.grading_run.run`). Its findings are published as diagnostics of source
``rubric-review`` beside the lint's, each kept while the words of its criterion stay as they were
(:mod:`rubric_lsp.server.review_run`, imported on the first review: nothing of the review loads at start-up).
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from rubric_lsp.document.positions import Span
from rubric_lsp.server.app import RubricServer
from rubric_lsp.server.arguments import invalid
from rubric_lsp.server.grading_plan import NoDocument, Read, document_uri, read
from rubric_lsp.server.positions import Converter

REVIEW = "rubric-lsp.review"
TITLE = "Review this rubric"


def reviewable(doc: Read) -> bool:
    """A document whose format hands its criteria to the smell rules (``Format.criteria``)."""
    return doc.format is not None and doc.format.criteria is not None and doc.document.root is not None


def review_lenses(ls: RubricServer, doc: Read) -> list[types.CodeLens]:
    if not reviewable(doc):
        return []
    at = Converter(doc.document.lines, ls.encoding).span(Span(0, 0))
    return [types.CodeLens(range=at, command=_command(doc, "▶ " + TITLE))]


def review_actions(doc: Read) -> list[types.Command]:
    """The lens as a code action, for clients that show no code lenses (eglot, Helix)."""
    return [_command(doc, TITLE)] if reviewable(doc) else []


def _command(doc: Read, title: str) -> types.Command:
    return types.Command(title=title, command=REVIEW, arguments=[{"uri": doc.uri}])


async def review_command(ls: RubricServer, args: dict[str, Any]) -> Any:
    doc = await read(ls, document_uri(ls, args))
    if not reviewable(doc):
        message = f"{doc.name} holds no criteria rubric review reads (docs/review.md)."
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info, message=message))
        return {"message": message}
    from rubric_lsp.server import review_run  # the engine and the review load on the first review

    return await review_run.review(ls, doc)


def register(ls: RubricServer) -> None:
    @ls.command(REVIEW)
    async def review(ls: RubricServer, *args: Any) -> Any:
        try:
            return await review_command(ls, args[0] if args else {})
        except (ValueError, NoDocument) as exc:
            raise invalid(f"{REVIEW}: {exc}") from None
