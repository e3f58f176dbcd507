"""What an assertion needs besides its value, which promptfoo 0.123.1 checks when it runs it:
a `threshold` on cost and latency (PF117), a string `query` var for context-faithfulness and
context-relevance (PF118). Without it the handler throws, so the assertion errors every run.

The messages quote promptfoo's handlers (dist/src/index.js: handleCost, handleLatency,
handleContextFaithfulness, handleContextRelevance); tests/test_promptfoo_lint_gaps.py holds
what `promptfoo eval` 0.123.1 recorded for each.
"""

from __future__ import annotations

from typing import Any

from rubric_lsp.document.nodes import to_plain
from rubric_lsp.formats.errors import describe_type
from rubric_lsp.formats.promptfoo.assertion_types import base_type
from rubric_lsp.formats.promptfoo.resolve import AssertionInfo, ConfigView, TestInfo
from rubric_lsp.formats.promptfoo.rules.common import E, F
from rubric_lsp.rules.registry import rule

_HEAD = "prompts: ['Answer: {{query}}']\nproviders: [openai:gpt-4.1-mini]\n"

NO_THRESHOLD = rule(
    "PF117",
    "missing-threshold",
    E,
    "A cost or latency assertion without a `threshold`: promptfoo fails it every run.",
    "promptfoo 0.123.1's cost and latency handlers compare the call's cost (dollars) or latency (ms) with the "
    "assertion's threshold, and throw when there is none ('Cost assertion must have a threshold', 'Latency "
    "assertion must have a threshold in milliseconds'): the test is recorded as an error, never a pass. "
    "`threshold: 0` is a threshold (cost must be 0).",
    bad=_HEAD + "tests:\n  - vars: {query: hi}\n    assert:\n      - type: latency",
    good=_HEAD + "tests:\n  - vars: {query: hi}\n    assert:\n      - type: latency\n        threshold: 5000",
    formats=F,
    checked_against="promptfoo 0.123.1's src/assertions/cost.ts and latency.ts (handleCost, handleLatency)",
)

NO_QUERY = rule(
    "PF118",
    "missing-query-var",
    E,
    "A context-faithfulness or context-relevance assertion in a test without a string `query` var: "
    "promptfoo fails it every run.",
    "Both grade the context against the user's question, which promptfoo 0.123.1 reads from the test's "
    '`query` var only, and they stop with \'Invariant failed: context-faithfulness assertion requires a "query" '
    "variable with the user question' when it is missing or not a string. Reported for tests whose vars are all "
    "known (not from scripts, CSV files, transformVars or scenarios).",
    bad=_HEAD.replace("{{query}}", "{{question}}")
    + "tests:\n  - vars: {question: What is the refund window?, context: Refunds within 30 days.}\n    assert:\n"
    "      - type: context-faithfulness\n        threshold: 0.8",
    good=_HEAD
    + "tests:\n  - vars: {query: What is the refund window?, context: Refunds within 30 days.}\n    assert:\n"
    "      - type: context-faithfulness\n        threshold: 0.8",
    formats=F,
    checked_against="promptfoo 0.123.1's src/assertions/contextFaithfulness.ts and contextRelevance.ts "
    "(invariant(typeof test.vars.query === 'string', …))",
)

_THRESHOLD_MESSAGES = {
    "cost": ("Cost assertion must have a threshold", "the most it may cost in dollars, e.g. 'threshold: 0.01'"),
    "latency": (
        "Latency assertion must have a threshold in milliseconds",
        "the longest it may take in milliseconds, e.g. 'threshold: 5000'",
    ),
}
QUERY_TYPES = ("context-faithfulness", "context-relevance")
UNSET = object()  # a var the test does not set


def threshold_problem(a: AssertionInfo) -> str | None:
    """PF117's message for a cost or latency assertion without a threshold (None: it has one, or is neither).

    The grading engine refuses the same assertions, before any judge call."""
    if a.type is None or not a.node.is_map:
        return None
    base = base_type(a.type)
    if base not in _THRESHOLD_MESSAGES or a.node.has("threshold"):
        return None
    said, hint = _THRESHOLD_MESSAGES[base]
    return f"This {a.type} assertion has no 'threshold'; promptfoo fails it every run with '{said}'. Set {hint}."


def query_refusal(a: AssertionInfo, query: Any) -> str | None:
    """PF118's words for a context-faithfulness / context-relevance assertion of a test whose ``query`` var (its
    plain value, ``UNSET`` when absent) is not a string (None: it is, or the assertion is of another type)."""
    if a.type is None or base_type(a.type) not in QUERY_TYPES or isinstance(query, str):
        return None
    why = "has no 'query' var" if query is UNSET else f"has {describe_type(query)} as its 'query' var"
    said = f'Invariant failed: {base_type(a.type)} assertion requires a "query" variable with the user question'
    return f"promptfoo fails this {a.type} every run where the test gives no string 'query' (the test {why}): '{said}'."


def check_needs(ctx, report, view: ConfigView) -> None:
    for a in view.assertions():
        if a.type is None or not a.node.is_map:
            continue
        base = base_type(a.type)
        message = threshold_problem(a)
        if message is not None:
            report(NO_THRESHOLD, a.source, a.node.get("type") or a.node, message)
        elif base in QUERY_TYPES and ctx.enabled(NO_QUERY):
            _query_var(report, view, a, base)


def _skips_defaults(test: TestInfo) -> bool:
    """The test's own `options.disableDefaultAsserts`: defaultTest's assertions do not run on it."""
    return to_plain(test.options_field("disableDefaultAsserts")) is True


def query_problem(test: TestInfo) -> str | None:
    """Why ``test`` gives context-faithfulness / context-relevance no string ``query`` (None: it does, or
    its vars are not all known)."""
    if not test.vars_complete:
        return None
    value = test.var_values.get("query")
    if value is None:
        return "has no 'query' var"
    plain = to_plain(value)
    if isinstance(plain, (str, list)):  # a list expands into one test per item (promptfoo's vars arrays)
        return None
    return f"has {describe_type(plain)} as its 'query' var"


def _query_var(report, view: ConfigView, a: AssertionInfo, base: str) -> None:
    tests = [t for t in view.tests_using(a) if a.origin != "defaultTest" or not _skips_defaults(t)]
    missing = [(test, why) for test in tests if (why := query_problem(test)) is not None]
    if not missing:
        return
    said = f'Invariant failed: {base} assertion requires a "query" variable with the user question'
    where = "; ".join(_said_of(test.label, why) for test, why in missing[:3]) + (
        "; and others" if len(missing) > 3 else ""
    )
    report(
        NO_QUERY,
        a.source,
        a.node.get("type") or a.node,
        f"promptfoo fails this {a.type} every run where the test gives no string 'query' ({where}): '{said}'. "
        "Give each test a 'query' var holding the user's question.",
    )


def _said_of(label: str, why: str) -> str:
    """``test 3 has no 'query' var``, ``tests 1–2 have no 'query' var``."""
    return f"{label} {'have' + why[3:] if label.startswith('tests ') and why.startswith('has ') else why}"
