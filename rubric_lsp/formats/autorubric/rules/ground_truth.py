"""Ground truth in autorubric datasets: what ``RubricDataset.from_json`` (autorubric 1.6.1) reads
from an item's ``ground_truth`` and ``ground_truth_reasons``, and what it refuses."""

from __future__ import annotations

import json
import re
from typing import Any

from rubric_lsp.diagnostics import Severity
from rubric_lsp.document import Node
from rubric_lsp.document.nodes import to_plain
from rubric_lsp.formats.autorubric import DATASET
from rubric_lsp.formats.autorubric.constraints import VERDICTS
from rubric_lsp.formats.autorubric.loading import ground_truth_entries
from rubric_lsp.formats.autorubric.view import RubricView
from rubric_lsp.formats.errors import describe_type
from rubric_lsp.rules.context import CheckContext
from rubric_lsp.rules.registry import rule
from rubric_lsp.rules.suggest import did_you_mean, suggest
from rubric_lsp.rules.unknown_keys import VALUE_RENAME_SAFETY

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO

GROUND_TRUTH_SHAPE = rule(
    "AR205",
    "ground-truth-length",
    E,
    "An item's `ground_truth` is not a list with one entry per criterion of its rubric.",
    "Ground truth aligns with the criteria by position (sections flattened in order); autorubric "
    "refuses a list of another length.",
    bad=(
        "{\n"
        '  "prompt": "Explain photosynthesis",\n'
        '  "rubric": [{"requirement": "Mentions chlorophyll"}, {"requirement": "Names the products"}],\n'
        '  "items": [\n'
        '    {"submission": "Plants use chlorophyll.", "description": "good",\n'
        '     "ground_truth": ["MET"]}\n'
        "  ]\n"
        "}\n"
    ),
    good=(
        "{\n"
        '  "prompt": "Explain photosynthesis",\n'
        '  "rubric": [{"requirement": "Mentions chlorophyll"}, {"requirement": "Names the products"}],\n'
        '  "items": [\n'
        '    {"submission": "Plants use chlorophyll.", "description": "good",\n'
        '     "ground_truth": ["MET", "UNMET"]}\n'
        "  ]\n"
        "}\n"
    ),
    formats=(DATASET,),
    checked_against="autorubric 1.6.1's autorubric/dataset.py (RubricDataset.from_json)",
)
GROUND_TRUTH_NOT_A_LIST = rule(
    "AR209",
    "ground-truth-not-a-list",
    W,
    "An item's `ground_truth` is an object or a string, not a list: autorubric reads its keys or its characters as the verdicts.",
    'autorubric loads the ground truth with `for v in ground_truth`, so `{"MET": "why"}` is the verdict list '
    '`["MET"]` (the reason is dropped) and `"MET"` is `["M", "E", "T"]`. When that happens to fit the '
    "rubric the dataset loads and grades against verdicts nobody wrote as such; reasons belong in "
    "`ground_truth_reasons`.",
    bad=(
        "{\n"
        '  "prompt": "Explain photosynthesis",\n'
        '  "rubric": [{"requirement": "Mentions chlorophyll"}],\n'
        '  "items": [{"submission": "Plants use chlorophyll.", "description": "good",\n'
        '             "ground_truth": {"MET": "names chlorophyll"}}]\n'
        "}\n"
    ),
    good=(
        "{\n"
        '  "prompt": "Explain photosynthesis",\n'
        '  "rubric": [{"requirement": "Mentions chlorophyll"}],\n'
        '  "items": [{"submission": "Plants use chlorophyll.", "description": "good",\n'
        '             "ground_truth": ["MET"], "ground_truth_reasons": ["names chlorophyll"]}]\n'
        "}\n"
    ),
    formats=(DATASET,),
)
BINARY_GROUND_TRUTH = rule(
    "AR206",
    "invalid-binary-ground-truth",
    E,
    "Ground truth for a binary criterion is not exactly MET, UNMET or CANNOT_ASSESS.",
    "The verdict names are case-sensitive; autorubric refuses `met`, `Met`, `yes` or `true`.",
    bad=(
        "{\n"
        '  "prompt": "Explain photosynthesis",\n'
        '  "rubric": [{"requirement": "Mentions chlorophyll"}, {"requirement": "Names the products"}],\n'
        '  "items": [\n'
        '    {"submission": "Plants use chlorophyll.", "description": "good",\n'
        '     "ground_truth": ["met", "Cannot assess"]}\n'
        "  ]\n"
        "}\n"
    ),
    good=(
        "{\n"
        '  "prompt": "Explain photosynthesis",\n'
        '  "rubric": [{"requirement": "Mentions chlorophyll"}, {"requirement": "Names the products"}],\n'
        '  "items": [\n'
        '    {"submission": "Plants use chlorophyll.", "description": "good",\n'
        '     "ground_truth": ["MET", "CANNOT_ASSESS"]}\n'
        "  ]\n"
        "}\n"
    ),
    fix="write the exact verdict name when the intent is unambiguous",
    fix_safety="Safe: offered only when exactly one verdict is meant (a case, space or dash variant of MET, UNMET or CANNOT_ASSESS); autorubric refuses the dataset as written, so nothing that worked changes.",
    formats=(DATASET,),
    checked_against="autorubric 1.6.1's autorubric/dataset.py (RubricDataset.from_json)",
)
CHOICE_GROUND_TRUTH = rule(
    "AR207",
    "invalid-choice-ground-truth",
    E,
    "Ground truth for a multi-choice criterion is not one of its option labels.",
    "Multi-choice ground truth names the option by its label (case and surrounding spaces are "
    "ignored); autorubric refuses any other value, including the option's number or value.",
    bad=(
        "{\n"
        '  "prompt": "Explain photosynthesis",\n'
        '  "rubric": [\n'
        '    {"requirement": "How helpful is the answer?",\n'
        '     "options": [{"label": "Not helpful", "value": 0}, {"label": "Very helpful", "value": 1}]}\n'
        "  ],\n"
        '  "items": [\n'
        '    {"submission": "Plants use chlorophyll.", "description": "good",\n'
        '     "ground_truth": ["Very helpfull"]}\n'
        "  ]\n"
        "}\n"
    ),
    good=(
        "{\n"
        '  "prompt": "Explain photosynthesis",\n'
        '  "rubric": [\n'
        '    {"requirement": "How helpful is the answer?",\n'
        '     "options": [{"label": "Not helpful", "value": 0}, {"label": "Very helpful", "value": 1}]}\n'
        "  ],\n"
        '  "items": [\n'
        '    {"submission": "Plants use chlorophyll.", "description": "good",\n'
        '     "ground_truth": ["Very helpful"]}\n'
        "  ]\n"
        "}\n"
    ),
    fix="use the closest label",
    fix_safety=VALUE_RENAME_SAFETY,
    formats=(DATASET,),
    checked_against="autorubric 1.6.1's autorubric/dataset.py (RubricDataset.from_json)",
)
GROUND_TRUTH_REASONS = rule(
    "AR208",
    "invalid-ground-truth-reasons",
    E,
    "`ground_truth_reasons` is given without `ground_truth`, has another length, or holds something other than text or null.",
    "Reasons align with the ground truth entry by entry (null where there is none); autorubric "
    "refuses reasons it cannot align.",
    bad=(
        "{\n"
        '  "prompt": "Explain photosynthesis",\n'
        '  "rubric": [{"requirement": "Mentions chlorophyll"}, {"requirement": "Names the products"}],\n'
        '  "items": [\n'
        '    {"submission": "Plants use chlorophyll.", "description": "good",\n'
        '     "ground_truth": ["MET", "UNMET"], "ground_truth_reasons": ["Names chlorophyll."]}\n'
        "  ]\n"
        "}\n"
    ),
    good=(
        "{\n"
        '  "prompt": "Explain photosynthesis",\n'
        '  "rubric": [{"requirement": "Mentions chlorophyll"}, {"requirement": "Names the products"}],\n'
        '  "items": [\n'
        '    {"submission": "Plants use chlorophyll.", "description": "good",\n'
        '     "ground_truth": ["MET", "UNMET"], "ground_truth_reasons": ["Names chlorophyll.", null]}\n'
        "  ]\n"
        "}\n"
    ),
    formats=(DATASET,),
    checked_against="autorubric 1.6.1's autorubric/dataset.py (RubricDataset.from_json)",
)


def _count(number: int, one: str, many: str) -> str:
    return f"{number} {one if number == 1 else many}"


_VERDICT_SPELLING = re.compile(r"[\s\-]+")


def _verdict_fix(value: object) -> str | None:
    """The verdict an obviously misspelt one means ('met', 'Cannot assess'), or None."""
    if not isinstance(value, str):
        return None
    candidate = _VERDICT_SPELLING.sub("_", value.strip()).upper()
    return candidate if candidate in VERDICTS else None


def check_ground_truth(ctx: CheckContext, item: Node, index: int, view: RubricView | None) -> None:
    gt = item.get("ground_truth")
    reasons = item.get("ground_truth_reasons")
    gt_present = gt is not None and gt.value is not None
    read = ground_truth_entries(gt) if gt is not None and gt_present else None
    if gt is not None and gt_present and read is None:
        ctx.report(
            GROUND_TRUTH_SHAPE,
            ctx.line_span(gt),
            f"Item {index + 1}: 'ground_truth' must be a list with one verdict per criterion, got {describe_type(to_plain(gt))}; "
            f"autorubric refuses the dataset ('{type(gt.value).__name__}' object is not iterable).",
        )
    elif gt is not None and read is not None:
        if not gt.is_seq:
            _not_a_list(ctx, gt, read, index)
        if view is not None:
            _aligned(ctx, gt, read, view, index)
    if reasons is None or reasons.value is None:
        return
    if not reasons.is_seq:
        ctx.report(
            GROUND_TRUTH_REASONS,
            ctx.line_span(reasons),
            f"Item {index + 1}: 'ground_truth_reasons' must be a list (one reason or null per ground truth entry), got {describe_type(to_plain(reasons))}.",
        )
        return
    if not gt_present:
        ctx.report(
            GROUND_TRUTH_REASONS,
            ctx.line_span(reasons),
            f"Item {index + 1} has 'ground_truth_reasons' but no 'ground_truth': reasons explain ground truth entries, so autorubric refuses them alone. Add the ground truth or remove the reasons.",
        )
        return
    assert gt is not None  # gt_present
    if read is not None and len(reasons.elements()) != len(read):
        ctx.report(
            GROUND_TRUTH_REASONS,
            ctx.line_span(reasons),
            f"Item {index + 1}: {_count(len(reasons.elements()), 'ground truth reason', 'ground truth reasons')} for {_count(len(read), 'ground truth entry', 'ground truth entries')}; autorubric refuses the dataset. "
            "Give one reason per entry (null where there is none).",
        )
    for node in reasons.elements():
        if not (node.is_scalar and (node.value is None or isinstance(node.value, str))):
            ctx.report(
                GROUND_TRUTH_REASONS,
                ctx.line_span(node),
                f"Item {index + 1}: a ground truth reason must be text or null, got {describe_type(to_plain(node))}.",
            )


def _not_a_list(ctx: CheckContext, gt: Node, read: list[tuple[Node, Any]], index: int) -> None:
    what = "keys" if gt.is_map else "characters"
    shown = json.dumps([value for _node, value in read], ensure_ascii=False)
    dropped = " (their values are dropped)" if gt.is_map and gt.value else ""
    ctx.report(
        GROUND_TRUTH_NOT_A_LIST,
        ctx.line_span(gt),
        f"Item {index + 1}: 'ground_truth' is {describe_type(to_plain(gt), mapping='an object')}, and autorubric reads its {what} "
        f"as the verdicts: {shown}{dropped}. Write a list with one verdict per criterion; reasons go in 'ground_truth_reasons'.",
    )


def _aligned(ctx: CheckContext, gt: Node, read: list[tuple[Node, Any]], view: RubricView, index: int) -> None:
    entries = view.entries
    if len(read) != len(entries):
        ctx.report(
            GROUND_TRUTH_SHAPE,
            ctx.line_span(gt),
            f"Item {index + 1}: 'ground_truth' has {_count(len(read), 'entry', 'entries')} but its rubric has {_count(len(entries), 'criterion', 'criteria')}; autorubric refuses the dataset. "
            "Give one verdict per criterion, in rubric order (sections flattened).",
        )
    for entry, (node, value) in zip(entries, read):
        _verdict(ctx, entry, node, index, value, fixable=gt.is_seq)


def _verdict(ctx: CheckContext, entry, node: Node, index: int, value: Any, fixable: bool = True) -> None:
    """``fixable``: ``node`` is the entry itself (in a list); a key or a character cannot be replaced alone."""
    criterion = entry.criterion
    if criterion is None:
        return
    if criterion.options is None:
        if isinstance(value, str) and value in VERDICTS:
            return
        meant = _verdict_fix(value)
        shown = value if isinstance(value, str) else ctx.source(node)
        message = (
            f"Item {index + 1}, '{entry.label}': '{shown}' is not a verdict autorubric accepts for a binary criterion "
            "(exactly MET, UNMET or CANNOT_ASSESS, upper case); it refuses the dataset."
        )
        fix = None
        if meant:
            message += f" Write '{meant}'."
            fix = ctx.replace(node, json.dumps(meant), f'Write "{meant}"') if fixable else None
        ctx.report(BINARY_GROUND_TRUTH, ctx.line_span(node), message, fix=fix)
        return
    labels = [option.label for option in criterion.options]
    by_key = {label.strip().lower(): label for label in labels}
    if isinstance(value, str) and value.strip().lower() in by_key:
        return
    if (
        not isinstance(value, str)
        and value is not None
        and node.is_scalar
        and ctx.source(node).strip().lower() in by_key
    ):
        label = by_key[ctx.source(node).strip().lower()]
        ctx.report(
            CHOICE_GROUND_TRUTH,
            ctx.line_span(node),
            f"Item {index + 1}, '{entry.label}': multi-choice ground truth is an option label written as text; {ctx.source(node)} is not text, so autorubric refuses the dataset. Write {json.dumps(label, ensure_ascii=False)}.",
            fix=ctx.replace(
                node, json.dumps(label, ensure_ascii=False), f"Write {json.dumps(label, ensure_ascii=False)}"
            )
            if fixable
            else None,
        )
        return
    found = suggest(str(value), labels, cutoff=0.5) if value is not None else None
    suggestion = found.name if found else None
    shown = value if isinstance(value, str) else ctx.source(node)
    message = (
        f"Item {index + 1}, '{entry.label}': '{shown}' is not one of this criterion's option labels; autorubric refuses the dataset. "
        f"Options: {', '.join(repr(label) for label in labels)}."
    )
    fix = None
    if suggestion:
        message += did_you_mean(str(value), suggestion)
    if suggestion and fixable:
        fix = ctx.replace(
            node,
            json.dumps(suggestion, ensure_ascii=False),
            f"Use '{suggestion}'",
            safe=found is not None and found.safe,
        )
    ctx.report(CHOICE_GROUND_TRUTH, ctx.line_span(node), message, fix=fix)
