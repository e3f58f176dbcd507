"""A labels file's rows graded against a NorthStar EvalRunRequest's LLM graders (``rubric calibrate
LABELS.csv --config request.json``; docs/calibration.md, "Labels files").

A row names its ``grader`` by name (or 1-based position among the request's LLM graders). Each distinct
(grader, output, query) is graded once, by that grader alone, as ``rubric grade REQUEST --response`` grades it (its own model
and temperature unless ``--model`` is given), and the grader's pass is compared with the label. A human
``score`` is on 0–1: the grader's scale normalised, passing at its passing score normalised the same way
(``passing_score``, else ``max_score``; a binary grader at 0.5). The rows are streamed
(``calibration/labelled.py``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from rubric_lsp.calibration.labelled import Answer, LabelledUnit, LabelsResult, RowGrading, grade_rows
from rubric_lsp.calibration.labels import LabelRow, LabelsError, index_or_name
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
        raise row.refuse(f"no LLM grader named {chosen[:100]!r} (the request has {names})")
    return found


async def grade_labels(
    doc: Document, request: GradeRequest, grading: Grading, judges: list[GraderInput], grade_one: GradeOne
) -> LabelsResult:
    """Each distinct output graded by its row's grader alone (``grade_one``: the request's own grader)."""
    found: dict[str, int] = {}  # each grader the rows name, found once: its index
    graders: dict[int, GraderInput] = {}

    def unit_of(row: LabelRow) -> int:
        named = row.fields.get("grader", "")
        index = found.get(named)
        if index is None:
            grader = _find(judges, row)
            index = found[named] = grader.index
            graders[index] = grader
        return index

    async def ask(index: int, row: LabelRow) -> Mapping[int, Answer]:
        grader = graders[index]
        one = GradeRequest.for_response(
            request.text, request.path, row.output, query=row.query, units=(grader.name,), options=request.options
        )
        report: Any = await grade_one(doc, one, grading)
        verdict = next((v for v in report.verdicts if v.name == grader.name), None)
        if verdict is None:
            return {}
        judge = None if verdict.error or verdict.passed is None else bool(verdict.passed)
        return {index: (judge, verdict.error or verdict.reason or "")}

    how = RowGrading(
        unit_of,
        lambda index, row: (index, row.output, row.query),
        ask,
        lambda index: _pass_mark(graders[index]),
        concurrency=max(1, grading.settings.concurrency),
    )
    try:
        tallies = await grade_rows(request.labels, how)
    except LabelsError as exc:
        raise GradingError(str(exc)) from None
    if not tallies:
        raise GradingError("No labelled rows to grade.")
    given = bool(grading.settings.given_model())
    labelled = []
    for index, tally in tallies.items():
        unit = grader_unit(graders[index])  # its id, text, prompt and settings: what the record keeps (calibration.py)
        own = grading_own(unit.judge, given)  # the judge that graded it
        labelled.append(LabelledUnit(unit.id, unit.title, unit.text, unit.prompt, unit.settings, tally, own))
    return LabelsResult(labelled)
