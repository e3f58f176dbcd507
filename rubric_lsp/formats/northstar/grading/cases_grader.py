"""The NorthStar eval cases' grader (``Format.grader``): cases hold inputs, not graders, so it says where to go."""

from __future__ import annotations

from rubric_lsp.document import Document
from rubric_lsp.engine.request import GradeRequest, GradeResult, RequestKind
from rubric_lsp.engine.runner import Grader, Grading, GradingError, UnsupportedRequest
from rubric_lsp.formats.northstar.grading.request_grader import NOT_A_REQUEST


async def grade(doc: Document, request: GradeRequest, grading: Grading) -> GradeResult:
    if request.kind is RequestKind.RESPONSE:
        raise GradingError(NOT_A_REQUEST)
    raise UnsupportedRequest(request.kind, "NorthStar eval cases hold no graders")


# What Format.grader names: annotated, so that mypy checks ``grade`` against the engine's protocol.
GRADER: Grader = grade
