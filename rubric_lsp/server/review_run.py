"""A review run from the editor, and its findings as diagnostics of source ``rubric-review`` (docs/review.md).

What the judge answered is kept per criterion by the fingerprint of what it was shown (``review.prompt``): on
every publish the document's criteria are read again (over the view its lint built) and a criterion whose
words are unchanged gets its findings back, at the words the judge quoted as they are now. A criterion edited
loses them (its new words were not reviewed); the same words elsewhere in the file get them too (the same
question). A criterion the judge failed on is a warning, never a clean review.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from lsprotocol import types

from rubric_lsp.engine.request import GradeRequest, RequestKind
from rubric_lsp.engine.runner import grade
from rubric_lsp.lint import LintResult
from rubric_lsp.redaction import report_redactor
from rubric_lsp.review.grader import subjects
from rubric_lsp.review.prompt import Answer, fingerprint
from rubric_lsp.review.questions import BY_SMELL
from rubric_lsp.review.result import SOURCE, Reviewed, ReviewResult
from rubric_lsp.rules.registry import registered_rule
from rubric_lsp.server.app import RubricServer
from rubric_lsp.server.grading_plan import Read
from rubric_lsp.server.grading_run import judge_settings, run
from rubric_lsp.server.publish import schedule

log = logging.getLogger(__name__)

KEY = "review"  # DocState.extra: the document's Kept review


@dataclass
class Kept:
    """A document's last review: the judge's answers by criterion fingerprint, or why it gave none."""

    answers: dict[str, tuple[Answer, ...]] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    model: str = ""
    _for: tuple[int, list[types.Diagnostic]] | None = None  # (id of the lint result, its diagnostics)

    def diagnostics(self, ls: RubricServer, result: LintResult) -> list[types.Diagnostic]:
        """The findings on the criteria of ``result``'s document that are as the judge read them."""
        if self._for is not None and self._for[0] == id(result):
            return self._for[1]
        out: list[types.Diagnostic] = []
        if result.format is not None and result.document.root is not None:
            try:
                current = subjects(result.format, result.document, result.view)
            except Exception:
                log.exception("reading the criteria of %s for its review failed", result.path)
                current = []
            convert = ls.converter(result)
            redact = report_redactor().report
            for subject in current:
                mark = fingerprint(subject.criterion)
                reviewed = Reviewed(subject, self.answers.get(mark, ()), self.errors.get(mark, ""))
                for answer in reviewed.answers:
                    if answer.present:
                        out.append(_finding(convert, reviewed, answer, redact))
                if reviewed.error:
                    out.append(_not_reviewed(convert, reviewed, redact))
        self._for = (id(result), out)
        return out


def _finding(convert: Any, reviewed: Reviewed, answer: Answer, redact: Any) -> types.Diagnostic:
    span = reviewed.span_of(answer.words)
    assert span is not None  # a criterion of the document
    question = BY_SMELL[answer.smell]
    rule = registered_rule(question.rule)
    return types.Diagnostic(
        range=convert.span(span),
        message=redact(f"criterion {reviewed.subject.criterion.name}: {answer.reason or question.title}"),
        severity=types.DiagnosticSeverity.Information,
        code=answer.smell,
        code_description=types.CodeDescription(href=rule.docs_url) if rule is not None else None,
        source=SOURCE,
    )


def _not_reviewed(convert: Any, reviewed: Reviewed, redact: Any) -> types.Diagnostic:
    span = reviewed.span_of("")
    assert span is not None
    return types.Diagnostic(
        range=convert.span(span),
        message=redact(f"criterion {reviewed.subject.criterion.name} was not reviewed: {reviewed.error}"),
        severity=types.DiagnosticSeverity.Warning,
        code="not-reviewed",
        source=SOURCE,
    )


async def review(ls: RubricServer, doc: Read) -> Any:
    """Review ``doc`` with the editor's judge; its findings replace the last review's. The result's JSON."""
    request = GradeRequest(doc.text, doc.document.path, RequestKind.REVIEW)
    settings = judge_settings(ls)

    async def work(progress: Any) -> Any:
        return await grade(request, settings, on_progress=progress)

    result = await run(ls, "Reviewing the criteria", doc.uri, work)
    if isinstance(result, dict):  # an error or a cancel, already shown
        return result
    assert isinstance(result, ReviewResult)
    kept = Kept(model=result.model)
    for reviewed in result.reviewed:
        mark = fingerprint(reviewed.subject.criterion)
        if reviewed.error:
            kept.errors[mark] = reviewed.error
        else:
            kept.answers[mark] = reviewed.answers
    ls.state(doc.uri).extra[KEY] = kept
    _republish(ls, doc.uri)
    if result.incomplete:
        ls.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Warning, message=f"Review incomplete: {result.incomplete}")
        )
    return result.to_json()


def _republish(ls: RubricServer, uri: str) -> None:
    if ls.pull_diagnostics:
        if ls.client_supports("workspace.diagnostics.refresh_support"):
            ls.workspace_diagnostic_refresh(None)
        return
    if uri in ls.workspace.text_documents:
        schedule(ls, uri, 0)
