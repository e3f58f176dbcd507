"""Where each line of an earlier text of a document is in its current text.

Verdicts are shown on the lines of the text that was graded; while the user edits, they
must stay on their criteria, and a criterion that was edited must lose its (now stale)
verdict. Lines are matched as a whole: an unchanged line maps to its new number, a changed
or deleted line to None. Works the same for incremental and whole-document changes, and
for edits made while a grading was running.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable

LineMap = Callable[[int], "int | None"]

# Beyond this many line pairs in the changed middle (a whole file replaced), matching costs
# more than it saves: the middle's lines are treated as changed.
MAX_MATCHED_PAIRS = 4_000_000


def line_map(old: str, new: str) -> LineMap:
    old_lines, new_lines = old.split("\n"), new.split("\n")
    # A keystroke changes one line of many: the common head and tail map without diffing.
    shortest = min(len(old_lines), len(new_lines))
    head = 0
    while head < shortest and old_lines[head] == new_lines[head]:
        head += 1
    tail = 0
    while tail < shortest - head and old_lines[-1 - tail] == new_lines[-1 - tail]:
        tail += 1
    old_middle = old_lines[head : len(old_lines) - tail]
    new_middle = new_lines[head : len(new_lines) - tail]
    moved: dict[int, int] = {}
    if old_middle and new_middle and len(old_middle) * len(new_middle) <= MAX_MATCHED_PAIRS:
        matcher = difflib.SequenceMatcher(None, old_middle, new_middle, autojunk=False)
        for tag, old_start, old_end, new_start, _ in matcher.get_opcodes():
            if tag == "equal":
                for k in range(old_end - old_start):
                    moved[head + old_start + k] = head + new_start + k
    shift = len(new_lines) - len(old_lines)
    first_of_tail = len(old_lines) - tail

    def where(line: int) -> int | None:
        if line < head:
            return line
        if line >= first_of_tail:
            return line + shift if line < len(old_lines) else None
        return moved.get(line)

    return where
