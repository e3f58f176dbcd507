"""A results file graded whole (a ``grid`` result: tests × columns) shown on the file that graded it.

The editor's side of ``rubric grade FILE --outputs results.json``: a lens at the top with the pass rate here and as
the results file recorded it, and one lens and one mark on each test entry (where its "▶ Grade" lenses sit: the
format's gradable units, by the number the format gives the test) with each column's pass rate over the tests that
entry runs, and every cell in the mark's tooltip. The HTML grid is ``rubric-lsp.report``'s, as for any grading.
Format-neutral: it reads only ``result.grid()`` (``engine/result.py``), the units and their outcomes.
"""

from __future__ import annotations

from typing import Any

from rubric_lsp.document.positions import Position, Range
from rubric_lsp.engine.result import Grid, GridCell, Outcome
from rubric_lsp.formats.editor import GradableUnit
from rubric_lsp.server.verdicts import Lens, Mark, Shown

# Column labels (a prompt of a provider) can be long: the lens shows this much of each.
LABEL_CHARS = 28
_MARK_KIND = {Outcome.PASS: "met", Outcome.FAIL: "unmet", Outcome.ERROR: "error", Outcome.NOT_RUN: "cannot-assess"}
_WORD = {Outcome.PASS: "PASS", Outcome.FAIL: "FAIL", Outcome.ERROR: "ERROR", Outcome.NOT_RUN: "INCOMPLETE"}


def shown_for_grid(result: Any, grid: Grid, units: list[GradableUnit], document: Any, top: Range) -> Shown:
    """Lenses and marks of a grid result on ``document`` (whose ``units`` say where each numbered case is written)."""
    data = result.to_json()
    shown = Shown(result=data)
    name = data.get("results") or "the results file"
    cells = list(grid.cells)
    passed = sum(c.case.outcome is Outcome.PASS for c in cells)
    recorded = sum(c.recorded is Outcome.PASS for c in cells)
    differs = sum(c.differs for c in cells)
    by = f" as {grid.recorded_by} recorded" if grid.recorded_by else " as recorded"
    shown.lenses.append(
        Lens(top, f"Graded {name}: {passed}/{len(cells)} passed ({recorded}/{len(cells)}{by}) · {differs} differ")
    )
    if (incomplete := getattr(result, "incomplete", None)) is not None:
        shown.lenses.append(Lens(top, f"⚠ incomplete: {incomplete}"))
    for entry_range, rows in _entries(grid, units, document).items():
        mine = [c for c in cells if c.row in rows]
        if mine:
            shown.lenses.append(Lens(entry_range, _entry_title(grid, mine)))
            shown.marks.append(_entry_mark(entry_range, grid, mine))
    return shown


def _entries(grid: Grid, units: list[GradableUnit], document: Any) -> dict[Range, set[int]]:
    """Each test entry's range → the grid rows of the cases it runs (a case the units do not place is left out)."""
    spans = {u.plan.test: u.span for u in units if u.plan.test is not None}
    found: dict[Range, set[int]] = {}
    for position, row in enumerate(grid.rows):
        span = spans.get(row.number) if row.number is not None else None
        if span is not None:
            found.setdefault(document.range(span), set()).add(position)
    return found


def _short(label: str) -> str:
    return label if len(label) <= LABEL_CHARS else label[: LABEL_CHARS - 1] + "…"


def _entry_title(grid: Grid, cells: list[GridCell]) -> str:
    """``[echo] Answer: {{q}}: 2/2 · [echo-2] Answer: {{q}}: 1/2 (1 differs)``: each column's pass rate here."""
    parts = []
    for position, column in enumerate(grid.columns):
        mine = [c for c in cells if c.column == position]
        if not mine:
            continue
        passed = sum(c.case.outcome is Outcome.PASS for c in mine)
        differs = sum(c.differs for c in mine)
        parts.append(f"{_short(column.label)}: {passed}/{len(mine)}" + (f" ({differs} differ)" if differs else ""))
    return "Results: " + " · ".join(parts)


def _entry_mark(rng: Range, grid: Grid, cells: list[GridCell]) -> Mark:
    """One mark on the entry: its worst outcome, every cell in the tooltip beside the recorded verdict."""
    outcomes = [c.case.outcome for c in cells]
    worst = next((o for o in (Outcome.ERROR, Outcome.FAIL, Outcome.NOT_RUN) if o in outcomes), Outcome.PASS)
    passed = outcomes.count(Outcome.PASS)
    lines = [f"**{passed}/{len(cells)} passed**"]
    for cell in cells:
        row, column = grid.rows[cell.row], grid.columns[cell.column]
        theirs = _WORD.get(cell.recorded, "—") if cell.recorded is not None else "—"
        score = "" if cell.case.score is None else f" {cell.case.score:.3g}"
        flag = " ≠" if cell.differs else ""
        lines.append(
            f"{row.label} · {column.label}: {cell.case.verdict}{score}{flag} ({grid.recorded_by or 'recorded'}: "
            f"{theirs}) — {cell.case.reason}"
        )
    start = Range(rng.start, Position(rng.start.line, rng.start.character))
    return Mark(
        rng.start.line, start, f"{passed}/{len(cells)} passed", "\n\n".join(lines), _MARK_KIND.get(worst, "error")
    )
