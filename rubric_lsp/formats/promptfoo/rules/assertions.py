"""Assertions: unknown types and keys, empty rubrics, thresholds, negated and templated assertions."""

from __future__ import annotations

import re

from rubric_lsp.diagnostics import Fix
from rubric_lsp.document import Node
from rubric_lsp.document.nodes import to_plain
from rubric_lsp.document.positions import Span
from rubric_lsp.formats.errors import describe_type
from rubric_lsp.formats.promptfoo.assertion_types import (
    ASSERT_SET_KEYS,
    ASSERTION_KEYS,
    base_type,
    is_known_assertion_type,
)
from rubric_lsp.formats.promptfoo.resolve import AssertionInfo, ConfigView
from rubric_lsp.formats.promptfoo.rules.common import FACTUALITY_LIKE, E, F, W, delete_pair, rubric_text
from rubric_lsp.formats.promptfoo.rules.max_score import max_score_value
from rubric_lsp.formats.promptfoo.rules.schema import (
    INVALID_FIELD,
    NUMBER,
    check_unknown,
    looks_valid,
    report_pydantic,
    validate,
)
from rubric_lsp.formats.promptfoo.rules.scores import score_checks
from rubric_lsp.formats.promptfoo.rules.type_hints import type_hint
from rubric_lsp.formats.promptfoo.validation import refusals_of
from rubric_lsp.formats.promptfoo.versions import inverts, negation_note
from rubric_lsp.rules.registry import rule
from rubric_lsp.rules.unknown_keys import RENAME_SAFETY

NEGATED_MODEL_GRADED = rule(
    "PF004",
    "negated-model-graded",
    W,
    "`not-factuality` / `not-model-graded-closedqa` grade exactly like the plain type: promptfoo ignores the `not-`.",
    "promptfoo 0.123.1 (and 0.121.9) ignore `not-` on factuality and model-graded-closedqa: the "
    "assertion passes when the answer *is* factual / meets the criterion, the opposite of what the "
    "name says. `not-llm-rubric` inverts from the release after 0.121.9 on (ignored up to 0.121.9) and "
    "`not-g-eval` inverts in both; those are not reported.",
    bad="tests:\n  - assert:\n      - type: not-factuality\n        value: Paris is the capital of Germany",
    good="tests:\n  - assert:\n      - type: llm-rubric\n        value: Does not claim that Paris is the capital of Germany",
    formats=F,
)

TEMPLATE_IN_VALUE = rule(
    "PF005",
    "grader-variable-in-value",
    W,
    "`{{output}}` or `{{rubric}}` inside a model-graded assertion's value renders empty.",
    "The value is rendered with the test vars before grading, where `output` and `rubric` do not "
    "exist yet; the judge sees the output anyway, through the grading prompt.",
    bad="tests:\n  - assert:\n      - type: llm-rubric\n        value: 'Check that {{output}} is polite'",
    good="tests:\n  - assert:\n      - type: llm-rubric\n        value: Is polite",
    formats=F,
)

IGNORED_THRESHOLD = rule(
    "PF017",
    "ignored-threshold",
    W,
    "`threshold` on factuality or model-graded-closedqa is ignored.",
    "factuality scores come from options.factuality and closedqa passes iff the reply ends in Y; "
    "the threshold never changes the verdict.",
    bad="tests:\n  - assert:\n      - type: factuality\n        value: Paris is the capital\n        threshold: 0.8",
    good="tests:\n  - assert:\n      - type: factuality\n        value: Paris is the capital",
    fix="remove the threshold",
    fix_safety="Safe: promptfoo ignores this threshold, so removing it changes nothing.",
    formats=F,
)

UNKNOWN_ASSERTION_TYPE = rule(
    "PF100",
    "unknown-assertion-type",
    E,
    "An assertion type promptfoo does not know; the eval fails with 'Unknown assertion type'.",
    "promptfoo's schema accepts any string and `promptfoo validate` reports the config as valid, but "
    "the eval stops at the first unknown type.",
    bad="tests:\n  - assert:\n      - type: contians\n        value: refund\n      - type: not-empty   # no such type either",
    good="tests:\n  - assert:\n      - type: contains\n        value: refund\n      - type: javascript\n        value: output.length > 0",
    fix="replace the type with the one it most likely means: a common name for a known check (`contains-text` → "
    "`contains`, `json` → `is-json`), or a misspelling whose every segment is within one edit (`contians` → "
    "`contains`); a name one letter from two types (`pleu`: `bleu`, `gleu`) names both and is not renamed, and a "
    "check promptfoo lacks (`not-empty`, `ends-with`) gets how to write it",
    fix_safety="Unsafe: the type decides what is checked, and a near spelling can be another check (`contains`, `icontains`, `not-contains`).",
    formats=F,
    checked_against="promptfoo 0.123.1's src/assertions/index.ts (runAssertion: 'Unknown assertion type')",
)

UNKNOWN_ASSERTION_KEY = rule(
    "PF101",
    "unknown-assertion-key",
    E,
    "An assertion key promptfoo does not read; it is dropped at run time.",
    "Keys other than type, value, config, threshold, weight, provider, rubricPrompt, metric, "
    "transform and contextTransform are silently dropped: `rubric:` instead of `value:` grades "
    "against nothing, `threshhold:` sets no threshold.",
    bad="tests:\n  - assert:\n      - type: llm-rubric\n        rubric: Is polite",
    good="tests:\n  - assert:\n      - type: llm-rubric\n        value: Is polite",
    fix="rename the key to the nearest known one",
    fix_safety=RENAME_SAFETY,
    formats=F,
)

IGNORED_NOTE_KEY = rule(
    "PF021",
    "ignored-assertion-note",
    W,
    "A note on an assertion (`reason:`, `description:`, `note:`, `comment:`) that promptfoo drops.",
    "promptfoo's assertion validation strips keys it does not know, so the note is never shown in "
    "results; nothing fails and the assertion runs exactly as without it (promptfoo's own anthropic "
    "examples carry `reason:`). A YAML comment says the same without looking like a setting.",
    bad="prompts: ['Summarize {{text}}']\nproviders: [openai:gpt-4.1-mini]\ntests:\n  - assert:\n      - type: contains\n        value: refund\n        reason: the policy names refunds",
    good="prompts: ['Summarize {{text}}']\nproviders: [openai:gpt-4.1-mini]\ntests:\n  - assert:\n      - type: contains  # the policy names refunds\n        value: refund",
    formats=F,
    checked_against="promptfoo 0.123.1's src/types/index.ts (AssertionSchema, a zod object that strips unknown keys)",
)

NOTE_KEYS = ("reason", "description", "note", "notes", "comment", "comments")

EMPTY_RUBRIC = rule(
    "PF103",
    "empty-rubric",
    E,
    "An llm-rubric with no rubric (empty or missing `value`).",
    "The judge is asked to grade against nothing: promptfoo fills its grading prompt's `{{rubric}}` "
    "with an empty string and runs it, so the verdict says nothing about the output. `rubric grade` "
    "refuses to grade such a test.",
    bad="tests:\n  - assert:\n      - type: llm-rubric",
    good="tests:\n  - assert:\n      - type: llm-rubric\n        value: Answers the question politely",
    formats=F,
    checked_against="promptfoo 0.123.1's src/assertions/llmRubric.ts (handleLlmRubric passes `renderedValue || ''` to matchesLlmRubric)",
)

THRESHOLD_RANGE = rule(
    "PF104",
    "threshold-out-of-range",
    E,
    "An llm-rubric or g-eval threshold outside [0, 1].",
    "llm-rubric and g-eval scores lie in [0, 1] (g-eval divides the judge's 0–10 by 10): a threshold above 1 "
    "can never pass and one below 0 always does.",
    bad="tests:\n  - assert:\n      - type: llm-rubric\n        value: Answers the question politely\n        threshold: 8",
    good="tests:\n  - assert:\n      - type: llm-rubric\n        value: Answers the question politely\n        threshold: 0.8",
    formats=F,
)

NEGATED_GRADED = {
    "not-llm-rubric",
    "not-factuality",
    "not-model-graded-closedqa",
    "not-g-eval",
    "not-model-graded-factuality",
}

_GRADER_VAR = re.compile(r"\{\{\s*(output|rubric)\b")

_ASSERTION_KINDS = {
    "type": "str",
    "value": "any",
    "config": "map",
    "threshold": NUMBER,
    "weight": NUMBER,
    "provider": "any",
    "rubricPrompt": "any",
    "metric": "str",
    "transform": "str",
    "contextTransform": "str",
}


def check_assertion(ctx, report, view: ConfigView, a: AssertionInfo) -> None:  # noqa: C901 - one pass per assertion
    node = a.node
    src = a.source
    if not node.is_map:
        report(
            INVALID_FIELD,
            src,
            node,
            f"An assertion must be a mapping with a 'type', not {describe_type(to_plain(node))}.",
        )
        return
    type_node = node.get("type")
    kind = a.type
    if type_node is None:
        if node.has("$ref"):
            report(
                INVALID_FIELD,
                src,
                node.key_node("$ref"),
                "This $ref does not point at an assertion in this file; promptfoo cannot resolve it.",
            )
        else:
            report(
                INVALID_FIELD,
                src,
                ctx.line_span(node) if src.is_config else node,
                "This assertion has no 'type'; promptfoo fails with 'Unknown assertion type'.",
            )
        return
    if kind is None:
        report(
            INVALID_FIELD,
            src,
            type_node,
            f"An assertion 'type' must be a string, not {describe_type(type_node.value)}.",
        )
        return
    skip = _report_refusals(report, view, a)
    if kind == "assert-set":
        check_unknown(
            ctx,
            report,
            src,
            node,
            (*ASSERT_SET_KEYS, *NOTE_KEYS),
            UNKNOWN_ASSERTION_KEY,
            "assert-set",
            "promptfoo drops it at run time.",
        )
        _report_notes(report, a)
        if ctx.enabled(INVALID_FIELD):
            plain = {k: v for k, v in to_plain(node).items() if k != "assert"}
            plain["assert"] = []
            report_pydantic(ctx, report, src, node, validate("AssertionSet", plain), "assert-set", skip=skip)
            inner = node.get("assert")
            if inner is None or not inner.is_seq:
                report(
                    INVALID_FIELD,
                    src,
                    node.key_node("assert") or type_node,
                    "An assert-set needs an 'assert' list of assertions.",
                )
        return
    if not is_known_assertion_type(kind):
        _unknown_type(ctx, report, a, type_node, kind)
    check_unknown(
        ctx,
        report,
        src,
        node,
        (*ASSERTION_KEYS, *NOTE_KEYS),
        UNKNOWN_ASSERTION_KEY,
        "assertion",
        "promptfoo drops it at run time.",
    )
    _report_notes(report, a)
    if ctx.enabled(INVALID_FIELD) and not looks_valid(node, _ASSERTION_KINDS):
        plain = dict(to_plain(node))
        report_pydantic(
            ctx, report, src, node, validate("Assertion", plain), "assertion", skip=("provider", "rubricPrompt", *skip)
        )
    base = base_type(kind)
    value_node = node.get("value")
    threshold = a.threshold
    if base == "llm-rubric":
        text = rubric_text(a.value).strip()
        if missing_rubric(view, a):
            report(EMPTY_RUBRIC, src, value_node if value_node is not None else type_node, EMPTY_RUBRIC_MESSAGE)
        if text and value_node is not None:
            score_checks(ctx, report, view, a, text, threshold, value_node)
    if base in ("llm-rubric", "g-eval") and threshold is not None and not (0.0 <= threshold <= 1.0):
        scale = " (g-eval scales the judge's 0–10 to 0–1)" if base == "g-eval" else ""
        report(
            THRESHOLD_RANGE,
            src,
            node.get("threshold"),
            f"{base} threshold {threshold:g} is outside [0, 1]: scores lie in [0, 1]{scale}, so it "
            + ("can never be met." if threshold > 1 else "is always met.")
            + " Use a value such as 0.8.",
        )
    version = ctx.versions.get("promptfoo")
    if kind in NEGATED_GRADED and not inverts(base, version):
        checked = f" (checked as promptfoo {version}, the `versions` setting)" if version else ""
        report(
            NEGATED_MODEL_GRADED,
            src,
            type_node,
            f"{negation_note(base)}{checked}; this assertion passes when the output meets the value. Rephrase it "
            "as the plain type with a negative rubric (e.g. an llm-rubric 'Does not ...').",
        )
    if a.grader_kind == "text" and value_node is not None:
        found = _GRADER_VAR.search(rubric_text(a.value))
        if found:
            doc = src.document
            raw = _GRADER_VAR.search(doc.text, value_node.start, value_node.end) if doc is not None else None
            where: Node | Span = value_node
            if doc is not None and raw is not None:
                close = doc.text.find("}}", raw.end(), value_node.end)
                where = Span(raw.start(), close + 2 if close != -1 else raw.end())
            report(
                TEMPLATE_IN_VALUE,
                src,
                where,
                f"'{{{{{found.group(1)}}}}}' in the value renders empty: the value is rendered with the test vars before "
                "grading. Remove it; the judge sees the output through the grading prompt.",
            )
    if base in FACTUALITY_LIKE and node.has("threshold"):
        key, threshold_node = node.key_node("threshold"), node.get("threshold")
        assert key is not None and threshold_node is not None  # has() found the key
        edit = delete_pair(ctx, key, threshold_node) if src.is_config else None
        report(
            IGNORED_THRESHOLD,
            src,
            key,
            f"'threshold' is ignored by {base}: "
            + (
                "scores come from options.factuality."
                if "factuality" in base
                else "it passes iff the judge's reply ends in Y."
            ),
            Fix("Remove the ignored threshold", [edit]) if edit else None,
        )
    if base == "max-score":
        max_score_value(ctx, report, a, type_node)


def _report_notes(report, a: AssertionInfo) -> None:
    for key, key_node, _value in a.node.items():
        if key in NOTE_KEYS:
            report(
                IGNORED_NOTE_KEY,
                a.source,
                key_node,
                f"Unknown assertion key '{key}': promptfoo drops it at run time, so the note never shows in results "
                "(the assertion runs as without it). Use a YAML comment to document why, or 'metric' to name the check.",
            )


def _report_refusals(report, view: ConfigView, a: AssertionInfo) -> tuple[str, ...]:
    """Fields promptfoo's assertion validation refuses (the whole config with them); returns their names."""
    found = refusals_of(view, a)
    for refusal in found:
        empty = refusal.node.is_scalar and refusal.node.value is None  # `threshold:` has no text to point at
        report(
            INVALID_FIELD,
            a.source,
            (a.node.key_node(refusal.field) or refusal.node) if empty else refusal.node,
            f"'{refusal.field}' is {describe_type(to_plain(refusal.node))}; promptfoo expects {refusal.expected} and "
            f"refuses the whole config ({refusal.owner_message}).",
        )
    return tuple(r.field for r in found)


EMPTY_RUBRIC_MESSAGE = "This llm-rubric has no rubric: write what the judge should check in 'value'."


def missing_rubric(view: ConfigView, a: AssertionInfo) -> bool:
    """PF103: an llm-rubric (or not-) with no rubric text where the grading prompt reads one."""
    if a.type is None or base_type(a.type) != "llm-rubric":
        return False
    return not rubric_text(a.value).strip() and _needs_rubric(view, a)


def unknown_type_message(kind: str) -> str:
    """PF100's message for an assertion type promptfoo does not know (the grading engine refuses it too)."""
    if kind.startswith("select-"):  # runAssertions skips every select-* type, and only select-best is compared
        message = f"Unknown assertion type '{kind}': promptfoo skips it without a word, so it never runs."
    else:
        message = f"Unknown assertion type '{kind}': the eval fails with 'Unknown assertion type' (promptfoo validate does not catch it)."
    hint = type_hint(kind)
    return f"{message} {hint.text}" if hint is not None else message


def _needs_rubric(view: ConfigView, a: AssertionInfo) -> bool:
    """False when every custom rubricPrompt that applies ignores {{rubric}} (then no value is needed)."""
    prompts = [a.field("rubricPrompt")]
    tests = view.tests_using(a) or ([view.default_test] if view.default_test is not None else [])
    for test in tests:
        prompt = test.options_field("rubricPrompt")
        if prompt is None and test.default is not None:
            prompt = test.default.options_field("rubricPrompt")
        prompts.append(prompt)
    prompts = prompts[:1] if prompts[0] is not None else prompts[1:]
    if not prompts or any(p is None for p in prompts):
        return True
    return any(re.search(r"\{\{\s*rubric\b", rubric_text(to_plain(p))) for p in prompts)


def _unknown_type(ctx, report, a: AssertionInfo, type_node: Node, kind: str) -> None:
    hint = type_hint(kind)
    fix = None
    if hint is not None and hint.fix is not None and a.source.is_config:
        # Always unsafe: the type decides what is checked (contains / icontains).
        fix = ctx.rename(type_node, hint.fix, f"Replace '{kind}' with '{hint.fix}'", safe=False)
    report(UNKNOWN_ASSERTION_TYPE, a.source, type_node, unknown_type_message(kind), fix)
