"""A NorthStar request's LLM graders' rubrics as the smell rules read them (``Format.criteria``,
docs/smells.md): the graders of one request are scored together; NorthStar has no penalty weights."""

from __future__ import annotations

from typing import Any

from rubric_lsp.document import Document
from rubric_lsp.formats.northstar.view import RequestView, read_request
from rubric_lsp.rules.smells.criteria import CriterionText, Piece, RubricTexts


def request_criteria(doc: Document, view: Any) -> list[RubricTexts]:
    if doc.root is None:
        return []
    request = view if isinstance(view, RequestView) else read_request(doc.root)
    criteria = []
    for entry in request.graders:
        node = entry.field_node("rubric")
        if entry.grader is None or entry.grader.type != "rubric" or node is None or not node.is_scalar:
            continue
        text = node.value
        if isinstance(text, str) and text.strip():
            criteria.append(CriterionText(f"grader '{entry.grader.name}'", Piece.of(node, text, doc.text)))
    return [RubricTexts("the request's graders", doc.lines.single_line_span(0), tuple(criteria))] if criteria else []
