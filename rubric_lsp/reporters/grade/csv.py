"""``rubric grade --format csv``: a grading result for spreadsheets, one line per unit, from the same
rows as the JUnit file (``rows.py``), so both say the same thing. Cells a spreadsheet would run as a
formula are defused (OWASP's CSV injection advice); every text passes through the report redactor.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from typing import Any

from rubric_lsp.redaction import report_redactor
from rubric_lsp.reporters.grade.rows import rows

CSV_COLUMNS = ("suite", "name", "outcome", "verdict", "expected", "score", "weight", "reason", "error", "cached")


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _cell(text: str) -> str:
    """Text from a rubric or a judge, neutralised as OWASP advises: a leading quote makes it plain text."""
    return "'" + text if text.startswith(_FORMULA_START) else text


def _plain(value: Any, redact: Callable[[Any], Any]) -> Any:
    """A format's own cell: numbers as numbers, text neutralised like every other text cell."""
    if value is None:
        return ""
    return repr(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else redact(str(value))


def csv_text(result: Any) -> str:
    """One CSV row per criterion / assertion / label, with a header (``CSV_COLUMNS``, then the columns
    the format gives its units, in the order they first appear).

    Text cells (names, verdicts, reasons, errors) come from rubric authors and judges: any that a
    spreadsheet would run as a formula is neutralised; numbers are written as numbers.
    """
    report = report_redactor().report

    def redact(text: Any) -> Any:
        return _cell(report(text)) if text else report(text)

    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    table = rows(result)
    own = list(dict.fromkeys(name for row in table for name, _ in row.cells))
    writer.writerow([*CSV_COLUMNS, *map(redact, own)])
    for row in table:
        cells = dict(row.cells)
        writer.writerow(
            [
                redact(row.suite),
                redact(row.name),
                row.outcome,
                redact(row.verdict),
                redact(row.expected),
                "" if row.score is None else repr(row.score),
                "" if row.weight is None else repr(row.weight),
                redact(row.reason),
                redact(row.error),
                "yes" if row.cached else "",
                *(_plain(cells.get(name), redact) for name in own),
            ]
        )
    return buffer.getvalue()
