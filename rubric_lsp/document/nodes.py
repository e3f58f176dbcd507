"""The node tree: every mapping, sequence and scalar with its exact source span."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from rubric_lsp.document.positions import Span

MAP, SEQ, SCALAR = "map", "seq", "scalar"


class Node:
    """A value in a YAML or JSON document, with where it came from.

    ``value`` is a list of ``(key_node, value_node)`` pairs for mappings (duplicates
    kept, in source order), a list of nodes for sequences, and the constructed Python
    value for scalars. ``style`` is the scalar's quoting (None for plain scalars).
    """

    __slots__ = ("end", "kind", "raw", "start", "style", "tag", "value")

    def __init__(
        self,
        kind: str,
        start: int,
        end: int,
        value: Any,
        tag: str = "",
        style: str | None = None,
        raw: str | None = None,
    ) -> None:
        self.kind = kind
        self.start = start
        self.end = end
        self.value = value
        self.tag = tag
        self.style = style
        self.raw = raw

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"Node({self.kind}, {self.start}-{self.end})"

    @property
    def span(self) -> Span:
        return Span(self.start, self.end)

    @property
    def is_map(self) -> bool:
        return self.kind == MAP

    @property
    def is_seq(self) -> bool:
        return self.kind == SEQ

    @property
    def is_scalar(self) -> bool:
        return self.kind == SCALAR

    # -- mapping helpers -------------------------------------------------------
    def pairs(self) -> list[tuple[Node, Node]]:
        return self.value if self.kind == MAP else []

    def items(self) -> Iterator[tuple[Any, Node, Node]]:
        """(key, key_node, value_node), last duplicate winning like the loaders do."""
        if self.kind != MAP:
            return iter(())
        last: dict[Any, tuple[Node, Node]] = {}
        for k, v in self.value:
            last[_hashable(k.value)] = (k, v)
        return ((key, kn, vn) for key, (kn, vn) in last.items())

    def key_node(self, key: Any) -> Node | None:
        """The last key node equal to ``key`` (the one the loaders keep), or None."""
        if self.kind != MAP:
            return None
        pairs: list[tuple[Node, Node]] = self.value
        for k, _v in reversed(pairs):
            if k.value == key and k.kind == SCALAR:  # (a collection key's value is a list)
                return k
        return None

    def get(self, key: Any) -> Node | None:
        """The value of the last key equal to ``key`` (the one the loaders keep), or None."""
        if self.kind != MAP:
            return None
        pairs: list[tuple[Node, Node]] = self.value
        for k, v in reversed(pairs):
            if k.value == key and k.kind == SCALAR:  # (a collection key's value is a list)
                return v
        return None

    def has(self, key: Any) -> bool:
        return self.key_node(key) is not None

    def keys(self) -> list[Any]:
        return [k.value for k, _ in self.pairs()]

    # -- sequence helpers ------------------------------------------------------
    def elements(self) -> list[Node]:
        return self.value if self.kind == SEQ else []

    # -- paths -----------------------------------------------------------------
    def at(self, path: Sequence[Any]) -> tuple[Node | None, Node | None]:
        """Follow ``path`` (keys and indices) down the tree.

        Returns ``(node, key_node)``: the node found (or the deepest existing
        ancestor when the path leaves the tree — callers check ``exact``) and the key
        node of the last mapping step, if any.
        """
        node: Node | None = self
        key_node: Node | None = None
        for step in path:
            if node is None:
                break
            if node.kind == MAP:
                kn = node.key_node(step)
                if kn is None:
                    return node, key_node
                key_node = kn
                node = node.get(step)
            elif node.kind == SEQ and isinstance(step, int) and 0 <= step < len(node.value):
                node = node.value[step]
                key_node = None
            else:
                return node, key_node
        return node, key_node

    def resolve(self, path: Sequence[Any]) -> tuple[Node, Node | None, int]:
        """Like :meth:`at` but also returns how many steps of ``path`` were followed."""
        node: Node = self
        key_node: Node | None = None
        for depth, step in enumerate(path):
            if node.kind == MAP:
                kn = node.key_node(step)
                if kn is None:
                    return node, key_node, depth
                key_node = kn
                node = node.get(step)  # type: ignore[assignment]
            elif node.kind == SEQ and isinstance(step, int) and 0 <= step < len(node.value):
                node = node.value[step]
                key_node = None
            else:
                return node, key_node, depth
        return node, key_node, len(path)


def _hashable(value: Any) -> Any:
    try:
        hash(value)
        return value
    except TypeError:
        return repr(value)


class PlainDict(dict[Any, Any]):
    """A dict built from a mapping node; ``.node`` is where it came from."""

    __slots__ = ("node",)
    node: Node


class PlainList(list[Any]):
    """A list built from a sequence node; ``.node`` is where it came from."""

    __slots__ = ("node",)
    node: Node


BINARY = "tag:yaml.org,2002:binary"


def to_plain(node: Node | None, *, binary: bool = False) -> Any:
    """Build plain Python values from ``node``.

    Containers remember their node. Shared nodes (YAML aliases) build once and are
    shared, so an alias cannot multiply the work here; mapping keys that are not
    hashable are turned into their repr, as they could not be dict keys anyway.
    ``binary=True`` gives a ``!!binary`` scalar as the bytes PyYAML builds (what an owner
    reading with PyYAML validates); otherwise it stays its base64 text, which every rule and
    reporter can print.
    """
    if node is None:
        return None
    memo: dict[int, Any] = {}
    return _plain(node, memo, binary)


def scalar_value(node: Node, binary: bool) -> Any:
    """A scalar's value; with ``binary``, a ``!!binary`` one as PyYAML's bytes."""
    if binary and node.tag == BINARY and isinstance(node.value, str):
        import base64
        import binascii

        try:
            return base64.decodebytes(node.value.encode("ascii"))
        except (UnicodeEncodeError, binascii.Error):
            return node.value  # not base64: the reader reported it (PyYAML refuses the file)
    return node.value


def _plain(node: Node, memo: dict[int, Any], binary: bool) -> Any:
    if node.kind == SCALAR:
        return scalar_value(node, binary) if binary else node.value
    done = memo.get(id(node))
    if done is not None:
        return done
    if node.kind == SEQ:
        out_list = PlainList()
        out_list.node = node
        memo[id(node)] = out_list
        out_list.extend(_plain(child, memo, binary) for child in node.value)
        return out_list
    out = PlainDict()
    out.node = node
    memo[id(node)] = out
    for k, v in node.value:
        if k.kind == SCALAR:
            out[_hashable(scalar_value(k, True) if binary else k.value)] = _plain(v, memo, binary)
        else:
            out[repr(_plain(k, memo, binary))] = _plain(v, memo, binary)
    return out


def walk(
    root: Node,
    *,
    keys: bool = True,
    skip: Callable[[Node], bool] | None = None,
) -> Iterator[Node]:
    """Every node under ``root`` once (aliases shared), in source order.

    ``keys=False`` leaves out mapping keys; ``skip(key_node)`` True leaves out that
    key's value subtree.
    """
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        yield node
        if node.kind == SEQ:
            stack.extend(reversed(node.value))
        elif node.kind == MAP:
            for key, value in reversed(node.value):
                if skip is not None and skip(key):
                    continue
                stack.append(value)
                if keys:
                    stack.append(key)
