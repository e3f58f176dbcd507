"""A Rubrics task's criteria as the smell rules read them (``Format.criteria``, docs/smells.md): each
criterion's title, the criteria of one turn scored together; the task format has no penalty weights."""

from __future__ import annotations

from typing import Any

from rubric_lsp.document import Document
from rubric_lsp.formats.rubrics_task.view import TaskView, read_task
from rubric_lsp.rules.smells.criteria import CriterionText, Piece, RubricTexts


def task_criteria(doc: Document, view: Any) -> list[RubricTexts]:
    if doc.root is None:
        return []
    task = view if isinstance(view, TaskView) else read_task(doc.root)
    out = []
    for number, turn in enumerate(task.turns, start=1):
        criteria = []
        for criterion in turn.criteria:
            node = criterion.field("title")
            if node is None or not node.is_scalar or not isinstance(node.value, str) or not node.value.strip():
                continue
            criteria.append(CriterionText(f"'{criterion.key}'", Piece.of(node, node.value, doc.text)))
        if criteria:
            out.append(RubricTexts(f"turn {number}", turn.node.span, tuple(criteria)))
    return out
