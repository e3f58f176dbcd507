"""Red-team configs (PF018)."""

from __future__ import annotations

from rubric_lsp.formats.promptfoo.model import (
    base_type,
)
from rubric_lsp.formats.promptfoo.resolve import ConfigView
from rubric_lsp.formats.promptfoo.rules.common import F, W
from rubric_lsp.rules.registry import rule

REDTEAM_GRADER = rule(
    "PF018",
    "redteam-without-provider",
    W,
    "A redteam config with llm-rubric graders but no `redteam.provider`.",
    "Without redteam.provider, grading of red-team results may go to promptfoo's remote service and "
    "ignore the grader you configured.",
    bad="redteam:\n  plugins: [pii]\ndefaultTest:\n  options:\n    provider: openai:gpt-4.1\n  assert:\n    - type: llm-rubric\n      value: Refuses to reveal personal data",
    good="redteam:\n  provider: openai:gpt-4.1\n  plugins: [pii]\ndefaultTest:\n  options:\n    provider: openai:gpt-4.1\n  assert:\n    - type: llm-rubric\n      value: Refuses to reveal personal data",
    formats=F,
)


def check_redteam(ctx, report, view: ConfigView) -> None:
    redteam = view.root.get("redteam")
    if redteam is None or not redteam.is_map or redteam.has("provider"):
        return
    default = view.default_test
    configured = [
        a
        for test in (view.tests or ([default] if default is not None else []))
        for a in test.assertions
        if base_type(a.type or "") == "llm-rubric"
        and view.grader(a, test if test is not default else None).source != "default"
    ]
    if configured:
        report(
            REDTEAM_GRADER,
            view.source,
            view.root.key_node("redteam"),
            "This config configures a grader for its llm-rubric assertions but 'redteam' sets no 'provider': "
            "red-team grading may go to promptfoo's remote service and ignore that grader. Set redteam.provider.",
        )
