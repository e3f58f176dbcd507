"""YAML text → node tree, guarded against hostile input."""

from __future__ import annotations

import re

import yaml

from rubric_lsp.document import issues as K
from rubric_lsp.document.issues import ParseIssue, TextEdit
from rubric_lsp.document.limits import Limits
from rubric_lsp.document.nodes import MAP, SCALAR, SEQ, Node
from rubric_lsp.document.positions import LineIndex, Span

try:  # libyaml is ~10x faster; the pure-Python loader gives the same nodes.
    _Loader = yaml.CSafeLoader  # type: ignore[attr-defined]
except AttributeError:  # pragma: no cover - depends on the PyYAML build
    _Loader = yaml.SafeLoader

_T = "tag:yaml.org,2002:"
_STR, _INT, _FLOAT, _BOOL, _NULL = _T + "str", _T + "int", _T + "float", _T + "bool", _T + "null"
_MERGE, _TIMESTAMP = _T + "merge", _T + "timestamp"
_YAML12_BOOLS = {"true", "false"}
_OCTAL_11 = re.compile(r"[-+]?0[0-7_]+$")
_SEXAGESIMAL = re.compile(r"[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$")

# Block nesting is bounded by the indentation and "- " markers that open a line.
_BLOCK_PREFIX = re.compile(r"^[ \t?:-]*", re.M)

_constructor = yaml.SafeLoader("")  # only its construct_yaml_* helpers are used


def read_yaml(text: str, lines: LineIndex, limits: Limits) -> tuple[Node | None, list[ParseIssue]]:
    issues: list[ParseIssue] = []
    refused = _prescan(text, lines, limits)
    if refused is not None:
        return None, [refused]
    try:
        root = yaml.compose(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        return None, [_syntax_issue(exc, lines)]
    except yaml.YAMLError as exc:  # errors without a position
        return None, [ParseIssue(K.SYNTAX_ERROR, f"YAML error: {exc}", lines.single_line_span(0), fatal=True)]
    except RecursionError:
        return None, [ParseIssue(K.TOO_DEEP, _too_deep_message(limits), lines.single_line_span(0), fatal=True)]
    if root is None:
        return None, issues
    node = _Converter(text, issues).convert(root)
    refused = check_expansion(node, lines, limits)
    if refused is not None:
        return None, [refused]
    return node, issues


def check_expansion(root: Node, lines: LineIndex, limits: Limits) -> ParseIssue | None:
    """Refuse graphs whose aliases expand beyond the cap, or that contain themselves.

    Composing a "billion laughs" file is cheap because aliases share nodes; walking the
    expanded value (json.dumps, pydantic) is what hangs. Sizes are memoised per node, so
    this is linear in the size of the file, not of the expansion.
    """
    sizes: dict[int, int] = {}
    in_progress: set[int] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        ident = id(node)
        if node.kind == SCALAR or ident in sizes:
            continue
        children = [v for pair in node.value for v in pair] if node.kind == MAP else node.value
        if not children_done:
            if ident in in_progress:
                continue
            in_progress.add(ident)
            stack.append((node, True))
            for child in children:
                if id(child) in in_progress and child.kind != SCALAR and id(child) not in sizes:
                    return ParseIssue(
                        K.ALIAS_BOMB,
                        "An alias refers to a collection that contains it; recursive aliases are refused.",
                        lines.single_line_span(node.start),
                        fatal=True,
                    )
                stack.append((child, False))
            continue
        total = 1 + sum(1 if c.kind == SCALAR else sizes[id(c)] for c in children)
        in_progress.discard(ident)
        if total > limits.max_expanded_nodes:
            return ParseIssue(
                K.ALIAS_BOMB,
                f"Aliases expand this document beyond {limits.max_expanded_nodes:,} nodes "
                "(a 'billion laughs' pattern); refusing to expand it.",
                lines.single_line_span(node.start),
                fatal=True,
            )
        sizes[ident] = total
    return None


def _too_deep_message(limits: Limits) -> str:
    return (
        f"Nesting deeper than {limits.max_depth} levels; refusing to read this file "
        "(no rubric or config nests this deep)."
    )


def _prescan(text: str, lines: LineIndex, limits: Limits) -> ParseIssue | None:
    """Walk the event stream to cap nesting depth (and alias expansion) before composing.

    libyaml's compose crashes the process on extreme nesting, so depth must be known
    first. Skipped when a cheap bound already proves the depth safe: block nesting needs
    indentation or "- " markers, flow nesting needs brackets. Alias expansion is checked
    again on the composed graph (see ``expanded_size``), which is cheap and always runs.
    """
    block_bound = max(map(len, _BLOCK_PREFIX.findall(text)), default=0)
    depth_bound = block_bound + 1 + text.count("[") + text.count("{")
    if depth_bound <= limits.max_depth:
        return None
    depth = 0
    expanded = 0
    open_sizes: list[list] = []  # [count, anchor] per open collection
    sizes: dict[str, int] = {}
    try:
        for event in yaml.parse(text, Loader=_Loader):
            cls = type(event)
            if cls is yaml.ScalarEvent:
                expanded += 1
                if open_sizes:
                    open_sizes[-1][0] += 1
                if event.anchor:
                    sizes[event.anchor] = 1
            elif cls in (yaml.MappingStartEvent, yaml.SequenceStartEvent):
                depth += 1
                if depth > limits.max_depth:
                    span = lines.single_line_span(event.start_mark.index)
                    return ParseIssue(K.TOO_DEEP, _too_deep_message(limits), span, fatal=True)
                expanded += 1
                open_sizes.append([1, event.anchor])
            elif cls in (yaml.MappingEndEvent, yaml.SequenceEndEvent):
                depth -= 1
                count, anchor = open_sizes.pop()
                if anchor:
                    sizes[anchor] = count
                if open_sizes:
                    open_sizes[-1][0] += count
            elif cls is yaml.AliasEvent:
                size = sizes.get(event.anchor)
                if size is None:
                    if any(entry[1] == event.anchor for entry in open_sizes):
                        span = lines.single_line_span(event.start_mark.index)
                        return ParseIssue(
                            K.ALIAS_BOMB,
                            f"Alias *{event.anchor} refers to a collection that contains it; "
                            "recursive aliases are refused.",
                            span,
                            fatal=True,
                        )
                    continue  # undefined alias: compose reports it with its position
                expanded += size
                if open_sizes:
                    open_sizes[-1][0] += size
                if expanded > limits.max_expanded_nodes:
                    span = lines.single_line_span(event.start_mark.index)
                    return ParseIssue(
                        K.ALIAS_BOMB,
                        f"Aliases expand this document beyond {limits.max_expanded_nodes:,} nodes "
                        "(a 'billion laughs' pattern); refusing to expand it.",
                        span,
                        fatal=True,
                    )
    except yaml.YAMLError:
        return None  # compose reports the syntax error with its position
    return None


def _syntax_issue(exc: yaml.MarkedYAMLError, lines: LineIndex) -> ParseIssue:
    mark = exc.problem_mark or exc.context_mark
    offset = mark.index if mark is not None else 0
    if mark is not None and offset > len(lines.text):  # marks past the end
        offset = len(lines.text)
    problem = exc.problem or "invalid YAML"
    message = f"YAML syntax error: {problem}"
    if exc.context:
        context_mark = exc.context_mark
        where = f" (line {context_mark.line + 1})" if context_mark is not None else ""
        message += f", {exc.context}{where}"
    return ParseIssue(K.SYNTAX_ERROR, message, lines.single_line_span(offset), fatal=True)


class _Converter:
    def __init__(self, text: str, issues: list[ParseIssue]) -> None:
        self.text = text
        self.issues = issues
        self.memo: dict[int, Node] = {}

    def convert(self, ynode: yaml.Node) -> Node:
        done = self.memo.get(id(ynode))
        if done is not None:
            return done
        start, end = ynode.start_mark.index, ynode.end_mark.index
        if isinstance(ynode, yaml.ScalarNode):
            node = self._scalar(ynode, start, end)
            self.memo[id(ynode)] = node
            return node
        if isinstance(ynode, yaml.SequenceNode):
            node = Node(SEQ, start, end, [], ynode.tag)
            self.memo[id(ynode)] = node
            node.value.extend(self.convert(child) for child in ynode.value)
            return node
        node = Node(MAP, start, end, [], ynode.tag)
        self.memo[id(ynode)] = node
        merged: list[tuple[Node, Node]] = []
        explicit: list[tuple[Node, Node]] = []
        for ykey, yvalue in ynode.value:
            if ykey.tag == _MERGE:
                merged.extend(self._merge_pairs(yvalue))
                continue
            explicit.append((self.convert(ykey), self.convert(yvalue)))
        node.value.extend(merged)
        node.value.extend(explicit)
        return node

    def _merge_pairs(self, yvalue: yaml.Node) -> list[tuple[Node, Node]]:
        sources = yvalue.value if isinstance(yvalue, yaml.SequenceNode) else [yvalue]
        pairs: list[tuple[Node, Node]] = []
        # Earlier sources win in a merge list, so add them last.
        for source in reversed(sources):
            converted = self.convert(source)
            if converted.kind == MAP:
                pairs.extend(converted.value)
        return pairs

    def _scalar(self, ynode: yaml.ScalarNode, start: int, end: int) -> Node:
        tag = ynode.tag
        raw = ynode.value
        style = ynode.style or None
        if tag == _STR:
            value = raw
        elif tag == _NULL:
            value = None
        elif tag == _BOOL:
            value = _constructor.construct_yaml_bool(ynode)
            if style is None and raw.lower() not in _YAML12_BOOLS:
                self.issues.append(
                    ParseIssue(
                        K.YAML11_BOOLEAN,
                        f"'{raw}' is read as the boolean {str(value).lower()} by YAML 1.1 loaders "
                        f"(PyYAML) but as the string \"{raw}\" by YAML 1.2 tools; quote it if you "
                        f"mean text, or write {str(value).lower()}.",
                        Span(start, end),
                        edits=[TextEdit(Span(start, end), f'"{raw}"')],
                    )
                )
        elif tag == _INT:
            try:
                value = _constructor.construct_yaml_int(ynode)
            except (ValueError, yaml.YAMLError):
                value = raw
            if style is None and (_OCTAL_11.match(raw) and raw.strip("+-") not in ("0",) or _SEXAGESIMAL.match(raw)):
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
            try:
                value = _constructor.construct_yaml_float(ynode)
            except (ValueError, yaml.YAMLError):
                value = raw
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
            try:
                value = _constructor.construct_yaml_timestamp(ynode)
            except (ValueError, yaml.YAMLError):
                value = raw
        else:
            value = raw
        return Node(SCALAR, start, end, value, tag, style, raw)
