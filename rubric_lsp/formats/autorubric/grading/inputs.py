"""The rubric as the autorubric grader takes it (``criterion_inputs``), and what refuses it before
any call: autorubric's loader would not open the file, or its grader would crash on it.

Shared by the rubric's grader (``rubric.py``), scoring given verdicts (``rescore.py``) and the
dataset's grader (``agreement.py``).
"""

from __future__ import annotations

from rubric_lsp.document import Document
from rubric_lsp.engine.runner import GradingError
from rubric_lsp.formats.autorubric.grading.criteria import CriterionInput
from rubric_lsp.formats.autorubric.grading.votes import NOMINAL_AGGREGATIONS, unknown_aggregation
from rubric_lsp.formats.autorubric.loading import load_refusal
from rubric_lsp.formats.autorubric.view import read_rubric


def criterion_inputs(doc: Document) -> tuple[list[CriterionInput], str | None]:
    """The rubric's criteria as the grader takes them, and its guidelines; GradingError when autorubric rejects it."""

    if doc.root is None:
        raise GradingError("The file is empty.")
    refuse_unloadable(doc, dataset=False)
    view = read_rubric(doc.root)
    if view.problems or not view.entries or any(e.criterion is None for e in view.entries):
        problem = view.problems[0] if view.problems else None
        where = f" (line {doc.range(problem.node).start.line + 1})" if problem is not None else ""
        message = problem.message if problem is not None else "The rubric has no criteria"
        raise GradingError(f"autorubric would reject this rubric{where}: {message}. Run `rubric lint` for details.")
    items = [
        CriterionInput(e.index, e.criterion, e.label, doc.range(e.node).to_json())
        for e in view.entries
        if e.criterion is not None
    ]
    return items, view.guidelines


def refuse_unloadable(doc: Document, *, dataset: bool) -> None:
    """GradingError, before any call, when autorubric's own loader would not open the file."""

    refusal = load_refusal(doc, dataset=dataset)
    if refusal is not None:
        line = doc.lines.position(refusal.span.start).line + 1
        raise GradingError(f"{refusal.message} (line {line}). Run `rubric lint` for details.")


def check_gradable(items: list[CriterionInput]) -> None:
    """Raise GradingError, before any call, for a rubric autorubric loads but crashes grading.

    A nominal multi-choice criterion with an aggregation autorubric does not know (rule AR108)
    crashes autorubric's grader when it combines the judges' picks, even one judge's.
    """
    for item in items:
        name = unknown_aggregation(item.criterion)
        if name is not None:
            line = f" (line {item.range['start']['line'] + 1})" if item.range else ""
            raise GradingError(
                f"autorubric cannot grade this rubric{line}: criterion {item.name!r} is nominal and its aggregation "
                f"{name!r} is none of {', '.join(NOMINAL_AGGREGATIONS)}, so autorubric crashes when it combines "
                "the judges' picks. Rename it. Run `rubric lint` for details (AR108)."
            )
