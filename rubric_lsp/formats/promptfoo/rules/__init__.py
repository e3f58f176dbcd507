"""Checks for promptfoo configs: what fails at eval time (errors) and silent grading pitfalls.

One module per theme, each holding its rules next to their checks: ``schema`` (keys and
values), ``assertions``, ``scores``, ``max_score`` (selectors), ``graders``, ``variables``,
``rubric_prompts``, ``redteam``, ``runtime`` (what eval refuses up front), ``prompts`` (what becomes of the
prompts written), ``values`` (values handlers refuse), ``needs`` (a threshold or var a handler needs),
``options`` (misspelt option keys), ``file_refs`` (RL01x); ``common`` holds what they share; ``type_hints``
is PF100's "did you mean".
The checker below runs them in order over the config view.

Findings inside a referenced test file (``tests: file://tests/*.yaml``, an external
``defaultTest``) are reported at the ``file://`` reference in the config, with the
referenced file and line in the message and no fix: the config is the document being
linted, and an edit must never land in another file by accident. Lint the referenced
file on its own for in-place diagnostics and fixes.
"""

from __future__ import annotations

from rubric_lsp.document.nodes import to_plain
from rubric_lsp.formats.errors import describe_type
from rubric_lsp.formats.promptfoo import CONFIG
from rubric_lsp.formats.promptfoo.rules.assertions import check_assertion
from rubric_lsp.formats.promptfoo.rules.common import Reporter, config_view
from rubric_lsp.formats.promptfoo.rules.graders import check_graders
from rubric_lsp.formats.promptfoo.rules.max_score import check_selectors
from rubric_lsp.formats.promptfoo.rules.needs import check_needs
from rubric_lsp.formats.promptfoo.rules.options import check_options
from rubric_lsp.formats.promptfoo.rules.redteam import check_redteam
from rubric_lsp.formats.promptfoo.rules.rubric_prompts import check_rubric_prompts
from rubric_lsp.formats.promptfoo.rules.runtime import check_runtime, check_sources
from rubric_lsp.formats.promptfoo.rules.schema import INVALID_FIELD, check_test_keys, check_top_level
from rubric_lsp.formats.promptfoo.rules.values import check_values
from rubric_lsp.formats.promptfoo.rules.variables import check_vars
from rubric_lsp.formats.registry import checker
from rubric_lsp.rules.context import CheckContext

__all__ = ["check_promptfoo_config", "config_view"]


@checker(CONFIG)
def check_promptfoo_config(ctx: CheckContext) -> None:
    root = ctx.document.root
    if root is None or not root.is_map:
        if root is not None and not (root.is_scalar and root.value is None):
            ctx.report(
                INVALID_FIELD,
                ctx.line_span(root),
                f"A promptfoo config must be a mapping, not {describe_type(to_plain(root))}.",
            )
        return
    view = config_view(ctx)
    if view is None:
        return
    report = Reporter(ctx)
    claimed = check_runtime(ctx, report, view)
    check_top_level(ctx, report, view, claimed)
    tests = (
        [view.default_test] if view.default_test is not None and view.default_test.node is not None else []
    ) + view.tests
    for test in tests:
        check_test_keys(ctx, report, test)
    for assertion in view.assertions():
        check_assertion(ctx, report, view, assertion)
    check_graders(ctx, report, view)
    check_selectors(ctx, report, view)
    check_values(ctx, report, view)
    check_needs(ctx, report, view)
    check_sources(ctx, report, view)
    check_options(ctx, report, view)
    check_vars(ctx, report, view)
    check_rubric_prompts(ctx, report, view)
    check_redteam(ctx, report, view)
