"""js-yaml 5.4.1's collection readers, ``parseNode`` and the document level, ported (see ``js_yaml``).

Each function mirrors the one of the same name in js-yaml's ``src/parser/parser.ts``; the
comments mark where the port looks odd because js-yaml does.
"""

from __future__ import annotations

import re

from rubric_lsp.document.js_yaml_scan import (
    BLOCK_IN,
    BLOCK_OUT,
    DOCUMENT,
    EOL,
    FLOW_IN,
    FLOW_OUT,
    MAPPING,
    POP,
    SEQUENCE,
    TAG_HANDLE,
    TAG_PREFIX,
    WS,
    WS_EOL,
    WS_EOL_END,
    JsYamlError,
    Props,
    Snapshot,
    State,
    consume_line_break,
    read_alias,
    read_anchor_property,
    read_block_scalar,
    read_double_quoted_scalar,
    read_plain_scalar,
    read_single_quoted_scalar,
    read_tag_property,
    skip_byte_order_mark,
    skip_separation_space,
    test_document_boundary,
    test_document_separator,
)

_YAML_VERSION = re.compile(r"([0-9]+)\.([0-9]+)")


def skip_flow_separation_space(st: State, node_indent: int) -> None:
    start_line = st.line
    skip_separation_space(st, True)
    if st.line_indent < node_indent and (st.line > start_line or st.first_tab != -1):
        raise st.fail("deficient indentation")


def read_flow_collection(st: State, node_indent: int) -> bool:  # noqa: C901 - kept whole to read beside js-yaml's
    s = st.s
    ch = s[st.position]
    if ch != "[" and ch != "{":
        return False
    is_mapping = ch == "{"
    terminator = "}" if is_mapping else "]"
    st.events.append(MAPPING if is_mapping else SEQUENCE)
    read_next = True
    st.position += 1
    while s[st.position] != "\0":
        skip_flow_separation_space(st, node_indent)
        ch = s[st.position]
        if ch == terminator:
            st.position += 1
            st.events.append(POP)
            return True
        if not read_next:
            raise st.fail("missed comma between flow collection entries")
        if ch == ",":
            raise st.fail("expected the node content, but found ','")
        is_pair = is_explicit_pair = False
        if ch == "?" and s[st.position + 1] in WS_EOL:
            is_pair = is_explicit_pair = True
            st.position += 1
            skip_flow_separation_space(st, node_indent)
        entry_line = st.line
        entry_events = len(st.events)
        key_read = parse_node(st, node_indent, FLOW_IN, False, True)
        skip_flow_separation_space(st, node_indent)
        ch = s[st.position]
        if (is_mapping or is_explicit_pair or st.line == entry_line) and ch == ":":
            st.position += 1
            skip_flow_separation_space(st, node_indent)
            if not is_mapping:
                st.events.insert(entry_events, MAPPING)
            if not key_read:
                st.empty_scalar()
            if not parse_node(st, node_indent, FLOW_IN, False, True):
                st.empty_scalar()
            skip_flow_separation_space(st, node_indent)
            if not is_mapping:
                st.events.append(POP)
        elif is_mapping:
            if is_pair and not key_read:
                st.empty_scalar()
            st.empty_scalar()
        elif is_pair:
            st.events.insert(entry_events, MAPPING)
            if not key_read:
                st.empty_scalar()
            st.empty_scalar()
            st.events.append(POP)
        if s[st.position] == ",":
            read_next = True
            st.position += 1
        else:
            read_next = False
    raise st.fail("unexpected end of the stream within a flow collection")


def _at_sequence_entry(st: State) -> bool:
    return st.s[st.position] == "-" and st.s[st.position + 1] in WS_EOL_END


def read_block_sequence(st: State, node_indent: int) -> bool:
    if st.first_tab != -1 or not _at_sequence_entry(st):
        return False
    st.events.append(SEQUENCE)
    while _at_sequence_entry(st):
        if st.first_tab != -1:
            st.position = st.first_tab
            raise st.fail("tab characters must not be used in indentation")
        entry_line = st.line
        st.position += 1
        had_break = skip_separation_space(st, True) > 0
        if st.first_tab != -1 and _at_sequence_entry(st):
            raise st.fail("bad indentation of a sequence entry")
        if had_break and st.line_indent <= node_indent:
            st.empty_scalar()
        else:
            parse_node(st, node_indent, BLOCK_IN, False, True)
        skip_separation_space(st, True)
        if st.line_indent < node_indent or st.position >= st.length:
            break
        if st.line_indent > node_indent:
            raise st.fail("bad indentation of a sequence entry")
        if st.line == entry_line and _at_sequence_entry(st):
            raise st.fail("bad indentation of a sequence entry")
    st.events.append(POP)
    return True


def read_block_mapping(st: State, node_indent: int, flow_indent: int, props: Props) -> bool:  # noqa: C901 - kept whole to read beside js-yaml's
    s = st.s
    at_explicit_key = detected = opened = pending_explicit_key = False
    if st.first_tab != -1:
        return False
    ch = s[st.position]
    while ch != "\0":
        if not at_explicit_key and st.first_tab != -1:
            st.position = st.first_tab
            raise st.fail("tab characters must not be used in indentation")
        following = s[st.position + 1]
        entry_line = st.line
        if (ch == "?" or ch == ":") and following in WS_EOL_END:
            if not opened:
                st.events.append(MAPPING)
                opened = True
            if ch == "?":
                if at_explicit_key:
                    st.empty_scalar()
                detected = at_explicit_key = True
            elif at_explicit_key:
                at_explicit_key = False
            else:
                st.empty_scalar()
                detected = True
                at_explicit_key = False
            st.position += 1
            pending_explicit_key = True
        else:
            if at_explicit_key:
                st.empty_scalar()
                at_explicit_key = False
            before_key = Snapshot(st)
            if not parse_node(st, flow_indent, FLOW_OUT, False, True):
                break
            if st.line != entry_line:
                if detected:
                    raise st.fail("can not read a block mapping entry; a multiline key may not be an implicit key")
                return _not_a_mapping(st, props, before_key)
            ch = s[st.position]
            while ch in WS:
                st.position += 1
                ch = s[st.position]
            if ch != ":":
                if detected:
                    raise st.fail("expected ':' after a mapping key")
                return _not_a_mapping(st, props, before_key)
            st.position += 1
            if s[st.position] not in WS_EOL_END:
                raise st.fail("a whitespace character is expected after the key-value separator within a block mapping")
            if not opened:  # re-read the key behind the mapping's own event
                st.restore(before_key)
                st.events.append(MAPPING)
                opened = True
                parse_node(st, flow_indent, FLOW_OUT, False, True)
                while s[st.position] in WS:
                    st.position += 1
                st.position += 1
            detected = True
            at_explicit_key = pending_explicit_key = False
        if parse_node(st, node_indent, BLOCK_OUT, True, pending_explicit_key):
            pending_explicit_key = False
        if not at_explicit_key and pending_explicit_key:
            st.empty_scalar()
            pending_explicit_key = False
        skip_separation_space(st, True)
        ch = s[st.position]
        if (st.line == entry_line or st.line_indent > node_indent) and ch != "\0":
            raise st.fail("bad indentation of a mapping entry")
        if st.line_indent < node_indent:
            break
    if not detected:
        return False
    if at_explicit_key:
        st.empty_scalar()
    if opened:
        st.events.append(POP)
    return True


def _not_a_mapping(st: State, props: Props, before_key: Snapshot) -> bool:
    """A lone node where a mapping could have started: it was the node itself, unless it had properties."""
    if props.anchor != -1 or props.tag != -1:
        st.restore(before_key)
        return False
    return True


def _indent_status(st: State, parent_indent: int) -> int:
    if st.line_indent > parent_indent:
        return 1
    return 0 if st.line_indent == parent_indent else -1


def _mapping_at(st: State, index: int) -> bool:
    return index < len(st.events) and st.events[index] == MAPPING


def parse_node(  # noqa: C901 - js-yaml's parseNode, kept whole to read beside it
    st: State,
    parent_indent: int,
    context: int,
    allow_to_seek: bool,
    allow_compact: bool,
    allow_property_mapping: bool = True,
) -> bool:
    if st.depth >= st.max_depth:
        raise st.fail(f"nesting exceeded maxDepth ({st.max_depth})")
    st.depth += 1
    s = st.s
    indent_status = 1
    at_new_line = has_content = False
    property_start: Snapshot | None = None
    props = Props()
    allow_block_styles = allow_block_scalars = allow_block_collections = context in (BLOCK_OUT, BLOCK_IN)
    if allow_to_seek and skip_separation_space(st, True):
        at_new_line = True
        indent_status = _indent_status(st, parent_indent)
    if indent_status == 1:
        while True:
            ch = s[st.position]
            if ch != "!" and ch != "&":
                break  # every step below needs a property's first character (saves a snapshot per node)
            property_state = Snapshot(st)
            if at_new_line and indent_status != 1 and ch in "!&":
                break
            if at_new_line and allow_block_styles and (props.tag != -1 or props.anchor != -1) and ch in "!&":
                fallback = Snapshot(st)
                if read_block_mapping(st, st.position - st.line_start, parent_indent + 1, props) and _mapping_at(
                    st, fallback.events
                ):
                    st.depth -= 1
                    return True
                st.restore(fallback)
            if at_new_line and ((ch == "!" and props.tag != -1) or (ch == "&" and props.anchor != -1)):
                break
            if not read_tag_property(st, props, context == FLOW_IN) and not read_anchor_property(st, props):
                break
            if property_start is None:
                property_start = property_state
            if skip_separation_space(st, True):
                at_new_line = True
                allow_block_collections = allow_block_styles
                indent_status = _indent_status(st, parent_indent)
            else:
                allow_block_collections = False
    if allow_block_collections:
        allow_block_collections = at_new_line or allow_compact
    if indent_status == 1 or context == BLOCK_OUT:
        flow_indent = parent_indent if context in (FLOW_IN, FLOW_OUT) else parent_indent + 1
        block_indent = st.position - st.line_start
        if indent_status == 1:
            if (
                allow_block_collections
                and (read_block_sequence(st, block_indent) or read_block_mapping(st, block_indent, flow_indent, props))
            ) or read_flow_collection(st, flow_indent):
                has_content = True
            else:
                ch = s[st.position]
                if (
                    property_start is not None
                    and allow_property_mapping
                    and allow_block_styles
                    and not allow_block_collections
                    and ch not in "|>"
                ):
                    fallback = Snapshot(st)
                    property_indent = property_start.position - property_start.line_start
                    st.restore(property_start)
                    if read_block_mapping(st, property_indent, flow_indent, Props()) and _mapping_at(
                        st, fallback.events
                    ):
                        has_content = True
                    else:
                        st.restore(fallback)
                if not has_content and (
                    (allow_block_scalars and read_block_scalar(st, flow_indent))
                    or read_single_quoted_scalar(st, flow_indent)
                    or read_double_quoted_scalar(st, flow_indent)
                    or read_alias(st, props)
                    or read_plain_scalar(st, flow_indent, context)
                ):
                    has_content = True
        elif indent_status == 0:
            has_content = allow_block_collections and read_block_sequence(st, block_indent)
    allow_block_scalars = allow_block_scalars and not has_content
    if not has_content and (props.anchor != -1 or props.tag != -1 or allow_block_scalars):
        st.empty_scalar()
        has_content = True
    st.depth -= 1
    return has_content or props.anchor != -1 or props.tag != -1


def read_directive(st: State) -> bool:
    s = st.s
    if st.line_indent > 0 or s[st.position] != "%":
        return False
    st.position += 1
    name_start = st.position
    while s[st.position] != "\0" and s[st.position] not in WS_EOL:
        st.position += 1
    name = s[name_start : st.position]
    args: list[str] = []
    if not name:
        raise st.fail("directive name must not be less than one character in length")
    while s[st.position] != "\0" and s[st.position] not in EOL:
        while s[st.position] in WS:
            st.position += 1
        if s[st.position] in "#\n\r\0":
            break
        start = st.position
        while s[st.position] != "\0" and s[st.position] not in WS_EOL:
            st.position += 1
        args.append(s[start : st.position])
    if s[st.position] in EOL:
        consume_line_break(st)
    if name == "YAML":
        _yaml_directive(st, args)
    elif name == "TAG":
        _tag_directive(st, args)
    return True


def _yaml_directive(st: State, args: list[str]) -> None:
    if st.has_yaml_directive:
        raise st.fail("duplication of %YAML directive")
    if len(args) != 1:
        raise st.fail("YAML directive accepts exactly one argument")
    match = _YAML_VERSION.fullmatch(args[0])
    if match is None:
        raise st.fail("ill-formed argument of the YAML directive")
    if int(match.group(1)) != 1:
        raise st.fail("unacceptable YAML version of the document")
    st.has_yaml_directive = True


def _tag_directive(st: State, args: list[str]) -> None:
    if len(args) != 2:
        raise st.fail("TAG directive accepts exactly two arguments")
    handle, prefix = args
    if TAG_HANDLE.fullmatch(handle) is None:
        raise st.fail("ill-formed tag handle (first argument) of the TAG directive")
    if handle in st.tag_handlers:
        raise st.fail(f'there is a previously declared suffix for "{handle}" tag handle')
    if TAG_PREFIX.fullmatch(prefix) is None:
        raise st.fail("ill-formed tag prefix (second argument) of the TAG directive")
    st.tag_handlers[handle] = prefix


def read_document(st: State) -> None:
    s = st.s
    st.tag_handlers = {}
    st.has_yaml_directive = False
    has_directives = False
    skip_separation_space(st, True)
    while read_directive(st):
        has_directives = True
        skip_separation_space(st, True)
    explicit_start = False
    allow_compact = True
    if st.line_indent == 0 and s[st.position : st.position + 3] == "---" and s[st.position + 3] in WS_EOL_END:
        explicit_start = True
        marker_line = st.line
        st.position += 3
        skip_separation_space(st, True)
        allow_compact = st.line > marker_line
    elif has_directives:
        raise st.fail("directives end mark is expected")
    if not explicit_start and st.position == st.line_start and s[st.position] == "." and test_document_separator(st):
        st.position += 3
        skip_separation_space(st, True)
        return
    st.events.append(DOCUMENT)
    if not parse_node(st, st.line_indent - 1, BLOCK_OUT, False, allow_compact, allow_compact):
        st.empty_scalar()
    skip_separation_space(st, True)
    explicit_end = False
    if st.position == st.line_start and test_document_separator(st):
        explicit_end = s[st.position] == "."
        if explicit_end:
            marker_line = st.line
            st.position += 3
            skip_separation_space(st, True)
            if st.line == marker_line and st.position < st.length:
                raise st.fail("end of the stream or a document separator is expected")
    st.events.append(POP)
    if not explicit_end and st.position < st.length and not test_document_boundary(st):
        raise st.fail("end of the stream or a document separator is expected")


def parse_events(text: str) -> list[int]:
    """js-yaml's ``parseEvents``: the event type codes, or :class:`JsYamlError` where it throws."""
    st = State(text)
    null = text.find("\0")
    if null != -1:
        raise JsYamlError(null, "null byte is not allowed in input")
    while st.position < st.length:
        skip_byte_order_mark(st)
        skip_separation_space(st, True)
        if st.position >= st.length:
            break
        document_start = st.position
        read_document(st)
        if st.position == document_start:
            raise st.fail("can not read a document")
    return st.events
