"""Which smells each calibration unit of a file has (docs/smells.md, "Smells and agreement"): the smell rules'
findings (as the editor shows them, with the file's settings) whose words lie inside each unit the file's
format names (``Format.calibration``'s ``document_units``). Format-neutral: spans only."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rubric_lsp.document.positions import Position, Span
from rubric_lsp.lint import LintResult, lint_text
from rubric_lsp.rules.smells.evidence import named, smells_within
from rubric_lsp.settings import settings_for


def unit_smells(text: str, path: str | None) -> dict[str, list[str]]:
    """Unit id -> the codes of its smells (every unit the format names, those without smells too)."""
    result = _smelled(text, path)
    hook = result.format.calibration_hook() if result.format is not None else None
    if hook is None or result.document.root is None:
        return {}
    units = hook.document_units(result.document, result.view)
    return {unit.id: smells_within(result.diagnostics, unit.extent or unit.span) for unit in units}


def _smelled(text: str, path: str | None) -> LintResult:
    """The file's lint with the smell rules on, as the editor runs them (the settings' ignores kept)."""
    return lint_text(text, path, settings=settings_for(Path(path)) if path else None, smells=True)


def smells_in_ranges(text: str, path: str | None, ranges: Sequence[Any]) -> dict[int, str]:
    """For each range (a result's JSON range, ``{"start": {"line", "character"}, "end": …}``, or None) that holds
    smells, its position -> the smells named: a dataset grading's criteria, beside their agreement figures."""
    found = _smelled(text, path)
    lines = found.document.lines
    out = {}
    for index, where in enumerate(ranges):
        if not isinstance(where, Mapping):
            continue
        try:
            start, end = (Position(where[k]["line"], where[k]["character"]) for k in ("start", "end"))
            codes = smells_within(found.diagnostics, Span(lines.offset(start), lines.offset(end)))
        except (KeyError, TypeError, IndexError):
            continue
        if codes:
            out[index] = named(codes)
    return out
