"""Which smells each calibration unit of a file has (docs/smells.md, "Smells and agreement"): the smell rules'
findings (as the editor shows them, with the file's settings) whose words lie inside each unit the file's
format names (``Format.calibration``'s ``document_units``). Format-neutral: spans only."""

from __future__ import annotations

from pathlib import Path

from rubric_lsp.lint import lint_text
from rubric_lsp.rules.smells.evidence import smells_within
from rubric_lsp.settings import settings_for


def unit_smells(text: str, path: str | None) -> dict[str, list[str]]:
    """Unit id -> the codes of its smells (every unit the format names, those without smells too)."""
    settings = settings_for(Path(path)) if path else None
    result = lint_text(text, path, settings=settings, smells=True)
    hook = result.format.calibration_hook() if result.format is not None else None
    if hook is None or result.document.root is None:
        return {}
    units = hook.document_units(result.document, result.view)
    return {unit.id: smells_within(result.diagnostics, unit.extent or unit.span) for unit in units}
