"""Rubrics-task checks: each trips on the right line, and a near miss does not."""

from __future__ import annotations

import pytest

from rubric_lsp.fixes import apply_edits
from tests.helpers import codes, lines_of, lint
from tests.rubrics_task_cases import RATING_B1, TASK


def run(text: str):
    result = lint(text, "task.json")
    assert result.format is not None and result.format.name == "rubrics-task"
    return result


def edit(old: str, new: str, text: str = TASK) -> str:
    assert text.count(old) >= 1, old
    return text.replace(old, new, 1)


def nth_line(text: str, needle: str, nth: int = 1) -> int:
    """1-based line of the nth occurrence of needle."""
    index = -1
    for _ in range(nth):
        index = text.index(needle, index + 1)
    return text.count("\n", 0, index) + 1


def test_base_task_is_clean():
    assert run(TASK).diagnostics == []


def test_rating_value_not_in_scale():
    text = edit(RATING_B1, RATING_B1.replace('"major_issues"', '"major_issue"'))
    result = run(text)
    assert lines_of(result, "RT101") == [nth_line(text, 'major_issue"')]
    [diag] = [d for d in result.diagnostics if d.code == "RT101"]
    assert run(apply_edits(text, diag.fix.edits)).diagnostics == []


def test_criterion_value_not_objective_or_implicit():
    text = edit('"value": "implicit"', '"value": "subjective"')
    assert lines_of(run(text), "RT102") == [nth_line(text, "subjective")]
    assert "RT102" not in codes(run(edit('"value": "implicit"', '"value": "objective"')))


def test_rating_references_missing_criterion():
    text = edit(
        RATING_B1,
        RATING_B1.replace(
            '"metadata": {"criteria": "rubric_0_criteria_1"}', '"metadata": {"criteria": "rubric_0_criteria_7"}'
        ),
    )
    result = run(text)
    line = nth_line(text, "rubric_0_criteria_7")
    assert lines_of(result, "RT103") == [line]
    # The response now misses criterion 1: reported as incomplete (a warning).
    assert "RT001" in codes(result)


def test_rating_without_metadata():
    text = edit(
        RATING_B1, '{"id": "rubric_0_criteria_1_rating", "title": "All numbers are prime.", "value": "major_issues"}'
    )
    assert lines_of(run(text), "RT103") == [nth_line(text, '"value": "major_issues"}')]


def test_selected_model_names_no_response():
    text = edit('"value": "model_a"}', '"value": "model_c"}')
    result = run(text)
    assert lines_of(result, "RT104") == [nth_line(text, "model_c")]
    [diag] = [d for d in result.diagnostics if d.code == "RT104"]
    assert "model_a" in diag.message and "model_b" in diag.message
    assert "RT104" not in codes(run(edit('"value": "model_a"}', '"value": "model_b"}')))


def test_duplicate_source_ids():
    text = edit('"source_id": "model_b"', '"source_id": "model_a"')
    assert lines_of(run(text), "RT105") == [nth_line(text, '"source_id": "model_a"', 2)]


def test_duplicate_annotation_ids_and_criterion_keys():
    text = edit(
        '"id": "rubric_0_criteria_1_rating", "title": "All numbers are prime.", "value": "no_issues"',
        '"id": "rubric_0_criteria_0_rating", "title": "All numbers are prime.", "value": "no_issues"',
    )
    result = run(text)
    assert nth_line(text, '"id": "rubric_0_criteria_0_rating"', 2) in lines_of(result, "RT106")
    text = edit(
        '{"key": "rubric_0_criteria_1", "title": "All numbers are prime."',
        '{"key": "rubric_0_criteria_0", "title": "All numbers are prime."',
    )
    assert nth_line(text, '"key": "rubric_0_criteria_0"', 2) in lines_of(run(text), "RT106")


def test_duplicate_turn_ids():
    text = TASK.replace(
        '"turns": [\n        {\n          "id": "turn_0",',
        '"turns": [\n        {"id": "turn_0", "messages": []},\n        {\n          "id": "turn_0",',
        1,
    )
    result = run(text)
    assert lines_of(result, "RT106") == [nth_line(text, '"id": "turn_0"', 2)]


def test_response_missing_a_rating_is_a_warning():
    text = edit(",\n                " + RATING_B1, "")
    result = run(text)
    assert lines_of(result, "RT001") == [nth_line(text, '"annotations": [', 3)]
    assert [d.severity.label for d in result.diagnostics] == ["warning"]


def test_response_rating_a_criterion_twice():
    text = edit(RATING_B1, RATING_B1 + ",\n                " + RATING_B1)
    result = run(text)
    assert lines_of(result, "RT001") == [nth_line(text, RATING_B1, 2)]


def test_rating_title_differs_and_fix_copies_it():
    text = edit(RATING_B1, RATING_B1.replace("All numbers are prime.", "All numbers are odd."))
    result = run(text)
    assert lines_of(result, "RT002") == [nth_line(text, "All numbers are odd.")]
    [diag] = [d for d in result.diagnostics if d.code == "RT002"]
    assert run(apply_edits(text, diag.fix.edits)).diagnostics == []


def test_rating_id_not_after_its_criterion():
    text = edit(
        RATING_B1, RATING_B1.replace('"id": "rubric_0_criteria_1_rating"', '"id": "rubric_0_criteria_0_rating"')
    )
    result = run(text)
    line = nth_line(text, RATING_B1.replace('"id": "rubric_0_criteria_1_rating"', '"id": "rubric_0_criteria_0_rating"'))
    assert line in lines_of(result, "RT003")
    [diag] = [d for d in result.diagnostics if d.code == "RT003"]
    assert diag.fix.edits[0].new_text == '"rubric_0_criteria_1_rating"'
    assert run(apply_edits(text, diag.fix.edits)).diagnostics == []


def test_threads_on_a_pending_task():
    text = edit('"status": "completed"', '"status": "pending"')
    assert lines_of(run(text), "RT004") == [4]
    assert "RT004" not in codes(
        run(
            edit('"status": "completed"', '"status": "pending"').replace(
                '"threads": [\n', '"threads": [\n  ], "old": [\n', 1
            )
        )
    )


@pytest.mark.parametrize(
    ("old", "new", "line"),
    [
        ('"status": "completed"', '"status": "complete"', 4),
        ('  "project": "p1",\n', "", 1),
        ('"source_id": "model_b",', '"source_id": 7,', 25),
        ('"content": {"text": "1, 2, 3"}', '"content": "1, 2, 3"', 26),
    ],
)
def test_task_fields(old, new, line):
    result = run(edit(old, new))
    assert lines_of(result, "RT100") == [line], [
        (d.code, d.range.start.line + 1, d.message) for d in result.diagnostics
    ]


def test_status_typo_fix():
    result = run(edit('"status": "completed"', '"status": "complete"'))
    [diag] = [d for d in result.diagnostics if d.code == "RT100"]
    assert diag.fix.edits[0].new_text == '"completed"'


def test_lenient_where_the_published_sample_is():
    # Ratings without key/type, turn annotations without id or title, extra keys: all fine.
    text = edit(
        '{"key": "selected_model_id", "value": "model_a"}',
        '{"key": "selected_model_id", "value": "model_a"},\n            {"key": "likert_value", "value": 3, "extra": true}',
    )
    assert run(text).diagnostics == []
