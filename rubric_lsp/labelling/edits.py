"""Minimal text edits on a JSON document's nodes: set one key of an object, remove one, set a list's entries.

A label is written as the smallest change that makes the file hold it: an existing value is replaced in
place (its neighbours, their order, the file's indentation and line breaks untouched); a new key goes after
the object's last pair, indented as that pair is; a removed key takes one neighbouring comma with it. The
text outside the edited spans is the file's own, byte for byte (tests/test_labelling_edits.py).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from rubric_lsp.document import Document, Node
from rubric_lsp.document.issues import TextEdit
from rubric_lsp.document.positions import Span


def json_text(value: Any) -> str:
    """``value`` as one line of JSON (non-ASCII kept as written)."""
    return json.dumps(value, ensure_ascii=False)


def set_keys(doc: Document, mapping: Node, values: Sequence[tuple[str, Any]]) -> list[TextEdit]:
    """Edits giving each ``mapping[key]`` its value: one present is changed in place (:func:`set_node`), the
    absent ones are added together after the object's last pair, in the order given."""
    edits: list[TextEdit] = []
    new = []
    for key, value in values:
        node = mapping.get(key)
        if node is not None:
            edits += set_node(node, value)
        else:
            new.append(f"{json_text(key)}: {json_text(value)}")
    if not new:
        return edits
    pairs = mapping.pairs()
    if not pairs:  # {} or { }: the pairs go inside the braces
        return [*edits, TextEdit(Span(mapping.start + 1, mapping.end - 1), ", ".join(new))]
    text = doc.text
    last_key, last_value = pairs[-1]
    line_start = text.rfind("\n", 0, last_key.start) + 1
    indent = text[line_start : last_key.start]
    newline = "\r\n" if text[max(0, line_start - 2) : line_start] == "\r\n" else "\n"
    # pairs on one line ({"a": 1, "b": 2}) get the new ones on that line; else each on a line of its own
    separator = ", " if indent.strip() else "," + newline + indent
    return [*edits, TextEdit(Span(last_value.end, last_value.end), "".join(separator + pair for pair in new))]


def set_node(node: Node, value: Any) -> list[TextEdit]:
    """Edits making ``node`` hold ``value``: nothing when it does, each differing entry of a same-length list of
    scalars alone, else the whole value."""
    if node.is_scalar and node.value == value and type(node.value) is type(value):
        return []
    if node.is_seq and isinstance(value, list) and len(node.value) == len(value):
        children: Sequence[Node] = node.value
        if all(child.is_scalar for child in children):
            return [
                TextEdit(child.span, json_text(new))
                for child, new in zip(children, value)
                if not (child.value == new and type(child.value) is type(new))
            ]
    return [TextEdit(node.span, json_text(value))]


def remove_key(doc: Document, mapping: Node, key: str) -> list[TextEdit]:
    """Edits removing every ``key`` pair of ``mapping`` with one neighbouring comma each (and the line it
    stood on, when it stood alone)."""
    pairs = mapping.pairs()
    indexes = [i for i, (k, _v) in enumerate(pairs) if k.is_scalar and k.value == key]
    if not indexes:
        return []
    keep = [p for i, p in enumerate(pairs) if i not in indexes]
    if not keep:  # the object's only pairs: leave it empty
        return [TextEdit(Span(mapping.start + 1, mapping.end - 1), "")]
    edits = []
    for i in indexes:
        key_node, value_node = pairs[i]
        if any(j not in indexes for j in range(i)):  # a kept pair before it: from the previous pair's end
            edits.append(TextEdit(Span(pairs[i - 1][1].end, value_node.end), ""))
        else:  # none kept before it: up to the next kept pair's key (its comma and line break go)
            following = next(j for j in range(i + 1, len(pairs)) if j not in indexes)
            edits.append(TextEdit(Span(key_node.start, pairs[following][0].start), ""))
    return _merged(edits)


def _merged(edits: list[TextEdit]) -> list[TextEdit]:
    """Adjacent or overlapping removals as one."""
    out: list[TextEdit] = []
    for edit in sorted(edits, key=lambda e: e.span.start):
        if out and edit.span.start <= out[-1].span.end:
            last = out.pop()
            edit = TextEdit(Span(last.span.start, max(last.span.end, edit.span.end)), "")
        out.append(edit)
    return out


def append(doc: Document, sequence: Node, value: Any) -> list[TextEdit]:
    """Edits adding ``value`` (one line of JSON) at the end of the list ``sequence``, indented as its last entry."""
    entries: Sequence[Node] = sequence.value
    if not entries:
        return [TextEdit(Span(sequence.start + 1, sequence.end - 1), json_text(value))]
    text = doc.text
    last = entries[-1]
    line_start = text.rfind("\n", 0, last.start) + 1
    indent = text[line_start : last.start]
    newline = "\r\n" if text[max(0, line_start - 2) : line_start] == "\r\n" else "\n"
    separator = ", " if indent.strip() else "," + newline + indent
    return [TextEdit(Span(last.end, last.end), separator + json_text(value))]


def remove_entry(doc: Document, sequence: Node, entry: Node) -> list[TextEdit]:
    """Edits removing ``entry`` from the list ``sequence`` with one neighbouring comma (and its line)."""
    entries: list[Node] = list(sequence.value)
    at = next(i for i, e in enumerate(entries) if e is entry)
    if len(entries) == 1:
        return [TextEdit(Span(sequence.start + 1, sequence.end - 1), "")]
    if at > 0:
        return [TextEdit(Span(entries[at - 1].end, entry.end), "")]
    return [TextEdit(Span(entry.start, entries[1].start), "")]
