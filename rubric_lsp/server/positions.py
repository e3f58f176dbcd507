"""Code-point positions (the core's) ↔ the client's negotiated position encoding.

The core counts Unicode code points; LSP clients count UTF-16 code units unless they
negotiated UTF-8 or UTF-32. Conversion needs only the text of the line concerned.
"""

from __future__ import annotations

from lsprotocol import types

from rubric_lsp.document.positions import LineIndex, Position, Range, Span

UTF8, UTF16, UTF32 = "utf-8", "utf-16", "utf-32"


def _units(char: str, encoding: str) -> int:
    code = ord(char)
    if encoding == UTF8:
        return 1 if code < 0x80 else 2 if code < 0x800 else 3 if code < 0x10000 else 4
    if encoding == UTF16:
        return 2 if code >= 0x10000 else 1
    return 1


class Converter:
    """Converts positions for one text in one encoding."""

    __slots__ = ("encoding", "lines")

    def __init__(self, lines: LineIndex, encoding: str) -> None:
        self.lines = lines
        self.encoding = str(getattr(encoding, "value", encoding) or UTF16)

    # -- core → client ----------------------------------------------------------
    def position(self, pos: Position) -> types.Position:
        if self.encoding == UTF32 or pos.line >= self.lines.line_count:
            return types.Position(line=pos.line, character=pos.character)
        prefix = self.lines.line_text(pos.line)[: pos.character]
        if prefix.isascii():
            return types.Position(line=pos.line, character=pos.character)
        return types.Position(line=pos.line, character=sum(_units(c, self.encoding) for c in prefix))

    def range(self, rng: Range) -> types.Range:
        return types.Range(start=self.position(rng.start), end=self.position(rng.end))

    def span(self, span: Span) -> types.Range:
        return self.range(self.lines.range(span))

    # -- client → core ----------------------------------------------------------
    def offset(self, pos: types.Position) -> int:
        """Code-point offset of a client position (clamped into the text)."""
        if pos.line >= self.lines.line_count:
            return len(self.lines.text)
        line = self.lines.line_text(pos.line)
        if self.encoding == UTF32 or line.isascii():
            character = min(pos.character, len(line))
        else:
            units, character = 0, 0
            for char in line:
                if units >= pos.character:
                    break
                units += _units(char, self.encoding)
                character += 1
        return self.lines.line_starts[pos.line] + character

    def to_span(self, rng: types.Range) -> Span:
        return Span(self.offset(rng.start), self.offset(rng.end))
