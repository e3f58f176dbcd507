"""The engine's call-style entry points, kept for the language server, the bench and the tests.

``grade_text`` grades one response and ``grade_examples`` a file's worked examples; both
build a :class:`~rubric_lsp.engine.request.GradeRequest` and hand it to the runner
(:mod:`rubric_lsp.engine.runner`), which finds the file's format and its grader. Nothing
here names a format or imports litellm.
"""

from __future__ import annotations

from collections.abc import Mapping

from rubric_lsp.engine.report import ExampleResult, ExamplesResult, GradeReport
from rubric_lsp.engine.request import GradeRequest, RequestKind
from rubric_lsp.engine.runner import GradingError, Progress, Run, UnsupportedRequest, grade, read
from rubric_lsp.engine.settings import JudgeSettings, MissingCredentials


async def grade_text(
    rubric_text: str,
    path: str | None,
    response: str,
    query: str | None,
    settings: JudgeSettings,
    *,
    test_index: int | None = None,
    on_progress: Progress | None = None,
    options: Mapping[str, object] | None = None,
) -> GradeReport:
    """Grade ``response`` against the rubric in ``rubric_text``; see ``rubric_lsp.engine``.
    ``options``: the format's grading options (``GradeRequest.options``).

    Raises GradingError (the file cannot be graded) or MissingCredentials (no API key; raised
    before any call). Judge failures are verdicts with ``error`` set, never exceptions.
    """
    request = GradeRequest.for_response(
        rubric_text, path, response, query=query, test_index=test_index, options=dict(options or {})
    )
    result = await grade(request, settings, on_progress=on_progress)
    if not isinstance(result, GradeReport):
        raise GradingError(f"This file's grader answered a response with a {type(result).__name__}, not a report.")
    return result


async def grade_examples(
    rubric_text: str,
    path: str | None,
    settings: JudgeSettings,
    *,
    on_progress: Progress | None = None,
    options: Mapping[str, object] | None = None,
) -> list[ExampleResult]:
    """Grade the file's worked examples and check their expectations ([] when the file has none)."""
    request = GradeRequest(rubric_text, path, RequestKind.EXAMPLES, options=dict(options or {}))
    try:
        result = await grade(request, settings, on_progress=on_progress)
    except UnsupportedRequest:
        return []
    return result.examples if isinstance(result, ExamplesResult) else []


__all__ = [
    "ExampleResult",
    "GradingError",
    "MissingCredentials",
    "Run",
    "grade_examples",
    "grade_text",
    "read",
]
