"""Criterion weights autorubric reads differently from what is written (AR013)."""

from __future__ import annotations

import math

from rubric_lsp.diagnostics import Severity
from rubric_lsp.document import Node
from rubric_lsp.formats.autorubric.edits import scalar_text
from rubric_lsp.formats.autorubric.rules.common import FORMATS
from rubric_lsp.rules.context import CheckContext
from rubric_lsp.rules.registry import rule

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO

SUSPICIOUS_WEIGHT = rule(
    "AR013",
    "suspicious-weight",
    W,
    "A weight of 0, NaN or infinity, or a weight written as text or as a boolean.",
    'autorubric converts `"3"` to 3.0 and `true` to 1.0 without a word; weight 0 makes the criterion '
    "count for nothing; NaN or infinity make the score NaN.",
    bad='- requirement: Cites a source\n  weight: "3"',
    good="- requirement: Cites a source\n  weight: 3",
    fix="write the number the value is read as",
    fix_safety="Safe: it writes the number autorubric already reads, so nothing it does changes.",
    formats=FORMATS,
)


def check_weight(ctx: CheckContext, mapping: Node) -> None:
    node = mapping.get("weight")
    if node is None or not node.is_scalar:
        return
    raw = node.value
    if isinstance(raw, bool):
        number = 1.0 if raw else 0.0
        ctx.report(
            SUSPICIOUS_WEIGHT,
            node,
            f"The weight is a boolean ({ctx.source(node)}); autorubric reads it as {scalar_text(number)}. Write the number you mean.",
            fix=ctx.replace(node, scalar_text(number), f"Write {scalar_text(number)}"),
        )
        return
    if isinstance(raw, str):
        try:
            number = float(raw.strip())
        except ValueError:
            return  # not a number at all: an error (AR104)
        if math.isfinite(number):
            if node.style is None and ctx.document.language == "yaml":
                return  # an unquoted 1e3 or -.5: RL005 explains the YAML 1.1 reading and fixes it
            ctx.report(
                SUSPICIOUS_WEIGHT,
                node,
                f"The weight is written as text; autorubric converts it to {scalar_text(number)} without a word. Write it as a plain number ({scalar_text(number)}).",
                fix=ctx.replace(node, scalar_text(number), f"Write {scalar_text(number)}"),
            )
            return
        raw = number
    if not isinstance(raw, (int, float)):
        return
    if math.isnan(raw):
        ctx.report(
            SUSPICIOUS_WEIGHT,
            node,
            "The weight is NaN (not a number): every score of this rubric becomes NaN. Give a real number.",
        )
    elif math.isinf(raw):
        ctx.report(
            SUSPICIOUS_WEIGHT,
            node,
            "The weight is infinite: the score becomes NaN whenever this criterion counts, and 0 otherwise. Give a finite number.",
        )
    elif raw == 0:
        ctx.report(
            SUSPICIOUS_WEIGHT,
            node,
            "Weight 0: this criterion never changes the score, yet the judge is still asked about it. Give it a positive weight (a reward), a negative one (a penalty), or remove it.",
        )
