"""A labels file's rows graded against a NorthStar EvalRunRequest's LLM graders (``rubric calibrate
LABELS.csv --config request.json``; docs/calibration.md, "Labels files").

A row names its ``grader`` by name (or 1-based position among the request's LLM graders). Each row's
output is graded by that grader alone, as ``rubric grade REQUEST --response`` grades it (its own model
and temperature unless ``--model`` is given), and the grader's pass is compared with the label. A human
``score`` is on 0–1: the grader's scale normalised, passing at its passing score normalised the same way
(``passing_score``, else ``max_score``; a binary grader at 0.5).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from rubric_lsp.calibration.labels import Judged, LabelledUnit, LabelRow, LabelsError, LabelsResult, index_or_name
from rubric_lsp.calibration.record import grading_own
from rubric_lsp.document import Document
from rubric_lsp.engine.request import GradeRequest, GradeResult
from rubric_lsp.engine.runner import Grading, GradingError
from rubric_lsp.formats.northstar.grading.calibration import grader_unit
from rubric_lsp.formats.northstar.grading.graders import GraderInput, passing_score_of

GradeOne = Callable[[Document, GradeRequest, Grading], Awaitable[GradeResult]]


def _pass_mark(grader: GraderInput) -> float:
    scoring = grader.scoring
    if scoring is None or scoring.mode != "numeric" or scoring.max_score == scoring.min_score:
        return 0.5
    return (passing_score_of(scoring) - scoring.min_score) / (scoring.max_score - scoring.min_score)


def _find(judges: list[GraderInput], row: LabelRow) -> GraderInput:
    chosen = index_or_name(row, "grader")
    if chosen is None:
        raise row.refuse("no 'grader' (its name, or its 1-based position among the LLM graders)")
    if isinstance(chosen, int):
        if chosen > len(judges):
            raise row.refuse(f"the request has {len(judges)} LLM grader(s), not {chosen}")
        return judges[chosen - 1]
    found = next((g for g in judges if g.name == chosen), None)
    if found is None:
        names = ", ".join(repr(g.name) for g in judges)
        raise row.refuse(f"no LLM grader named {chosen!r} (the request has {names})")
    return found


async def grade_labels(
    doc: Document, request: GradeRequest, grading: Grading, judges: list[GraderInput], grade_one: GradeOne
) -> LabelsResult:
    """Each row's output graded by its grader alone (``grade_one``: the request's own grader)."""
    rows: tuple[LabelRow, ...] = request.labels
    if not rows:
        raise GradingError("No labelled rows to grade.")
    units: dict[int, tuple[GraderInput, list[LabelRow]]] = {}
    try:
        for row in rows:
            grader = _find(judges, row)
            units.setdefault(grader.index, (grader, []))[1].append(row)
    except LabelsError as exc:
        raise GradingError(str(exc)) from None
    given = bool(grading.settings.given_model())
    labelled = []
    for grader, unit_rows in units.values():
        judged = []
        for row in unit_rows:
            one = GradeRequest.for_response(
                request.text, request.path, row.output, query=row.query, units=(grader.name,), options=request.options
            )
            report: Any = await grade_one(doc, one, grading)
            verdict = next((v for v in report.verdicts if v.name == grader.name), None)
            judge = None if verdict is None or verdict.error or verdict.passed is None else bool(verdict.passed)
            reason = "" if verdict is None else (verdict.error or verdict.reason or "")
            judged.append(Judged(row, row.human_pass(_pass_mark(grader)), judge, reason))
        unit = grader_unit(grader)  # its id, text, prompt and settings: what the record keeps (calibration.py)
        own = grading_own(unit.judge, given)  # the judge that graded it
        labelled.append(LabelledUnit(unit.id, unit.title, unit.text, unit.prompt, unit.settings, judged, own))
    return LabelsResult(labelled)
