"""Aggregations of multi-choice criteria, and grader-level keys on binary criteria (AR002–AR004, AR108)."""

from __future__ import annotations

from rubric_lsp.diagnostics import Severity
from rubric_lsp.formats.autorubric.constraints import NOMINAL_AGGREGATIONS, ORDINAL_AGGREGATIONS
from rubric_lsp.formats.autorubric.edits import remove_pair
from rubric_lsp.formats.autorubric.fields import CriterionValues
from rubric_lsp.formats.autorubric.rules.common import FORMATS
from rubric_lsp.formats.autorubric.view import CriterionEntry
from rubric_lsp.rules.context import CheckContext
from rubric_lsp.rules.registry import rule
from rubric_lsp.rules.suggest import Suggestion, suggest
from rubric_lsp.rules.unknown_keys import VALUE_RENAME_SAFETY, rename_fix

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO

ORDINAL_AGGREGATION_UNKNOWN = rule(
    "AR002",
    "unknown-ordinal-aggregation",
    W,
    "An ordinal criterion names an `aggregation` autorubric does not know; it silently uses `mean`.",
    "When several judges grade a criterion, their picks are combined by its `aggregation`. For an "
    "ordinal criterion autorubric knows mean, median, weighted_mean, mode, min and max; any other "
    "value (a typo such as `medain`) falls back to `mean` without a word.",
    bad=(
        "- requirement: How clear is the answer?\n"
        "  aggregation: medain\n"
        "  options:\n"
        "    - {label: Unclear, value: 0}\n"
        "    - {label: Clear, value: 1}\n"
    ),
    good=(
        "- requirement: How clear is the answer?\n"
        "  aggregation: median\n"
        "  options:\n"
        "    - {label: Unclear, value: 0}\n"
        "    - {label: Clear, value: 1}\n"
    ),
    fix="rename to the nearest known aggregation",
    fix_safety=VALUE_RENAME_SAFETY,
    formats=FORMATS,
)

AGGREGATION_WRONG_FAMILY = rule(
    "AR003",
    "aggregation-wrong-scale",
    W,
    "An ordinal criterion uses an aggregation meant for nominal criteria (`weighted_mode`, `unanimous`); it silently becomes `mean`.",
    "Ordinal and nominal criteria have separate aggregation lists. `weighted_mode` and `unanimous` "
    "exist only for nominal criteria; on an ordinal one they are unknown and autorubric averages "
    "the judges' picks instead.",
    bad=(
        "- requirement: How clear is the answer?\n"
        "  aggregation: unanimous\n"
        "  options:\n"
        "    - {label: Unclear, value: 0}\n"
        "    - {label: Clear, value: 1}\n"
    ),
    good=(
        "- requirement: How clear is the answer?\n"
        "  aggregation: min\n"
        "  options:\n"
        "    - {label: Unclear, value: 0}\n"
        "    - {label: Clear, value: 1}\n"
    ),
    fix="use the ordinal counterpart (weighted_mode → weighted_mean, unanimous → min); changes behaviour",
    fix_safety="Unsafe: the ordinal counterpart changes how the judges' picks are combined.",
    formats=FORMATS,
)

NOMINAL_AGGREGATION_UNKNOWN = rule(
    "AR108",
    "unknown-nominal-aggregation",
    E,
    "A nominal criterion names an `aggregation` autorubric does not know; combining several judges' picks crashes.",
    "For a nominal criterion autorubric knows mode, weighted_mode and unanimous. Any other value "
    "(including ordinal ones such as `mean`) makes the grader fail with an internal error as soon as "
    "more than one judge grades the criterion.",
    bad=(
        "- requirement: Which tone does the answer take?\n"
        "  scale_type: nominal\n"
        "  aggregation: mean\n"
        "  options:\n"
        "    - {label: Formal, value: 1}\n"
        "    - {label: Casual, value: 0}\n"
    ),
    good=(
        "- requirement: Which tone does the answer take?\n"
        "  scale_type: nominal\n"
        "  aggregation: mode\n"
        "  options:\n"
        "    - {label: Formal, value: 1}\n"
        "    - {label: Casual, value: 0}\n"
    ),
    fix="rename to the nearest nominal aggregation",
    fix_safety=VALUE_RENAME_SAFETY + " Suggesting `mode` for an ordinal aggregation is always unsafe.",
    formats=FORMATS,
    checked_against="autorubric 1.6.1's autorubric/graders/criterion_grader.py (nominal aggregation: mode, weighted_mode, unanimous)",
)

IGNORED_ON_BINARY = rule(
    "AR004",
    "ignored-on-binary",
    W,
    "`aggregation`, `scale_type` or `options: null` on a binary (MET/UNMET) criterion has no effect.",
    "These keys only matter for multi-choice criteria (those with `options`). On a binary criterion "
    "autorubric ignores them, which usually means the options were forgotten or lost.",
    bad="- requirement: Cites a source\n  scale_type: nominal",
    good="- requirement: Cites a source",
    fix="remove the key",
    fix_safety="Safe: autorubric ignores the key on a binary criterion, so removing it changes nothing it does.",
    formats=FORMATS,
)

# The grader-wide aggregations of binary verdicts (CriterionGrader(aggregation=...)).
BINARY_AGGREGATIONS = ("majority", "weighted", "unanimous", "any")


def check_aggregation(ctx: CheckContext, entry: CriterionEntry, criterion: CriterionValues) -> None:
    node = entry.node.get("aggregation")
    value = criterion.aggregation
    if node is None or not value or criterion.options is None:
        return  # empty: the grader's default applies, as with null; binary: AR004
    if criterion.scale_type == "nominal":
        if value in NOMINAL_AGGREGATIONS:
            return
        if value in ORDINAL_AGGREGATIONS:
            what = f"'{value}' is an aggregation for ordinal criteria, but this criterion is nominal"
            found: Suggestion | None = Suggestion("mode", safe=False)  # another family: a guess
        else:
            what = f"'{value}' is not an aggregation autorubric knows"
            found = suggest(value, NOMINAL_AGGREGATIONS)
        if value in BINARY_AGGREGATIONS:
            what += f" ('{value}' combines MET/UNMET verdicts and is set on the grader)"
        message = (
            f"{what}: when several judges grade it, autorubric crashes while combining their picks. "
            f"Use one of {', '.join(NOMINAL_AGGREGATIONS)}."
        )
        fix = rename_fix(ctx, node, found, f"Use '{found.name}'") if found else None
        ctx.report(NOMINAL_AGGREGATION_UNKNOWN, node, message, fix=fix)
        return
    if value in ORDINAL_AGGREGATIONS:
        return
    if value in NOMINAL_AGGREGATIONS:
        counterpart = {"weighted_mode": "weighted_mean", "unanimous": "min"}.get(value)
        message = (
            f"'{value}' is an aggregation for nominal criteria; on this ordinal criterion autorubric "
            f"silently averages the judges' picks ('mean') instead. Use one of {', '.join(ORDINAL_AGGREGATIONS)}"
            + (f" ('{counterpart}' is the ordinal counterpart)." if counterpart else ".")
            + (
                " Or set scale_type: nominal if the options have no order."
                if entry.node.get("scale_type") is None
                else ""
            )
        )
        fix = ctx.rename(node, counterpart, f"Use '{counterpart}'", safe=False) if counterpart else None
        ctx.report(AGGREGATION_WRONG_FAMILY, node, message, fix=fix)
        return
    found = suggest(value, ORDINAL_AGGREGATIONS)
    message = (
        f"'{value}' is not an aggregation autorubric knows for ordinal criteria, so it silently averages "
        f"the judges' picks ('mean'). Use one of {', '.join(ORDINAL_AGGREGATIONS)}."
    )
    if value in BINARY_AGGREGATIONS:
        message += (
            f" ('{value}' combines MET/UNMET verdicts; it is set on the grader, not on a multi-choice criterion.)"
        )
    fix = None
    if found:
        message += f" Did you mean '{found.name}'?"
        fix = rename_fix(ctx, node, found, f"Use '{found.name}'")
    ctx.report(ORDINAL_AGGREGATION_UNKNOWN, node, message, fix=fix)


def check_binary_ignored(ctx: CheckContext, entry: CriterionEntry, criterion: CriterionValues) -> None:
    if criterion.options is not None:
        return
    mapping = entry.node
    for key in ("aggregation", "scale_type", "options"):
        key_node = mapping.key_node(key)
        value_node = mapping.get(key)
        if key_node is None or value_node is None:
            continue
        if key == "aggregation" and (value_node.value is None or value_node.value == ""):
            continue
        if key == "options":
            message = (
                "'options: null' makes this a binary (MET/UNMET) criterion, the same as leaving 'options' out. "
                "If it should be multi-choice, list at least two options; otherwise remove the key."
            )
        else:
            message = (
                f"'{key}' only applies to multi-choice criteria (those with 'options'); on this binary "
                f"(MET/UNMET) criterion autorubric ignores it. Add the options, or remove '{key}'."
            )
        fix = remove_pair(ctx, mapping, key_node, value_node, f"Remove '{key}'")
        ctx.report(IGNORED_ON_BINARY, key_node, message, fix=fix)
