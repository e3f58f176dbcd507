"""The resolved config view: grader precedence, merged assertions, outputs, vars, grading plan."""

from __future__ import annotations

from textwrap import dedent

from rubric_lsp.document import parse_document
from rubric_lsp.formats.promptfoo.reading import read_config


def view_of(text: str, path: str = "/tmp/promptfooconfig.yaml"):
    doc = parse_document(dedent(text).lstrip("\n"), path)
    return read_config(doc.root, path, doc), doc


PRECEDENCE = """
    prompts: [a, b]
    providers: [openai:gpt-4.1, anthropic:claude]
    defaultTest:
      provider: openai:gpt-4.1
      options:
        provider:
          id: openai:gpt-5-mini
          config: {temperature: 0}
      vars: {language: French}
      assert:
        - type: llm-rubric
          value: Is in {{language}}
    tests:
      - vars: {question: q1}
        assert:
          - type: llm-rubric
            value: Answers {{question}}
            threshold: 0.7
            provider: openai:o3
      - vars: {question: q2}
        options:
          provider: anthropic:claude-sonnet
        assert:
          - type: similar
            value: Paris
      - providers: [openai:*]
        prompts: [a]
        assert:
          - type: contains
            value: x
"""


def test_grader_precedence_and_sources():
    view, _ = view_of(PRECEDENCE)
    first, second, _third = view.tests
    by_value = {a.value: a for t in view.tests for a in t.assertions}
    own = view.grader(by_value["Answers {{question}}"], first)
    assert (own.source, own.provider_id, own.cli_grader_applies) == ("assertion.provider", "openai:o3", False)
    inherited = view.grader(by_value["Is in {{language}}"], first)
    assert (inherited.source, inherited.provider_id, inherited.config) == (
        "defaultTest.options.provider",
        "openai:gpt-5-mini",
        {"temperature": 0},
    )
    assert inherited.cli_grader_applies
    in_second = view.grader(by_value["Is in {{language}}"], second)
    assert (in_second.source, in_second.provider_id, in_second.config) == (
        "test.options.provider",
        "anthropic:claude-sonnet",
        None,
    )
    similar = view.grader(by_value["Paris"], second)
    assert similar.kind == "embedding" and similar.source == "test.options.provider"
    assert "--grader does not reach it" in in_second.describe()


def test_target_grades_itself_when_nothing_else_is_set():
    view, _ = view_of(
        "defaultTest:\n  provider: openai:gpt-4.1\ntests:\n  - assert:\n      - type: llm-rubric\n        value: x\n"
    )
    choice = view.grader(view.tests[0].assertions[0], view.tests[0])
    assert choice.grades_itself and choice.provider_id == "openai:gpt-4.1"
    view, _ = view_of("tests:\n  - assert:\n      - type: llm-rubric\n        value: x\n")
    assert view.grader(view.tests[0].assertions[0], view.tests[0]).source == "default"


def test_merged_assertions_put_default_first_and_flatten_sets():
    view, _ = view_of("""
        defaultTest:
          assert:
            - type: contains
              value: d
        tests:
          - assert:
              - type: assert-set
                assert:
                  - type: equals
                    value: e
              - type: regex
                value: r
    """)
    test = view.tests[0]
    assert [a.type for a in test.assertions] == ["contains", "assert-set", "equals", "regex"]
    assert [a.type for a in test.top_assertions] == ["contains", "assert-set", "regex"]
    assert test.assertions[2].set_node is test.assertions[1].node


def test_output_counts_follow_filters():
    view, _ = view_of(PRECEDENCE)
    assert (view.prompt_count, view.provider_count) == (2, 2)
    assert [t.output_count for t in view.tests] == [4, 4, 1]


def test_prompt_files_split_on_separators(tmp_path):
    (tmp_path / "prompts.txt").write_text("one {{x}}\n---\ntwo {{x}}\n---\nthree\n")
    path = tmp_path / "promptfooconfig.yaml"
    view, _ = view_of("prompts: [file://prompts.txt]\nproviders: [a]\ntests:\n  - vars: {x: 1}\n", str(path))
    assert view.tests[0].output_count == 3


def test_vars_merge_and_completeness(tmp_path):
    (tmp_path / "vars.yaml").write_text("topic: x\nstyle: y\n")
    path = tmp_path / "promptfooconfig.yaml"
    view, _ = view_of(
        """
        defaultTest:
          vars: {language: French}
        tests:
          - vars: file://vars.yaml
          - vars: {a: 1}
            options:
              transformVars: '{ b: 2 }'
          - vars: file://vars.csv
    """,
        str(path),
    )
    first, second, third = view.tests
    assert set(first.vars) == {"language", "topic", "style"} and first.vars_complete
    assert not second.vars_complete
    assert not third.vars_complete


def test_tests_from_referenced_files(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "a.yaml").write_text("- vars: {q: 1}\n  assert:\n    - type: llm-rubric\n      value: Good\n")
    (tmp_path / "tests" / "b.yaml").write_text("- vars: {q: 2}\n")
    path = tmp_path / "promptfooconfig.yaml"
    view, _ = view_of("tests:\n  - file://tests/*.yaml\n  - vars: {q: 3}\n", str(path))
    assert len(view.tests) == 3
    # in the order promptfoo's glob returns the files (recorded: tests/data/promptfoo-recorded/numbering)
    assert [t.source.path.name for t in view.tests[:2]] == ["b.yaml", "a.yaml"]
    assert view.tests[0].source.reference is not None
    assert view.tests[2].source.is_config


def test_assertion_at_offset_for_hover():
    view, doc = view_of(PRECEDENCE)
    offset = doc.text.index("Answers {{question}}")
    found = view.assertion_at(offset)
    assert found is not None and found.value == "Answers {{question}}"
    assert view.assertion_at(0) is None


def test_grading_plan_for_test_n():
    view, _ = view_of(PRECEDENCE)
    plan = view.grading_plan(1)
    assert [(item.type, item.value, item.threshold) for item in plan] == [
        ("llm-rubric", "Is in {{language}}", None),
        ("llm-rubric", "Answers {{question}}", 0.7),
    ]
    assert plan[0].grader.provider_id == "openai:gpt-5-mini" and plan[0].grader.config == {"temperature": 0}
    assert plan[1].grader.provider_id == "openai:o3"
    assert plan[0].vars == {"language": "French", "question": "q1"}
    assert [item.value for item in view.grading_plan(3)] == ["Is in {{language}}"]
    assert view.grading_plan(99) == []


def test_rubric_prompt_in_grading_plan():
    view, _ = view_of("""
        defaultTest:
          options:
            rubricPrompt: 'Grade {{output}} by {{rubric}}'
        tests:
          - assert:
              - type: llm-rubric
                value: Good
    """)
    assert view.grading_plan(1)[0].rubric_prompt == "Grade {{output}} by {{rubric}}"


def test_hover_text_names_grader_and_source():
    view, doc = view_of(PRECEDENCE)
    text = view.hover(doc.text.index("Is in {{language}}"))
    assert text.startswith("**llm-rubric**")
    assert "openai:gpt-5-mini" in text and "defaultTest.options.provider" in text and "--grader replaces it" in text
    assert "anthropic:claude-sonnet" in text and "test.options.provider" in text
    assert view.hover(doc.text.index("value: x")).startswith("**contains**")


def test_a_key_written_in_a_grader_config_is_never_quoted_in_hover_or_diagnostics():
    from tests.helpers import lint

    literal = "sk-literal-key-in-config-0123456789"
    config = f"""
        defaultTest:
          options:
            provider:
              id: openai:gpt-4.1-mini
              config: {{temperature: 0, apiKey: {literal}, headers: {{Authorization: Bearer {literal}}}, max_tokens: 200}}
        tests:
          - assert:
              - type: llm-rubric
                value: Is polite
                provider: openai:gpt-4.1
              - type: llm-rubric
                value: Is brief
    """
    view, doc = view_of(config)
    text = view.hover(doc.text.index("Is brief"))
    assert (
        "openai:gpt-4.1-mini" in text
        and "'apiKey': '***'" in text
        and "'max_tokens': 200" in text
        and literal not in text
    )
    result = lint(config, "promptfooconfig.yaml")
    shorthand = [d for d in result.diagnostics if d.code == "PF009"]
    assert shorthand, "the shorthand provider drops the default grader's config"
    assert all(literal not in d.message for d in result.diagnostics)
    assert '"apiKey": "***"' in shorthand[0].message and '"max_tokens": 200' in shorthand[0].message


# Two file providers that answer a grading prompt with who they are (no network): the model under test, set
# as defaultTest.provider, and the grader `promptfoo eval --grader` names.
_WHO = 'module.exports = class {{ id() {{ return "{0}"; }} async callApi() {{ return {{ output: JSON.stringify({{pass: true, score: 1, reason: "{0}"}}) }}; }} }};\n'
_EVALUATE = """
const promptfoo = require(process.argv[2]);
(async () => {
  // What `promptfoo eval --grader file://grader.js` does before evaluating (dist/src/main.js: doEval).
  const defaultTest = { provider: 'file://target.js', options: { provider: 'file://grader.js' } };
  const tests = [{ assert: [{ type: 'llm-rubric', value: 'Is polite' }] },
                 { options: { rubricPrompt: 'Grade: {{output}} against {{rubric}}' }, assert: [{ type: 'llm-rubric', value: 'Is kind' }] }];
  const res = await promptfoo.evaluate({ prompts: ['Say hi'], providers: ['echo'], defaultTest, tests }, { cache: false });
  console.log(JSON.stringify(res.results.map(r => r.gradingResult.componentResults[0].reason)));
})();
"""


def test_grader_replaces_a_target_that_would_grade_itself_as_promptfoo_does(promptfoo_modules, tmp_path):
    """`--grader` fills defaultTest.options.provider, which every test's options inherit (a test with options
    of its own too: the merge is per key), so the target set as defaultTest.provider grades nothing: promptfoo
    0.123.1's own evaluate says who graded, and the view says --grader reaches that slot."""
    import json
    import shutil
    import subprocess

    from tests.conftest import require

    require(shutil.which("node") is not None, "node is not installed")
    for name in ("target", "grader"):
        (tmp_path / f"{name}.js").write_text(_WHO.format(name))
    (tmp_path / "evaluate.cjs").write_text(_EVALUATE)
    done = subprocess.run(
        ["node", "evaluate.cjs", str(promptfoo_modules / "promptfoo")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": __import__("os").environ["PATH"], "PROMPTFOO_DISABLE_TELEMETRY": "1", "HOME": str(tmp_path)},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == ["grader", "grader"]

    view, _ = view_of(
        "defaultTest:\n  provider: openai:gpt-4.1\ntests:\n  - assert:\n      - type: llm-rubric\n        value: x\n"
    )
    choice = view.grader(view.tests[0].assertions[0], view.tests[0])
    assert choice.grades_itself and choice.cli_grader_applies and choice.grades(False) and not choice.grades(True)
    assert "--grader replaces it" in choice.describe()
