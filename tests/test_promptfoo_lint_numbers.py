"""Lint messages and hovers name a promptfoo test by promptfoo's number (``--test N``, the editor's lenses, a
results file's ``testIdx + 1``), not by its place as written: an entry promptfoo expands into several tests (a vars
list, a scenario's config entries) is named by the range of its numbers."""

from __future__ import annotations

from rubric_lsp.document import parse_document
from rubric_lsp.formats.promptfoo.reading import read_config
from rubric_lsp.lint import lint_text

CONFIG = """\
prompts: ['Answer: {{q}}']
providers: [echo]
defaultTest:
  assert:
    - type: context-faithfulness
      threshold: 0.5
tests:
  - description: two cities
    vars: {q: [rome, oslo], context: c}
  - description: one city
    vars: {q: paris, context: c}
scenarios:
  - config:
      - vars: {lang: en}
      - vars: {lang: fr}
    tests:
      - description: in a scenario
        vars: {q: lima, context: c}
"""


def test_a_message_names_promptfoos_numbers_of_each_entry():
    [finding] = [d for d in lint_text(CONFIG, "promptfooconfig.yaml").diagnostics if d.code == "PF118"]
    assert "tests 1–2 (two cities) have no 'query' var" in finding.message
    assert "test 3 (one city) has no 'query' var" in finding.message


def test_the_labels_are_the_numbers_rubric_grade_test_n_grades():
    view = read_config(parse_document(CONFIG, "promptfooconfig.yaml").root, "promptfooconfig.yaml")
    labels = [t.label for t in view.tests]
    assert labels == ["tests 1–2 (two cities)", "test 3 (one city)", "tests 4–5 (in a scenario)"]
    for test in view.tests:
        for number in view.numbers_of(test):
            assert view.numbering.case(number).entry is test


def test_numbers_that_are_not_a_run_are_listed():
    from rubric_lsp.formats.promptfoo.resolve import numbers_text

    assert numbers_text([2, 4, 6], 0) == "tests 2, 4 and 6"
    assert numbers_text([1, 3, 5, 7, 9, 11], 0) == "tests 1, 3, 5, 7 and 2 more"
    assert numbers_text([], 4) == "the tests entry 5 (promptfoo runs no test of it)"
