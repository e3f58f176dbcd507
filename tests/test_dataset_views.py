"""The text the dataset lenses show in clients without the extension's views (issue 25, item 8)."""

from __future__ import annotations

from rubric_lsp.server.dataset_views import MAX_LISTED, confusion_text, disagreements_text


def _item(index: int, line: int) -> dict:
    return {"index": index, "range": {"start": {"line": line, "character": 4}}, "truth": 2, "judged": 0}


def test_items_are_numbered_from_one_with_their_line_and_a_long_list_is_counted():
    found = [_item(i, 10 * i) for i in range(MAX_LISTED + 3)]
    lines = disagreements_text("tone", found).split("\n")
    assert lines[0] == f"tone: {MAX_LISTED + 3} item(s) where the judge and the labels disagree"
    assert lines[1] == "  item 1, line 1: labelled 2, judged 0"
    assert lines[2] == "  item 2, line 11: labelled 2, judged 0"
    assert len(lines) == 1 + MAX_LISTED + 1 and lines[-1].startswith("  … and 3 more")


def test_an_item_without_a_range_is_listed_without_a_line():
    assert disagreements_text("tone", [{"index": 4, "range": None, "truth": "MET", "judged": "UNMET"}]).endswith(
        "  item 5: labelled MET, judged UNMET"
    )
    assert disagreements_text("tone", []) == "tone: the judge agrees with every label"


def test_the_matrix_is_aligned_whatever_the_widths_of_labels_and_counts():
    entry = {
        "name": "politeness",
        "compared": 1234,
        "confusion": {"labels": ["rude", "neutral", "a"], "matrix": [[1200, 3, 0], [1, 30, 0], [0, 0, 0]]},
    }
    head, *rows = confusion_text(entry).split("\n")
    assert head == "politeness: confusion matrix over 1234 compared item(s)"
    assert [row.split() for row in rows[1:]] == [
        ["rude", "1200", "3", "0"],
        ["neutral", "1", "30", "0"],
        ["a", "0", "0", "0"],
    ]
    # every column ends where its label ends
    ends = {len(row.rstrip()) for row in rows}
    assert len(ends) == 1, rows
    assert confusion_text({"name": "x", "compared": 0, "confusion": {"labels": [], "matrix": []}}).endswith(
        "nothing compared"
    )
