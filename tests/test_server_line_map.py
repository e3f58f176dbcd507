"""Verdicts follow the lines they were given on while the document is edited."""

from __future__ import annotations

import pytest

from rubric_lsp.document.positions import Position, Range
from rubric_lsp.server import line_map as line_map_module
from rubric_lsp.server.line_map import line_map
from rubric_lsp.server.verdicts import Lens, Mark, Shown

OLD = "rubric:\n  - name: a\n    requirement: A\n  - name: b\n    requirement: B\n  - name: c\n    requirement: C\n"


def test_unchanged_text_maps_every_line_to_itself():
    where = line_map(OLD, OLD)
    assert [where(n) for n in range(8)] == list(range(8))


def test_lines_inserted_above_shift_the_rest():
    where = line_map(OLD, "# top\n\n" + OLD)
    assert [where(n) for n in range(7)] == [2, 3, 4, 5, 6, 7, 8]


def test_an_edited_line_has_no_new_place_and_the_others_keep_theirs():
    new = OLD.replace("requirement: B", "requirement: B, politely")
    where = line_map(OLD, new)
    assert [where(n) for n in range(7)] == [0, 1, 2, 3, None, 5, 6]


def test_deleted_lines_vanish_and_lines_below_move_up():
    new = OLD.replace("  - name: b\n    requirement: B\n", "")
    where = line_map(OLD, new)
    assert [where(n) for n in range(7)] == [0, 1, 2, None, None, 3, 4]


def test_moved_block_is_found_by_matching():
    lines = OLD.split("\n")
    new = "\n".join([lines[0], lines[5], lines[6], lines[1], lines[2], lines[3], lines[4], ""])
    where = line_map(OLD, new)
    assert (where(1), where(2)) == (3, 4)  # criterion a, now below c


def test_a_whole_file_replacement_beyond_the_matching_budget_maps_nothing_in_the_middle(monkeypatch):
    monkeypatch.setattr(line_map_module, "MAX_MATCHED_PAIRS", 4)
    new = "rubric:\n" + "".join(f"  - x{i}\n" for i in range(5)) + "  - name: a\n"
    where = line_map(OLD, new)
    assert where(0) == 0 and all(where(n) is None for n in range(1, 7))


def rng(line: int, end_line: int | None = None) -> Range:
    return Range(Position(line, 2), Position(line if end_line is None else end_line, 20))


@pytest.fixture
def shown() -> Shown:
    marks = [
        Mark(1, rng(1, 2), "✓ MET", "a"),
        Mark(3, rng(3, 4), "✗ UNMET", "b"),
        Mark(5, rng(5, 6), "? CANNOT_ASSESS", "c"),
    ]
    return Shown(
        marks=marks, lenses=[Lens(rng(0), "Graded: score 0.50")], problems=[(rng(5, 6), "expectation")], text=OLD
    )


def test_editing_a_criterion_drops_its_verdict_and_moves_the_others(shown: Shown):
    new = "# graded yesterday\n" + OLD.replace("requirement: B", "requirement: B, politely")
    shown.move_to(new)
    assert [(m.line, m.label) for m in shown.marks] == [(2, "✓ MET"), (6, "? CANNOT_ASSESS")]
    assert shown.marks[1].range == Range(Position(6, 2), Position(7, 20))
    assert [r.start.line for r, _ in shown.problems] == [6]
    assert [lens.range.start.line for lens in shown.lenses] == [1]
    assert shown.text == new and shown.lines().line_count == new.count("\n") + 1


def test_an_edit_on_the_lens_line_keeps_the_lens(shown: Shown):
    shown.move_to(OLD.replace("rubric:", "rubric:  # v2"))
    assert [lens.range.start.line for lens in shown.lenses] == [0]
    assert len(shown.marks) == 3


def test_deleting_everything_keeps_only_the_lens(shown: Shown):
    shown.move_to("")
    assert shown.marks == [] and shown.problems == []
    assert [lens.range.start.line for lens in shown.lenses] == [0]
