"""Applying fixes: non-overlapping minimal text edits, repeated until nothing changes."""

from __future__ import annotations

from rubric_lsp.diagnostics import Diagnostic
from rubric_lsp.document.issues import TextEdit


def apply_edits(text: str, edits: list[TextEdit]) -> str:
    """Apply edits (code-point spans into ``text``); they must not overlap."""
    out = []
    last = 0
    for edit in sorted(edits, key=lambda e: (e.span.start, e.span.end)):
        out.append(text[last : edit.span.start])
        out.append(edit.new_text)
        last = edit.span.end
    out.append(text[last:])
    return "".join(out)


def select_fixes(diagnostics: list[Diagnostic], unsafe: bool = False) -> tuple[list[TextEdit], int]:
    """Pick the fixes to apply together: each whole, none overlapping an earlier one."""
    chosen: list[TextEdit] = []
    taken: list[tuple[int, int]] = []
    count = 0
    for diag in diagnostics:
        fix = diag.fix
        if fix is None or (not fix.safe and not unsafe):
            continue
        spans = [(e.span.start, e.span.end) for e in fix.edits]
        if any(s < te and ts < e or (s == e == ts == te) for s, e in spans for ts, te in taken):
            continue
        chosen.extend(fix.edits)
        taken.extend(spans)
        count += 1
    return chosen, count
