"""Finding what is under the cursor: the chain of nodes from the root to an offset."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rubric_lsp.document import Node


@dataclass
class Location:
    """Where an offset falls: the path of keys/indices and the nodes along it."""

    path: list[Any] = field(default_factory=list)  # keys and indices from the root
    nodes: list[Node] = field(default_factory=list)  # the value node at each depth (root first)
    key_node: Node | None = None  # set when the offset is on a mapping key
    key_parent: Node | None = None  # the mapping that key belongs to

    @property
    def node(self) -> Node | None:
        return self.nodes[-1] if self.nodes else None

    @property
    def on_key(self) -> bool:
        return self.key_node is not None


def locate(root: Node | None, offset: int) -> Location:
    loc = Location()
    if root is None:
        return loc
    node = root
    loc.nodes.append(node)
    for _ in range(10_000):  # bounded by document depth
        step = _child_at(node, offset)
        if step is None:
            return loc
        key, key_node, child = step
        if key_node is not None and key_node.start <= offset <= key_node.end:
            loc.path.append(key)
            loc.key_node, loc.key_parent = key_node, node
            return loc
        if child is None:
            return loc
        loc.path.append(key)
        loc.nodes.append(child)
        node = child
    return loc


def _child_at(node: Node, offset: int):
    if node.is_map:
        for key_node, value in node.pairs():
            if not (node.start <= key_node.start <= node.end):
                continue  # merged in from an anchor elsewhere
            if key_node.start <= offset <= key_node.end:
                return key_node.value, key_node, value
            if value.start <= offset <= value.end and (value.end > value.start or offset == value.start):
                return key_node.value, key_node, value
        return None
    if node.is_seq:
        for index, item in enumerate(node.elements()):
            if item.start <= offset <= item.end:
                return index, None, item
    return None


def schema_at(schema: dict, path: list[Any], nodes: list[Node] | None = None, unknown: Any = None) -> list[dict]:
    """Every subschema of ``schema`` that can describe the value at ``path``.

    With ``nodes`` (the value node at each depth, root first), alternatives that the
    document rules out are dropped: a mapping whose ``type`` is some other value cannot
    be the alternative that requires ``type: assert-set``. Values equal to ``unknown`` (a
    completion placeholder) rule nothing out.
    """
    defs = schema.get("$defs") or schema.get("definitions") or {}
    current = _expand(schema, defs)
    for depth, step in enumerate(path):
        if nodes is not None and depth < len(nodes):
            current = _fitting(current, nodes[depth], unknown)
        nxt: list[dict] = []
        for sub in current:
            if isinstance(step, int):
                items = sub.get("items")
                if isinstance(items, dict):
                    nxt.extend(_expand(items, defs))
            else:
                props = sub.get("properties") or {}
                if step in props:
                    nxt.extend(_expand(props[step], defs))
                elif isinstance(sub.get("additionalProperties"), dict):
                    nxt.extend(_expand(sub["additionalProperties"], defs))
        current = nxt
        if not current:
            break
    if nodes is not None and len(nodes) > len(path):
        current = _fitting(current, nodes[len(path)], unknown)
    return current


def _fitting(candidates: list[dict], node: Node, unknown: Any = None) -> list[dict]:
    if not node.is_map:
        return candidates
    kept = []
    for sub in candidates:
        props = sub.get("properties") or {}
        fits = True
        for key, prop in props.items():
            value = node.get(key)
            if (
                value is None
                or not value.is_scalar
                or not isinstance(prop, dict)
                or (unknown is not None and value.value == unknown)
            ):
                continue
            allowed = [prop["const"]] if "const" in prop else prop.get("enum")
            if allowed is not None and value.value not in allowed:
                fits = False
                break
        if fits:
            kept.append(sub)
    return kept or candidates


def _expand(sub: Any, defs: dict, depth: int = 0) -> list[dict]:
    if not isinstance(sub, dict) or depth > 20:
        return []
    ref = sub.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/"):
        name = ref.rsplit("/", 1)[-1]
        target = defs.get(name)
        merged = {**(target or {}), **{k: v for k, v in sub.items() if k != "$ref"}}
        return _expand(merged, defs, depth + 1)
    found = [sub]
    for key in ("anyOf", "oneOf", "allOf"):
        for option in sub.get(key) or []:
            found.extend(_expand(option, defs, depth + 1))
    # if/then/else (a discriminator): both outcomes are candidates; `_fitting` rules out by the document
    for key in ("then", "else"):
        found.extend(_expand(sub.get(key), defs, depth + 1))
    return found


def description_of(subschemas: list[dict]) -> str | None:
    for sub in subschemas:
        text = sub.get("description")
        if text:
            return text
    return None
