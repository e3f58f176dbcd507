"""Applying fixes: non-overlapping minimal text edits in rounds, each round guarded.

The guard is the mechanical half of the fix-safety model (docs/fix-safety.md): the edits of
a round are kept only if the re-linted text is still readable and has no new finding at
warning or above. A round that fails is halved until the fixes to blame are found; those
are dropped (and reported), the rest are applied. A round costs one re-lint when nothing is
wrong, so fixing is linear in the number of fixes, not a re-lint per fix.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import accumulate, pairwise
from typing import TYPE_CHECKING

from rubric_lsp.diagnostics import Diagnostic, Severity
from rubric_lsp.document.issues import TextEdit
from rubric_lsp.document.positions import Span

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


class _Taken:
    """Spans already claimed by chosen fixes, sorted, for O(log n) overlap tests."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []

    def clashes(self, start: int, end: int) -> bool:
        # Overlap, or two insertions at the same point (their order would be arbitrary).
        i = bisect_left(self.starts, start)
        for j in (i - 1, i, i + 1):
            if 0 <= j < len(self.starts):
                ts, te = self.starts[j], self.ends[j]
                if (start < te and ts < end) or (start == end == ts == te):
                    return True
        return False

    def add(self, start: int, end: int) -> None:
        i = bisect_right(self.starts, start)
        self.starts.insert(i, start)
        self.ends.insert(i, end)


def _fixes(diagnostics: list[Diagnostic], unsafe: bool, skip: set[_FixKey] | None = None) -> list[Diagnostic]:
    """The findings whose fixes go together: each whole, none overlapping an earlier one."""
    chosen: list[Diagnostic] = []
    taken = _Taken()
    for diag in diagnostics:
        fix = diag.fix
        if fix is None or (not fix.safe and not unsafe) or not fix.edits:
            continue
        if skip and _fix_key(diag) in skip:
            continue
        spans = [(e.span.start, e.span.end) for e in fix.edits]
        if any(taken.clashes(s, e) for s, e in spans) or _self_overlap(spans):
            continue
        for s, e in spans:
            taken.add(s, e)
        chosen.append(diag)
    return chosen


def _self_overlap(spans: list[tuple[int, int]]) -> bool:
    ordered = sorted(spans)
    return any(b[0] < a[1] or (a[0] == a[1] == b[0] == b[1]) for a, b in pairwise(ordered))


def select_fixes(diagnostics: list[Diagnostic], unsafe: bool = False) -> tuple[list[TextEdit], int]:
    """Pick the fixes to apply together: each whole, none overlapping an earlier one."""
    chosen = _fixes(diagnostics, unsafe)
    return [e for d in chosen for e in d.fix.edits], len(chosen)  # type: ignore[union-attr]


@dataclass(slots=True)
class Dropped:
    """A fix the guard refused: where its finding was (0-based, in the text it was offered on) and why."""

    code: str
    message: str
    line: int
    character: int
    reason: str


@dataclass
class FixOutcome:
    text: str
    applied: int
    result: LintResult  # the lint of ``text``
    dropped: list[Dropped] = field(default_factory=list)
    settled: bool = True  # False: fixes were still on offer when the rounds ran out
    unsettled: int = 0  # how many fixes were still on offer then
    rounds: int = 0
    codes: list[str] = field(default_factory=list)  # the rule code of each fix applied (--show-fixes)


_NUMBERS = re.compile(r"\d+")
# (code, path, message with its digits masked), and for a fix the new texts of its edits.
_FindingKey = tuple[str, str | None, str]
_FixKey = tuple[str, str | None, str, tuple[str, ...]]


def _finding_key(diag: Diagnostic) -> _FindingKey:
    # Line numbers in messages move when a fix adds or removes a line: ignore digits.
    return (diag.code, diag.path, _NUMBERS.sub("#", diag.message))


def _fix_key(diag: Diagnostic) -> _FixKey:
    return (*_finding_key(diag), tuple(e.new_text for e in diag.fix.edits) if diag.fix else ())


def _serious(result: LintResult) -> Counter[_FindingKey]:
    return Counter(_finding_key(d) for d in result.diagnostics if d.severity <= Severity.WARNING)


def _verdict(before: LintResult, before_serious: Counter[_FindingKey], after: LintResult) -> str | None:
    """Why ``after`` is worse than ``before`` (None: it is not)."""
    if before.document.readable and not after.document.readable:
        return "it would stop the file from parsing"
    if before.format is not None and (after.format is None or after.format.name != before.format.name):
        return "it would change what kind of file this is taken for"
    added = _serious(after) - before_serious
    if added:
        (code, _path, message), _n = next(iter(added.items()))
        return f"it would add a finding: {code} {message}"
    return None


def _shift(edits: list[TextEdit], applied: list[TextEdit]) -> list[TextEdit]:
    """``edits`` (spans in a round's base text) moved to the text after ``applied`` (none overlapping them)."""
    if not applied:
        return edits
    ordered = sorted(applied, key=lambda e: (e.span.start, e.span.end))
    ends = [e.span.end for e in ordered]
    deltas = [0, *accumulate(len(e.new_text) - (e.span.end - e.span.start) for e in ordered)]
    out = []
    for edit in edits:
        # Applied edits ending at or before this one's start lie before it in the text (an
        # insertion at its start too: apply_edits puts it first).
        delta = deltas[bisect_right(ends, edit.span.start)]
        out.append(TextEdit(Span(edit.span.start + delta, edit.span.end + delta), edit.new_text))
    return out


class _Round:
    """One round: apply the chosen fixes together; on failure, halve to find the ones to drop.

    Edits keep their spans in the round's base text; ``done`` (also in base coordinates)
    says how far each moves once earlier fixes have gone in.
    """

    def __init__(self, relint: Callable[[str], LintResult], base: LintResult, count: int) -> None:
        self.relint = relint
        self.base = base
        self.base_serious = _serious(base)
        self.dropped: list[tuple[Diagnostic, str]] = []
        self.done: list[TextEdit] = []
        self.applied = 0
        self.codes: list[str] = []
        # Bisection costs a re-lint per step: a rule whose every fix fails must not cost one
        # re-lint per finding on a large file. Past the budget, a failing group is dropped whole.
        self.budget = 32 + 4 * count.bit_length()

    def run(self, chosen: list[Diagnostic]) -> LintResult:
        return self._try(self.base, chosen)

    def _try(self, current: LintResult, group: list[Diagnostic]) -> LintResult:
        originals = [e for d in group for e in d.fix.edits]  # type: ignore[union-attr]
        after = self.relint(apply_edits(current.document.text, _shift(originals, self.done)))
        self.budget -= 1
        reason = _verdict(self.base, self.base_serious, after)
        if reason is None:
            self.done.extend(originals)
            self.applied += len(group)
            self.codes.extend(d.code for d in group)
            return after
        if len(group) == 1 or self.budget <= 0:
            if len(group) > 1:
                reason = "left out with others: too many fixes in this round failed the check"
            self.dropped.extend((d, reason) for d in group)
            return current
        half = len(group) // 2
        return self._try(self._try(current, group[:half]), group[half:])


def fix_until_settled(
    result: LintResult, relint: Callable[[str], LintResult], unsafe: bool = False, rounds: int = MAX_FIX_ROUNDS
) -> FixOutcome:
    """Apply fixes round by round (``relint(text)`` lints with the caller's settings), guarded."""
    applied = 0
    codes: list[str] = []
    dropped: list[Dropped] = []
    refused: set[_FixKey] = set()
    seen = {result.document.text}
    for done in range(rounds):
        chosen = _fixes(result.diagnostics, unsafe, refused)
        if not chosen:
            return FixOutcome(result.document.text, applied, result, dropped, rounds=done, codes=codes)
        step = _Round(relint, result, len(chosen))
        after = step.run(chosen)
        for diag, reason in step.dropped:
            refused.add(_fix_key(diag))
            position = result.document.lines.position(diag.span.start)
            dropped.append(Dropped(diag.code, diag.message, position.line, position.character, reason))
        applied += step.applied
        codes.extend(step.codes)
        result = after
        if result.document.text in seen and step.applied:  # back to an earlier text: fixes undo each other
            break
        seen.add(result.document.text)
    left = len(_fixes(result.diagnostics, unsafe, refused))
    return FixOutcome(
        result.document.text, applied, result, dropped, settled=not left, unsettled=left, rounds=rounds, codes=codes
    )


def fix_all(result: LintResult, relint: Callable[[str], LintResult], unsafe: bool = False) -> tuple[str, int]:
    """The text after the guarded fix rounds and how many fixes went in (see fix_until_settled)."""
    outcome = fix_until_settled(result, relint, unsafe=unsafe)
    return outcome.text, outcome.applied
