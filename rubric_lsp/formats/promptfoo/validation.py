"""What promptfoo 0.123.1 refuses before it runs anything: its assertion validation.

``validateAssertions`` (src/assertions/validateAssertions.ts) parses every assertion of the
tests and of ``defaultTest`` with zod (``AssertionOrSetSchema``) and throws
``AssertValidationError: Invalid assertion at tests[i].assert[j]: ✖ Invalid input`` on the
first one that does not fit, so the whole config is refused: nothing is graded. zod does
not coerce: ``threshold: '0.5'``, ``threshold: true``, ``weight: '2'`` and a null field are
refused alike. Scenario tests are not validated there (promptfoo runs them unchecked).

The lint rule (PF107) and the grading engine both read this, so ``rubric grade`` refuses
exactly the configs ``rubric-lint`` reports as refused.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from rubric_lsp.document import Node
from rubric_lsp.document.nodes import to_plain
from rubric_lsp.formats.promptfoo.resolve import AssertionInfo, ConfigView

# field -> what zod expects there (AssertionSchema / AssertionSetSchema of 0.123.1)
_NUMBER, _STRING, _RECORD = "a number", "a string", "a mapping"
ASSERTION_FIELDS = {
    "threshold": _NUMBER,
    "weight": _NUMBER,
    "metric": _STRING,
    "config": _RECORD,
    "transform": _STRING,
    "contextTransform": _STRING,
}
ASSERT_SET_FIELDS = {"threshold": _NUMBER, "weight": _NUMBER, "metric": _STRING, "config": _RECORD}


@dataclass(frozen=True)
class Refusal:
    assertion: AssertionInfo
    field: str
    node: Node  # the offending value
    expected: str
    where: str  # promptfoo's path: tests[0].assert[1], defaultTest.assert[0].assert[2]

    @property
    def owner_message(self) -> str:
        return f"AssertValidationError: Invalid assertion at {self.where}: ✖ Invalid input"


def _fits(node: Node, expected: str) -> bool:
    if not node.is_scalar and expected != _RECORD:
        return False
    value = node.value
    if expected == _NUMBER:
        # js-yaml gives .inf/.nan as numbers, and zod 4's z.number() refuses them
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if expected == _STRING:
        return isinstance(value, str)
    return node.is_map


def assertion_refusals(assertion: AssertionInfo) -> list[tuple[str, Node, str]]:
    """(field, value node, expected) for each field zod refuses in this assertion."""
    node = assertion.node
    if not node.is_map or assertion.type is None:
        return []  # a missing or non-string type is reported on its own
    fields = ASSERT_SET_FIELDS if assertion.type == "assert-set" else ASSERTION_FIELDS
    found = []
    for key, _key_node, value in node.items():
        expected = fields.get(key) if isinstance(key, str) else None
        if expected is not None and not _fits(value, expected):
            found.append((key, value, expected))
    return found


def _where(view: ConfigView, assertion: AssertionInfo) -> str | None:
    """promptfoo's path of the assertion, or None when promptfoo does not validate it (scenario tests)."""
    owner = assertion.owner
    if owner is None or owner.node is None or owner.scenario is not None:
        return None
    if owner.index < 0:
        head = "defaultTest"
    else:
        plain = [test for test in view.tests if test.scenario is None]
        head = f"tests[{next((i for i, test in enumerate(plain) if test is owner), owner.index)}]"
    top = assertion.set_node if assertion.set_node is not None else (assertion.ref_node or assertion.node)
    position = _position(owner.node.get("assert"), top)
    if position is None:
        return None
    where = f"{head}.assert[{position}]"
    if assertion.set_node is not None:
        inner = _position(assertion.set_node.get("assert"), assertion.ref_node or assertion.node)
        where += f".assert[{inner}]" if inner is not None else ""
    return where


def _position(seq: Node | None, item: Node) -> int | None:
    if seq is None or not seq.is_seq:
        return None
    return next((i for i, child in enumerate(seq.value) if child is item), None)


def refusals_of(view: ConfigView, assertion: AssertionInfo) -> list[Refusal]:
    found = assertion_refusals(assertion)
    where = _where(view, assertion) if found else None  # the path walks the tests: only when needed
    if where is None:
        return []
    return [Refusal(assertion, key, node, expected, where) for key, node, expected in found]


def refusals(view: ConfigView) -> list[Refusal]:
    return [refusal for assertion in view.assertions() for refusal in refusals_of(view, assertion)]


def config_refusal(view: ConfigView) -> str | None:
    """promptfoo's reason for refusing the whole config, or None when it accepts it."""
    found = refusals(view)
    if not found:
        return None
    first = found[0]
    return (
        f"promptfoo refuses this config ({first.owner_message}): '{first.field}' must be {first.expected}"
        f"{_found_text(first.node)}. Nothing is graded until it is fixed."
    )


def _found_text(node: Node) -> str:
    from rubric_lsp.formats.errors import describe_type

    return f", not {describe_type(to_plain(node))}"
