"""JSON (and JSON Lines) text → node tree, with exact spans.

The standard ``json`` module keeps no positions, so this is a small scanner. It
accepts trailing commas (reporting each, with an edit that removes it) so the rest
of a hand-edited file can still be checked.
"""

from __future__ import annotations

import json
import re
from json.decoder import scanstring  # type: ignore[attr-defined]

from rubric_lsp.document import issues as K
from rubric_lsp.document.issues import ParseIssue, TextEdit
from rubric_lsp.document.limits import Limits
from rubric_lsp.document.nodes import MAP, SCALAR, SEQ, Node
from rubric_lsp.document.positions import LineIndex, Span

_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_LITERALS = {"true": True, "false": False, "null": None}
# Python's json module (so autorubric, NorthStar) reads these; strict JSON parsers do not.
_PYTHON_NUMBERS = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}


class _Fail(Exception):
    def __init__(self, message: str, offset: int, kind: str = K.SYNTAX_ERROR) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset
        self.kind = kind


def read_json(
    text: str, lines: LineIndex, limits: Limits, base: int = 0, end: int | None = None
) -> tuple[Node | None, list[ParseIssue]]:
    """Read one JSON value from ``text[base:end]`` (offsets stay relative to ``text``)."""
    parser = _Parser(text, limits, end if end is not None else len(text))
    if base == 0 and text.startswith("\ufeff"):
        base = 1  # a byte-order mark: reported by parse_document (utf8-bom), read past here
    try:
        pos = parser.skip(base)
        if pos >= parser.end:
            return None, []
        node, pos = parser.value(pos, 0)
        pos = parser.skip(pos)
        if pos < parser.end:
            raise _Fail("Extra data after the JSON value", pos)
    except _Fail as fail:
        issue = ParseIssue(
            fail.kind,
            fail.message if fail.kind != K.SYNTAX_ERROR else f"JSON syntax error: {fail.message}",
            lines.single_line_span(fail.offset),
            fatal=True,
        )
        return None, [issue]
    return node, parser.trailing_comma_issues(lines)


def read_jsonl(text: str, lines: LineIndex, limits: Limits) -> tuple[Node | None, list[ParseIssue]]:
    """Each non-blank line is one JSON value; a bad line is reported on its own line."""
    elements: list[Node] = []
    issues: list[ParseIssue] = []
    for number in range(lines.line_count):
        start = lines.line_starts[number]
        stop = lines.line_end(number)
        if not text[start:stop].strip():
            continue
        node, line_issues = read_json(text, lines, limits, start, stop)
        for issue in line_issues:
            if issue.kind != K.TRAILING_COMMA:  # that message already names its line
                issue.message = f"line {number + 1}: {issue.message}"
            issue.fatal = False
        issues.extend(line_issues)
        if node is not None:
            elements.append(node)
        elif not line_issues:
            continue
    root = Node(SEQ, 0, len(text), elements, "jsonl")
    return root, issues


class _Parser:
    def __init__(self, text: str, limits: Limits, end: int) -> None:
        self.text = text
        self.limits = limits
        self.end = end
        self.trailing: list[int] = []

    def skip(self, pos: int) -> int:
        match = _WS.match(self.text, pos, self.end)
        assert match is not None  # the pattern matches the empty string
        return match.end()

    def value(self, pos: int, depth: int) -> tuple[Node, int]:
        if pos >= self.end:
            raise _Fail("unexpected end of input, expected a value", max(pos - 1, 0))
        ch = self.text[pos]
        if ch == '"':
            return self.string(pos)
        if ch == "{":
            return self.obj(pos, depth + 1)
        if ch == "[":
            return self.array(pos, depth + 1)
        m = _NUMBER.match(self.text, pos, self.end)
        if m:
            raw = m.group()
            number = float(raw) if ("." in raw or "e" in raw or "E" in raw) else int(raw)
            return Node(SCALAR, pos, m.end(), number, "number", None, raw), m.end()
        for word, number in _PYTHON_NUMBERS.items():
            if self.text.startswith(word, pos) and pos + len(word) <= self.end:
                return Node(SCALAR, pos, pos + len(word), number, "number", None, word), pos + len(word)
        for word, literal in _LITERALS.items():
            if self.text.startswith(word, pos) and pos + len(word) <= self.end:
                return Node(SCALAR, pos, pos + len(word), literal, word, None, word), pos + len(word)
        if ch in "}]":
            raise _Fail(f"expected a value, found '{ch}'", pos)
        raise _Fail(
            f"expected a value, found {self.text[pos : pos + 12].split()[0]!r}"
            if self.text[pos : pos + 12].split()
            else "expected a value",
            pos,
        )

    def string(self, pos: int) -> tuple[Node, int]:
        # The C scanner behind json.loads: a regex over the whole string kept a backtracking
        # frame per character (a 9 MiB string peaked at 1.1 GB, issue 13 item 15).
        try:
            value, stop = scanstring(self.text, pos + 1, True)
        except json.JSONDecodeError as exc:
            if exc.msg.startswith("Invalid \\") and self.text[exc.pos + 1 : exc.pos + 2] != "\n":
                raise _Fail(f"invalid escape in string ({exc.msg})", exc.pos) from None
            stop = self.end + 1  # unterminated, or a control character: told apart below
        if stop > self.end:
            close = self.text.find('"', pos + 1, self.end)
            newline = self.text.find("\n", pos, self.end)
            if close == -1 or (newline != -1 and newline < close):
                raise _Fail("unterminated string", pos)
            raise _Fail("invalid character in string (control characters must be escaped)", pos)
        return Node(SCALAR, pos, stop, value, "string", '"', self.text[pos:stop]), stop

    def _check_depth(self, pos: int, depth: int) -> None:
        if depth > self.limits.max_depth:
            raise _Fail(
                f"Nesting deeper than {self.limits.max_depth} levels; refusing to read this file "
                "(no rubric or config nests this deep).",
                pos,
                K.TOO_DEEP,
            )

    def obj(self, start: int, depth: int) -> tuple[Node, int]:
        self._check_depth(start, depth)
        node = Node(MAP, start, start, [], "object")
        pos = self.skip(start + 1)
        if pos < self.end and self.text[pos] == "}":
            node.end = pos + 1
            return node, pos + 1
        while True:
            if pos >= self.end:
                raise _Fail("unexpected end of input inside an object (missing '}')", max(pos - 1, start))
            if self.text[pos] != '"':
                raise _Fail("expected a property name in double quotes", pos)
            key, pos = self.string(pos)
            pos = self.skip(pos)
            if pos >= self.end or self.text[pos] != ":":
                raise _Fail("expected ':' after the property name", pos if pos < self.end else key.end)
            pos = self.skip(pos + 1)
            value, pos = self.value(pos, depth)
            node.value.append((key, value))
            pos = self.skip(pos)
            if pos >= self.end:
                raise _Fail("unexpected end of input inside an object (missing '}')", max(pos - 1, start))
            ch = self.text[pos]
            if ch == "}":
                node.end = pos + 1
                return node, pos + 1
            if ch != ",":
                raise _Fail("expected ',' or '}' after a property value", pos)
            comma = pos
            pos = self.skip(pos + 1)
            if pos < self.end and self.text[pos] == "}":
                self.trailing.append(comma)
                node.end = pos + 1
                return node, pos + 1

    def array(self, start: int, depth: int) -> tuple[Node, int]:
        self._check_depth(start, depth)
        node = Node(SEQ, start, start, [], "array")
        pos = self.skip(start + 1)
        if pos < self.end and self.text[pos] == "]":
            node.end = pos + 1
            return node, pos + 1
        while True:
            value, pos = self.value(pos, depth)
            node.value.append(value)
            pos = self.skip(pos)
            if pos >= self.end:
                raise _Fail("unexpected end of input inside an array (missing ']')", max(pos - 1, start))
            ch = self.text[pos]
            if ch == "]":
                node.end = pos + 1
                return node, pos + 1
            if ch != ",":
                raise _Fail("expected ',' or ']' after an array element", pos)
            comma = pos
            pos = self.skip(pos + 1)
            if pos < self.end and self.text[pos] == "]":
                self.trailing.append(comma)
                node.end = pos + 1
                return node, pos + 1

    def trailing_comma_issues(self, lines: LineIndex) -> list[ParseIssue]:
        if not self.trailing:
            return []
        first = self.trailing[0]
        more = len(self.trailing) - 1
        line = lines.position(first).line + 1
        message = (
            f"Trailing comma on line {line}: JSON does not allow a comma before a closing "
            "bracket, so json.load and every tool built on it reject this file"
        )
        message += f" ({more} more below; the fix removes them all)." if more else "."
        return [
            ParseIssue(
                K.TRAILING_COMMA,
                message,
                Span(first, first + 1),
                related=[(Span(c, c + 1), "another trailing comma") for c in self.trailing[1:]],
                edits=[TextEdit(Span(c, c + 1), "") for c in self.trailing],
            )
        ]
