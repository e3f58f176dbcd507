"""Unknown keys and values: the "did you mean" suggestion and its rename fix, in one place.

A rename is a *safe* fix only when the mistake is an unambiguous typo
(:func:`rubric_lsp.rules.suggest.rename_is_safe`); a fuzzy guess stays offered as an
*unsafe* fix, so ``rubric-lint --fix`` never turns ``outputs:`` into ``outputPath:``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rubric_lsp.diagnostics import Fix
from rubric_lsp.document import Node
from rubric_lsp.rules.context import CheckContext
from rubric_lsp.rules.suggest import Suggestion, suggest

# How each rule's docs describe the fixes built here ("Fix safety").
_TYPO = (
    "differs from a known one only in case or separators (`-`, `_`, spaces), or has four or more "
    "characters and is one edit (a letter added, dropped, replaced, or two neighbours swapped) from "
    "exactly one known "
)
RENAME_SAFETY = (
    "Safe only when the key is an unambiguous typo: it "
    + _TYPO
    + "key, and that key is not already in the mapping. Any other suggestion is a guess that may change "
    "what the file means, so its rename is offered as an unsafe fix."
)
VALUE_RENAME_SAFETY = (
    "Safe only when the value is an unambiguous typo: it "
    + _TYPO
    + "value. Any other nearest match is a guess, offered as an unsafe fix."
)


@dataclass(frozen=True)
class KeyFix:
    """The suggestion for an unknown key (None when nothing is close) and its rename fix
    (None when there is no suggestion or the suggested key is already in the mapping)."""

    suggestion: str | None
    fix: Fix | None


def unknown_key(
    ctx: CheckContext,
    mapping: Node,
    key_node: Node,
    known: Iterable[str],
    *,
    cutoff: float = 0.6,
    title: str | None = None,
) -> KeyFix:
    """The "did you mean" for the unknown key ``key_node`` of ``mapping``, given the ``known`` keys."""
    key = key_node.value
    if not isinstance(key, str):
        return KeyFix(None, None)
    found = suggest(key, known, cutoff)
    if found is None:
        return KeyFix(None, None)
    if mapping.has(found.name):
        return KeyFix(found.name, None)
    return KeyFix(found.name, rename_fix(ctx, key_node, found, title or f"Rename '{key}' to '{found.name}'"))


def rename_fix(ctx: CheckContext, node: Node, suggestion: Suggestion, title: str, *, safe: bool = True) -> Fix:
    """Replace the scalar or key ``node`` by ``suggestion.name`` (quoted like it); safe only when
    the suggestion is an unambiguous typo and the caller (``safe``) does not know better."""
    return ctx.rename(node, suggestion.name, title, safe=safe and suggestion.safe)
