"""The Rubrics task's grader (``Format.grader``): a task holds human ratings, so it is graded against them
(``grading/preference.py``: its conversion to an autorubric dataset, and the preference agreement)."""

from __future__ import annotations

from rubric_lsp.document import Document
from rubric_lsp.engine.request import GradeRequest, GradeResult, RequestKind
from rubric_lsp.engine.runner import Grader, Grading, GradingError, UnsupportedRequest
from rubric_lsp.formats.rubrics_task.grading.preference import grade_ratings

CONVERT_FIRST = (
    "A Rubrics task holds human ratings, not a rubric to grade with; grade it without --response to measure "
    "the judge against them, or convert it (`rubric convert`) to an autorubric dataset."
)


async def grade(doc: Document, request: GradeRequest, grading: Grading) -> GradeResult:
    if request.kind in (RequestKind.DATASET, RequestKind.EXAMPLES):
        return await grade_ratings(doc, request, grading)
    if request.kind in (RequestKind.RESPONSE, RequestKind.OUTPUTS):
        raise GradingError(CONVERT_FIRST)
    raise UnsupportedRequest(request.kind, CONVERT_FIRST)


# What Format.grader names: annotated, so that mypy checks ``grade`` against the engine's protocol.
GRADER: Grader = grade
