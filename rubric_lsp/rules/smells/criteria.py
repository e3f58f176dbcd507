"""What a format hands the smell rules: its criterion texts, each with where its words are written
(``Format.criteria``, docs/smells.md). One hook per format, in ``formats/<fmt>/criteria.py``:
``(Document, view) -> list[RubricTexts]``; the detection never reads a format's nodes itself.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from rubric_lsp.document import Node
from rubric_lsp.document.positions import Span

if TYPE_CHECKING:
    from rubric_lsp.document import Document
    from rubric_lsp.document.issues import TextEdit

# "instruction": words the judge applies (a requirement, a model-graded value, a grader's rubric); "content":
# a reference the response is compared with (promptfoo's factuality value): only a few smells apply to it.
Scope = Literal["instruction", "content"]


@dataclass(frozen=True)
class Piece:
    """Text the judge reads, and the document offset of each of its characters (None: not in this file)."""

    text: str
    offsets: tuple[int, ...] | None
    anchor: Span  # where to report when the words cannot be placed (the node holding them)

    def span(self, start: int, end: int) -> Span:
        """Where the characters [start, end) of the text are written."""
        if self.offsets is None or not self.offsets or start >= len(self.offsets):
            return self.anchor
        end = max(start + 1, min(end, len(self.offsets)))
        return Span(self.offsets[start], self.offsets[end - 1] + 1)

    @classmethod
    def of(cls, node: Node, text: str, source: str) -> Piece:
        """The piece for the string ``text`` that the scalar ``node`` of the document ``source`` holds."""
        return cls(text, locate(text, source, node.start, node.end), node.span)

    @classmethod
    def elsewhere(cls, text: str, anchor: Span) -> Piece:
        """Text read from another file (``file://``): its findings are reported at ``anchor``."""
        return cls(text, None, anchor)


@dataclass(frozen=True)
class CriterionText:
    """One criterion: the unit a judge gives one verdict (or one level) on."""

    name: str  # how the file names it: "'accuracy'", "test 2 assertion 1"
    text: Piece
    levels: tuple[Piece, ...] = ()  # a scale's levels written apart from the text (autorubric options)
    penalty: bool = False  # a negative weight, a not- assertion: what it describes is penalised
    scope: Scope = "instruction"
    choice: bool = False  # picks the best of several responses (select-best)
    weight: float | None = None
    # Writes the criterion as two (``(first, second) -> edits``), where one edit can: autorubric's split.
    split: Callable[[str, str], list[TextEdit]] | None = None


@dataclass(frozen=True)
class RubricTexts:
    """Criteria scored together: a rubric, a test's assertions, a config's graders, a turn's criteria."""

    name: str
    anchor: Span
    criteria: tuple[CriterionText, ...]
    penalties: bool = False  # whether the format scores penalties (autorubric's negative weights)
    extra: dict[str, Any] = field(default_factory=dict)


CriteriaHook = Callable[["Document", Any], Sequence[RubricTexts]]


def locate(value: str, source: str, start: int, end: int) -> tuple[int, ...] | None:
    """Each character of the string ``value`` mapped to its offset in ``source[start:end]``, the scalar that
    spells it (quotes, escapes, a block scalar's indentation and folding skipped); None when they cannot be
    aligned (then findings are reported on the whole scalar)."""
    out: list[int] = []
    j = start
    for ch in value:
        found = -1
        for k in range(j, min(end, j + 80)):
            c = source[k]
            if c == ch or (ch.isspace() and c.isspace()):
                found = k
                break
            if c == "\\" and k + 1 < end and _ESCAPES.get(source[k + 1]) == ch:
                found = k
                break
        if found < 0:
            if j >= end:
                return None
            found = j
        out.append(found)
        j = found + 1
        if source[found] == "\\" and found + 1 < end:
            j = found + 2
            if source[found + 1] == "u":
                j = found + 6
    return tuple(out)


_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "/": "/", "'": "'", "r": "\r"}
