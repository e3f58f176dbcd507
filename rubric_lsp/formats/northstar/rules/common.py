"""Helpers the NorthStar checks share: messages, remove/rename fixes, finding a key's mapping."""

from __future__ import annotations

import re

from rubric_lsp.diagnostics import Fix
from rubric_lsp.document import Node
from rubric_lsp.document.issues import TextEdit
from rubric_lsp.document.positions import Span
from rubric_lsp.formats.northstar.model import (
    GraderConfig,
    JudgeScoringConfig,
)
from rubric_lsp.rules.context import CheckContext
from rubric_lsp.rules.unknown_keys import unknown_key

SCORING_KEYS = set(JudgeScoringConfig.model_fields)

GRADER_KEYS = set(GraderConfig.model_fields)

_MODEL_NAME = re.compile(r" or instance of \w+")


def plain_message(message: str) -> str:
    """A pydantic message without our model's class names (they mean nothing to the reader)."""
    return _MODEL_NAME.sub("", message).rstrip(".")


def remove_pair_fix(ctx: CheckContext, mapping: Node, key_node: Node, title: str) -> Fix | None:
    """Edits that delete one ``"key": value`` pair of a JSON object, with its comma."""
    pairs = mapping.pairs()
    index = next((i for i, (k, _v) in enumerate(pairs) if k is key_node), None)
    if index is None:
        return None
    value = pairs[index][1]
    if index > 0:  # from the end of the previous value: removes the comma before this pair
        span = Span(pairs[index - 1][1].end, value.end)
    elif len(pairs) > 1:  # the first pair: up to the next key (removes the comma after)
        span = Span(key_node.start, pairs[1][0].start)
    else:
        span = Span(key_node.start, value.end)
    return Fix(title, [TextEdit(span, "")])


def key_rename(ctx: CheckContext, mapping: Node, key_node: Node, known: set[str]) -> tuple[str | None, Fix | None]:
    found = unknown_key(ctx, mapping, key_node, known)
    return found.suggestion, found.fix


def parent_map(ctx: CheckContext, key_node: Node) -> Node | None:
    """The mapping that holds ``key_node`` (searched from the root)."""
    stack = [ctx.document.root]
    while stack:
        node = stack.pop()
        if node is None or node.is_scalar:
            continue
        if node.is_map:
            for k, v in node.pairs():
                if k is key_node:
                    return node
                stack.append(v)
        else:
            stack.extend(node.value)
    return None
