"""Validate plain values against a format's pydantic model and place each error on its node.

Where an error points: a missing field → the key of the mapping that lacks it (or the
mapping's first line); an unknown key → that key; a bad value → the value.
"""

from __future__ import annotations

import difflib
import re
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


def closest(word: str, candidates: Iterable[str], cutoff: float = 0.6) -> str | None:
    """The nearest known name to ``word`` (case-insensitive), if any is close enough.

    A hint for a message only: a difflib ratio of 0.6 pairs words that share letters, not
    meaning (``createdAt`` → ``redteam``). Whether a fix may apply it is :func:`suggest`'s call.
    """
    pool = list(candidates)
    lowered = {c.lower(): c for c in pool}
    if word.lower() in lowered:
        return lowered[word.lower()]
    found = difflib.get_close_matches(word.lower(), list(lowered), n=1, cutoff=cutoff)
    return lowered[found[0]] if found else None


@dataclass(frozen=True)
class Suggestion:
    """A known name to suggest for an unknown one, and whether renaming to it is a *safe* fix."""

    name: str
    safe: bool


def suggest(word: str, candidates: Iterable[str], cutoff: float = 0.6) -> Suggestion | None:
    """:func:`closest`, with the fix safety of renaming ``word`` to it (:func:`rename_is_safe`)."""
    pool = list(candidates)
    name = closest(word, pool, cutoff)
    return None if name is None else Suggestion(name, rename_is_safe(word, name, pool))


# Shortest word for which one edit is taken as a typo: 'id' → 'ids' is a different word.
_MIN_TYPO_LENGTH = 4
_SEPARATORS = re.compile(r"[\s_\-]+")


def rename_is_safe(word: str, name: str, candidates: Iterable[str]) -> bool:
    """Whether replacing ``word`` by the known ``name`` repairs an unambiguous typo.

    The criterion (documented in each rule's "Fix safety"): either

    - ``word`` and ``name`` differ only in case and separators (``Max_Score`` → ``max_score``,
      ``output-path`` → ``outputPath``) and no other candidate does; or
    - ``word`` has at least four characters and is one edit from ``name`` (one letter inserted,
      deleted, replaced, or two neighbours swapped, ignoring case) and no other candidate is
      within one edit.

    Anything else (``outputs`` → ``outputPath``, ``description`` → ``sections``) is a guess:
    the rename stays offered, but as an unsafe fix.
    """
    pool = {c for c in candidates if c != word}
    if name not in pool:
        return False
    folded = _fold(word)
    same_fold = [c for c in pool if _fold(c) == folded]
    if same_fold:
        return same_fold == [name]
    if len(word) < _MIN_TYPO_LENGTH:
        return False
    lowered = word.lower()
    near = [c for c in pool if _within_one_edit(lowered, c.lower())]
    return near == [name]


def _fold(text: str) -> str:
    return _SEPARATORS.sub("", text).lower()


def _within_one_edit(a: str, b: str) -> bool:
    """Optimal-string-alignment distance ≤ 1 (an adjacent swap counts as one edit)."""
    if a == b:
        return True
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diffs = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diffs) == 1:
            return True
        i = diffs[0]
        return len(diffs) == 2 and diffs[1] == i + 1 and a[i] == b[i + 1] and a[i + 1] == b[i]
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    i = 0
    while i < len(short) and short[i] == long_[i]:
        i += 1
    return short[i:] == long_[i + 1 :]


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
