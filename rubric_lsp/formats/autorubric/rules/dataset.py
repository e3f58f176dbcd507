"""Checks for autorubric datasets (``RubricDataset.from_json``), item by item.

What is an error mirrors ``RubricDataset.from_json`` in autorubric 1.6.1: the shared rubric
key is required (null allowed), every item needs ``submission`` and ``description`` (null
counts as missing), an effective rubric and an effective prompt, and ground truth must align
with the effective rubric's criteria.
"""

from __future__ import annotations

import json
import re

from rubric_lsp.diagnostics import Severity
from rubric_lsp.document import Node
from rubric_lsp.document.nodes import to_plain
from rubric_lsp.formats.autorubric import DATASET
from rubric_lsp.formats.autorubric.model import VERDICTS
from rubric_lsp.formats.autorubric.rules.rubric import RUBRIC_MAPPING_KEYS, check_unknown_keys
from rubric_lsp.formats.autorubric.view import RubricView, read_rubric
from rubric_lsp.formats.errors import describe_type, suggest
from rubric_lsp.rules.context import CheckContext
from rubric_lsp.rules.registry import rule
from rubric_lsp.rules.unknown_keys import VALUE_RENAME_SAFETY

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO

DATASET_SHAPE = rule(
    "AR200",
    "invalid-dataset-shape",
    E,
    "The dataset is not a JSON object with a `rubric` key.",
    "RubricDataset.from_json needs a JSON object whose `rubric` key is present (it may be null when "
    "every item brings its own rubric); otherwise it refuses the file.",
    bad='{"prompt": "Explain photosynthesis", "items": []}',
    good='{"prompt": "Explain photosynthesis", "rubric": [{"requirement": "Mentions chlorophyll"}], "items": []}',
    formats=(DATASET,),
    checked_against="autorubric 1.6.1's autorubric/dataset.py (RubricDataset.from_json)",
)
ITEM_SHAPE = rule(
    "AR201",
    "invalid-dataset-item",
    E,
    "`items` is not a list of objects.",
    "Each item is an object with at least `submission` and `description`; autorubric refuses anything else.",
    bad=(
        "{\n"
        '  "prompt": "Explain photosynthesis",\n'
        '  "rubric": [{"requirement": "Mentions chlorophyll"}],\n'
        '  "items": ["Plants use chlorophyll."]\n'
        "}\n"
    ),
    good=(
        "{\n"
        '  "prompt": "Explain photosynthesis",\n'
        '  "rubric": [{"requirement": "Mentions chlorophyll"}],\n'
        '  "items": [{"submission": "Plants use chlorophyll.", "description": "good"}]\n'
        "}\n"
    ),
    formats=(DATASET,),
    checked_against="autorubric 1.6.1's autorubric/dataset.py (RubricDataset.from_json)",
)
ITEM_MISSING_FIELD = rule(
    "AR202",
    "item-missing-field",
    E,
    "A dataset item has no `submission` or no `description` (or it is null).",
    "autorubric refuses the dataset: `submission` is the response to grade and `description` a "
    "short note about it (it may be empty, but must be there).",
    bad=(
        "{\n"
        '  "prompt": "Explain photosynthesis",\n'
        '  "rubric": [{"requirement": "Mentions chlorophyll"}],\n'
        '  "items": [{"submission": "Plants use chlorophyll."}]\n'
        "}\n"
    ),
    good=(
        "{\n"
        '  "prompt": "Explain photosynthesis",\n'
        '  "rubric": [{"requirement": "Mentions chlorophyll"}],\n'
        '  "items": [{"submission": "Plants use chlorophyll.", "description": "good"}]\n'
        "}\n"
    ),
    formats=(DATASET,),
    checked_against="autorubric 1.6.1's autorubric/dataset.py (RubricDataset.from_json)",
)
NO_RUBRIC = rule(
    "AR203",
    "item-without-rubric",
    E,
    "An item has no rubric of its own and the dataset's `rubric` is null.",
    "Each item is graded with its own `rubric` if it has one, else the dataset's; with neither, "
    "autorubric refuses the dataset.",
    bad='{"rubric": null, "prompt": "…", "items": [{"submission": "…", "description": "…"}]}',
    good='{"rubric": null, "prompt": "…", "items": [{"submission": "…", "description": "…", "rubric": [{"requirement": "…"}]}]}',
    formats=(DATASET,),
    checked_against="autorubric 1.6.1's autorubric/dataset.py (RubricDataset.from_json)",
)
NO_PROMPT = rule(
    "AR204",
    "item-without-prompt",
    E,
    "An item has no `prompt` and the dataset has none either.",
    "The judge is told what question the submission answers; autorubric refuses a dataset where an "
    "item has no prompt of its own and there is no dataset-level `prompt`.",
    bad=(
        "{\n"
        '  "rubric": [{"requirement": "Mentions chlorophyll"}],\n'
        '  "items": [{"submission": "Plants use chlorophyll.", "description": "good"}]\n'
        "}\n"
    ),
    good=(
        "{\n"
        '  "prompt": "Explain photosynthesis",\n'
        '  "rubric": [{"requirement": "Mentions chlorophyll"}],\n'
        '  "items": [{"submission": "Plants use chlorophyll.", "description": "good"}]\n'
        "}\n"
    ),
    formats=(DATASET,),
    checked_against="autorubric 1.6.1's autorubric/dataset.py (RubricDataset.from_json)",
)
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

DATASET_KEYS = ("name", "prompt", "rubric", "reference_submission", "items", "$schema")
ITEM_KEYS = (
    "submission",
    "description",
    "ground_truth",
    "ground_truth_reasons",
    "rubric",
    "prompt",
    "reference_submission",
)


def check_dataset(ctx: CheckContext, report_view) -> None:
    """Check a dataset file; ``report_view(ctx, view)`` reports a rubric's own findings."""
    root = ctx.document.root
    if root is None:
        return
    if not root.is_map:
        ctx.report(
            DATASET_SHAPE,
            ctx.line_span(root),
            f"A dataset must be a JSON object with 'rubric' and 'items', got {describe_type(to_plain(root))}; autorubric refuses it.",
        )
        return
    check_unknown_keys(ctx, root, DATASET_KEYS, "the dataset")
    global_view: RubricView | None = None
    global_valid = False
    if not root.has("rubric"):
        ctx.report(
            DATASET_SHAPE,
            ctx.line_span(root),
            "The dataset has no 'rubric' key: autorubric refuses it. Add the shared rubric, or \"rubric\": null when every item has its own.",
        )
    else:
        node = root.get("rubric")
        assert node is not None  # has() found the key
        if node.value is not None:
            global_view = _rubric(ctx, node, report_view)
            global_valid = global_view.valid
    dataset_prompt = _has_value(root, "prompt")
    items = root.get("items")
    if items is None or (items.is_map and not items.value) or (items.is_scalar and items.value == ""):
        return  # no items (autorubric reads an empty mapping or string as none, too)
    if not items.is_seq:
        ctx.report(
            ITEM_SHAPE,
            ctx.line_span(items),
            f"'items' must be a list of objects, got {describe_type(to_plain(items))}; autorubric refuses the dataset.",
        )
        return
    # When no item has a prompt either, one finding on 'items' says it better than one per item.
    all_without_prompt = (
        not dataset_prompt
        and len(items.elements()) > 1
        and not any(element.is_map and _has_value(element, "prompt") for element in items.elements())
    )
    items_key = root.key_node("items")
    if all_without_prompt and items_key is not None:  # get() found 'items', so its key is there
        ctx.report(
            NO_PROMPT,
            items_key,
            "No item has a 'prompt' and the dataset has none: autorubric refuses the dataset. Add the question the submissions answer as a dataset-level \"prompt\".",
        )
    for index, item in enumerate(items.elements()):
        if not item.is_map:
            ctx.report(
                ITEM_SHAPE,
                ctx.line_span(item),
                f"Item {index + 1} must be an object with 'submission' and 'description', got {describe_type(to_plain(item))}; autorubric refuses the dataset.",
            )
            continue
        check_unknown_keys(ctx, item, ITEM_KEYS, f"item {index + 1}")
        for key in ("submission", "description"):
            if not _has_value(item, key):
                value_node = item.get(key)
                where = value_node if value_node is not None else ctx.line_span(item)
                state = "is null" if item.has(key) else "is missing"
                what = (
                    "the response to grade" if key == "submission" else "a short note about the item; it may be empty"
                )
                ctx.report(
                    ITEM_MISSING_FIELD,
                    where,
                    f"Item {index + 1}: '{key}' ({what}) {state}; autorubric refuses the dataset.",
                )
        if not _has_value(item, "prompt") and not dataset_prompt and not all_without_prompt:
            ctx.report(
                NO_PROMPT,
                ctx.line_span(item),
                f"Item {index + 1} has no 'prompt' and the dataset has none: autorubric refuses the dataset. Add a dataset-level \"prompt\" or one on this item.",
            )
        item_rubric = item.get("rubric")
        if item_rubric is not None and item_rubric.value is not None:
            item_view = _rubric(ctx, item_rubric, report_view)
            view: RubricView | None = item_view
            valid = item_view.valid
        else:
            view, valid = global_view, global_valid
            if global_view is None and root.has("rubric"):
                ctx.report(
                    NO_RUBRIC,
                    ctx.line_span(item),
                    f"Item {index + 1} has no 'rubric' and the dataset's 'rubric' is null: autorubric refuses the dataset. Give this item a rubric or set the dataset's.",
                )
        _ground_truth(ctx, item, index, view if valid else None)


def _rubric(ctx: CheckContext, node: Node, report_view) -> RubricView:
    view = read_rubric(node)
    report_view(ctx, view)
    if node.is_map and node.has("rubric"):
        check_unknown_keys(ctx, node, ("rubric", "sections", "criteria", "guidelines"), "the rubric")
        inner = node.get("rubric")
        if inner is not None and inner.is_map:
            check_unknown_keys(ctx, inner, RUBRIC_MAPPING_KEYS, "'rubric'")
    elif node.is_map:
        check_unknown_keys(ctx, node, RUBRIC_MAPPING_KEYS, "the rubric")
    return view


def _count(number: int, one: str, many: str) -> str:
    return f"{number} {one if number == 1 else many}"


def _has_value(mapping: Node, key: str) -> bool:
    node = mapping.get(key)
    return node is not None and node.value is not None


_VERDICT_SPELLING = re.compile(r"[\s\-]+")


def _verdict_fix(value: object) -> str | None:
    """The verdict an obviously misspelt one means ('met', 'Cannot assess'), or None."""
    if not isinstance(value, str):
        return None
    candidate = _VERDICT_SPELLING.sub("_", value.strip()).upper()
    return candidate if candidate in VERDICTS else None


def _ground_truth(ctx: CheckContext, item: Node, index: int, view: RubricView | None) -> None:
    gt = item.get("ground_truth")
    reasons = item.get("ground_truth_reasons")
    gt_present = gt is not None and gt.value is not None
    if gt_present and gt is not None and not gt.is_seq:
        ctx.report(
            GROUND_TRUTH_SHAPE,
            ctx.line_span(gt),
            f"Item {index + 1}: 'ground_truth' must be a list with one verdict per criterion, got {describe_type(to_plain(gt))}; autorubric refuses the dataset.",
        )
    elif gt_present and gt is not None and view is not None:
        entries = view.entries
        values = gt.elements()
        if len(values) != len(entries):
            ctx.report(
                GROUND_TRUTH_SHAPE,
                ctx.line_span(gt),
                f"Item {index + 1}: 'ground_truth' has {_count(len(values), 'entry', 'entries')} but its rubric has {_count(len(entries), 'criterion', 'criteria')}; autorubric refuses the dataset. "
                "Give one verdict per criterion, in rubric order (sections flattened).",
            )
        for entry, node in zip(entries, values):
            _verdict(ctx, entry, node, index)
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
    if gt.is_seq and len(reasons.elements()) != len(gt.elements()):
        ctx.report(
            GROUND_TRUTH_REASONS,
            ctx.line_span(reasons),
            f"Item {index + 1}: {_count(len(reasons.elements()), 'ground truth reason', 'ground truth reasons')} for {_count(len(gt.elements()), 'ground truth entry', 'ground truth entries')}; autorubric refuses the dataset. "
            "Give one reason per entry (null where there is none).",
        )
    for node in reasons.elements():
        if not (node.is_scalar and (node.value is None or isinstance(node.value, str))):
            ctx.report(
                GROUND_TRUTH_REASONS,
                ctx.line_span(node),
                f"Item {index + 1}: a ground truth reason must be text or null, got {describe_type(to_plain(node))}.",
            )


def _verdict(ctx: CheckContext, entry, node: Node, index: int) -> None:
    criterion = entry.criterion
    value = node.value if node.is_scalar else to_plain(node)
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
            fix = ctx.replace(node, json.dumps(meant), f'Write "{meant}"')
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
            ),
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
        message += f" Did you mean '{suggestion}'?"
        fix = ctx.replace(
            node,
            json.dumps(suggestion, ensure_ascii=False),
            f"Use '{suggestion}'",
            safe=found is not None and found.safe,
        )
    ctx.report(CHOICE_GROUND_TRUTH, ctx.line_span(node), message, fix=fix)
