"""promptfoo's assertion types (generated from 0.123.1, tests/test_promptfoo_value_invariants.py keeps
them fresh) each described, and PF100's "did you mean" naming what a writer most likely meant (issue 34)."""

from __future__ import annotations

import random

import pytest

from rubric_lsp.formats.promptfoo.assertion_type_names import BASE_TYPES, SPECIAL_TYPES
from rubric_lsp.formats.promptfoo.assertion_types import (
    DESCRIPTIONS,
    grader_kind,
    is_known_assertion_type,
    known_assertion_types,
)
from rubric_lsp.formats.promptfoo.rules.assertions import unknown_type_message
from rubric_lsp.formats.promptfoo.rules.type_hints import MEANT, NO_SUCH_CHECK, fold, type_hint
from rubric_lsp.lint import lint_text


def test_every_type_promptfoo_runs_is_described_and_nothing_else():
    assert set(DESCRIPTIONS) == {*BASE_TYPES, *SPECIAL_TYPES, "assert-set"}
    assert all(DESCRIPTIONS[name].strip() for name in DESCRIPTIONS)


def test_agent_rubric_is_known_and_graded_by_a_text_grader():
    assert is_known_assertion_type("agent-rubric") and is_known_assertion_type("not-agent-rubric")
    assert grader_kind("agent-rubric") == "text"  # matchesAgentRubric: getGradingProvider("text", …)


def test_the_hint_tables_name_only_types_promptfoo_runs_and_no_known_type():
    known = set(known_assertion_types())
    for name, meant in MEANT.items():
        assert name == fold(name) and name not in known, name
        assert set(meant) <= known, name
    for name in NO_SUCH_CHECK:
        assert name == fold(name) and name not in known, name


@pytest.mark.parametrize(
    "written, hint, fix",
    [
        # the case: a common name for a check, never the nearest spelling (contains-xml)
        ("contains-text", "Did you mean 'contains' (or 'icontains', which ignores case)?", "contains"),
        ("Contains_Text", "Did you mean 'contains' (or 'icontains', which ignores case)?", "contains"),
        ("not-contains-text", "Did you mean 'not-contains' (or 'not-icontains', which ignores case)?", "not-contains"),
        ("valid-json", "Did you mean 'is-json'?", "is-json"),
        ("rubric", "Did you mean 'llm-rubric'?", "llm-rubric"),
        ("similarity", "Did you mean 'similar'?", "similar"),
        # misspellings: each segment within an edit
        ("contians", "Did you mean 'contains'?", "contains"),
        ("icontain", "Did you mean 'icontains'?", "icontains"),
        ("not-contians", "Did you mean 'not-contains'?", "not-contains"),
        ("levenstein", "Did you mean 'levenshtein'?", "levenshtein"),
        ("answer-relevence", "Did you mean 'answer-relevance'?", "answer-relevance"),
        ("trajectory:tool-use", "Did you mean 'trajectory:tool-used'?", "trajectory:tool-used"),
        ("geval", "Did you mean 'g-eval'?", "g-eval"),
        ("LLM_Rubric", "Did you mean 'llm-rubric'?", "llm-rubric"),
        ("is-xlm", "Did you mean 'is-xml'?", "is-xml"),
        # equally near two types: both named, nothing renamed
        ("pleu", "Did you mean 'bleu' or 'gleu'?", None),
        # checks promptfoo does not have: how to write them
        ("not-empty", "Use 'javascript' with value 'output.length > 0'.", None),
        ("rouge-l", "promptfoo scores ROUGE-N only ('rouge-n'); another ROUGE variant needs 'python'.", None),
    ],
)
def test_the_hint_is_what_the_writer_meant(written, hint, fix):
    found = type_hint(written)
    assert found is not None and (found.text, found.fix) == (hint, fix)


@pytest.mark.parametrize("written", ["is-sml", "contains-txt", "xyz", "similar:dit", "contains-any-of-these"])
def test_no_hint_where_nothing_is_meant(written):
    assert type_hint(written) is None


def test_a_changed_letter_in_a_short_segment_is_another_word_not_a_typo():
    # yml is not xml, sql is not xml: one substituted letter in a short segment names another format.
    for written in ("is-yml", "contains-yaml", "is-sml", "is-xql"):
        found = type_hint(written)
        assert found is None or found.fix is None, (written, found)


def test_no_hint_turns_one_known_check_into_another_by_a_short_segment_substitution():
    """Seeded and bounded: change one letter of a short segment (three letters or fewer) of each known
    type; the hint never renames it to a different known type."""
    rng = random.Random(34)
    for known in known_assertion_types():
        segments = known.replace(":", "-").split("-")
        short = [i for i, s in enumerate(segments) if len(s) <= 3 and s != "not"]
        for _ in range(3 if short else 0):
            i = rng.choice(short)
            j = rng.randrange(len(segments[i]))
            letter = rng.choice([c for c in "abcdefghijklmnopqrstuvwxyz" if c != segments[i][j]])
            changed = segments[i][:j] + letter + segments[i][j + 1 :]
            written = known.replace(segments[i], changed, 1) if known.count(segments[i]) == 1 else None
            if written is None or is_known_assertion_type(written):
                continue
            found = type_hint(written)
            assert found is None or found.fix in (None, known), (written, found)


def test_pf100_message_and_fix_for_contains_text():
    text = "prompts: ['Say {{x}}']\nproviders: [echo]\ntests:\n  - assert:\n      - type: contains-text\n        value: hi\n"
    (diagnostic,) = [d for d in lint_text(text, "promptfooconfig.yaml").diagnostics if d.code == "PF100"]
    assert "contains-xml" not in diagnostic.message
    assert diagnostic.message == unknown_type_message("contains-text")
    assert diagnostic.fix is not None and not diagnostic.fix.safe
    assert [e.new_text for e in diagnostic.fix.edits] == ["contains"]
