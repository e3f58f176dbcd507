"""What JavaScript's ``new RegExp(pattern)`` refuses, and V8's word for it, without running JavaScript.

promptfoo 0.123.1's ``regex`` assertion compiles its value with ``new RegExp(renderedValue)`` (no
flags, src/assertions/regex.ts); a pattern V8 refuses fails the assertion ("Invalid regex pattern:
Invalid regular expression: /(?P<n>x)/: Invalid group"), ``not-regex`` included. The linter reports
these without loading a JavaScript engine, so this is the grammar V8 parses a pattern with when
it has no ``u`` or ``v`` flag (ECMAScript's Annex B.1.2: ``]``, ``}``, a ``{`` that opens no quantifier,
``\\Z``, ``\\p`` and ``\\k`` without named groups are literals; a quantified lookahead is allowed), as V8
14 parses it (regexp-parser.cc): modifiers ``(?i:…)`` and a group name repeated in different
alternatives are accepted, as in Node 24 (Node 22's V8 refuses both; README). A pattern is read as
JavaScript reads a string: in UTF-16 code units, so ``[😀-😁]`` is a range out of order.
``tests/test_promptfoo_js_regex.py`` checks every message against V8 itself on generated patterns.
"""

from __future__ import annotations

from dataclasses import dataclass, field

_SYNTAX = frozenset("^$\\.*+?()[]{}|/")
_CLASS_ESCAPES = frozenset("dDsSwW")
_CONTROL = {"t": 9, "n": 10, "v": 11, "f": 12, "r": 13}
_FLAGS = frozenset("ims")


class _Refused(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def refusal(pattern: str) -> str | None:
    """V8's message for ``new RegExp(pattern)`` ('Invalid group', 'Nothing to repeat', …), or None when it compiles.

    The whole text promptfoo prints is ``Invalid regular expression: /<pattern>/: <message>``."""
    units = pattern.encode("utf-16-le", "surrogatepass")
    text = "".join(chr(int.from_bytes(units[i : i + 2], "little")) for i in range(0, len(units), 2))
    try:
        _Parser(text).parse()
    except _Refused as refused:
        return refused.message
    return None


@dataclass
class _Group:
    kind: str  # "capture", "group", "lookahead", "lookbehind"
    path: tuple[tuple[int, int], ...]  # (disjunction id, alternative index) from the outside in


@dataclass
class _Parser:
    text: str
    pos: int = 0
    names: dict[str, list[tuple[tuple[int, int], ...]]] = field(default_factory=dict)
    references: list[str] = field(default_factory=list)
    disjunctions: int = 0

    def parse(self) -> None:
        self.has_names = self._scan_named_groups()
        self._disjunction(outer=True, path=())
        for name in self.references:
            if name not in self.names:
                raise _Refused("Invalid named capture referenced")

    # -- helpers

    def _peek(self, offset: int = 0) -> str | None:
        at = self.pos + offset
        return self.text[at] if at < len(self.text) else None

    def _scan_named_groups(self) -> bool:
        """Whether the pattern has a ``(?<name>`` group (V8 looks ahead: ``\\k`` means a reference then)."""
        i, in_class = 0, False
        while i < len(self.text):
            c = self.text[i]
            if c == "\\":
                i += 2
                continue
            if in_class:
                in_class = c != "]"
            elif c == "[":
                in_class = True
            elif self.text.startswith("(?<", i) and self.text[i + 3 : i + 4] not in ("=", "!"):
                return True
            i += 1
        return False

    # -- the disjunction

    def _disjunction(self, outer: bool, path: tuple[tuple[int, int], ...]) -> None:
        me = self.disjunctions
        self.disjunctions += 1
        alternative = 0
        while True:
            self._alternative((*path, (me, alternative)))
            c = self._peek()
            if c == "|":
                self.pos += 1
                alternative += 1
                continue
            if c is None:
                if not outer:
                    raise _Refused("Unterminated group")
                return
            if c == ")":
                if outer:
                    raise _Refused("Unmatched ')'")
                return

    def _alternative(self, path: tuple[tuple[int, int], ...]) -> None:
        while True:
            c = self._peek()
            if c is None or c in "|)":
                return
            quantifiable = self._term(path)
            if self._quantifier_follows():  # V8 refuses the quantifier before reading its numbers
                if quantifiable == "lookbehind":
                    raise _Refused("Invalid quantifier")
                if not quantifiable:
                    raise _Refused("Nothing to repeat")
                self._quantifier()

    def _term(self, path: tuple[tuple[int, int], ...]) -> bool | str:
        """Parse one term; whether a quantifier may follow it ('lookbehind': one refused as invalid)."""
        c = self._peek()
        assert c is not None
        if c in "^$":
            self.pos += 1
            return False
        if c in "*+?":
            raise _Refused("Nothing to repeat")
        if c == "{":
            if self._braced_quantifier(consume=False) is not None:
                raise _Refused("Nothing to repeat")
            self.pos += 1
            return True
        if c == "(":
            return self._group(path)
        if c == "[":
            self._class()
            return True
        if c == "\\":
            return self._atom_escape()
        self.pos += 1
        return True

    def _quantifier_follows(self) -> bool:
        c = self._peek()
        return c in ("*", "+", "?") or (c == "{" and self._braced_quantifier(consume=False) is not None)

    def _quantifier(self) -> bool:
        c = self._peek()
        if c in ("*", "+", "?"):
            self.pos += 1
        elif c == "{":
            bounds = self._braced_quantifier(consume=True)
            if bounds is None:
                return False
            low, high = bounds
            if high is not None and low > high:
                raise _Refused("numbers out of order in {} quantifier")
        else:
            return False
        if self._peek() == "?":
            self.pos += 1
        return True

    def _braced_quantifier(self, consume: bool) -> tuple[int, int | None] | None:
        """``{n}``, ``{n,}`` or ``{n,m}`` at the position (anything else is a literal ``{``)."""
        i = self.pos + 1
        start = i
        while i < len(self.text) and self.text[i].isascii() and self.text[i].isdigit():
            i += 1
        if i == start:
            return None
        low = int(self.text[start:i])
        high: int | None = low
        if i < len(self.text) and self.text[i] == ",":
            i += 1
            start = i
            while i < len(self.text) and self.text[i].isascii() and self.text[i].isdigit():
                i += 1
            high = int(self.text[start:i]) if i > start else None
        if i >= len(self.text) or self.text[i] != "}":
            return None
        if consume:
            self.pos = i + 1
        return low, high

    # -- groups

    def _group(self, path: tuple[tuple[int, int], ...]) -> bool | str:
        self.pos += 1  # (
        kind = "capture"
        name = None
        if self._peek() == "?":
            self.pos += 1
            c = self._peek()
            if c == ":":
                self.pos += 1
                kind = "group"
            elif c in ("=", "!"):
                self.pos += 1
                kind = "lookahead"
            elif c == "<" and self._peek(1) in ("=", "!"):
                self.pos += 2
                kind = "lookbehind"
            elif c == "<":
                self.pos += 1
                name = self._group_name()
            elif c is not None and (c in _FLAGS or c == "-"):
                self._modifiers()
                kind = "group"
            else:
                raise _Refused("Invalid group")
        self._disjunction(outer=False, path=path)
        self.pos += 1  # )
        if name is not None:  # V8 records a name when its group closes
            self._add_name(name, path)
        return "lookbehind" if kind == "lookbehind" else True

    def _modifiers(self) -> None:
        seen: set[str] = set()
        dash = False
        added = False
        while True:
            c = self._peek()
            if c is not None and c in _FLAGS:
                if c in seen:
                    raise _Refused("Repeated flag in flag group")
                seen.add(c)
                added = added or not dash
            elif c == "-":
                if dash:
                    raise _Refused("Multiple dashes in flag group")
                dash = True
            elif c == ":":
                if dash and not seen:
                    raise _Refused("Invalid flag group")
                self.pos += 1
                return
            else:
                raise _Refused("Invalid group")
            self.pos += 1

    def _group_name(self) -> str:
        """``name>`` after ``(?<`` or ``\\k<``: an IdentifierName (V8 reads it with Unicode semantics)."""
        name = ""
        while True:
            c = self._peek()
            if c is None:
                raise _Refused("Invalid capture group name")
            if c == ">":
                self.pos += 1
                if not name:
                    raise _Refused("Invalid capture group name")
                return name
            char = self._name_char()
            if not _identifier_char(char, first=not name):
                raise _Refused("Invalid capture group name")
            name += char

    def _name_char(self) -> str:
        c = self.text[self.pos]
        if c == "\\":
            if self._peek(1) != "u":
                raise _Refused("Invalid capture group name")
            self.pos += 2
            return self._unicode_escape_in_name()
        self.pos += 1
        if 0xD800 <= ord(c) <= 0xDBFF and self.pos < len(self.text) and 0xDC00 <= ord(self.text[self.pos]) <= 0xDFFF:
            low = self.text[self.pos]
            self.pos += 1
            return chr(0x10000 + ((ord(c) - 0xD800) << 10) + (ord(low) - 0xDC00))
        return c

    def _unicode_escape_in_name(self) -> str:
        if self._peek() == "{":
            end = self.text.find("}", self.pos)
            digits = self.text[self.pos + 1 : end] if end > 0 else ""
            if not digits or not _hex(digits) or int(digits, 16) > 0x10FFFF:
                raise _Refused("Invalid capture group name")
            self.pos = end + 1
            return chr(int(digits, 16))
        digits = self.text[self.pos : self.pos + 4]
        if len(digits) < 4 or not _hex(digits):
            raise _Refused("Invalid capture group name")
        self.pos += 4
        return chr(int(digits, 16))

    def _add_name(self, name: str, path: tuple[tuple[int, int], ...]) -> None:
        for other in self.names.get(name, []):
            if not _exclusive(other, path):
                raise _Refused("Duplicate capture group name")
        self.names.setdefault(name, []).append(path)

    # -- escapes

    def _atom_escape(self) -> bool:
        self.pos += 1  # backslash
        c = self._peek()
        if c is None:
            raise _Refused("\\ at end of pattern")
        if c in "bB":
            self.pos += 1
            return False
        if c == "k" and self.has_names:
            self.pos += 1
            if self._peek() != "<":
                raise _Refused("Invalid named reference")
            self.pos += 1
            self.references.append(self._group_name())
            return True
        self.pos += 1
        return True

    # -- character classes

    def _class(self) -> None:
        self.pos += 1  # [
        if self._peek() == "^":
            self.pos += 1
        while True:
            c = self._peek()
            if c is None:
                raise _Refused("Unterminated character class")
            if c == "]":
                self.pos += 1
                return
            low = self._class_atom()
            if self._peek() == "-" and self._peek(1) not in (None, "]"):
                self.pos += 1
                high = self._class_atom()
                if low is None or high is None:
                    continue  # a class escape beside '-': both sides and the dash are literal (Annex B)
                if low > high:
                    raise _Refused("Range out of order in character class")

    def _class_atom(self) -> int | None:
        """The code unit a class atom stands for; None for a class escape (``\\d``, ``\\w``, …)."""
        c = self._peek()
        if c is None:
            raise _Refused("Unterminated character class")
        self.pos += 1
        if c != "\\":
            return ord(c)
        e = self._peek()
        if e is None:
            raise _Refused("\\ at end of pattern")
        self.pos += 1
        if e in _CLASS_ESCAPES:
            return None
        if e == "k" and self.has_names:
            raise _Refused("Invalid escape")
        if e == "b":
            return 8
        if e in _CONTROL:
            return _CONTROL[e]
        if e == "c":
            nxt = self._peek()
            if nxt is not None and nxt.isascii() and (nxt.isalnum() or nxt == "_"):
                self.pos += 1
                return ord(nxt) % 32
            self.pos -= 1  # '\' alone is the atom; 'c' comes next
            return ord("\\")
        if e in "01234567":
            self.pos -= 1
            return self._octal()
        if e == "x" and _hex(self.text[self.pos : self.pos + 2]) and len(self.text[self.pos : self.pos + 2]) == 2:
            self.pos += 2
            return int(self.text[self.pos - 2 : self.pos], 16)
        if e == "u" and _hex(self.text[self.pos : self.pos + 4]) and len(self.text[self.pos : self.pos + 4]) == 4:
            self.pos += 4
            return int(self.text[self.pos - 4 : self.pos], 16)
        return ord(e)

    def _octal(self) -> int:
        value = int(self.text[self.pos])
        self.pos += 1
        for _ in range(2):
            c = self._peek()
            if c is None or c not in "01234567" or value * 8 + int(c) >= 256:
                break
            value = value * 8 + int(c)
            self.pos += 1
        return value


def _hex(text: str) -> bool:
    return bool(text) and all(c in "0123456789abcdefABCDEF" for c in text)


def _identifier_char(char: str, first: bool) -> bool:
    if char in "$_":
        return True
    if not first and char in "\u200c\u200d":
        return True
    return char.isidentifier() if first else ("a" + char).isidentifier()


def _exclusive(a: tuple[tuple[int, int], ...], b: tuple[tuple[int, int], ...]) -> bool:
    """Whether two groups sit in different alternatives of one disjunction (both can never match)."""
    for (da, aa), (db, ab) in zip(a, b):
        if da != db:
            return False
        if aa != ab:
            return True
    return False
