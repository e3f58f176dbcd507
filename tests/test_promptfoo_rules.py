"""Each promptfoo rule: trips on the right line, a near miss does not, fixes repair it."""

from __future__ import annotations

from textwrap import dedent

import pytest
import yaml

from rubric_lsp.fixes import apply_edits
from tests.helpers import codes, lines_of
from tests.helpers import lint as _lint

PATH = "promptfooconfig.yaml"


def lint(text: str, **kwargs):
    return _lint(text, PATH, **kwargs)


def fixed(result, code: str) -> str:
    diagnostic = next(d for d in result.diagnostics if d.code == code)
    assert diagnostic.fix is not None, diagnostic.message
    return apply_edits(result.document.text, diagnostic.fix.edits)


def config(tests: str, head: str = "prompts: [p]\nproviders: [openai:gpt-5-mini]\n") -> str:
    return head + dedent(tests).lstrip("\n")


# -- detection ---------------------------------------------------------------------------


def test_detected_by_modeline_filename_and_keys():
    modeline = "# yaml-language-server: $schema=https://promptfoo.dev/config-schema.json\ndescription: x\n"
    assert _lint(modeline, "anything.yaml").format.name == "promptfoo-config"
    assert _lint("description: x\n", "promptfooconfig.smoke.yaml").format.name == "promptfoo-config"
    assert (
        _lint("targets: [http]\nredteam: {purpose: bank}\n", "x.yaml", explicit=False).format.name == "promptfoo-config"
    )
    assert (
        _lint('{"$schema": "https://promptfoo.dev/config-schema.json", "prompts": ["p"]}', "x.json").format.name
        == "promptfoo-config"
    )


@pytest.mark.parametrize(("before", "detected"), [(0, True), (29, True), (30, False)])
def test_a_modeline_is_read_in_the_first_30_lines(before, detected):
    modeline = "# yaml-language-server: $schema=https://promptfoo.dev/config-schema.json\n"
    result = _lint("#\n" * before + modeline + "description: x\n" + "# more\n" * 40, "anything.yaml", explicit=False)
    assert (result.format is not None and result.format.name == "promptfoo-config") is detected


def test_a_modeline_after_lone_carriage_returns_is_read_by_its_line_feeds():
    """The first 30 lines are split at line feeds, as they always were: "#\\r#\\n" is one line."""
    modeline = "# yaml-language-server: $schema=https://promptfoo.dev/config-schema.json\n"
    result = _lint("#\r#\n" * 29 + modeline + "description: x\n", "anything.yaml", explicit=False)
    assert result.format is not None and result.format.name == "promptfoo-config"


def test_test_case_files_are_not_configs():
    result = _lint(
        "- vars: {a: 1}\n  assert:\n    - type: contains\n      value: x\n", "tests/tests1.yaml", explicit=False
    )
    assert result.format is None or result.format.name != "promptfoo-config"


def test_redteam_and_target_only_configs_need_no_prompts():
    assert codes(lint("targets:\n  - id: http\n    config: {url: 'https://x'}\nredteam:\n  purpose: bank\n")) == []


# -- PF100 / PF101 -----------------------------------------------------------------------


def test_unknown_assertion_type():
    result = lint(
        config("""
        tests:
          - assert:
              - type: contians
                value: x
              - type: not-contains
                value: y
              - type: promptfoo:redteam:pii
    """)
    )
    assert lines_of(result, "PF100") == [5]
    assert "contains" in fixed(result, "PF100").split("\n")[4]
    assert next(d for d in result.diagnostics if d.code == "PF100").fix.safe is False


def test_known_bogus_types_get_a_hint():
    result = lint(config("tests:\n  - assert:\n      - type: not-empty\n"))
    assert lines_of(result, "PF100") == [5]
    assert "output.length > 0" in result.diagnostics[0].message


def test_unknown_assertion_key_with_rename_fix():
    result = lint(
        config("""
        tests:
          - assert:
              - type: llm-rubric
                value: Is polite
                threshhold: 0.8
    """)
    )
    assert lines_of(result, "PF101") == [7]
    assert "threshold: 0.8" in fixed(result, "PF101")


def test_rubric_key_is_flagged_and_known_keys_are_not():
    result = lint(
        config("""
        tests:
          - assert:
              - type: llm-rubric
                rubric: Is polite
              - type: llm-rubric
                value: Is polite
                metric: tone
                weight: 2
                threshold: 0.5
    """)
    )
    assert lines_of(result, "PF101") == [6]
    assert "value" in next(d for d in result.diagnostics if d.code == "PF101").message


def test_ref_assertions_are_resolved():
    text = config("""
        assertionTemplates:
          pirate:
            type: icontains
            value: arr
        tests:
          - assert:
              - $ref: '#/assertionTemplates/pirate'
              - $ref: '#/assertionTemplates/missing'
    """)
    result = lint(text)
    assert lines_of(result, "PF107") == [10]


# -- PF102 -------------------------------------------------------------------------------


def test_grader_provider_shapes():
    result = lint(
        config("""
        tests:
          - assert:
              - type: llm-rubric
                value: a
                provider: [openai:gpt-5-mini]
              - type: llm-rubric
                value: b
                provider:
                  config: {temperature: 0}
              - type: llm-rubric
                value: c
                provider:
                  openai:gpt-4o: {config: {temperature: 0}}
              - type: llm-rubric
                value: d
                provider:
                  embedding: openai:embedding:text-embedding-3-small
              - type: similar
                value: e
                provider:
                  embedding: openai:embedding:text-embedding-3-small
              - type: llm-rubric
                value: f
                provider:
                  text: {id: openai:gpt-5-mini}
    """)
    )
    assert lines_of(result, "PF102") == [7, 10, 14, 18]


def test_target_override_without_id():
    result = lint(config("defaultTest:\n  provider:\n    embedding: cohere:embed\n"))
    assert lines_of(result, "PF102") == [4]
    assert lines_of(lint(config("defaultTest:\n  provider:\n    id: cohere:command\n")), "PF102") == []


# -- PF103 / PF104 / PF002 / PF003 -----------------------------------------------------------


def test_empty_rubric():
    result = lint(
        config("tests:\n  - assert:\n      - type: llm-rubric\n      - type: llm-rubric\n        value: ''\n")
    )
    assert lines_of(result, "PF103") == [5, 7]


def test_empty_rubric_is_fine_with_a_prompt_that_ignores_rubric():
    text = config("""
        defaultTest:
          options:
            rubricPrompt: 'Did {{output}} mention {{x}}? Reply with JSON {pass, score, reason}'
        tests:
          - vars: {x: cats}
            assert:
              - type: llm-rubric
    """)
    assert "PF103" not in codes(lint(text))


def test_threshold_out_of_range():
    result = lint(
        config("tests:\n  - assert:\n      - type: llm-rubric\n        value: Is polite\n        threshold: 8\n")
    )
    assert lines_of(result, "PF104") == [7]
    assert "PF104" not in codes(
        lint(config("tests:\n  - assert:\n      - type: llm-rubric\n        value: Is polite\n        threshold: 1\n"))
    )


SEED_PROBLEM = """
    tests:
      - assert:
          - type: llm-rubric
            value: |
              Return 0 if the response is incorrect
              Return 1 if the response is correct
"""
SEED_FIX_A = SEED_PROBLEM + "            threshold: 1\n"
SEED_FIX_B = """
    tests:
      - assert:
          - type: llm-rubric
            value: |
              Return {"pass": true, "score": 1} if the response is correct
              Return {"pass": false, "score": 0} if the response is incorrect
"""


def test_seed_000_common_misconfiguration_is_flagged_and_fixed():
    result = lint(config(SEED_PROBLEM))
    assert lines_of(result, "PF002") == [5]
    diagnostic = next(d for d in result.diagnostics if d.code == "PF002")
    assert not diagnostic.fix.safe  # adding a threshold decides what passes: unsafe (issue 13)
    repaired = fixed(result, "PF002")
    assert yaml.safe_load(repaired)["tests"][0]["assert"][0]["threshold"] == 1
    assert codes(lint(repaired)) == []


def test_seed_000_fixes_are_clean():
    assert codes(lint(config(SEED_FIX_A))) == []
    assert codes(lint(config(SEED_FIX_B))) == []


def test_seed_000_documentation_examples_are_clean():
    funny = """
        tests:
          - assert:
              - type: llm-rubric
                value: |
                  Evaluate the output based on how funny it is.
                  Grade it on a scale of 0.0 to 1.0, where:
                  Score of 0.1: Only a slight smile.
                  Score of 1.0: Rolling on the floor laughing.
                  Anything funny enough to be on SNL should pass, otherwise fail.
              - type: llm-rubric
                value: Is not apologetic and provides a clear, concise answer
                threshold: 0.8
    """
    assert codes(lint(config(funny))) == []


def test_threshold_on_the_test_or_set_counts():
    on_test = config(
        "tests:\n  - threshold: 0.5\n    assert:\n      - type: llm-rubric\n        value: Return 0 or 1\n"
    )
    on_set = config(
        "tests:\n  - assert:\n      - type: assert-set\n        threshold: 0.5\n        assert:\n          - type: llm-rubric\n            value: Return 0 or 1\n"
    )
    assert "PF002" not in codes(lint(on_test))
    assert "PF002" not in codes(lint(on_set))


def test_score_fix_in_flow_mapping():
    result = lint(config("tests:\n  - assert:\n      - {type: llm-rubric, value: 'Return 0 or 1'}\n"))
    repaired = fixed(result, "PF002")
    assert yaml.safe_load(repaired)["tests"][0]["assert"][0]["threshold"] == 1


def test_scale_mismatch():
    result = lint(
        config(
            "tests:\n  - assert:\n      - type: llm-rubric\n        value: Rate clarity from 1 to 10\n        threshold: 0.8\n"
        )
    )
    assert lines_of(result, "PF003") == [7]
    assert "PF003" not in codes(
        lint(
            config(
                "tests:\n  - assert:\n      - type: llm-rubric\n        value: Rate clarity from 0 to 1\n        threshold: 0.8\n"
            )
        )
    )


# -- PF004 / PF005 / PF006 / PF007 ----------------------------------------------------------


def test_negated_model_graded():
    # promptfoo 0.123.1 inverts not-llm-rubric and not-g-eval (no finding) and ignores the not- of
    # factuality / model-graded-closedqa: those grade exactly like the plain type.
    result = lint(
        config(
            "tests:\n  - assert:\n      - type: not-llm-rubric\n        value: Apologizes\n      - type: not-contains\n        value: sorry\n"
            "      - type: not-g-eval\n        value: Is rude\n      - type: not-factuality\n        value: Rome\n"
            "      - type: not-model-graded-closedqa\n        value: Is French\n"
        )
    )
    assert lines_of(result, "PF004") == [11, 13]
    messages = [d.message for d in result.diagnostics if d.code == "PF004"]
    assert "ignores the not- of 'factuality' (0.121.9, 0.123.1)" in messages[0]
    assert "'not-model-graded-closedqa' grades exactly like 'model-graded-closedqa'" in messages[1]


def test_output_in_value():
    result = lint(
        config(
            "tests:\n  - assert:\n      - type: llm-rubric\n        value: |\n          Check that\n          {{ output }} is polite\n"
        )
    )
    assert lines_of(result, "PF005") == [8]
    near = config("tests:\n  - assert:\n      - type: javascript\n        value: output.includes('{{ output }}')\n")
    assert "PF005" not in codes(lint(near))


def test_var_shadows_grader_variable():
    result = lint(
        config(
            "tests:\n  - vars:\n      output: x\n      topic: y\n    assert:\n      - type: llm-rubric\n        value: Is about {{topic}}\n"
        )
    )
    assert lines_of(result, "PF006") == [5]
    no_judge = config("tests:\n  - vars:\n      output: x\n    assert:\n      - type: contains\n        value: x\n")
    assert "PF006" not in codes(lint(no_judge))
    factuality = config(
        "tests:\n  - vars:\n      input: q\n    assert:\n      - type: factuality\n        value: Paris\n"
    )
    assert lines_of(lint(factuality), "PF006") == [5]


def test_undefined_rubric_var():
    text = config("""
        defaultTest:
          vars:
            language: French
        tests:
          - vars:
              question: What is 2+2?
            assert:
              - type: llm-rubric
                value: Answers {{ questoin }} in {{language}}
    """)
    result = lint(text)
    assert lines_of(result, "PF007") == [11]
    assert "question" in next(d for d in result.diagnostics if d.code == "PF007").message
    assert "PF007" not in codes(lint(text.replace("questoin", "question")))


def test_undefined_var_skipped_when_vars_come_from_elsewhere():
    text = config(
        "tests:\n  - vars: file://vars.csv\n    assert:\n      - type: llm-rubric\n        value: Answers {{question}}\n"
    )
    assert "PF007" not in codes(lint(text))


# -- PF008 -------------------------------------------------------------------------------


def test_rubric_prompt_checks():
    broken = config("""
        defaultTest:
          options:
            rubricPrompt: '[{"role": "user", "content": "Output: {{output}} Rubric: {{rubric}} pass?"}'
        tests:
          - assert:
              - type: llm-rubric
                value: Is polite
    """)
    result = lint(broken)
    assert lines_of(result, "PF008") == [5]
    assert "does not parse" in next(d for d in result.diagnostics if d.code == "PF008").message
    no_vars = config("""
        tests:
          - assert:
              - type: llm-rubric
                value: Is polite
                rubricPrompt: Grade the answer and reply with pass and score
    """)
    assert lines_of(lint(no_vars), "PF008") == [7]
    good = config("""
        tests:
          - assert:
              - type: llm-rubric
                value: Is polite
                rubricPrompt: 'Output: {{output}}. Rubric: {{rubric}}. Reply with JSON {pass, score, reason}.'
    """)
    assert "PF008" not in codes(lint(good))


def test_geval_object_prompt_only_for_geval():
    text = config("""
        tests:
          - assert:
              - type: llm-rubric
                value: Is polite
                rubricPrompt:
                  steps: 'List steps'
                  evaluate: 'Score {{output}}'
    """)
    assert lines_of(lint(text), "PF008") == [8]
    geval = text.replace("llm-rubric", "g-eval")
    assert lines_of(lint(geval), "PF008") == [8]
    assert "single line" in next(d for d in lint(geval).diagnostics if d.code == "PF008").message
    assert "PF008" not in codes(
        lint(geval.replace("Score {{output}}", "Score {{output}}; reply with JSON on a single line"))
    )


# -- PF009 -------------------------------------------------------------------------------

SHORTHAND = """
    defaultTest:
      options:
        provider:
          id: openai:gpt-5-mini
          config:
            temperature: 0
    tests:
      - assert:
          - type: llm-rubric
            value: Is polite
            provider: openai:gpt-4.1
"""


def test_shorthand_drops_default_config():
    result = lint(config(SHORTHAND))
    assert lines_of(result, "PF009") == [13]
    repaired = fixed(result, "PF009")
    provider = yaml.safe_load(repaired)["tests"][0]["assert"][0]["provider"]
    assert provider == {"id": "openai:gpt-4.1", "config": {"temperature": 0}}
    assert "PF009" not in codes(lint(repaired))


def test_shorthand_without_default_config_is_fine():
    assert "PF009" not in codes(lint(config(SHORTHAND.replace("          config:\n            temperature: 0\n", ""))))


# -- PF010 / PF011 / PF012 / PF020 -----------------------------------------------------------


def test_wrong_model_kind():
    result = lint(
        config(
            "tests:\n  - assert:\n      - type: llm-rubric\n        value: a\n        provider: openai:embedding:text-embedding-3-small\n"
            "      - type: similar\n        value: b\n        provider: openai:gpt-4.1\n"
        )
    )
    assert lines_of(result, "PF010") == [7, 10]


def test_thinking_grader():
    text = config("""
        defaultTest:
          options:
            provider:
              id: anthropic:messages:claude-sonnet-4-5
              config:
                thinking: {type: enabled, budget_tokens: 2048}
        tests:
          - assert:
              - type: llm-rubric
                value: Is polite
    """)
    assert lines_of(lint(text), "PF011") == [6]
    assert "PF011" not in codes(
        lint(text.replace("budget_tokens: 2048}", "budget_tokens: 2048}\n        showThinking: false"))
    )


def test_grader_temperature_info():
    text = config(
        "defaultTest:\n  options:\n    provider: {id: openai:gpt-5, config: {temperature: 0.7}}\ntests:\n  - assert:\n      - type: llm-rubric\n        value: a\n"
    )
    result = lint(text)
    assert lines_of(result, "PF012") == [5]
    assert "ignores temperature" in result.diagnostics[0].message
    assert "PF012" not in codes(lint(text.replace("gpt-5", "gpt-4.1").replace("0.7", "0")))


def test_target_grades_itself():
    text = config(
        "defaultTest:\n  provider: openai:gpt-4.1\ntests:\n  - assert:\n      - type: llm-rubric\n        value: a\n"
    )
    assert lines_of(lint(text), "PF020") == [4]
    graded = text.replace(
        "  provider: openai:gpt-4.1\n", "  provider: openai:gpt-4.1\n  options:\n    provider: openai:gpt-5-mini\n"
    )
    assert "PF020" not in codes(lint(graded))


# -- max-score / select-best -----------------------------------------------------------------

MAX_SCORE_OK = """
    prompts:
      - 'Write a function to {{task}}'
      - 'Write an efficient function to {{task}}'
    providers:
      - openai:gpt-5
    tests:
      - vars:
          task: fibonacci
        assert:
          - type: python
            value: 'assert fibonacci(10) == 55'
          - type: llm-rubric
            value: 'Code is efficient'
          - type: contains
            value: 'def fibonacci'
          - type: max-score
            value:
              method: average
              weights:
                python: 3
                llm-rubric: 1
              threshold: 0.7
"""


def test_seed_003_max_score_examples_are_clean():
    assert codes(_lint(MAX_SCORE_OK, PATH)) == []


def test_max_score_alone_and_single_output():
    text = "prompts: [p]\nproviders: [openai:gpt-5]\ntests:\n  - assert:\n      - type: max-score\n"
    result = _lint(text, PATH)
    assert lines_of(result, "PF105") == [5]
    assert lines_of(result, "PF106") == [5]
    inherited = "prompts: [p, q]\nproviders: [openai:gpt-5]\ndefaultTest:\n  assert:\n    - type: contains\n      value: x\ntests:\n  - assert:\n      - type: max-score\n"
    assert "PF105" not in codes(_lint(inherited, PATH))
    assert "PF106" not in codes(_lint(inherited, PATH))


def test_output_count_unknown_is_not_reported():
    text = "prompts: [file://prompts/*.txt]\nproviders: [openai:gpt-5]\ntests:\n  - assert:\n      - type: contains\n        value: x\n      - type: max-score\n"
    assert "PF106" not in codes(_lint(text, PATH))


def test_max_score_value_problems():
    text = dedent(MAX_SCORE_OK).replace("python: 3", "pyhton: 3").replace("method: average", "method: median")
    result = _lint(text, PATH)
    assert lines_of(result, "PF013") == [18, 20]
    big = dedent(MAX_SCORE_OK).replace("threshold: 0.7", "threshold: 2")
    assert lines_of(_lint(big, PATH), "PF013") == [22]


def test_max_score_threshold_moves_into_value():
    text = dedent(MAX_SCORE_OK).replace("          threshold: 0.7\n", "") + "        threshold: 0.7\n"
    result = _lint(text, PATH)
    assert lines_of(result, "PF014") == [22]
    repaired = fixed(result, "PF014")
    value = yaml.safe_load(repaired)["tests"][0]["assert"][3]
    assert value["value"]["threshold"] == 0.7 and "threshold" not in value
    no_value = "prompts: [a, b]\nproviders: [x]\ntests:\n  - assert:\n      - type: contains\n        value: y\n      - type: max-score\n        threshold: 0.5\n"
    repaired = fixed(_lint(no_value, PATH), "PF014")
    assert yaml.safe_load(repaired)["tests"][0]["assert"][1] == {"type": "max-score", "value": {"threshold": 0.5}}


def test_duplicate_selectors_and_ties():
    text = "prompts: [a, b]\nproviders: [x]\ntests:\n  - assert:\n      - type: contains\n        value: y\n      - type: max-score\n      - type: max-score\n"
    result = _lint(text, PATH)
    assert lines_of(result, "PF015") == [8]
    assert lines_of(result, "PF019") == [7]


def test_select_best_over_ten_outputs():
    prompts = ", ".join(f"p{i}" for i in range(11))
    text = f"prompts: [{prompts}]\nproviders: [x]\ntests:\n  - assert:\n      - type: select-best\n        value: funniest\n"
    assert lines_of(_lint(text, PATH), "PF016") == [5]
    assert "PF016" not in codes(_lint(text.replace(", p10", ""), PATH))


def test_provider_filter_reduces_outputs():
    text = "prompts: [a]\nproviders: [openai:gpt-5, anthropic:claude]\ntests:\n  - providers: [openai:*]\n    assert:\n      - type: select-best\n        value: best\n"
    assert lines_of(_lint(text, PATH), "PF106") == [6]
    assert "PF106" not in codes(_lint(text.replace("providers: [openai:*]\n    assert", "assert"), PATH))


def test_ignored_threshold_on_factuality():
    text = config("tests:\n  - assert:\n      - type: factuality\n        value: Paris\n        threshold: 0.8\n")
    result = lint(text)
    assert lines_of(result, "PF017") == [7]
    assert "threshold" not in fixed(result, "PF017")


# -- PF018 / PF001 / PF107 -------------------------------------------------------------------


def test_redteam_with_grader_but_no_provider():
    text = config(
        "redteam:\n  plugins: [pii]\ndefaultTest:\n  options:\n    provider: openai:gpt-5-mini\ntests:\n  - assert:\n      - type: llm-rubric\n        value: Refuses\n"
    )
    assert lines_of(lint(text), "PF018") == [3]
    assert "PF018" not in codes(
        lint(text.replace("  plugins: [pii]\n", "  plugins: [pii]\n  provider: openai:gpt-5-mini\n"))
    )


def test_unknown_top_level_and_test_keys():
    result = lint(config("outputs:\n  - type: csv\ntests:\n  - vars: {a: 1}\n    asert:\n      - type: contains\n"))
    assert lines_of(result, "PF001") == [3, 7]
    assert "outputPath" in result.diagnostics[0].message
    assert "assert:" in fixed(result, "PF001") or "outputPath" in fixed(result, "PF001")


def test_invalid_values():
    result = lint(
        config(
            "tests:\n  - assert:\n      - type: llm-rubric\n        value: a\n        threshold: high\n      - value: b\n  - assert: contains\n"
        )
    )
    assert lines_of(result, "PF107") == [7, 8, 9]


def test_bad_input_never_crashes():
    for text in [
        "prompts: [a]\ntests: 3\n",
        "prompts: [a]\ntests: [3, null, [1]]\n",
        "prompts: [a]\ndefaultTest: [1]\n",
        "prompts: [a]\ntests:\n  - assert: [1, null, {type: 5}]\n",
        "- 1\n- 2\n",
        "prompts:\n",
    ]:
        result = lint(text)
        assert "RL900" not in codes(result), text


def test_select_best_and_closedqa_prompts():
    select = config("""
        tests:
          - assert:
              - type: select-best
                value: funniest
                rubricPrompt: 'Which of {{outputs}} is best by {{criteria}}? Explain why.'
    """)
    assert lines_of(lint(select), "PF008") == [7]
    assert "PF008" not in codes(lint(select.replace("Explain why.", "Reply with its index only.")))
    closedqa = config("""
        tests:
          - assert:
              - type: model-graded-closedqa
                value: is polite
                rubricPrompt: 'Does {{output}} meet {{rubric}}? Explain.'
    """)
    assert lines_of(lint(closedqa), "PF008") == [7]
    assert "PF008" not in codes(lint(closedqa.replace("Explain.", "End with Y or N.")))


def test_max_score_beside_select_best_is_allowed():
    text = "prompts: [a, b]\nproviders: [x]\ntests:\n  - assert:\n      - type: llm-rubric\n        value: good\n        threshold: 0.5\n      - type: select-best\n        value: best\n      - type: max-score\n"
    assert "PF015" not in codes(_lint(text, PATH))


SEED_003_EXAMPLES = [
    """
    prompts:
      - 'Explain {{concept}} simply'
      - 'Explain {{concept}} in detail'
      - 'Explain {{concept}} with examples'
    providers:
      - anthropic:claude-3-haiku-20240307
    tests:
      - vars:
          concept: 'machine learning'
        assert:
          - type: llm-rubric
            value: 'Explanation is accurate'
          - type: llm-rubric
            value: 'Explanation is clear and easy to understand'
          - type: contains
            value: 'example'
          - type: max-score
            value:
              method: average
    """,
    """
    tests:
      - vars:
          query: 'weather in Paris'
        assert:
          - type: is-json
          - type: contains-json
            value:
              required: ['temperature', 'humidity', 'conditions']
          - type: llm-rubric
            value: 'Response includes all requested weather data'
          - type: latency
            threshold: 1000
          - type: max-score
            value:
              weights:
                is-json: 2
                contains-json: 2
                llm-rubric: 1
                latency: 1
    """,
]


def test_seed_003_other_examples_are_clean():
    for text in SEED_003_EXAMPLES:
        # excerpts: they leave out prompts and providers, which PF108 would report
        assert [c for c in codes(_lint(text, PATH)) if c != "PF108"] == [], text


# -- robustness ---------------------------------------------------------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_KEYS = st.sampled_from(
    [
        "prompts",
        "providers",
        "tests",
        "defaultTest",
        "assert",
        "type",
        "value",
        "threshold",
        "provider",
        "options",
        "vars",
        "rubricPrompt",
        "id",
        "config",
        "weights",
        "method",
        "max-score",
        "llm-rubric",
        "select-best",
        "$ref",
        "redteam",
        "scenarios",
        "text",
        "embedding",
    ]
)
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 20),
    st.floats(allow_nan=True),
    st.sampled_from(
        [
            "llm-rubric",
            "max-score",
            "select-best",
            "file://x.yaml",
            "{{output}}",
            "openai:gpt-5",
            "Return 0 or 1",
            "#/tests/0",
            "assert-set",
            "factuality",
        ]
    ),
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_KEYS, inner, max_size=5)),
    max_leaves=25,
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(_KEYS, _VALUES, min_size=1, max_size=6))
def test_random_configs_never_crash(data):
    import json

    result = _lint(json.dumps(data), "promptfooconfig.json")
    assert "RL900" not in codes(result)


def test_provider_list_entry_without_id():
    result = _lint(
        "prompts: [p]\nproviders:\n  - label: fast\n    config: {temperature: 0}\n  - openai:gpt-5\n  - openai:gpt-4o: {config: {temperature: 0}}\n",
        PATH,
    )
    assert lines_of(result, "PF102") == [3]


def test_renames_keep_json_quoting():
    # A rename fix in a JSON config must write a JSON string, or the fixed file stops parsing.
    import json as _json

    from rubric_lsp.fixes import apply_edits, select_fixes
    from rubric_lsp.lint import lint_text

    text = (
        '{"prompts": ["hi"], "providers": ["openai:gpt-5-mini"],\n'
        ' "tests": [{"assert": [{"type": "llm-rubric", "value": "Is polite", "threshhold": 0.5},\n'
        '                       {"type": "contians", "value": "x"}]}]}\n'
    )
    result = lint_text(text, "promptfooconfig.json")
    edits, count = select_fixes(result.diagnostics, unsafe=True)
    assert count == 2
    fixed = apply_edits(text, edits)
    data = _json.loads(fixed)
    assert data["tests"][0]["assert"][0]["threshold"] == 0.5
    assert data["tests"][0]["assert"][1]["type"] == "contains"
