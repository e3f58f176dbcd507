"""Template variables: shadowed and undefined vars (PF006, PF007)."""

from __future__ import annotations

import re

from rubric_lsp.formats.promptfoo.assertion_types import base_type
from rubric_lsp.formats.promptfoo.resolve import ConfigView
from rubric_lsp.formats.promptfoo.rules.common import FACTUALITY_LIKE, F, W, text_of
from rubric_lsp.rules.registry import rule
from rubric_lsp.rules.suggest import closest

SHADOWING_VAR = rule(
    "PF006",
    "var-shadows-grader-variable",
    W,
    "A test var named like a grading-prompt variable (output, rubric, ...) never reaches the judge, or replaces the real one.",
    "promptfoo 0.123.1 spreads the test vars first into the grading prompt and its own `output`, "
    "`rubric` (`input`, `ideal`, `completion`, `criteria` for factuality / closedqa) over them, so "
    "such a var is silently hidden from the judge; up to 0.121.9 llm-rubric spread the vars last, so "
    "a var named `output` or `rubric` replaced the real one. Either way the name misleads.",
    bad="tests:\n  - vars:\n      output: Paris is the capital of France\n    assert:\n      - type: llm-rubric\n        value: Agrees with the reference answer",
    good="tests:\n  - vars:\n      expected_output: Paris is the capital of France\n    assert:\n      - type: llm-rubric\n        value: 'Agrees with the reference answer: {{expected_output}}'",
    formats=F,
)

UNDEFINED_VAR = rule(
    "PF007",
    "undefined-rubric-var",
    W,
    "A `{{var}}` in a rubric is not defined by the test or defaultTest vars; it renders empty.",
    "Nunjucks renders unknown variables as empty strings, so the judge gets a rubric with a hole.",
    bad="tests:\n  - vars:\n      question: What is the capital of France?\n    assert:\n      - type: llm-rubric\n        value: Answers {{questoin}} correctly",
    good="tests:\n  - vars:\n      question: What is the capital of France?\n    assert:\n      - type: llm-rubric\n        value: Answers {{question}} correctly",
    formats=F,
)

_TEMPLATE_VAR = re.compile(r"\{\{-?\s*([A-Za-z_][A-Za-z0-9_]*)")

_BUILTIN_VARS = {
    "output",
    "rubric",
    "env",
    "loop",
    "range",
    "true",
    "false",
    "none",
    "null",
    "prompt",
    "vars",
    "context",
}


def check_vars(ctx, report, view: ConfigView) -> None:  # noqa: C901 - shadowed and undefined vars in one walk
    shadow_seen: set[int] = set()
    for test in view.tests:
        kinds = {base_type(a.type) for a in test.assertions if a.type and a.grader_kind == "text"}
        if not kinds:
            continue
        names = {"output", "rubric"}
        if kinds & FACTUALITY_LIKE:
            names |= {"input", "ideal", "completion", "criteria"}
        for name, key_node in test.vars.items():
            if name in names and id(key_node) not in shadow_seen:
                shadow_seen.add(id(key_node))
                report(
                    SHADOWING_VAR,
                    test.var_source(name),
                    key_node,
                    f"A var named '{name}' is hidden by the grader's own '{{{{{name}}}}}' in promptfoo 0.123.1's "
                    "grading prompt, so the judge never sees it (up to 0.121.9 llm-rubric did the reverse: the var "
                    f"replaced the real one). Rename it (e.g. 'expected_{name}').",
                )
    if not ctx.enabled(UNDEFINED_VAR):
        return
    for a in view.assertions():
        if a.grader_kind != "text" or base_type(a.type or "") not in (
            "llm-rubric",
            "g-eval",
            "model-graded-closedqa",
            "factuality",
            "model-graded-factuality",
        ):
            continue
        value = a.field("value")
        text = text_of(value)
        if value is None or not text or "{%" in text or refs_like(text):
            continue
        used = {m.group(1) for m in _TEMPLATE_VAR.finditer(text)} - _BUILTIN_VARS
        used = {u for u in used if not u.startswith("_")}
        if not used:
            continue
        tests = view.tests_using(a)
        if not tests:
            continue
        missing: dict[str, list[str]] = {}
        for test in tests:
            if not test.vars_complete:
                continue
            for name in used - set(test.vars):
                missing.setdefault(name, []).append(test.label)
        for name, labels in sorted(missing.items()):
            where = value if value.end - value.start < 300 or not a.source.is_config else ctx.line_span(value)
            near = closest(name, set().union(*(set(t.vars) for t in tests)))
            hint = f" Did you mean '{near}'?" if near else ""
            report(
                UNDEFINED_VAR,
                a.source,
                where,
                f"'{{{{{name}}}}}' is not defined in {', '.join(labels[:3])}{' and others' if len(labels) > 3 else ''}; "
                f"it renders empty in the rubric.{hint}",
            )


def refs_like(text: str) -> bool:
    return text.startswith("file://")
