"""Any grading result as flat rows: one per unit (criterion, assertion, grader, comparison, dataset label).

The JUnit and CSV outputs (``reporters/grade/junit.py``, ``csv.py``) are both written from these rows, so they
say the same thing. Rows are read from the result's units (``result.Result.units()``), whose
outcomes the format decided: nothing here reads a verdict word.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace
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
    """``result``'s units as rows (``result`` follows ``result.Result``), each named uniquely within its suite.

    Two units may share a title (two model-graded assertions of one test, each "test 1: <its type>"); a row's
    name is a key (a spreadsheet's lookup, a JUnit test case, a labels file made from the rows), so titles met
    more than once in a suite are told apart by the format's own cells where those differ ("test 1: <type>
    [test=1, assertion=polite]"), else by their place among them ("test 1: <type> #2")."""
    table = [row(unit) for unit in result.units()]
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for index, r in enumerate(table):
        groups[r.suite, r.name].append(index)
    for members in groups.values():
        if len(members) < 2:
            continue
        cells = [_cells(table[i]) for i in members]
        apart = cells if all(cells) and len(set(cells)) == len(cells) else [f"#{n}" for n in range(1, len(members) + 1)]
        for i, suffix in zip(members, apart):
            table[i] = replace(table[i], name=f"{table[i].name} {suffix}")
    return table


def _cells(r: Row) -> str:
    shown = ", ".join(f"{name}={value}" for name, value in r.cells if value not in (None, ""))
    return f"[{shown}]" if shown else ""
