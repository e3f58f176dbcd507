"""The rubrics of an autorubric dataset (the shared one, or an item's own) as the grader takes them, and
what makes two items' criteria the same criterion: what the dataset grading (``agreement.py``) and its
calibration units (``calibration.py``) both read."""

from __future__ import annotations

from typing import Any

from rubric_lsp.document import Document, Node
from rubric_lsp.formats.autorubric.grading.criteria import CriterionInput
from rubric_lsp.formats.autorubric.grading.inputs import check_gradable
from rubric_lsp.formats.autorubric.view import read_rubric


class DatasetError(ValueError):
    pass


def criteria_of(doc: Document, node: Node | None) -> tuple[list[Any], str | None]:
    """A rubric in the dataset (shared, or an item's own) as the grader takes it."""
    if node is None or (node.is_scalar and node.value is None):
        return [], None
    view = read_rubric(node)
    if view.problems or any(e.criterion is None for e in view.entries):
        where = doc.range(view.problems[0].node).start.line + 1 if view.problems else 0
        message = view.problems[0].message if view.problems else "no criteria"
        raise DatasetError(f"A rubric in the dataset is invalid (line {where}): {message}")
    inputs = [
        CriterionInput(e.index, e.criterion, e.label, doc.range(e.node).to_json())
        for e in view.entries
        if e.criterion is not None
    ]
    check_gradable(inputs)
    return inputs, view.guidelines


def identity(item: Any) -> tuple[Any, ...]:
    """What makes two items' criteria the same criterion: its name, requirement and scale."""
    criterion = item.criterion
    options = None if criterion.options is None else tuple((o.label, o.value, o.na) for o in criterion.options)
    return (item.name, criterion.requirement, criterion.scale_type if options else None, options)
