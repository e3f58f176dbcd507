"""Assertions a graded test cannot carry: what promptfoo errors on, checked before any judge call.

The lint's own checks decide (one source of truth): PF100 (a type promptfoo does not know:
``runAssertionInternal`` throws ``Unknown assertion type``), PF111 (a value the handler's
``invariant`` refuses), PF117 (a cost or latency assertion without a threshold: its handler throws),
PF118 (a context-faithfulness / context-relevance assertion in a test whose ``query`` var, as the test
runs with it, is not a string: its handler's invariant fails), and PF103 (an llm-rubric with no rubric: promptfoo 0.123.1 grades it
against an empty rubric, a verdict that checks nothing, so rubric grade refuses it; README,
deliberate differences). A thrown assertion makes promptfoo record the whole test as an error
(``applyGradingError``), so the test is refused whole.
"""

from __future__ import annotations

from typing import Any

from rubric_lsp.formats.promptfoo.assertion_types import is_known_assertion_type
from rubric_lsp.formats.promptfoo.rules.assertions import EMPTY_RUBRIC_MESSAGE, missing_rubric, unknown_type_message
from rubric_lsp.formats.promptfoo.rules.needs import UNSET, query_refusal, threshold_problem
from rubric_lsp.formats.promptfoo.rules.values import value_type_problem


def refusals(view: Any, number: int, assertions: list[Any], test_vars: dict[str, Any] | None) -> list[str]:
    """One line per assertion of test ``number`` (run with ``test_vars``) that promptfoo errors on (or that
    grades nothing). ``test_vars`` None: not all known (PF118 is then not decided here)."""

    found = []
    for a in assertions:
        where = f"test {number}" + (
            f" (line {a.source.document.range(a.node).start.line + 1})"
            if a.source.is_config and a.source.document is not None
            else ""
        )
        if a.type is None:
            if a.node.is_map and not a.node.has("$ref"):
                found.append(
                    f"{where}: an assertion has no 'type'; promptfoo errors the test ('Assertion must have a type')"
                )
            continue
        if a.type in ("assert-set", "max-score", "select-best"):
            continue  # no part of a test's result; the comparisons report their own errors
        if not is_known_assertion_type(a.type):
            found.append(f"{where}: PF100 {unknown_type_message(a.type)}")
        elif (problem := value_type_problem(a)) is not None:
            found.append(f"{where}: PF111 {problem}")
        elif (problem := threshold_problem(a)) is not None:
            found.append(f"{where}: PF117 {problem}")
        elif test_vars is not None and (problem := query_refusal(a, test_vars.get("query", UNSET))) is not None:
            found.append(f"{where}: PF118 {problem}")
        elif missing_rubric(view, a):
            found.append(f"{where}: PF103 {EMPTY_RUBRIC_MESSAGE} promptfoo would grade it against an empty rubric.")
    return found
