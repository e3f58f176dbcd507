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
HEAD_NO_PROVIDERS = "prompts: ['Say {{x}}']\n"
ASSERTING = "tests:\n  - vars: {x: 1}\n    assert:\n      - type: contains\n        value: hi\n"


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


# -- item 13: what `promptfoo eval` refuses before running ------------------------------------------


def fixed(text: str, code: str) -> str:
    from rubric_lsp.fixes import apply_edits

    result = lint(text)
    diagnostic = next(d for d in result.diagnostics if d.code == code)
    assert diagnostic.fix is not None, diagnostic.message
    return apply_edits(result.document.text, diagnostic.fix.edits)


@pytest.mark.parametrize(
    "text, message",
    [
        # readConfig sets the default prompt only when `prompts` is falsy: an empty list stays empty
        ("prompts: []\nproviders: [openai:gpt-4.1-mini]\n", "You must provide at least 1 prompt"),
        ("prompts: ['']\nproviders: [openai:gpt-4.1-mini]\n", "You must provide at least 1 prompt"),
        (HEAD_NO_PROVIDERS + "providers: []\n" + ASSERTING, "You must specify at least 1 provider"),
        (HEAD_NO_PROVIDERS + ASSERTING, "You must specify at least 1 provider"),
        # `targets` replaces `providers` whenever it is truthy, even as an empty list
        (HEAD_NO_PROVIDERS + "providers: [echo]\ntargets: []\n" + ASSERTING, "You must specify at least 1 provider"),
    ],
)
def test_an_empty_prompts_list_or_no_providers_is_an_error(text, message):
    (diagnostic,) = found(text, "PF108")
    assert diagnostic.severity == Severity.ERROR and message in diagnostic.message


def test_a_misspelt_providers_key_is_the_error_with_a_safe_fix():
    text = "prompts: ['Say {{x}}']\nprovider: [openai:gpt-4.1-mini]\n" + ASSERTING
    result = lint(text)
    assert [d.code for d in result.diagnostics] == ["PF108"]  # not also PF001
    assert result.diagnostics[0].fix.safe  # promptfoo refuses the config as written
    assert "\nproviders: [" in fixed(text, "PF108")


def test_red_team_configs_need_no_prompts():
    assert found("targets: [http]\nredteam: {purpose: bank}\n", "PF108") == []


def test_prompt_objects_need_raw_or_label():
    text = (
        "prompts:\n  - id: a\n    content: Say hi\n  - {raw: 'Say {{x}}'}\n  - {label: l, id: file://p.txt}\n"
        "  - {raw: 'Say {{x}}', label: l}\nproviders: [echo]\n"
    )
    first, second = found(text, "PF109")
    assert first.range.start.line == 1 and "'raw' or 'label' string property" in first.message
    # Without an id, promptfoo 0.123.1's makeAbsolute needs a whole PromptSchema: raw *and* label
    # (tests/data/promptfoo-lint-gaps/recorded.json: 'Invalid prompt object: {"raw":"Say {{topic}}"}').
    assert second.range.start.line == 3 and """'Invalid prompt object: {"raw":"Say {{x}}"}'""" in second.message


@pytest.mark.parametrize(
    "provider, expected",
    [
        ("nonexistent:foo", "Could not identify provider: nonexistent:foo"),
        ("github:openai/gpt-4o-mini", "GitHub Models was retired"),
        ("sagemaker:anthropic:my-endpoint", 'Invalid model type "anthropic"'),
    ],
)
def test_providers_promptfoo_cannot_load(provider, expected):
    (diagnostic,) = found(f"prompts: ['Say {{{{x}}}}']\nproviders:\n  - id: {provider}\n", "PF110")
    assert expected in diagnostic.message


@pytest.mark.parametrize(
    "provider",
    [
        "openai:gpt-4.1-mini",
        "echo",
        "file://provider.py",
        "python:provider.py",
        "sagemaker:jumpstart:my-endpoint",
        "sagemaker:embedding:e",
        "bedrock:anthropic.claude-3",
        "vertex:gemini-pro",
        "{{ env.PROVIDER }}",
        "https://example.com/api",
        "./custom_provider.js",
    ],
)
def test_loadable_providers_are_not_flagged(provider):
    assert found(f"prompts: ['Say {{{{x}}}}']\nproviders: ['{provider}']\n", "PF110") == []


@pytest.mark.parametrize(
    "assertion, message",
    [
        ("{type: llm-rubric, value: 42}", '"llm-rubric" assertion type must have a string or object value'),
        ("{type: g-eval, value: 7}", "G-Eval assertion type must have a string or array of strings value"),
        ("{type: contains}", '"contains" assertion type must have a string or number value'),
        ("{type: contains, value: ''}", '"contains" assertion type must have a string or number value'),
        ("{type: select-best}", "select-best must have a string value"),
    ],
)
def test_values_the_handlers_refuse(assertion, message):
    text = config(f"""
        tests:
          - assert:
              - {assertion}
        """)
    (diagnostic,) = found(text, "PF111")
    assert diagnostic.severity == Severity.ERROR and message in diagnostic.message


def test_values_the_handlers_accept():
    text = config("""
        tests:
          - assert:
              - {type: contains, value: 3}
              - {type: llm-rubric, value: {criteria: polite}}
              - {type: g-eval, value: [coherent, clear]}
              - {type: contains, value: 'file://needle.txt'}
        """)
    assert found(text, "PF111") == []


def test_rubric_prompt_of_the_wrong_type_is_an_error():
    text = config("""
        defaultTest:
          options:
            rubricPrompt: 42
        tests:
          - assert:
              - {type: llm-rubric, value: polite}
        """)
    (diagnostic,) = found(text, "PF107")
    assert "'rubricPrompt' is a number" in diagnostic.message


def test_rubric_prompt_without_output_is_a_warning():
    text = config("""
        defaultTest:
          options:
            rubricPrompt: 'Grade against {{rubric}}; reply with JSON {pass, score, reason}'
        tests:
          - assert:
              - {type: llm-rubric, value: polite}
        """)
    (diagnostic,) = found(text, "PF008")
    assert diagnostic.severity == Severity.WARNING and "never uses {{output}}" in diagnostic.message


def test_misspelt_option_and_grader_keys():
    text = config("""
        defaultTest:
          options:
            rubricPromt: 'Grade {{output}} against {{rubric}}: JSON {pass, score, reason}'
            provider:
              id: openai:gpt-4.1
              confg: {temperature: 0}
            myCustomOption: kept
        tests:
          - assert:
              - {type: llm-rubric, value: polite}
        """)
    messages = [d.message for d in found(text, "PF023")]
    assert len(messages) == 2
    assert "'rubricPromt'" in messages[0] and "'rubricPrompt'" in messages[0]
    assert "'confg'" in messages[1] and "'config'" in messages[1]
    assert "    rubricPrompt: 'Grade" in fixed(text, "PF023")


def test_g_eval_threshold_on_the_judges_scale_and_negative_weight():
    text = config("""
        tests:
          - assert:
              - {type: g-eval, value: coherent, threshold: 7}
              - {type: contains, value: sorry, weight: -1}
        """)
    (threshold,) = found(text, "PF104")
    assert "g-eval threshold 7" in threshold.message and threshold.severity == Severity.ERROR
    (weight,) = found(text, "PF022")
    assert "'not-contains'" in weight.message and weight.severity == Severity.WARNING


def test_max_score_value_as_a_plain_method():
    text = config("""
        tests:
          - assert:
              - {type: contains, value: a}
              - type: max-score
                value: sum
        """)
    (diagnostic,) = found(text, "PF013")
    assert "averaged" in diagnostic.message and diagnostic.fix is not None and not diagnostic.fix.safe
    assert "value: {method: sum}" in fixed(text, "PF013")


def test_sources_promptfoo_reads_nothing_from(tmp_path):
    from rubric_lsp.lint import lint_path

    (tmp_path / "shared.yaml").write_text("x: 1\n", encoding="utf-8")
    path = tmp_path / "promptfooconfig.yaml"
    path.write_text(HEAD + "tests:\n  - vars: [shared.yaml, a]\n", encoding="utf-8")
    (diagnostic,) = [d for d in lint_path(path).diagnostics if d.code == "PF024"]
    assert "'a' in a vars list matches no file" in diagnostic.message and diagnostic.range.start.line == 3
    assert [d.code for d in lint(HEAD + "tests: abc\n").diagnostics] == ["PF024"]
    assert found(HEAD + "tests: file://cases.csv\n", "PF024") == []
    assert found(HEAD + "tests: huggingface://datasets/x/y\n", "PF024") == []
