"""Validate plain values against a format's pydantic model and place each error on its node.

Where an error points: a missing field → the key of the mapping that lacks it (or the
mapping's first line); an unknown key → that key; a bad value → the value.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rubric_lsp.document import Node
from rubric_lsp.document.positions import Span


@dataclass
class PlacedError:
    type: str
    message: str
    path: tuple[Any, ...]  # the pydantic location, union tags removed
    node: Node  # the node the error is about (the value, or the parent mapping)
    key_node: Node | None  # the key of ``node`` in its parent, when there is one
    missing_key: str | None = None  # for "missing"
    input: Any = None
    ctx: dict | None = None


@dataclass
class Problem:
    """Where a format's reader found something its owner tool would refuse (the rules layer
    picks the rule and the wording). ``kind`` is one of the format's ``PROBLEM_KINDS``."""

    kind: str
    node: Node
    message: str
    key_node: Node | None = None
    error: PlacedError | None = None  # for the kinds that come from a pydantic error
    related: list[tuple[Node, str]] = field(default_factory=list)


def place_errors(errors: Iterable[Mapping[str, Any]], root: Node) -> list[PlacedError]:
    placed = []
    for error in errors:
        loc = tuple(error.get("loc", ()))
        node, key_node, path = _follow(root, loc)
        missing = None
        if error["type"] == "missing" and loc:
            missing = str(loc[-1])
        placed.append(
            PlacedError(
                error["type"], error.get("msg", ""), path, node, key_node, missing, error.get("input"), error.get("ctx")
            )
        )
    return placed


def _follow(root: Node, loc: Sequence[Any]) -> tuple[Node, Node | None, tuple]:
    """Walk ``loc`` down the nodes, skipping steps that are union/validator tags."""
    node, key_node, path = root, None, []
    for step in loc:
        if node.is_map:
            kn = node.key_node(step) if isinstance(step, (str, int, float, bool)) else None
            if kn is not None:
                key_node, node = kn, node.get(step)  # type: ignore[assignment]
                path.append(step)
            continue  # a tag such as 'function-after[...]' or a missing key
        if node.is_seq and isinstance(step, int) and 0 <= step < len(node.value):
            node, key_node = node.value[step], None
            path.append(step)
    return node, key_node, tuple(path)


def error_span(error: PlacedError, first_line) -> Span:
    """Where to underline ``error`` (``first_line(node)`` clips a node to its first line)."""
    if error.type == "missing":
        if error.key_node is not None:
            return error.key_node.span
        return first_line(error.node)
    if error.type == "extra_forbidden":
        return error.node.span if error.key_node is None else error.key_node.span
    return error.node.span if error.node.end - error.node.start < 2000 else first_line(error.node)


def describe_type(value: Any, *, mapping: str = "a mapping") -> str:
    """``value``'s kind as a message says it ("a list", "a string"); ``mapping`` names a dict."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return mapping
    if isinstance(value, bytes):
        return "binary data (!!binary)"
    return type(value).__name__
