"""Applying fixes: non-overlapping minimal text edits, repeated until nothing changes."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from rubric_lsp.diagnostics import Diagnostic
from rubric_lsp.document.issues import TextEdit

if TYPE_CHECKING:
    from rubric_lsp.lint import LintResult

# A fix can expose the next one (or collide with one); a few rounds settle any real file.
MAX_FIX_ROUNDS = 8


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
        if any((s < te and ts < e) or (s == e == ts == te) for s, e in spans for ts, te in taken):
            continue
        chosen.extend(fix.edits)
        taken.extend(spans)
        count += 1
    return chosen, count


def fix_all(result: LintResult, relint: Callable[[str], LintResult], unsafe: bool = False) -> tuple[str, int]:
    """The text after applying fixes round by round, re-linting between rounds.

    Returns the text and how many fixes were applied. ``relint(text)`` lints with the
    caller's settings (the CLI and the server each pass their own).
    """
    text = result.document.text
    total = 0
    for _ in range(MAX_FIX_ROUNDS):
        edits, count = select_fixes(result.diagnostics, unsafe=unsafe)
        if not count:
            break
        text = apply_edits(text, edits)
        total += count
        result = relint(text)
    return text, total
