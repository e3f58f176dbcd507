"""Duplicate mapping keys: the loaders keep only the last value and drop the first without a word.

Found while a YAML document is converted (``yaml_reader``: :func:`repeated_keys` on each mapping as it is
built, no second walk), by a walk of the nodes otherwise (:func:`duplicate_keys`: JSON, a YAML document
with merge keys), and again once promptfoo's js-yaml names the keys (``js_yaml.read_as_js_yaml``:
``1e1:`` beside ``10:`` collide there).
"""

from __future__ import annotations

from typing import Any

from rubric_lsp.document import issues as K
from rubric_lsp.document.issues import ParseIssue
from rubric_lsp.document.nodes import SCALAR, SEQ, Node
from rubric_lsp.document.positions import LineIndex

# Beyond this many, duplicate keys are counted, not listed: a generated file with 100,000
# of them would otherwise cost seconds and drown every other finding.
MAX_DUPLICATE_REPORTS = 100


def repeated_keys(node: Node) -> list[tuple[Node, Node]]:
    """(repeated key, first key) for each key the mapping ``node`` holds twice, keys merged in from an
    anchor elsewhere left out."""
    first_by_key: dict[Any, Node] = {}
    found: list[tuple[Node, Node]] = []
    start, end = node.start, node.end
    for key, _value in node.value:
        if key.kind != SCALAR or not (start <= key.start < end):
            continue  # merged in from an anchor elsewhere
        try:
            ident = (type(key.value) is bool, key.value)
            first = first_by_key.get(ident)
        except TypeError:
            continue
        if first is None:
            first_by_key[ident] = key
        else:
            found.append((key, first))
    return found


def duplicate_keys(root: Node, lines: LineIndex) -> list[ParseIssue]:
    """Each key a mapping holds twice (its last occurrence, related to the first), in text order."""
    pairs: list[tuple[Node, Node]] = []  # (duplicate key, first key)
    seen_nodes: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if node.kind == SCALAR or id(node) in seen_nodes:
            continue
        seen_nodes.add(id(node))
        if node.kind == SEQ:
            stack.extend(node.value)
            continue
        stack.extend(value for _key, value in node.value)
        pairs.extend(repeated_keys(node))
    return duplicate_issues(pairs, lines)


def duplicate_issues(pairs: list[tuple[Node, Node]], lines: LineIndex) -> list[ParseIssue]:
    """The findings of (duplicate key, first key) pairs, in text order, the first MAX_DUPLICATE_REPORTS listed."""
    pairs = sorted(pairs, key=lambda pair: pair[0].start)
    found: list[ParseIssue] = []
    for key, first in pairs[:MAX_DUPLICATE_REPORTS]:
        found.append(
            ParseIssue(
                K.DUPLICATE_KEY,
                f"Duplicate key '{key.value}': loaders keep only this last value and silently "
                f"drop the one on line {lines.position(first.start).line + 1}.",
                key.span,
                related=[(first.span, f"first '{key.value}', whose value is dropped")],
            )
        )
    if len(pairs) > MAX_DUPLICATE_REPORTS:
        found[-1].message += f" ({len(pairs) - MAX_DUPLICATE_REPORTS:,} more duplicate keys below are not listed.)"
    return found
