"""Offsets, positions and ranges.

Everything in the core counts in Unicode code points (what Python's ``str`` indexes);
the language server converts to the client's negotiated encoding at the edge.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from typing import Any

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True, slots=True)
class Position:
    line: int  # 0-based
    character: int  # 0-based, code points

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line, "character": self.character}


@dataclass(frozen=True, slots=True)
class Range:
    start: Position
    end: Position

    def to_json(self) -> dict[str, Any]:
        return {"start": self.start.to_json(), "end": self.end.to_json()}


@dataclass(frozen=True, slots=True)
class Span:
    """A half-open range of code-point offsets into a document's text."""

    start: int
    end: int


class LineIndex:
    """Converts between code-point offsets and (line, character) positions."""

    __slots__ = ("line_starts", "text")

    def __init__(self, text: str, line_starts: list[int] | None = None) -> None:
        self.text = text
        if line_starts is not None:
            self.line_starts = line_starts
            return
        if "\r" in text:
            # Line breaks as LSP clients and YAML count them: \r\n, \n, and a lone \r.
            self.line_starts = [0] + [m.end() for m in _LINE_BREAK.finditer(text)]
            return
        starts = [0]
        find = text.find
        i = find("\n")
        while i != -1:
            starts.append(i + 1)
            i = find("\n", i + 1)
        self.line_starts = starts

    def moved(self, text: str, at: int, delta: int) -> LineIndex:
        """The index of ``text``: this one's text with ``delta`` characters more (or fewer) at ``at``, no line
        break among them: the lines starting after ``at`` start ``delta`` later."""
        starts = self.line_starts
        after = bisect_right(starts, at)
        return LineIndex(text, starts[:after] + [start + delta for start in starts[after:]])

    @property
    def line_count(self) -> int:
        return len(self.line_starts)

    def position(self, offset: int) -> Position:
        offset = max(0, min(offset, len(self.text)))
        line = bisect_right(self.line_starts, offset) - 1
        return Position(line, offset - self.line_starts[line])

    def offset(self, position: Position) -> int:
        if position.line >= len(self.line_starts):
            return len(self.text)
        start = self.line_starts[position.line]
        return min(start + position.character, self.line_end(position.line))

    def line_end(self, line: int) -> int:
        """Offset of the end of ``line``, excluding its line break."""
        if line + 1 < len(self.line_starts):
            end = self.line_starts[line + 1] - 1
            if end > 0 and self.text[end - 1] == "\r":
                end -= 1
            return end
        return len(self.text)

    def line_text(self, line: int) -> str:
        return self.text[self.line_starts[line] : self.line_end(line)]

    def range(self, span: Span) -> Range:
        return Range(self.position(span.start), self.position(span.end))

    def single_line_span(self, offset: int, min_width: int = 1) -> Span:
        """A span starting at ``offset`` that stays on its line (for syntax errors)."""
        pos = self.position(offset)
        end = self.line_end(pos.line)
        if end <= offset:
            # At the end of a line: underline the character before, if any.
            start = max(self.line_starts[pos.line], offset - min_width)
            return Span(start, max(offset, start))
        return Span(offset, min(end, offset + max(min_width, 1)))
