"""The HTML report's view of a ``grid`` result (``result.grid()``, ``engine/result.py``): a results file's
outputs, tests as rows and what produced them as columns, like the owner's own viewer.

Each column heads its pass rate here and the one the results file recorded; each cell is its output's
result (the outcome its format gave it), its score, the verdict recorded for it and whether they differ;
a click on a cell opens its drill-down below the grid — the test's section (``html_tests``: assertions,
verdicts, reasons, what the judge was sent) with the output's text and the recorded verdict. Filters
(failures only, differences only, a search box) run in the page. Words about the recorded verdicts come
from the grid (``Grid.recorded_by``), never from here; figures from the result's JSON and grid.
"""

from __future__ import annotations

from typing import Any

from rubric_lsp.engine.result import Grid, Outcome, Unit
from rubric_lsp.reporters.grade.html_tests import OUTCOME_CLASS, tests_view

_CLASS = OUTCOME_CLASS


def grid_view(data: dict[str, Any], units: list[Unit], grid: Grid, defaults: dict[str, Any]) -> dict[str, Any]:
    """The page's grid: columns with pass rates, rows of cells, each cell's drill-down."""
    columns = [
        {
            "position": i,
            "label": c.label,
            "detail": c.detail,
            "passed": c.passed,
            "total": c.total,
            "rate": c.passed / c.total if c.total else None,
            "recorded_passed": c.recorded_passed,
            "recorded_rate": c.recorded_passed / c.recorded_total if c.recorded_total else None,
        }
        for i, c in enumerate(grid.columns)
    ]
    matrix: list[list[dict[str, Any] | None]] = [[None] * len(columns) for _ in grid.rows]
    details = []
    for position, cell in enumerate(grid.cells):
        entry = _at(data, cell.path)
        shown = {
            "position": position,
            "word": cell.case.verdict,
            "class": _CLASS[cell.case.outcome],
            "score": cell.case.score,
            "reason": cell.case.reason,
            "recorded": "—" if cell.recorded is None else _word(cell.recorded),
            "recorded_class": "skip" if cell.recorded is None else _CLASS[cell.recorded],
            "recorded_score": cell.recorded_score,
            "recorded_reason": cell.recorded_reason,
            "differs": cell.differs,
            "row": cell.row,
            "column": cell.column,
        }
        matrix[cell.row][cell.column] = shown
        report = entry.get("report")
        mine = [u for u in units if u.path[: len(cell.path) + 2] == (*cell.path, "report", "verdicts")]
        view = tests_view(report, defaults, mine) if report else None
        details.append(
            {
                **shown,
                "row_label": grid.rows[cell.row].label,
                "column_label": grid.columns[cell.column].label,
                "output": entry.get("output"),
                "view": view,
                "notes": (report or {}).get("notes", []),
            }
        )
    rows = []
    for r, row in enumerate(grid.rows):
        cells = matrix[r]
        present = [c for c in cells if c is not None]
        searched = [row.label, row.detail, *(f"{k} {v}" for k, v in row.vars)]
        searched += [f"{c['word']} {c['reason']} {c['recorded']}" for c in present]
        rows.append(
            {
                "label": row.label,
                "detail": row.detail,
                "vars": row.vars,
                "cells": cells,
                "failing": any(c["class"] != "pass" for c in present),
                "differs": any(c["differs"] for c in present),
                "search": " ".join(searched).casefold(),
            }
        )
    return {
        "grid": {
            "columns": columns,
            "rows": rows,
            "details": details,
            "recorded_by": grid.recorded_by,
            "differences": sum(c.differs for c in grid.cells),
            "cells": len(grid.cells),
        }
    }


def _word(outcome: Outcome) -> str:
    return {Outcome.PASS: "PASS", Outcome.FAIL: "FAIL", Outcome.ERROR: "ERROR"}.get(outcome, "INCOMPLETE")


def _at(data: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        data = data[key]
    return data
