"""Assertion values and weights promptfoo 0.123.1's handlers cannot use (PF111, PF022).

The handlers check their value (src/assertions/*.ts: ``invariant``, or a plain ``throw``): an assertion
whose value has the wrong type fails with 'Invariant failed: …' (or the handler's own message) every
time it runs, so it can never pass. Which values each handler refuses is generated from promptfoo
itself (``value_invariants.py``).
"""

from __future__ import annotations

import math

from rubric_lsp.document import Node
from rubric_lsp.document.nodes import to_plain
from rubric_lsp.formats.errors import describe_type
from rubric_lsp.formats.promptfoo.assertion_types import base_type
from rubric_lsp.formats.promptfoo.js_values import js_number
from rubric_lsp.formats.promptfoo.resolve import AssertionInfo, ConfigView
from rubric_lsp.formats.promptfoo.rules.common import E, F, W
from rubric_lsp.formats.promptfoo.value_invariants import REFUSED
from rubric_lsp.rules.registry import rule

VALUE_TYPE = rule(
    "PF111",
    "assertion-value-type",
    E,
    "An assertion value of a type its handler refuses (or a missing one): the assertion errors every run.",
    "promptfoo 0.123.1's handlers check the value before grading ('\"contains\" assertion type must have a string "
    "or number value', '\"regex\" assertion type must have a string value', 'select-best must have a string value', "
    "'search-rubric assertion type must have a string value', 'skill-used assertion must have a string, string "
    "array, or object value', ...): a number as an llm-rubric rubric, a contains, regex, starts-with, contains-any, "
    "meteor, search-rubric or skill-used without value, a select-best without criteria fail every run and never "
    "pass. Which values each type refuses is derived from promptfoo 0.123.1 itself, by running its handlers "
    "(tools/gen_promptfoo_tables.py).",
    bad="prompts: ['Say {{x}}']\nproviders: [openai:gpt-4.1-mini]\ntests:\n  - assert:\n      - type: contains",
    good="prompts: ['Say {{x}}']\nproviders: [openai:gpt-4.1-mini]\ntests:\n  - assert:\n      - type: contains\n        value: refund",
    formats=F,
    checked_against="promptfoo 0.123.1's src/assertions/*.ts (each handler's check of its value, run by "
    "tools/promptfoo_value_invariants.mjs)",
)

NEGATIVE_WEIGHT = rule(
    "PF022",
    "negative-weight",
    W,
    "A negative assertion weight.",
    "promptfoo multiplies the assertion's score by its weight and divides by the sum of the weights, so "
    "a negative weight lowers the test's score when the assertion passes and can push it outside 0–1. "
    "To count a check against the output, invert it (`not-…`) with a positive weight.",
    bad="prompts: ['Say {{x}}']\nproviders: [openai:gpt-4.1-mini]\ntests:\n  - assert:\n      - type: contains\n        value: sorry\n        weight: -1",
    good="prompts: ['Say {{x}}']\nproviders: [openai:gpt-4.1-mini]\ntests:\n  - assert:\n      - type: not-contains\n        value: sorry\n        weight: 1",
    formats=F,
)

# select-best is graded after every output is in, outside the handler table the generated one
# covers: dist/src/index.js, runCompareAssertion:
# invariant(typeof assertion.value === "string", "select-best must have a string value").
_SELECT_BEST = "Invariant failed: select-best must have a string value"


def value_kind(value: Node | None) -> str | None:
    """The kind of value (``value_invariants.KINDS``) an assertion's value is, as promptfoo's
    handlers tell them apart; None when its kind depends on what happens at run time."""
    if value is None:
        return "missing"
    plain = to_plain(value)
    if plain is None:
        return "null"
    if isinstance(plain, bool):
        return "true" if plain else "false"
    if isinstance(plain, (int, float)):
        return None if plain != plain else "zero" if plain == 0 else "number"
    if isinstance(plain, str):
        if not plain:
            return "empty string"
        if "{{" in plain or "{%" in plain or plain.startswith(("file://", "package:")):
            return None  # rendered, or loaded, at run time
        return "string" if math.isnan(js_number(plain)) else "numeric string"
    if isinstance(plain, list):
        if not plain:
            return "empty list"
        if all(isinstance(item, str) for item in plain):
            return "strings"
        numbers = all(isinstance(item, (int, float)) and not isinstance(item, bool) for item in plain)
        return "numbers" if numbers else None
    if isinstance(plain, dict):
        return "empty object" if not plain else "min-max object" if "min" in plain or "max" in plain else "object"
    return None


def refusal(kind: str, value: Node | None) -> str | None:
    """The message promptfoo fails an assertion of base type ``kind`` with ``value`` with; None if it runs."""
    found = value_kind(value)
    if found is None:
        return None
    if kind == "select-best":
        return _SELECT_BEST if found not in ("string", "numeric string", "empty string") else None
    return REFUSED.get(kind, {}).get(found)


def check_values(ctx, report, view: ConfigView) -> None:
    for a in view.assertions():
        if a.type is None or not a.node.is_map:
            continue
        _value_type(report, a)
        weight = a.field("weight")
        numeric = weight is not None and isinstance(weight.value, (int, float)) and not isinstance(weight.value, bool)
        if weight is not None and numeric and weight.value < 0:
            report(
                NEGATIVE_WEIGHT,
                a.source,
                weight,
                f"weight {weight.value:g} is negative: a pass lowers the test's score. Use '{_inverted(a.type)}' "
                "with a positive weight to count the check against the output.",
            )


def _inverted(kind: str) -> str:
    base = base_type(kind)
    return base if base != kind else f"not-{kind}"


def value_type_problem(a: AssertionInfo) -> str | None:
    """PF111's message when the assertion's handler refuses its value (None: it accepts it).

    The grading engine refuses the same assertions, before any judge call."""
    if a.type is None or not a.node.is_map:
        return None
    value = a.field("value")
    message = refusal(base_type(a.type), value)
    if message is None:
        return None
    if value is None:
        what = "no value"
    elif value_kind(value) == "empty string":
        what = "an empty string as its value"
    else:
        what = f"{describe_type(to_plain(value))} as its value"
    return f"This {a.type} has {what}; promptfoo fails it every run with '{message}'."


def _value_type(report, a: AssertionInfo) -> None:
    message = value_type_problem(a)
    if message is None:
        return
    value = a.field("value")
    report(VALUE_TYPE, a.source, value if value is not None else (a.node.get("type") or a.node), message)
