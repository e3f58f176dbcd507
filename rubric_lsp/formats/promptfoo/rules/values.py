"""Assertion values and weights promptfoo 0.123.1's handlers cannot use (PF111, PF022).

The handlers check their value with ``invariant`` (src/assertions/*.ts): an assertion whose value
has the wrong type fails with 'Invariant failed: …' every time it runs, so it can never pass.
"""

from __future__ import annotations

from rubric_lsp.document import Node
from rubric_lsp.document.nodes import to_plain
from rubric_lsp.formats.errors import describe_type
from rubric_lsp.formats.promptfoo.model import base_type
from rubric_lsp.formats.promptfoo.resolve import AssertionInfo, ConfigView
from rubric_lsp.formats.promptfoo.rules.common import E, F, W
from rubric_lsp.rules.registry import rule

VALUE_TYPE = rule(
    "PF111",
    "assertion-value-type",
    E,
    "An assertion value of a type its handler refuses (or a missing one): the assertion errors every run.",
    "promptfoo's handlers check the value before grading ('\"contains\" assertion type must have a string "
    "or number value', 'select-best must have a string value', ...): a number as an llm-rubric rubric, "
    "a contains without value, a select-best without criteria fail with 'Invariant failed' and never pass.",
    bad="prompts: ['Say {{x}}']\nproviders: [openai:gpt-4.1-mini]\ntests:\n  - assert:\n      - type: contains",
    good="prompts: ['Say {{x}}']\nproviders: [openai:gpt-4.1-mini]\ntests:\n  - assert:\n      - type: contains\n        value: refund",
    formats=F,
    checked_against="promptfoo 0.123.1's src/assertions/*.ts (each handler's invariant on its value)",
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

_STRING, _STRING_OR_NUMBER, _STRING_OR_OBJECT, _STRINGS = (
    "a string",
    "a string or number",
    "a string or object",
    "a string or array of strings",
)
# base type -> (what the handler accepts, promptfoo's invariant message); None: a missing value passes
_NEEDS = {
    "contains": (_STRING_OR_NUMBER, '"contains" assertion type must have a string or number value'),
    "icontains": (_STRING_OR_NUMBER, '"icontains" assertion type must have a string or number value'),
    "llm-rubric": (_STRING_OR_OBJECT, '"llm-rubric" assertion type must have a string or object value'),
    "g-eval": (_STRINGS, "G-Eval assertion type must have a string or array of strings value"),
    "factuality": (_STRING, "factuality assertion type must have a string value"),
    "model-graded-factuality": (_STRING, "factuality assertion type must have a string value"),
    "model-graded-closedqa": (_STRING, "model-graded-closedqa assertion type must have a string value"),
    "select-best": (_STRING, "select-best must have a string value"),
}


def _fits(value: Node | None, accepts: str, kind: str) -> bool:
    plain = to_plain(value) if value is not None else None
    if kind == "llm-rubric" and plain is None:
        return True  # a missing rubric is PF103's (promptfoo falls back to rubricPrompt)
    if isinstance(plain, str):
        return plain != "" or accepts != _STRING_OR_NUMBER
    if accepts == _STRING_OR_NUMBER:
        return isinstance(plain, (int, float)) and not isinstance(plain, bool)
    if accepts == _STRING_OR_OBJECT:
        return isinstance(plain, (dict, list))
    if accepts == _STRINGS:
        return isinstance(plain, list) and all(isinstance(item, str) for item in plain)
    return False


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
    kind = base_type(a.type)
    needs = _NEEDS.get(kind)
    if needs is None:
        return None
    accepts, message = needs
    value = a.field("value")
    if value is not None and isinstance(value.value, str) and value.value.startswith("file://"):
        return None  # loaded at run time
    if _fits(value, accepts, kind):
        return None
    what = "no value" if value is None else f"{describe_type(to_plain(value))} as its value"
    return f"This {a.type} has {what}; promptfoo fails it every run with 'Invariant failed: {message}'."


def _value_type(report, a: AssertionInfo) -> None:
    message = value_type_problem(a)
    if message is None:
        return
    value = a.field("value")
    report(VALUE_TYPE, a.source, value if value is not None else (a.node.get("type") or a.node), message)
