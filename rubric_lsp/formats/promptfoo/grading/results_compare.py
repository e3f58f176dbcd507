"""A results file's ``select-best`` and ``max-score``: one test's outputs compared across its columns, as promptfoo
0.123.1's evaluator compares them once every row is graded (``processSelectBestAssertionForTest`` then
``processMaxScoreAssertionForTest``, ``dist/src/evaluator-*.js``).

promptfoo takes every row of the test (``getResultsToCompare``: each prompt of each provider, by ``promptIdx``),
runs the test's first ``select-best`` over their outputs (one judge call, ``select_best``), then its first
``max-score`` over their graded assertions (``max_score``), and merges each into each row
(``mergeSelectBestGradingResult``, ``mergeMaxScoreGradingResult``): the row passes only if it passed and the
comparison passed it; a row the comparison does not pass takes its score 0, and its reason (max-score's only when
the row had passed until then). Here a comparison that is not decided (its judge call failed, or the max-score
rests on assertions not known here) leaves the rows it could fail undecided, never passed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rubric_lsp.document import Document
from rubric_lsp.engine.report import GradeReport
from rubric_lsp.formats.promptfoo.grading.outputs import max_score_entry, test_verdicts
from rubric_lsp.formats.promptfoo.grading.results_file import Row
from rubric_lsp.formats.promptfoo.grading.select_best import select_best_entry

NO_OUTPUT_TO_COMPARE = "a column of this test has no output to compare (its provider failed)"


@dataclass(frozen=True)
class Compared:
    """One comparison's result for one row: ``passed`` None when not decided here (``error``: a failed judge call)."""

    type: str
    passed: bool | None
    score: float | None
    reason: str
    error: bool = False

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": self.type, "passed": self.passed, "score": self.score, "reason": self.reason}
        if self.error:
            data["error"] = True
        return data


async def compare_columns(
    doc: Document,
    view: Any,
    rows: list[Row],
    reports: dict[tuple[int, int], GradeReport],
    judge_for: Any,
) -> dict[tuple[int, int], list[Compared]]:
    """(test, column) → the comparisons promptfoo merges into that row, in its order (select-best, max-score)."""
    found: dict[tuple[int, int], list[Compared]] = {}
    by_test: dict[int, list[Row]] = {}
    for row in rows:
        by_test.setdefault(row.test, []).append(row)
    for number, mine in sorted(by_test.items()):
        test = view.test_number(number)
        types = {a.type for a in test.top_assertions} if test is not None else set()
        wanted = [t for t in ("select-best", "max-score") if t in types]
        if not wanted:
            continue
        mine.sort(key=lambda r: r.column)
        graded = [reports.get((r.test, r.column)) for r in mine]
        if any(report is None for report in graded):
            results = {t: [Compared(t, None, None, NO_OUTPUT_TO_COMPARE)] * len(mine) for t in wanted}
        else:
            results = {}
            if "select-best" in wanted:
                outputs = [r.output or "" for r in mine]
                entry = await select_best_entry(doc, view, number, outputs, judge_for, mine[0].vars)
                if entry is not None:
                    results["select-best"] = _select_best(entry, len(mine))
            if "max-score" in wanted and test is not None:
                verdicts = [test_verdicts(report, number) for report in graded if report is not None]
                entry = max_score_entry(doc, number, test.top_assertions, verdicts)
                if entry is not None:
                    results["max-score"] = _max_score(entry, len(mine))
        for position, row in enumerate(mine):
            found[(row.test, row.column)] = [results[t][position] for t in wanted if t in results]
    return found


def _select_best(entry: dict[str, Any], count: int) -> list[Compared]:
    """Each row's select-best in promptfoo's words (``matchesSelectBest``)."""
    if "error" in entry:
        return [Compared("select-best", None, None, entry["reason"], error=True)] * count
    criteria = entry.get("criteria") or ""
    return [
        Compared("select-best", True, 1.0, f"Output selected as the best: {criteria}")
        if position == entry["winner"]
        else Compared("select-best", False, 0.0, f"Output not selected: {criteria}")
        for position in range(count)
    ]


def _max_score(entry: dict[str, Any], count: int) -> list[Compared]:
    """Each row's max-score in promptfoo's words (``selectMaxScore``)."""
    if "error" in entry or "undecided" in entry:
        return [Compared("max-score", None, None, entry.get("error") or entry["undecided"])] * count
    return [
        Compared("max-score", passed, 1.0 if passed else 0.0, reason)
        for passed, reason in zip(entry["passed"], entry["reasons"])
    ]


def merged(passed: bool | None, score: float | None, reason: str, compared: list[Compared]) -> tuple[Any, ...]:
    """(passed, score, reason) of a row once its comparisons are merged as promptfoo merges them."""
    for comparison in compared:
        before = passed
        if comparison.passed is False:
            passed, score = False, 0.0
            if comparison.type == "select-best" or before is True:
                reason = comparison.reason
        elif comparison.passed is None:
            passed = False if passed is False else None
            if score != 0:
                score = None  # 0 if the comparison fails it, its own if not
    return passed, score, reason
