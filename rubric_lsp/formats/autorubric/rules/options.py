"""Options of multi-choice criteria: labels, NA options, values and their order (AR005–AR011)."""

from __future__ import annotations

import itertools

from rubric_lsp.diagnostics import Severity
from rubric_lsp.document import Node
from rubric_lsp.formats.autorubric.edits import scalar_text
from rubric_lsp.formats.autorubric.fields import CriterionValues
from rubric_lsp.formats.autorubric.rules.common import FORMATS
from rubric_lsp.formats.autorubric.view import CriterionEntry
from rubric_lsp.rules.context import CheckContext
from rubric_lsp.rules.registry import rule

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO

DUPLICATE_OPTION_LABEL = rule(
    "AR005",
    "duplicate-option-label",
    W,
    "Two options of a criterion have the same label (ignoring case and surrounding spaces).",
    "Ground truth and expected verdicts name options by label, matched after strip().lower(); the "
    "first match wins, so the second option can never be named.",
    bad=(
        "- requirement: How good is the answer?\n"
        "  options:\n"
        "    - {label: Good, value: 1}\n"
        "    - {label: 'good ', value: 0.5}\n"
        "    - {label: Poor, value: 0}\n"
    ),
    good=(
        "- requirement: How good is the answer?\n"
        "  options:\n"
        "    - {label: Good, value: 1}\n"
        "    - {label: Fair, value: 0.5}\n"
        "    - {label: Poor, value: 0}\n"
    ),
    formats=FORMATS,
)

EMPTY_OPTION_LABEL = rule(
    "AR006",
    "empty-option-label",
    W,
    "An option's label is empty.",
    "The judge is shown the labels to choose from; an empty one gives it nothing to pick, and "
    "ground truth cannot name it.",
    bad=(
        "- requirement: Does the answer stay on topic?\n"
        "  options:\n"
        "    - {label: '', value: 0}\n"
        "    - {label: Completely, value: 1}\n"
    ),
    good=(
        "- requirement: Does the answer stay on topic?\n"
        "  options:\n"
        "    - {label: Not at all, value: 0}\n"
        "    - {label: Completely, value: 1}\n"
    ),
    formats=FORMATS,
)

SEVERAL_NA_OPTIONS = rule(
    "AR007",
    "several-na-options",
    W,
    "A criterion has more than one NA (`na: true`) option.",
    "autorubric abstains through the first NA option only (for example when judges disagree under "
    "`unanimous`, or a judge call fails); the others are just extra ways to abstain.",
    bad=(
        "- requirement: Is the citation accurate?\n"
        "  options:\n"
        "    - {label: Accurate, value: 1}\n"
        "    - {label: Inaccurate, value: 0}\n"
        "    - {label: N/A, value: 0, na: true}\n"
        "    - {label: Unknown, value: 0, na: true}\n"
    ),
    good=(
        "- requirement: Is the citation accurate?\n"
        "  options:\n"
        "    - {label: Accurate, value: 1}\n"
        "    - {label: Inaccurate, value: 0}\n"
        "    - {label: N/A, value: 0, na: true}\n"
    ),
    formats=FORMATS,
    checked_against="autorubric 1.6.1's autorubric/types.py (Criterion.na_option_index: the first NA option) and graders/criterion_grader.py",
)

NA_VALUE_RANGE = rule(
    "AR008",
    "na-value-out-of-range",
    W,
    "An NA option's value is outside [0, 1].",
    "autorubric never range-checks NA options because their value is never scored, so a value such "
    "as -1 is usually a scored option that was meant to lose its `na: true`, or a sentinel that "
    "confuses readers.",
    bad=(
        "- requirement: Is the citation accurate?\n"
        "  options:\n"
        "    - {label: Accurate, value: 1}\n"
        "    - {label: Inaccurate, value: 0}\n"
        "    - {label: N/A, value: -1, na: true}\n"
    ),
    good=(
        "- requirement: Is the citation accurate?\n"
        "  options:\n"
        "    - {label: Accurate, value: 1}\n"
        "    - {label: Inaccurate, value: 0}\n"
        "    - {label: N/A, value: 0, na: true}\n"
    ),
    fix="set the value to 0",
    fix_safety="Safe: autorubric never scores an NA option's value, so writing 0 changes no score.",
    formats=FORMATS,
)

EQUAL_OPTION_VALUES = rule(
    "AR009",
    "equal-option-values",
    W,
    "Every scored option of a criterion has the same value.",
    "Whichever option the judge picks, the criterion contributes the same amount, so it cannot tell "
    "a good response from a bad one.",
    bad=(
        "- requirement: Does the answer cite a source?\n"
        "  options:\n"
        "    - {label: Cites one, value: 1}\n"
        "    - {label: Cites none, value: 1}\n"
    ),
    good=(
        "- requirement: Does the answer cite a source?\n"
        "  options:\n"
        "    - {label: Cites one, value: 1}\n"
        "    - {label: Cites none, value: 0}\n"
    ),
    formats=FORMATS,
)

MAX_UNREACHABLE = rule(
    "AR010",
    "best-option-below-one",
    W,
    "On an ordinal scale no scored option is worth 1.0 (or, for a penalty, none is worth 0), so the best score is unreachable.",
    "A criterion earns `value × weight`. If the best option is worth 0.8, even a perfect response "
    "loses 20% of this criterion's weight and the rubric can never give 1.0; for a negative weight, "
    "an option at 0 is what lets a response avoid the penalty.",
    bad=(
        "- requirement: How clear is the answer?\n"
        "  options:\n"
        "    - {label: Poor, value: 0}\n"
        "    - {label: Good, value: 0.8}\n"
    ),
    good=(
        "- requirement: How clear is the answer?\n"
        "  options:\n"
        "    - {label: Poor, value: 0}\n"
        "    - {label: Good, value: 1.0}\n"
    ),
    fix="set the best option's value to 1.0 (0 for a penalty); changes scores",
    fix_safety="Unsafe: it changes the scores the rubric gives.",
    formats=FORMATS,
)

NOT_MONOTONIC = rule(
    "AR011",
    "ordinal-not-monotonic",
    W,
    "The values of an ordinal criterion's options go up and down in the listed order.",
    "An ordinal scale is an ordered list: values should rise (or fall) from the first option to the "
    "last. Zig-zag values usually mean a typo, and ordinal agreement metrics assume the order.",
    bad=(
        "- requirement: How clear is the answer?\n"
        "  options:\n"
        "    - {label: Poor, value: 0}\n"
        "    - {label: Fair, value: 0.7}\n"
        "    - {label: Good, value: 0.5}\n"
        "    - {label: Excellent, value: 1}\n"
    ),
    good=(
        "- requirement: How clear is the answer?\n"
        "  options:\n"
        "    - {label: Poor, value: 0}\n"
        "    - {label: Fair, value: 0.5}\n"
        "    - {label: Good, value: 0.7}\n"
        "    - {label: Excellent, value: 1}\n"
    ),
    formats=FORMATS,
)


def check_options(ctx: CheckContext, entry: CriterionEntry, criterion: CriterionValues) -> None:
    options_node = entry.node.get("options")
    if options_node is None or not options_node.is_seq:
        return
    option_nodes = options_node.elements()
    options = criterion.options or []
    if len(option_nodes) != len(options):
        return
    seen: dict[str, Node] = {}
    first_na: Node | None = None
    for option, node in zip(options, option_nodes):
        label_node = node.get("label") if node.is_map else None
        value_node = node.get("value") if node.is_map else None
        where = label_node if label_node is not None else node
        normalized = option.label.strip().lower()
        if not normalized:
            ctx.report(
                EMPTY_OPTION_LABEL,
                where,
                "This option's label is empty: the judge sees a blank choice and ground truth cannot name it. Describe what the option means.",
            )
        elif normalized in seen:
            ctx.report(
                DUPLICATE_OPTION_LABEL,
                where,
                f"Label '{option.label}' repeats an earlier option's label (labels are compared ignoring case and surrounding spaces): "
                "ground truth naming it always resolves to the first one. Give each option a distinct label.",
                related=[(seen[normalized], "the first option with this label")],
            )
        else:
            seen[normalized] = where
        if option.na:
            na_node = node.get("na") or where
            if first_na is not None:
                ctx.report(
                    SEVERAL_NA_OPTIONS,
                    na_node,
                    "This criterion already has an NA option: autorubric abstains through the first one only. Keep a single 'na: true' option.",
                    related=[(first_na, "the first NA option")],
                )
            else:
                first_na = na_node
            if not (0.0 <= option.value <= 1.0) and value_node is not None:
                ctx.report(
                    NA_VALUE_RANGE,
                    value_node,
                    f"This NA option's value {scalar_text(option.value)} is never scored (picking an NA option abstains), so it has no effect; "
                    "a value outside [0, 1] suggests a scored option that lost its meaning. Use 0.",
                    fix=ctx.replace(value_node, "0", "Set the NA option's value to 0"),
                )
    scored = [(option.value, node) for option, node in zip(options, option_nodes) if not option.na]
    if len(scored) < 2:
        return
    values = [value for value, _ in scored]
    key_node = entry.node.key_node("options") or options_node
    if len(set(values)) == 1:
        ctx.report(
            EQUAL_OPTION_VALUES,
            key_node,
            f"Every scored option is worth {scalar_text(values[0])}: whichever the judge picks, the criterion scores the same, so it cannot separate good from bad responses. Give the options different values.",
        )
        return
    if criterion.scale_type != "ordinal":
        return
    _monotonic(ctx, scored)
    if criterion.weight > 0 and max(values) < 1.0:
        best_value, best_node = max(scored, key=lambda pair: pair[0])
        target = best_node.get("value") if best_node.is_map else None
        ctx.report(
            MAX_UNREACHABLE,
            key_node,
            f"The best option is worth {scalar_text(best_value)}, so even a perfect response earns only {best_value:.0%} of this criterion's weight "
            "and the rubric can never score 1.0. Give the best option the value 1.0.",
            fix=ctx.replace(target, "1.0", "Set the best option's value to 1.0", safe=False)
            if target is not None
            else None,
        )
    elif criterion.weight < 0 and min(values) > 0.0:
        low_value, low_node = min(scored, key=lambda pair: pair[0])
        target = low_node.get("value") if low_node.is_map else None
        ctx.report(
            MAX_UNREACHABLE,
            key_node,
            f"This is a penalty (negative weight) and its mildest option is worth {scalar_text(low_value)}, so every response is penalised "
            "and the rubric can never score 1.0. Give the mildest option the value 0.",
            fix=ctx.replace(target, "0", "Set the mildest option's value to 0", safe=False)
            if target is not None
            else None,
        )


def _monotonic(ctx: CheckContext, scored: list[tuple[float, Node]]) -> None:
    direction = 0
    for (previous, _), (value, node) in itertools.pairwise(scored):
        step = (value > previous) - (value < previous)
        if step == 0:
            continue
        if direction == 0:
            direction = step
        elif step != direction:
            where = node.get("value") if node.is_map else None
            trend = "rising" if direction > 0 else "falling"
            ctx.report(
                NOT_MONOTONIC,
                where if where is not None else node,
                f"The option values were {trend} until here ({scalar_text(previous)} → {scalar_text(value)}): on an ordinal scale they should "
                "follow the order of the options. Reorder the options or fix this value (or set scale_type: nominal if there is no order).",
            )
            return
