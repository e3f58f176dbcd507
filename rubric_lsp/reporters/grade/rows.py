"""Any grading result as flat rows: one per unit (criterion, assertion, grader, comparison, dataset label).

The JUnit and CSV outputs (``reporters/grade/junit.py``, ``csv.py``) are both written from these rows, so they
say the same thing. Rows are read from the result's units (``result.Result.units()``), whose
outcomes the format decided: nothing here reads a verdict word.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rubric_lsp.engine.result import ROW_OUTCOME, Unit

PASS, FAIL, ERROR, SKIPPED = "pass", "fail", "error", "skipped"


@dataclass(frozen=True)
class Row:
    """One graded thing: ``suite`` groups rows (a response, an output, an example, a dataset item)."""

    suite: str
    name: str
    outcome: str  # pass | fail | error | skipped
    verdict: str = ""
    expected: str = ""  # a dataset item's human label
    score: float | None = None
    weight: float | None = None
    reason: str = ""
    error: str = ""
    cached: bool = False
    cells: tuple[tuple[str, Any], ...] = ()  # the format's own columns


def row(unit: Unit) -> Row:
    return Row(
        unit.group,
        unit.title,
        ROW_OUTCOME[unit.outcome],
        verdict=unit.verdict,
        expected=unit.expected,
        score=unit.score,
        weight=unit.weight,
        reason=unit.reason,
        error=unit.error,
        cached=unit.cached,
        cells=unit.cells,
    )


def rows(result: Any) -> list[Row]:
    """``result``'s units as rows (``result`` follows ``result.Result``)."""
    return [row(unit) for unit in result.units()]
