"""YAML text → node tree, guarded against hostile input."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import yaml

from rubric_lsp.document import issues as K
from rubric_lsp.document.duplicates import repeated_keys
from rubric_lsp.document.issues import ParseIssue, TextEdit
from rubric_lsp.document.js_yaml import PlainScalars, schema_dependent_key, schema_dependent_value
from rubric_lsp.document.limits import Limits
from rubric_lsp.document.nodes import MAP, SCALAR, SEQ, Node
from rubric_lsp.document.positions import LineIndex, Span
from rubric_lsp.document.yaml_depth import LOADER, event_start, loader_input, prescan, too_deep, too_deep_before

_T = "tag:yaml.org,2002:"
_STR, _INT, _FLOAT, _BOOL, _NULL = _T + "str", _T + "int", _T + "float", _T + "bool", _T + "null"
_MERGE, _TIMESTAMP, _BINARY = _T + "merge", _T + "timestamp", _T + "binary"
_YAML12_BOOLS = {"true", "false"}
_OCTAL_11 = re.compile(r"[-+]?0[0-7_]+$")
# Plain scalars PyYAML leaves as strings that YAML 1.2 (core schema) reads as numbers:
# 0o17, 1e3, 1.5e3 (an exponent without a sign or without a dot).
_YAML12_NUMBER = re.compile(r"[-+]?(?:0o[0-7]+|(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?)$")
_NUMBER_START = frozenset("0123456789+-.")
_SEXAGESIMAL = re.compile(r"[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$")

_DOCUMENT_START = re.compile(r"^---(?=[ \t\r\n]|$)", re.M)
# Where an anchor may start: an '&' that begins a token (the text's start, after white space, a flow
# indicator or a JSON-like key's ':'), followed by a character an anchor's name may begin with (neither
# libyaml nor PyYAML's scanner accepts white space, a flow indicator or a second '&' there). A superset of
# the anchors either composer reads; prose such as "Q & A" or "a && b" is not one. The '&' comes first, its
# lookbehind after it: a pattern that starts with a lookbehind is tried at every character (29 ms over the
# four red-team configs, against 1 ms).
_ANCHOR = re.compile(r"&(?<![^\s\[{,:\ufeff]&)[^\s\[\]{},&]")

# Document.flow_lines is also set from this depth on: js-yaml (promptfoo) refuses nesting past 100.
_FLOW_LINES_DEPTH = 80

# The tags of the YAML 1.1 types repository libyaml's resolver and the core schemas know (promptfoo's
# js-yaml schema is exactly these); a node with another one (`!include`, `!!python/tuple`, `=`'s
# tag:yaml.org,2002:value) sets YamlRead.other_tags.
_SCALAR_TAGS = frozenset(_T + name for name in ("str", "null", "bool", "int", "float", "merge", "binary", "timestamp"))
_SEQUENCE_TAGS = frozenset(_T + name for name in ("seq", "omap", "pairs"))
_MAPPING_TAGS = frozenset(_T + name for name in ("map", "set"))
_SCALAR_NODE, _SEQUENCE_NODE = yaml.ScalarNode, yaml.SequenceNode  # composers build exactly these classes
_constructor = yaml.SafeLoader("")  # only its construct_yaml_* helpers and resolver are used
# The tag the resolver gives a scalar (types-PyYAML leaves resolve() unannotated).
_resolve: Callable[[type[yaml.Node], str, tuple[bool, bool]], str] = _constructor.resolve


@dataclass
class YamlRead:
    """What reading a YAML text gives: the first document's nodes and the issues, the plain scalars a
    YAML 1.2 reader reads otherwise, whether a flow construct spans lines (``Document.flow_lines``), the
    duplicate keys found while converting (None: walk the nodes for them, as for a document with merge
    keys) and where the block scalars are (``Document.block_scalars``)."""

    root: Node | None
    issues: list[ParseIssue]
    plain: PlainScalars | None = None
    flow_lines: bool = False
    duplicates: list[tuple[Node, Node]] | None = None
    block_scalars: list[tuple[int, int]] = field(default_factory=list)
    complex_keys: bool = True  # whether a mapping key may be a collection (False: none is)
    other_tags: bool = True  # whether a node may have a tag outside the YAML types (False: none has)
    shared_nodes: bool = True  # whether a node may sit in two places of the tree (aliases, merge keys)


def read_yaml(text: str, lines: LineIndex, limits: Limits) -> YamlRead:
    """The first document of ``text`` read into nodes (:class:`YamlRead`)."""
    issues: list[ParseIssue] = []
    refused = prescan(text, lines, limits)
    if refused is not None:
        return YamlRead(None, [refused])
    try:
        root, extra = _compose_first(text, lines)
    except yaml.MarkedYAMLError as exc:
        return YamlRead(None, [too_deep_before(exc, text, lines, limits) or _syntax_issue(exc, lines)])
    except yaml.YAMLError as exc:  # errors without a position
        return YamlRead(None, [ParseIssue(K.SYNTAX_ERROR, f"YAML error: {exc}", lines.single_line_span(0), fatal=True)])
    except RecursionError:
        return YamlRead(None, [too_deep(0, lines, limits)])
    if extra is not None:
        issues.append(extra)
    if root is None:
        return YamlRead(None, issues)
    converter = _Converter(text, issues, limits.max_depth, may_hold_anchor(text))
    try:
        node = converter.convert(root, 1)
    except _TooDeep as deep:
        return YamlRead(None, [too_deep(deep.offset, lines, limits)])
    if converter.shared:  # aliases or merge keys: the expanded value may be far larger
        from rubric_lsp.document.yaml_expansion import check_expansion  # only a document with aliases needs it

        refused = check_expansion(node, lines, limits, text)
        if refused is not None:
            return YamlRead(None, [refused])
    # A merge source written in place is converted without being a node of the tree: its own
    # duplicates are not the document's, so a document with merge keys is walked instead.
    duplicates = None if converter.merges else converter.duplicates
    return YamlRead(
        node,
        issues,
        converter.plain,
        converter.flow_lines or not quoted_lines_indented(text, converter.quoted_lines),
        duplicates,
        converter.block_scalars,
        converter.complex_keys,
        converter.other_tags,
        converter.shared > 0,
    )


def read_scalar(text: str, ynode: yaml.ScalarNode, start: int, end: int) -> tuple[Node, list[ParseIssue], bool]:
    """A scalar composed alone, converted as reading ``text`` converts the one at ``start``–``end``: its node,
    the issues converting it raises, and whether it is a plain value whose reading depends on the schema
    (``PlainScalars.values``). For the incremental read (``incremental.py``)."""
    issues: list[ParseIssue] = []
    converter = _Converter(text, issues, 1, may_share=False)
    node = converter._scalar(ynode, start, end)
    return node, issues, bool(converter.plain.values)


def may_hold_anchor(text: str) -> bool:
    """Whether ``text`` may hold an anchor (``_ANCHOR``): without one, no composed node is another's alias."""
    return "&" in text and _ANCHOR.search(text) is not None


def _block_end(text: str, last: Node, start: int, end: int) -> int:
    """A block collection ends where its last value ends.

    libyaml ends it at the next token instead (often the start of the next line), which
    would stretch a criterion's range over the blank lines and comments that follow.
    When the last value is an alias (a node defined earlier), trim that trailing
    whitespace and those comment lines instead.
    """
    if start <= last.start and last.end <= end:
        return last.end
    while True:
        trimmed = len(text[start:end].rstrip()) + start
        line_start = text.rfind("\n", start, trimmed) + 1
        if line_start > start and text[line_start:trimmed].lstrip().startswith("#"):
            end = line_start
            continue
        return trimmed


_LEADING_SPACES = re.compile(" *")


def quoted_lines_indented(text: str, quoted: list[tuple[int, int, int]]) -> bool:
    """Whether every continuation line of these quoted scalars that holds more than spaces is indented by
    at least the columns given, as js-yaml 5.4.1 reads them (``read_flow_scalar_break`` in the port): each
    (start, end, indentation) is a quoted scalar spanning lines as the entry of a block collection at
    column ``indentation - 1``; js-yaml reads such a scalar with that collection's indentation plus one
    and refuses a line left of it ("deficient indentation"), where libyaml reads it. Then the scalar needs
    no reading by the port (``Document.flow_lines`` stays False for it)."""
    for start, end, indentation in quoted:
        at = text.find("\n", start, end)
        while at != -1:
            line = at + 1
            first = _LEADING_SPACES.match(text, line).end()  # type: ignore[union-attr]
            if first < end and text[first] not in "\r\n" and first - line < indentation:
                return False
            at = text.find("\n", line, end)
    return True


class _TooDeep(Exception):
    def __init__(self, offset: int) -> None:
        self.offset = offset


def _compose_first(text: str, lines: LineIndex) -> tuple[yaml.Node | None, ParseIssue | None]:
    """Compose the first document; a second one is reported, not composed.

    The loaders the rubric tools use (``yaml.safe_load``, js-yaml's ``load``) refuse a
    stream with several documents, so that is an error, but the first document is
    still checked.
    """
    loader = LOADER(loader_input(text))
    try:
        root = loader.get_node() if loader.check_node() else None
        if not loader.check_node():
            return root, None
        after = root.end_mark.index if root is not None else 0
        marker = _DOCUMENT_START.search(text, after)
        offset = marker.start() if marker else event_start(loader.peek_event())
    finally:
        loader.dispose()
    return root, ParseIssue(
        K.SYNTAX_ERROR,
        "A second YAML document starts here; rubric tools load a single document and reject "
        "the whole file (remove this '---' line, or split the file in two).",
        lines.single_line_span(offset, 3),
    )


def _distinct_keys(pairs: list[tuple[Node, Node]]) -> bool:
    """Whether the keys of ``pairs`` plainly differ (their values all hashable and unequal): then the mapping
    repeats none and repeated_keys, far slower per key, need not look (it decides the rest: ``1`` and ``true``)."""
    try:
        return len({key.value for key, _value in pairs}) == len(pairs)
    except TypeError:  # a collection as a key
        return False


def _yaml12_number(raw: str) -> int | float:
    body = raw.lstrip("+-")
    sign = -1 if raw.startswith("-") else 1
    if body.startswith("0o"):
        return sign * int(body[2:], 8)
    return float(raw)


def _syntax_issue(exc: yaml.MarkedYAMLError, lines: LineIndex) -> ParseIssue:
    text = lines.text
    mark = exc.problem_mark or exc.context_mark
    offset = min(mark.index, len(text)) if mark is not None else 0
    problem = exc.problem or "invalid YAML"
    if offset >= len(text.rstrip()) and exc.context_mark is not None and exc.context_mark is not mark:
        # "Unexpected end of stream": point at what was left open (a quote, a bracket).
        offset = min(exc.context_mark.index, len(text))
    message = f"YAML syntax error: {problem}"
    if exc.context:
        context_mark = exc.context_mark
        where = f" (line {context_mark.line + 1})" if context_mark is not None else ""
        message += f", {exc.context}{where}"
    if offset < len(text) and text[offset] == "\t":
        message += "; YAML does not allow tabs for indentation, use spaces"
    return ParseIssue(K.SYNTAX_ERROR, message, lines.single_line_span(offset), fatal=True)


class _Converter:
    """Composed YAML nodes → :class:`Node`s, sharing what aliases share.

    Recursion follows the source nesting only (an alias always names a node converted
    before it, or an ancestor), so the depth cap here also bounds the Python stack.
    ``shared`` counts alias uses and merges; when it is 0 the value cannot expand.
    """

    def __init__(self, text: str, issues: list[ParseIssue], max_depth: int, may_share: bool) -> None:
        self.text = text
        self.issues = issues
        self.max_depth = max_depth
        # Without an anchor (``may_share`` False) no node is composed twice: nothing to share, no lookup per node.
        self.memo: dict[int, Node] | None = {} if may_share else None
        self.shared = 0
        self.plain = PlainScalars()
        self.flow_lines = False
        self.merges = False
        self.complex_keys = False  # a mapping has a key that is a collection
        self.other_tags = False  # a node has a tag outside the YAML types below (_SCALAR_TAGS, …)
        self.duplicates: list[tuple[Node, Node]] = []  # (a mapping's repeated key, its first), see duplicates.py
        self.block_scalars: list[tuple[int, int]] = []  # the lines of literal and folded scalars, in text order
        # Quoted scalars spanning lines as entries of block collections: (start, end, the indentation js-yaml
        # wants of their continuation lines), checked after converting (``quoted_lines_indented``).
        self.quoted_lines: list[tuple[int, int, int]] = []
        # The column of the block collection whose entry is being converted (-1: a key, a flow collection's
        # entry, the root, a merge source, or a collection with properties or an explicit key).
        self.entry_column = -1

    def convert(self, ynode: yaml.Node, depth: int) -> Node:
        # One call per node, the common scalars built inline: this runs once per value of every file read.
        memo = self.memo
        if memo is not None:
            done = memo.get(id(ynode))
            if done is not None:
                self.shared += 1
                return done
        start_mark, end_mark = ynode.start_mark, ynode.end_mark
        start, end = start_mark.index, end_mark.index
        if type(ynode) is _SCALAR_NODE:
            style = ynode.style or None  # libyaml gives '' for a plain scalar, the pure loader None
            raw = ynode.value
            if style == "|" or style == ">":
                # Its lines after the header's (the header itself is what js-yaml may read otherwise).
                content = self.text.find("\n", start, end) + 1
                if content:
                    self.block_scalars.append((content, end))
            elif start_mark.line != end_mark.line:
                self._spans_lines(style, start, end)
            if ynode.tag == _STR and (style is not None or raw[:1] not in _NUMBER_START):
                node = Node(SCALAR, start, end, raw, _STR, style, raw)  # text under every schema
            else:
                node = self._scalar(ynode, start, end)
                if node.tag not in _SCALAR_TAGS:
                    self.other_tags = True
            if memo is not None:
                memo[id(ynode)] = node
            return node
        if depth > self.max_depth:
            raise _TooDeep(start)
        assert isinstance(ynode, yaml.CollectionNode)  # scalars returned above
        if (ynode.flow_style and start_mark.line != end_mark.line) or depth >= _FLOW_LINES_DEPTH:
            self.flow_lines = True
        if type(ynode) is _SEQUENCE_NODE:
            if ynode.tag not in _SEQUENCE_TAGS:
                self.other_tags = True
            return self._sequence(ynode, start, end, depth + 1)
        if ynode.tag not in _MAPPING_TAGS:
            self.other_tags = True
        return self._mapping(ynode, start, end, depth + 1)

    def _spans_lines(self, style: str | None, start: int, end: int) -> None:
        """A plain or quoted scalar spanning lines: where js-yaml's indentation rules may refuse what libyaml read."""
        if self.entry_column >= 0 and (style == '"' or style == "'") and self.text[start] == style:
            # js-yaml wants each continuation line indented past its collection: checked after converting.
            self.quoted_lines.append((start, end, self.entry_column + 1))
        else:
            self.flow_lines = True

    def _sequence(self, ynode: yaml.CollectionNode, start: int, end: int, depth: int) -> Node:
        node = Node(SEQ, start, end, [], ynode.tag)
        if self.memo is not None:
            self.memo[id(ynode)] = node
        convert = self.convert
        outer = self.entry_column  # (each collection gives it back as it found it: set per collection, not per entry)
        self.entry_column = -1 if ynode.flow_style or self.text[start] != "-" else ynode.start_mark.column
        node.value.extend([convert(child, depth) for child in ynode.value])
        self.entry_column = outer
        if not ynode.flow_style and node.value:
            node.end = _block_end(self.text, node.value[-1], start, end)
        return node

    def _mapping(self, ynode: yaml.CollectionNode, start: int, end: int, depth: int) -> Node:
        node = Node(MAP, start, end, [], ynode.tag)
        if self.memo is not None:
            self.memo[id(ynode)] = node
        convert, memo = self.convert, self.memo
        merged: list[tuple[Node, Node]] = []
        explicit: list[tuple[Node, Node]] = []
        outer = self.entry_column
        column = self.entry_column = -1 if ynode.flow_style or self.text[start] in "&!?" else ynode.start_mark.column
        for ykey, yvalue in ynode.value:
            if ykey.tag == _MERGE:
                self.shared += 1
                self.merges = True
                merged.extend(self._merge_pairs(yvalue, depth - 1))
                self.entry_column = column
                continue
            if (
                memo is None
                and type(ykey) is _SCALAR_NODE
                and not ykey.style
                and ykey.tag == _STR
                and ykey.value[:1] not in _NUMBER_START
            ):  # the common key, a plain word: built here as convert() builds it, one call per key less
                key_start, key_end = ykey.start_mark, ykey.end_mark
                if key_start.line != key_end.line:
                    self.flow_lines = True
                key = Node(SCALAR, key_start.index, key_end.index, ykey.value, _STR, None, ykey.value)
            else:
                self.entry_column = -1
                key = convert(ykey, depth)
                self.entry_column = column
            if key.kind != SCALAR:
                self.complex_keys = True
            elif key.style is None:
                name = key.value
                if (type(name) is not str or name[:1] in _NUMBER_START) and schema_dependent_key(key):
                    self.plain.keys.append(key)
            explicit.append((key, convert(yvalue, depth)))
        self.entry_column = outer
        if merged:
            node.value.extend(merged)
        node.value.extend(explicit)
        if not ynode.flow_style and explicit:
            node.end = _block_end(self.text, explicit[-1][1], start, end)
        if len(node.value) > 1 and (merged or not _distinct_keys(explicit)):
            self.duplicates.extend(repeated_keys(node))
        return node

    def _merge_pairs(self, yvalue: yaml.Node, depth: int) -> list[tuple[Node, Node]]:
        self.entry_column = -1
        sources = yvalue.value if isinstance(yvalue, yaml.SequenceNode) else [yvalue]
        pairs: list[tuple[Node, Node]] = []
        # Earlier sources win in a merge list, so add them last.
        for source in reversed(sources):
            converted = self.convert(source, depth + 1)
            if converted.kind == MAP:
                pairs.extend(converted.value)
        return pairs

    def _scalar(self, ynode: yaml.ScalarNode, start: int, end: int) -> Node:
        node = self._scalar_node(ynode, start, end)
        if node.style is None and schema_dependent_value(node, self.text):
            self.plain.values.append(node)
        return node

    def _scalar_node(self, ynode: yaml.ScalarNode, start: int, end: int) -> Node:
        tag = ynode.tag
        raw = ynode.value
        style = ynode.style or None
        if tag == _STR:
            value = raw
            if style is None and raw[:1] in _NUMBER_START and _YAML12_NUMBER.match(raw):
                number = _yaml12_number(raw)
                self.issues.append(
                    ParseIssue(
                        K.YAML11_NUMBER,
                        f"'{raw}' is read as the string \"{raw}\" by YAML 1.1 loaders (PyYAML) but as the "
                        f"number {number} by YAML 1.2 tools; quote it if you mean text, or write "
                        f"{number} if you mean a number.",
                        Span(start, end),
                        edits=[TextEdit(Span(start, end), f'"{raw}"')],
                    )
                )
        elif tag == _NULL:
            value = None
        elif tag == _BOOL:
            value = self._construct(ynode, _constructor.construct_yaml_bool, start, end)
            if style is None and isinstance(value, bool) and raw.lower() not in _YAML12_BOOLS:
                self.issues.append(
                    ParseIssue(
                        K.YAML11_BOOLEAN,
                        f"'{raw}' is read as the boolean {str(value).lower()} by YAML 1.1 loaders "
                        f'(PyYAML) but as the string "{raw}" by YAML 1.2 tools; quote it if you '
                        f"mean text, or write {str(value).lower()}.",
                        Span(start, end),
                        edits=[TextEdit(Span(start, end), f'"{raw}"')],
                    )
                )
        elif tag == _INT:
            value = self._construct(ynode, _constructor.construct_yaml_int, start, end)
            if style is None and ((_OCTAL_11.match(raw) and raw.strip("+-") not in ("0",)) or _SEXAGESIMAL.match(raw)):
                self.issues.append(
                    ParseIssue(
                        K.YAML11_NUMBER,
                        f"'{raw}' is read as {value} by YAML 1.1 loaders (PyYAML) but differently "
                        "by YAML 1.2 tools; quote it if you mean text.",
                        Span(start, end),
                        edits=[TextEdit(Span(start, end), f'"{raw}"')],
                    )
                )
        elif tag == _FLOAT:
            value = self._construct(ynode, _constructor.construct_yaml_float, start, end)
            if style is None and _SEXAGESIMAL.match(raw):
                self.issues.append(
                    ParseIssue(
                        K.YAML11_NUMBER,
                        f"'{raw}' is read as {value} by YAML 1.1 loaders (PyYAML) but as text by "
                        "YAML 1.2 tools; quote it if you mean text.",
                        Span(start, end),
                        edits=[TextEdit(Span(start, end), f'"{raw}"')],
                    )
                )
        elif tag == _TIMESTAMP:
            value = self._construct(ynode, _constructor.construct_yaml_timestamp, start, end)
        elif tag == _BINARY:
            self._construct(ynode, _constructor.construct_yaml_binary, start, end)
            value = raw  # bytes would reach rules and reporters that expect text
        else:
            value = raw
        return Node(SCALAR, start, end, value, tag, style, raw)

    def _construct(
        self, ynode: yaml.ScalarNode, construct: Callable[[yaml.ScalarNode], Any], start: int, end: int
    ) -> Any:
        """The value PyYAML's safe loader builds, or the raw text when it cannot build one.

        PyYAML's constructors raise whatever the bad text provokes (KeyError for
        ``!!bool maybe``, IndexError for ``!!int ""``, AttributeError for ``!!timestamp soon``).
        Under an explicit tag both PyYAML and js-yaml then refuse the whole file, so that
        is reported; a plain value the resolver typed (``2024-13-45``) stays text, as
        YAML 1.2 tools read it.
        """
        try:
            return construct(ynode)
        except (ValueError, KeyError, IndexError, AttributeError, TypeError, OverflowError, yaml.YAMLError):
            pass
        raw = ynode.value
        implicit = ynode.style in (None, "") and _resolve(yaml.ScalarNode, raw, (True, False)) == ynode.tag
        if not implicit:
            name = ynode.tag.removeprefix(_T)
            self.issues.append(
                ParseIssue(
                    K.SYNTAX_ERROR,
                    f"{raw!r} is not a valid !!{name} value: YAML loaders (PyYAML, js-yaml) refuse the whole "
                    f"file. Remove the '!!{name}' tag, or write a valid {name}.",
                    Span(start, end),
                )
            )
        return raw
