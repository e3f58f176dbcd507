"""The review's grader: what ``runner.grade`` runs for a ``RequestKind.REVIEW`` request, whatever the format.

The criteria are the file's, as its format hands them to the smell rules (``Format.criteria``), or a labelled
set's rows (``request.labels``: the review's calibration). Each distinct criterion is one judge question
(``Judge.ask``: the run file's replay, the verdict cache, a live call), fanned out under the run's concurrency,
counted in the grading's progress and bounded by its deadline, as any grading's questions are.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rubric_lsp.document import Document
from rubric_lsp.engine.failures import JudgeFailure
from rubric_lsp.engine.request import GradeRequest
from rubric_lsp.engine.runner import Grader, Grading, GradingError, fan_out, format_of
from rubric_lsp.formats.registry import Format, formats
from rubric_lsp.review.prompt import RESPONSE_FORMAT, Answer, Criterion, fingerprint, messages, parse
from rubric_lsp.review.result import Reviewed, ReviewResult, Subject


async def review(doc: Document, request: GradeRequest, grading: Grading) -> ReviewResult:
    subjects = _labelled(request.labels) if request.labels else _criteria(doc)
    run = grading.start()
    judge = run.judge()  # one judge: several are refused before (runner.review_refusal)
    distinct = {fingerprint(s.criterion): s.criterion for s in subjects}  # the same words are asked once
    grading.expect(len(distinct))

    async def ask(criterion: Criterion) -> tuple[tuple[Answer, ...], str, bool]:
        try:
            answers, cached = await judge.ask(lambda: messages(criterion), RESPONSE_FORMAT, parse)
            return answers, "", cached
        except JudgeFailure as failure:
            return (), failure.error, False
        finally:
            grading.tick()

    asked = dict(zip(distinct, await fan_out(ask(c) for c in distinct.values())))
    reviewed = []
    for subject in subjects:
        answers, error, cached = asked[fingerprint(subject.criterion)]
        reviewed.append(Reviewed(subject, answers, error, cached))
    return ReviewResult(doc, reviewed, judge.model, run.usage())


def _criteria(doc: Document) -> list[Subject]:
    """The file's criteria; GradingError when its format hands over none."""
    fmt = format_of(doc)
    if fmt is None or fmt.criteria is None:
        readers = ", ".join(f.title for f in formats() if f.criteria is not None)
        what = "not a rubric rubric-lsp reads" if fmt is None else f"a {fmt.title}, whose criteria it does not read"
        raise GradingError(f"This file is {what} (rubric review reads: {readers}).")
    found = subjects(fmt, doc, fmt.build_view(doc))
    if not found:
        raise GradingError("This file holds no criterion to review.")
    return found


def subjects(fmt: Format, doc: Document, view: Any) -> list[Subject]:
    """The criteria ``fmt`` hands over in ``doc`` (over its ``view``), a reference answer left out: it is what
    the response is compared with, not a criterion (the smell rules leave it alone too)."""
    out = []
    for rubric in fmt.criteria_of(doc, view):
        for found in rubric.criteria:
            if found.scope == "content":
                continue
            criterion = Criterion(
                found.name, found.text.text, tuple(p.text for p in found.levels), found.penalty, found.choice
            )
            out.append(Subject(criterion, rubric.name, (found.text, *found.levels)))
    return out


def _labelled(rows: Iterable[Any]) -> list[Subject]:
    """A labelled set's criteria (``review.labels.LabelledCriterion``), a reference answer left out."""
    return [Subject(row.criterion, labels=row.labels) for row in rows if not row.reference]


GRADER: Grader = review
