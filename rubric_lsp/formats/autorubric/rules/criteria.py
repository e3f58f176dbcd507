"""Per-criterion checks of an autorubric rubric: the entry point that runs the themed checks on
each criterion (aggregation, options, weights, requirements), and duplicate names (AR012).
"""

from __future__ import annotations

from rubric_lsp.diagnostics import Severity
from rubric_lsp.document import Node
from rubric_lsp.formats.autorubric.rules.aggregation import check_aggregation, check_binary_ignored
from rubric_lsp.formats.autorubric.rules.common import FORMATS
from rubric_lsp.formats.autorubric.rules.options import check_options
from rubric_lsp.formats.autorubric.rules.requirements import check_requirement
from rubric_lsp.formats.autorubric.rules.weights import check_weight
from rubric_lsp.formats.autorubric.view import RubricView
from rubric_lsp.rules.context import CheckContext
from rubric_lsp.rules.registry import rule

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO

DUPLICATE_NAME = rule(
    "AR012",
    "duplicate-criterion-name",
    W,
    "Two criteria have the same name.",
    "autorubric accepts it, but reports, agreement metrics and expected verdicts identify criteria by "
    "name, so results of the two get mixed up.",
    bad="- name: accuracy\n  requirement: States the date\n- name: accuracy\n  requirement: States the place",
    good="- name: date\n  requirement: States the date\n- name: place\n  requirement: States the place",
    formats=FORMATS,
)


def check_criteria(ctx: CheckContext, view: RubricView) -> None:
    names: dict[str, Node] = {}
    for entry in view.entries:
        criterion = entry.criterion
        if criterion is None or not entry.node.is_map:
            continue
        check_aggregation(ctx, entry, criterion)
        check_binary_ignored(ctx, entry, criterion)
        if criterion.options is not None:
            check_options(ctx, entry, criterion)
        check_weight(ctx, entry.node)
        check_requirement(ctx, entry, criterion)
        name_node = entry.node.get("name")
        if criterion.name is not None and name_node is not None:
            key = criterion.name.strip()
            if key in names:
                ctx.report(
                    DUPLICATE_NAME,
                    name_node,
                    f"Another criterion is already named '{criterion.name}': reports and metrics that go by name will mix the two up. Give each criterion its own name.",
                    related=[(names[key], "the first criterion with this name")],
                )
            else:
                names[key] = name_node
