"""The Rubrics task's grader (``Format.grader``): a task holds human ratings, so it points to the conversion."""

from __future__ import annotations

from rubric_lsp.document import Document
from rubric_lsp.engine.request import GradeRequest, GradeResult, RequestKind
from rubric_lsp.engine.runner import Grader, Grading, GradingError, UnsupportedRequest

CONVERT_FIRST = (
    "A Rubrics task holds human ratings, not a rubric to grade with; convert it (`rubric convert`) to an "
    "autorubric dataset and grade that."
)


async def grade(doc: Document, request: GradeRequest, grading: Grading) -> GradeResult:
    if request.kind in (RequestKind.RESPONSE, RequestKind.OUTPUTS):
        raise GradingError(CONVERT_FIRST)
    raise UnsupportedRequest(request.kind, CONVERT_FIRST)


# What Format.grader names: annotated, so that mypy checks ``grade`` against the engine's protocol.
GRADER: Grader = grade
