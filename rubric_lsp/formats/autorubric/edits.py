"""Small text-edit builders the autorubric checks share (minimal edits, never a re-dump)."""

from __future__ import annotations

import json
import math
from typing import Any

from rubric_lsp.diagnostics import Fix
from rubric_lsp.document import Node
from rubric_lsp.document.issues import TextEdit
from rubric_lsp.document.nodes import to_plain
from rubric_lsp.document.positions import Span
from rubric_lsp.rules.context import CheckContext


def scalar_text(value: Any) -> str:
    """``value`` written so that YAML and JSON both read it back as the same value."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isfinite(value) and value == int(value) and abs(value) < 1e15:
            return str(int(value))
        return repr(value)
    if isinstance(value, int):
        return str(value)
    # default: a key that is not text holds nodes (`? [a]`), a timestamp a date.
    return json.dumps(value, ensure_ascii=False, default=lambda v: to_plain(v) if isinstance(v, Node) else str(v))


def remove_pair(
    ctx: CheckContext, mapping: Node, key_node: Node, value_node: Node, title: str, safe: bool = True
) -> Fix | None:
    """A fix deleting ``key: value`` from ``mapping``, or None when no clean edit exists.

    YAML: only a pair that sits on lines of its own in a block mapping (a pair that
    follows ``- `` on the item's first line would take the dash with it). JSON: the pair
    and one neighbouring comma.
    """
    text = ctx.document.text
    lines = ctx.document.lines
    if ctx.document.language == "json":
        start, end = key_node.start, value_node.end
        after = end
        while after < len(text) and text[after] in " \t\r\n":
            after += 1
        if after < len(text) and text[after] == ",":
            end = after + 1
            while end < len(text) and text[end] in " \t":
                end += 1
            # Keep the following pair on the line the removed one started on.
            line_start = lines.line_starts[lines.position(start).line]
            if text[line_start:start].strip() == "":
                start = line_start
                nl = text.find("\n", end)
                end = nl + 1 if nl != -1 and text[end:nl].strip() == "" else end
        else:
            before = start
            while before > 0 and text[before - 1] in " \t\r\n":
                before -= 1
            if before > 0 and text[before - 1] == ",":
                start = before - 1
            elif before > 0 and text[before - 1] == "{":
                return None  # the only pair of the object: leave it to the author
        return Fix(title, [TextEdit(Span(start, end), "")], safe)
    if len(mapping.pairs()) < 2:
        return None
    key_line = lines.position(key_node.start).line
    line_start = lines.line_starts[key_line]
    if text[line_start : key_node.start].strip() != "":
        return None  # "- key:" or a flow mapping
    end_line = lines.position(max(value_node.end - 1, value_node.start)).line
    end = lines.line_starts[end_line + 1] if end_line + 1 < lines.line_count else len(text)
    return Fix(title, [TextEdit(Span(line_start, end), "")], safe)


def anchor(ctx: CheckContext, mapping: Node) -> Node | Span:
    """Where to point at a whole criterion: its name, else its requirement, else its first line."""
    if mapping.is_map:
        for key in ("name", "requirement"):
            value = mapping.get(key)
            if value is not None and value.is_scalar:
                return value
    return ctx.line_span(mapping)
