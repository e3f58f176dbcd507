"""js-yaml 5.4.1's reader state and its leaf readers, ported to Python (half of ``js_yaml``).

A line-for-line port of ``src/parser/parser.ts`` as shipped in ``js-yaml/dist/js-yaml.mjs``
(the functions keep their names in snake_case, so the two can be read side by side). It only
recognises: events are kept as bare type codes, because the parser itself looks back at them
(``readBlockMapping`` after a property checks that a mapping event was emitted), and nothing
is built. What it must reproduce exactly is where js-yaml throws and with which message.

The text gets js-yaml's ``\\0`` terminator plus a few sentinel characters: JavaScript's
``charCodeAt`` past the end (or at -1) is NaN, equal to nothing, and a private-use character
compares unequal to everything the parser tests for, so indexing never needs a bounds check.
"""

from __future__ import annotations

import re

# Event type codes (js-yaml's EVENT_ID); only MAPPING is ever looked at again.
DOCUMENT, SEQUENCE, MAPPING, SCALAR, ALIAS, POP = range(6)
# parseNode's contexts.
FLOW_IN, FLOW_OUT, BLOCK_IN, BLOCK_OUT = 1, 2, 3, 4

_PAST_END = "\ue000" * 4
WS = " \t"
EOL = "\n\r"
WS_EOL = " \t\n\r"
WS_EOL_END = "\0 \t\n\r"
FLOW_INDICATORS = ",[]{}"
_SIMPLE_ESCAPES = '0abt\tnvfre "/\\N_LP'

# js-yaml's patterns (JavaScript regexes without flags; ``fullmatch`` stands for ``^…$``).
NON_PRINTABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ufffe\uffff\ud800-\udfff]")
_NS_URI_CHAR = r"(?:%[0-9A-Fa-f]{2}|[0-9A-Za-z\-#;/?:@&=+$,_.!~*'()\[\]])"
_NS_TAG_CHAR = r"(?:%[0-9A-Fa-f]{2}|[0-9A-Za-z\-#;/?:@&=+$.~*'()_])"
TAG_HANDLE = re.compile(r"!|!!|![0-9A-Za-z-]+!")
_TAG_URI = re.compile(f"{_NS_URI_CHAR}*")
_TAG_SUFFIX = re.compile(f"{_NS_TAG_CHAR}+")
TAG_PREFIX = re.compile(f"!{_NS_URI_CHAR}*|{_NS_TAG_CHAR}{_NS_URI_CHAR}*")
_FLOW_INDICATOR = re.compile(r"[,\[\]{}]")
_LINE_END = re.compile(r"[\n\r\0]")
# Runs of characters a scalar reader handles one by one without a decision (see the readers).
_BLOCK_PLAIN_RUN = re.compile(r"[^:#\n\r\0]+")
_FLOW_PLAIN_RUN = re.compile(r"[^:#\n\r\0,\[\]{}]+")
_SINGLE_QUOTED_RUN = re.compile("[^'\x00-\x08\x0a-\x1f]*")
_DOUBLE_QUOTED_RUN = re.compile('[^"\\\\\x00-\x08\x0a-\x1f]*')


class JsYamlError(Exception):
    """js-yaml's YAMLException: ``reason`` at code-point ``position``."""

    def __init__(self, position: int, reason: str) -> None:
        super().__init__(reason)
        self.position = position
        self.reason = reason


class Props:
    __slots__ = ("anchor", "tag")

    def __init__(self) -> None:
        self.anchor = -1  # anchorStart
        self.tag = -1  # tagStart


class Snapshot:
    __slots__ = ("events", "first_tab", "line", "line_indent", "line_start", "position")

    def __init__(self, state: State) -> None:
        self.position = state.position
        self.line = state.line
        self.line_start = state.line_start
        self.line_indent = state.line_indent
        self.first_tab = state.first_tab
        self.events = len(state.events)


class State:
    def __init__(self, text: str, max_depth: int = 100) -> None:
        self.s = text + "\0" + _PAST_END
        self.length = len(text)
        self.position = 0
        self.line = 0
        self.line_start = 0
        self.line_indent = 0
        self.first_tab = -1
        self.depth = 0
        self.max_depth = max_depth
        self.tag_handlers: dict[str, str] = {}
        self.has_yaml_directive = False
        self.events: list[int] = []

    def fail(self, reason: str) -> JsYamlError:
        return JsYamlError(self.position, reason)

    def restore(self, snap: Snapshot) -> None:
        self.position = snap.position
        self.line = snap.line
        self.line_start = snap.line_start
        self.line_indent = snap.line_indent
        self.first_tab = snap.first_tab
        del self.events[snap.events :]

    def empty_scalar(self) -> None:
        self.events.append(SCALAR)


def consume_line_break(st: State) -> None:
    s = st.s
    if s[st.position] == "\n":
        st.position += 1
    else:
        st.position += 1
        if s[st.position] == "\n":
            st.position += 1
    st.line += 1
    st.line_start = st.position
    st.line_indent = 0
    st.first_tab = -1


def skip_separation_space(st: State, allow_comments: bool) -> int:
    s = st.s
    line_breaks = 0
    ch = s[st.position]
    has_separation = st.position == st.line_start or s[st.position - 1] in WS_EOL
    while ch != "\0":
        while ch == " " or ch == "\t":
            has_separation = True
            if ch == "\t" and st.first_tab == -1:
                st.first_tab = st.position
            st.position += 1
            ch = s[st.position]
        if allow_comments and has_separation and ch == "#":
            st.position = _LINE_END.search(s, st.position + 1).start()  # type: ignore[union-attr]
            ch = s[st.position]
        if ch != "\n" and ch != "\r":
            break
        consume_line_break(st)
        line_breaks += 1
        has_separation = True
        ch = s[st.position]
        while ch == " ":
            st.line_indent += 1
            st.position += 1
            ch = s[st.position]
    return line_breaks


def test_document_separator(st: State, position: int | None = None) -> bool:
    s = st.s
    p = st.position if position is None else position
    ch = s[p]
    if (ch == "-" or ch == ".") and s[p + 1] == ch and s[p + 2] == ch:
        return s[p + 3] in WS_EOL_END
    return False


def skip_byte_order_mark(st: State) -> None:
    if st.position == st.line_start and st.s[st.position] == "\ufeff":
        st.position += 1
        st.line_start = st.position


def test_document_boundary(st: State) -> bool:
    if st.position != st.line_start:
        return False
    if test_document_separator(st):
        return True
    if st.s[st.position] != "\ufeff":
        return False
    snap = Snapshot(st)
    skip_byte_order_mark(st)
    skip_separation_space(st, True)
    ch = st.s[st.position]
    result = st.position == st.line_start and (ch == "%" or (ch == "-" and test_document_separator(st)))
    st.restore(snap)
    return result


def skip_until_line_end(st: State) -> None:
    st.position = _LINE_END.search(st.s, st.position).start()  # type: ignore[union-attr]


def check_printable(st: State, start: int, end: int) -> None:
    if NON_PRINTABLE.search(st.s, start, end) is not None:
        raise st.fail("the stream contains non-printable characters")


def read_tag_property(st: State, props: Props, in_flow: bool) -> bool:
    s = st.s
    if s[st.position] != "!":
        return False
    if props.tag != -1:
        raise st.fail("duplication of a tag property")
    start = st.position
    verbatim = named = False
    handle = "!"
    st.position += 1
    ch = s[st.position]
    if ch == "<":
        verbatim = True
        st.position += 1
        ch = s[st.position]
    elif ch == "!":
        named = True
        handle = "!!"
        st.position += 1
        ch = s[st.position]
    suffix_start = st.position
    if verbatim:
        while ch != "\0" and ch != ">":
            st.position += 1
            ch = s[st.position]
        if ch != ">":
            raise st.fail("unexpected end of the stream within a verbatim tag")
        name = s[suffix_start : st.position]
        st.position += 1
    else:
        while ch != "\0" and ch not in WS_EOL and not (in_flow and ch in FLOW_INDICATORS):
            if ch == "!":
                if named:
                    raise st.fail("tag suffix cannot contain exclamation marks")
                handle = s[suffix_start - 1 : st.position + 1]
                if TAG_HANDLE.fullmatch(handle) is None:
                    raise st.fail("named tag handle cannot contain such characters")
                named = True
                suffix_start = st.position + 1
            st.position += 1
            ch = s[st.position]
        name = s[suffix_start : st.position]
        if _FLOW_INDICATOR.search(name) is not None:
            raise st.fail("tag suffix cannot contain flow indicator characters")
    if name and (_TAG_URI if verbatim else _TAG_SUFFIX).fullmatch(name) is None:
        raise st.fail(f"tag name cannot contain such characters: {name}")
    if not verbatim and handle not in ("!", "!!") and handle not in st.tag_handlers:
        raise st.fail(f'undeclared tag handle "{handle}"')
    props.tag = start
    return True


def _read_name(st: State, what: str) -> None:
    s = st.s
    start = st.position
    while s[st.position] != "\0" and s[st.position] not in WS_EOL and s[st.position] not in FLOW_INDICATORS:
        st.position += 1
    if st.position == start:
        raise st.fail(f"name of an {what} node must contain at least one character")


def read_anchor_property(st: State, props: Props) -> bool:
    if st.s[st.position] != "&":
        return False
    if props.anchor != -1:
        raise st.fail("duplication of an anchor property")
    st.position += 1
    start = st.position
    _read_name(st, "anchor")
    props.anchor = start
    return True


def read_alias(st: State, props: Props) -> bool:
    if st.s[st.position] != "*":
        return False
    if props.anchor != -1 or props.tag != -1:
        raise st.fail("alias node should not have any properties")
    st.position += 1
    _read_name(st, "alias")
    st.events.append(ALIAS)
    return True


def read_flow_scalar_break(st: State, node_indent: int) -> None:
    skip_separation_space(st, False)
    if st.line_indent < node_indent:
        raise st.fail("deficient indentation")


def read_single_quoted_scalar(st: State, node_indent: int) -> bool:
    s = st.s
    if s[st.position] != "'":
        return False
    st.position += 1
    while s[st.position] != "\0":
        ch = s[st.position]
        if ch == "'":
            if s[st.position + 1] == "'":
                st.position += 2
                continue
            st.position += 1
            st.events.append(SCALAR)
            return True
        if ch == "\n" or ch == "\r":
            read_flow_scalar_break(st, node_indent)
        elif st.position == st.line_start and test_document_separator(st):
            raise st.fail("unexpected end of the document within a single quoted scalar")
        elif ch != "\t" and ch < " ":
            raise st.fail("expected valid JSON character")
        else:
            st.position = _SINGLE_QUOTED_RUN.match(s, st.position + 1).end()  # type: ignore[union-attr]
    raise st.fail("unexpected end of the stream within a single quoted scalar")


def read_double_quoted_scalar(st: State, node_indent: int) -> bool:
    s = st.s
    if s[st.position] != '"':
        return False
    st.position += 1
    while s[st.position] != "\0":
        ch = s[st.position]
        if ch == '"':
            st.position += 1
            st.events.append(SCALAR)
            return True
        if ch == "\\":
            st.position += 1
            escaped = s[st.position]
            if escaped == "\n" or escaped == "\r":
                read_flow_scalar_break(st, node_indent)
            elif escaped in _SIMPLE_ESCAPES:
                st.position += 1
            else:
                hex_length = {"x": 2, "u": 4, "U": 8}.get(escaped, 0)
                if hex_length == 0:
                    raise st.fail("unknown escape sequence")
                for _ in range(hex_length):
                    st.position += 1
                    if s[st.position] not in "0123456789abcdefABCDEF":
                        raise st.fail("expected hexadecimal character")
                st.position += 1
        elif ch == "\n" or ch == "\r":
            read_flow_scalar_break(st, node_indent)
        elif st.position == st.line_start and test_document_separator(st):
            raise st.fail("unexpected end of the document within a double quoted scalar")
        elif ch != "\t" and ch < " ":
            raise st.fail("expected valid JSON character")
        else:
            st.position = _DOUBLE_QUOTED_RUN.match(s, st.position + 1).end()  # type: ignore[union-attr]
    raise st.fail("unexpected end of the stream within a double quoted scalar")


def read_block_scalar(st: State, parent_indent: int) -> bool:  # noqa: C901 - kept whole to read beside js-yaml's
    s = st.s
    if s[st.position] not in "|>":
        return False
    st.position += 1
    keep_or_strip = False
    indent = -1
    detected = False
    while s[st.position] != "\0":
        current = s[st.position]
        if current == "+" or current == "-":
            if keep_or_strip:
                raise st.fail("repeat of a chomping mode identifier")
            keep_or_strip = True
            st.position += 1
        elif "0" <= current <= "9":
            if current == "0":
                raise st.fail("bad explicit indentation width of a block scalar; it cannot be less than one")
            if detected:
                raise st.fail("repeat of an indentation width identifier")
            indent = parent_indent + int(current) - 1
            detected = True
            st.position += 1
        else:
            break
    had_whitespace = False
    while s[st.position] in WS:
        had_whitespace = True
        st.position += 1
    if had_whitespace and s[st.position] == "#":
        skip_until_line_end(st)
    if s[st.position] in EOL:
        consume_line_break(st)
    elif s[st.position] != "\0":
        raise st.fail("a line break is expected")
    content_indent = indent if detected else -1
    max_leading_indent = 0
    value_start = value_end = st.position
    while s[st.position] != "\0":
        line_position = st.position
        column = 0
        while s[line_position + column] == " ":
            column += 1
        first = s[line_position + column]
        if first == "\0":
            break  # (js-yaml moves valueEnd over trailing spaces here: nothing it checks)
        if test_document_boundary(st):
            break
        blank = first in EOL
        if not detected and content_indent == -1:
            if blank:
                max_leading_indent = max(max_leading_indent, column)
            else:
                if first == "\t" and column < parent_indent:
                    st.position = line_position + column
                    raise st.fail("tab characters must not be used in indentation")
                if column < max_leading_indent:
                    st.position = line_position + column
                    raise st.fail("bad indentation of a mapping entry")
        if content_indent == -1 and not blank and column < parent_indent:
            st.line_indent = column
            st.position = line_position + column
            break
        if not detected and not blank and content_indent == -1:
            content_indent = column
        required = parent_indent + 1 if content_indent == -1 else content_indent
        if not blank and column < required:
            st.line_indent = column
            st.position = line_position + column
            break
        skip_until_line_end(st)
        value_end = st.position
        if s[st.position] in EOL:
            consume_line_break(st)
            value_end = st.position
    check_printable(st, value_start, value_end)
    st.events.append(SCALAR)
    return True


def can_start_plain_scalar(st: State, context: int) -> bool:
    s = st.s
    ch = s[st.position]
    in_flow = context == FLOW_IN
    if ch in "\0 \t\n\r#&*!|>'\"%@`" or (in_flow and ch in FLOW_INDICATORS):
        return False
    if ch == "?" or ch == "-":
        following = s[st.position + 1]
        if following in WS_EOL_END or (in_flow and following in FLOW_INDICATORS):
            return False
    return True


def read_plain_scalar(st: State, node_indent: int, context: int) -> bool:
    if not can_start_plain_scalar(st, context):
        return False
    s = st.s
    start = end = st.position
    ch = s[st.position]
    in_flow = context == FLOW_IN
    while ch != "\0":
        if st.position == st.line_start and test_document_boundary(st):
            break
        if ch == ":":
            following = s[st.position + 1]
            if following in WS_EOL_END or (in_flow and following in FLOW_INDICATORS):
                break
        elif ch == "#":
            if s[st.position - 1] in WS_EOL:
                break
        elif in_flow and ch in FLOW_INDICATORS:
            break
        elif ch == "\n" or ch == "\r":
            saved = (st.position, st.line, st.line_start, st.line_indent)  # firstTabInLine is not restored
            skip_separation_space(st, False)
            if st.line_indent >= node_indent:
                ch = s[st.position]
                continue
            st.position, st.line, st.line_start, st.line_indent = saved
            break
        else:
            # A run of characters none of the tests above looks at, taken at once (C speed).
            run_end = (_FLOW_PLAIN_RUN if in_flow else _BLOCK_PLAIN_RUN).match(s, st.position).end()  # type: ignore[union-attr]
            content = s[st.position : run_end].rstrip(" \t")
            if content:
                end = st.position + len(content)
            st.position = run_end
            ch = s[st.position]
            continue
        if ch != " " and ch != "\t":
            end = st.position + 1
        st.position += 1
        ch = s[st.position]
    if end == start:
        return False
    check_printable(st, start, end)
    st.events.append(SCALAR)
    return True
