"""Aliases and merge keys: a document whose expanded value would be far larger than its text.

Composing a "billion laughs" file is cheap, because aliases share nodes; walking the expanded value
(json.dumps, pydantic) is what hangs. The read refuses such a document (``ALIAS_BOMB``), and one
that contains itself, before anything walks it.
"""

from __future__ import annotations

from typing import Any

import yaml

from rubric_lsp.document import issues as K
from rubric_lsp.document.issues import ParseIssue
from rubric_lsp.document.limits import Limits
from rubric_lsp.document.nodes import MAP, SCALAR, Node
from rubric_lsp.document.positions import LineIndex
from rubric_lsp.document.yaml_depth import LOADER, event_start, loader_input, too_deep


def check_expansion(root: Node, lines: LineIndex, limits: Limits, text: str | None = None) -> ParseIssue | None:
    """Refuse a graph that contains itself, that aliases nest deeper than the cap, or to
    which aliases add more nodes than the cap.

    Composing a "billion laughs" file is cheap because aliases share nodes; walking the
    expanded value (json.dumps, pydantic) is what hangs. Sizes and heights are memoised
    per node, so this is linear in the size of the file, not of the expansion. Only the
    nodes that aliases (and merge keys) add count against the cap: a large file without
    aliases is bounded by the size cap instead.
    """
    sizes: dict[int, int] = {}
    heights: dict[int, int] = {}
    in_progress: set[int] = set()
    distinct_scalars: set[int] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        ident = id(node)
        if node.kind == SCALAR:
            distinct_scalars.add(ident)
            continue
        if ident in sizes:
            continue
        children = _children(node)
        if not children_done:
            if ident in in_progress:
                continue
            in_progress.add(ident)
            stack.append((node, True))
            for child in children:
                if id(child) in in_progress:
                    return ParseIssue(
                        K.ALIAS_BOMB,
                        "An alias refers to a collection that contains it; recursive aliases are refused "
                        "(no rubric tool can load a value that contains itself).",
                        lines.single_line_span(node.start),
                        fatal=True,
                    )
                stack.append((child, False))
            continue
        containers = [c for c in children if c.kind != SCALAR]
        sizes[ident] = 1 + len(children) - len(containers) + sum(sizes[id(c)] for c in containers)
        heights[ident] = 1 + max((heights[id(c)] for c in containers), default=0)
        in_progress.discard(ident)
    if root.kind == SCALAR:
        return None
    if heights[id(root)] > limits.max_depth:
        # Follow the deepest path down to the first level past the cap.
        node, depth = root, 1
        while depth <= limits.max_depth:
            node = max((c for c in _children(node) if c.kind != SCALAR), key=lambda c: heights[id(c)])
            depth += 1
        return too_deep(node.start, lines, limits)
    added = sizes[id(root)] - len(sizes) - len(distinct_scalars)
    if added <= limits.max_expanded_nodes:
        return None
    offset = _first_alias_over_cap(text, limits) if text is not None else None
    return ParseIssue(
        K.ALIAS_BOMB,
        _alias_bomb_message(limits),
        lines.single_line_span(root.start if offset is None else offset),
        fatal=True,
    )


def _children(node: Node) -> list[Node]:
    return [v for pair in node.value for v in pair] if node.kind == MAP else node.value


def _alias_bomb_message(limits: Limits) -> str:
    return (
        f"Aliases expand this document by more than {limits.max_expanded_nodes:,} nodes "
        "(a 'billion laughs' pattern); it is refused because expanding it would hang every "
        "tool that reads it. Write the repeated values out, or use fewer nested aliases."
    )


def _first_alias_over_cap(text: str, limits: Limits) -> int | None:
    """Offset of the alias at which the nodes added by aliases pass the cap (event scan)."""
    added = 0
    open_sizes: list[list[Any]] = []  # [node count, anchor] per open collection
    sizes: dict[str, int] = {}
    try:
        for event in yaml.parse(loader_input(text), Loader=LOADER):
            # isinstance on these leaf event classes matches exactly what `type(event) is` would.
            if isinstance(event, yaml.ScalarEvent):
                if open_sizes:
                    open_sizes[-1][0] += 1
                if event.anchor:
                    sizes[event.anchor] = 1
            elif isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                open_sizes.append([1, event.anchor])
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                count, anchor = open_sizes.pop()
                if anchor:
                    sizes[anchor] = count
                if open_sizes:
                    open_sizes[-1][0] += count
            elif isinstance(event, yaml.AliasEvent):
                size = sizes.get(event.anchor or "", 1)
                added += size
                if open_sizes:
                    open_sizes[-1][0] += size
                if added > limits.max_expanded_nodes:
                    return event_start(event)
    except yaml.YAMLError:
        return None
    return None
