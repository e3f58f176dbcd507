"""promptfoo 0.123.1's own verdict on a config, pinned rule by rule (issue 15, items 3, 13, 14).

Each case is a mutant that ``promptfoo validate`` or ``promptfoo eval`` 0.123.1 refuses (or runs
with a silent defect); the expected message quotes what promptfoo says.
"""

from __future__ import annotations

from textwrap import dedent

import pytest

from rubric_lsp.diagnostics import Severity
from tests.helpers import lint as _lint

HEAD = "prompts: ['Say {{x}}']\nproviders: [openai:gpt-4.1-mini]\n"


def lint(text: str):
    return _lint(text, "promptfooconfig.yaml")


def found(text: str, code: str) -> list:
    return [d for d in lint(text).diagnostics if d.code == code]


def config(tests: str, head: str = HEAD) -> str:
    return head + dedent(tests).lstrip("\n")


# -- item 3: zod's assertion validation refuses the whole config ---------------------------------


@pytest.mark.parametrize(
    "field, value, kind",
    [
        ("threshold", "'0.5'", "a string"),
        ("threshold", "true", "a boolean"),
        ("weight", "'2'", "a string"),
        ("threshold", "", "null"),
        ("metric", "3", "a number"),
    ],
)
def test_assertion_fields_zod_refuses_are_errors(field, value, kind):
    text = config(f"""
        tests:
          - assert:
              - type: contains
                value: a
              - type: llm-rubric
                value: polite
                {field}: {value}
        """)
    (diagnostic,) = found(text, "PF107")
    assert diagnostic.severity == Severity.ERROR and diagnostic.range.start.line == 8
    assert f"'{field}' is {kind}" in diagnostic.message
    assert "AssertValidationError: Invalid assertion at tests[0].assert[1]" in diagnostic.message


def test_default_test_and_assert_set_paths_are_promptfoos():
    text = config("""
        defaultTest:
          assert:
            - type: assert-set
              threshold: '0.5'
              assert:
                - type: contains
                  value: a
                  weight: 'x'
        tests:
          - vars: {x: 1}
        """)
    messages = sorted(d.message for d in found(text, "PF107"))
    assert any("defaultTest.assert[0]:" in m and "'threshold'" in m for m in messages)
    assert any("defaultTest.assert[0].assert[0]:" in m and "'weight'" in m for m in messages)


def test_numbers_and_scenario_tests_are_not_refused():
    # ints are numbers to zod; scenario tests are not validated by validateAssertions
    text = config("""
        tests:
          - assert:
              - type: llm-rubric
                value: polite
                threshold: 1
                weight: 2
        scenarios:
          - config: [{vars: {x: 1}}]
            tests:
              - assert:
                  - type: llm-rubric
                    value: polite
                    threshold: '0.5'
        """)
    assert found(text, "PF107") == []


# -- item 14: a `reason:` note is dropped, nothing fails --------------------------------------------


def test_reason_key_is_a_warning_not_an_error():
    text = config("""
        tests:
          - assert:
              - type: contains
                value: refund
                reason: the policy names refunds
        """)
    result = lint(text)
    assert [d.code for d in result.diagnostics] == ["PF021"]
    assert result.diagnostics[0].severity == Severity.WARNING
    assert "'reason'" in result.diagnostics[0].message


def test_a_misspelt_setting_is_still_an_error():
    text = config("""
        tests:
          - assert:
              - type: llm-rubric
                value: polite
                threshhold: 0.8
        """)
    (diagnostic,) = found(text, "PF101")
    assert diagnostic.severity == Severity.ERROR and "threshold" in diagnostic.message
