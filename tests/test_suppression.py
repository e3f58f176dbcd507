"""``# rubric-lint: disable=CODE`` (same or previous line) and ``disable-file=CODE``."""

from __future__ import annotations

import pytest

from tests.helpers import codes, lines_of, lint

HEAD = "criteria:\n  - requirement: States the correct final answer\n"


def rl005_lines(body: str) -> list[int]:
    return lines_of(lint(HEAD + body, "x.rubric.yaml"), "RL005")


def test_unsuppressed_baseline():
    assert rl005_lines("    name: yes\n    label: on\n") == [3, 4]


def test_trailing_comment_suppresses_its_own_line_only():
    assert rl005_lines("    name: yes  # rubric-lint: disable=RL005\n    label: on\n") == [4]


def test_comment_on_the_previous_line_suppresses_the_next_line():
    assert rl005_lines("    # rubric-lint: disable=RL005\n    name: yes\n    label: on\n") == [5]


def test_disable_next_line_is_accepted():
    assert rl005_lines("    # rubric-lint: disable-next-line=RL005\n    name: yes\n    label: on\n") == [5]


def test_other_codes_are_not_suppressed():
    assert rl005_lines("    name: yes  # rubric-lint: disable=RL002\n") == [3]


def test_several_codes_prefixes_all_and_explanations():
    assert rl005_lines("    name: yes  # rubric-lint: disable=RL002, RL005 -- intended\n") == []
    assert rl005_lines("    name: yes  # rubric-lint: disable=RL\n") == []
    assert rl005_lines("    name: yes  # rubric-lint: disable=all\n") == []
    assert rl005_lines("    name: yes  # Rubric-Lint: Disable = rl005\n") == []
    # Each casing of the "c-l" at the name's middle (what suppressions() looks for before its case-blind search).
    assert rl005_lines("    name: yes  # RUBRIC-lint: disable=RL005\n") == []
    assert rl005_lines("    name: yes  # rubric-LINT: disable=RL005\n") == []
    assert rl005_lines("    name: yes  # RUBRIC-LINT: disable=RL005\n") == []


def test_disable_file_anywhere():
    assert rl005_lines("    name: yes\n    label: on\n# rubric-lint: disable-file=RL005\n") == []
    result = lint(
        "# rubric-lint: disable-file=RL005\n" + HEAD + "    name: yes\n    weight: 1\n    weight: 2\n", "x.rubric.yaml"
    )
    assert "RL005" not in codes(result) and "RL002" in codes(result)


def test_hash_inside_a_quoted_string_is_not_a_comment():
    body = '    name: "see # rubric-lint: disable-file=RL005"\n    label: on\n'
    assert rl005_lines(body) == [4]
    body = "    name: 'x # rubric-lint: disable=RL005'\n    label: on\n"
    assert rl005_lines(body) == [4]


def test_hash_inside_a_block_scalar_is_not_a_comment():
    body = "    guidelines: |\n      # rubric-lint: disable-file=RL005\n    label: on\n"
    assert rl005_lines(body) == [5]


def test_hash_without_space_before_is_not_a_comment():
    body = "    name: C#rubric-lint:disable=RL005\n    label: on\n"
    assert rl005_lines(body) == [4]


@pytest.mark.parametrize(
    "directive", ["# rubric-lint: disable=", "# rubric-lint disable=RL005", "# rubric-lint: enable=RL005"]
)
def test_malformed_directives_suppress_nothing(directive):
    assert rl005_lines(f"    name: yes  {directive}\n") == [3]


def test_suppression_also_hides_the_fix():
    result = lint(HEAD + "    name: yes  # rubric-lint: disable=RL005\n", "x.rubric.yaml")
    assert all(d.fix is None for d in result.diagnostics if d.code == "RL005")
    assert "RL005" not in codes(result)
