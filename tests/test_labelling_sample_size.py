""" "About N more labels for ±0.15", checked by simulation: sets of the predicted size, drawn from the shares of the
labels so far, give intervals (``calibration/stats.py``'s, the ones the figures are reported with) whose median
half-width is the target; sets of three quarters of that size do not narrow that far. Seeded and bounded."""

from __future__ import annotations

import random
import statistics

import pytest

from rubric_lsp.calibration import stats
from rubric_lsp.labelling import planning, sample_size
from rubric_lsp.labelling.hook import ABSTAIN, FAIL, PASS, Choice, JudgeSaid, Label, LabelItem, LabelUnit, Sheet
from rubric_lsp.labelling.stores import Given

DRAWS = 300
TARGET = 0.15

# (label × verdict) counts of labels so far: a good judge on a balanced set, one leaning to the majority on an
# unbalanced set, a fair judge on 40 labels, and a three-option ordinal scale (quadratic weights).
TABLES = [
    ([[8, 2], [3, 5]], None),
    ([[14, 1], [3, 2]], None),
    ([[15, 5], [6, 14]], None),
    ([[6, 2, 0], [1, 5, 2], [0, 1, 7]], "quadratic"),
]


def simulated_half_widths(matrix, weights, total, seed):
    """Half-widths of the interval over ``DRAWS`` sets of ``total`` pairs drawn from the table's cell shares."""
    k = len(matrix)
    cells = [(i, j) for i in range(k) for j in range(k)]
    shares = [matrix[i][j] for i, j in cells]
    rng = random.Random(seed)
    found = []
    for _ in range(DRAWS):
        table = [[0] * k for _ in range(k)]
        for i, j in rng.choices(cells, weights=shares, k=total):
            table[i][j] += 1
        pairs = [(i, j) for i in range(k) for j in range(k) for _ in range(table[i][j])]
        if stats.cohen_kappa(pairs, weights, range(k)) is None:
            continue  # a draw with κ undefined (one class in all) has no interval to narrow
        found.append(sample_size.half_width(stats.kappa_interval_of(table, weights)))
    return found


@pytest.mark.parametrize(("matrix", "weights"), TABLES)
def test_the_predicted_number_of_labels_narrows_kappa_to_the_target(matrix, weights):
    n = sum(map(sum, matrix))
    more = sample_size.more_for_kappa(matrix, weights, TARGET)
    assert more is not None and more > 0
    total = n + more
    at = statistics.median(simulated_half_widths(matrix, weights, total, seed=37))
    assert TARGET * 0.9 <= at <= TARGET * 1.1, (total, at)
    short = statistics.median(simulated_half_widths(matrix, weights, round(total * 0.75), seed=38))
    assert short > TARGET, (total, short)


def test_a_share_s_wilson_interval_too():
    more = sample_size.more_for_share(13, 18, 0.1)
    total = 18 + more
    rng = random.Random(7)
    widths = []
    for _ in range(DRAWS):
        successes = sum(rng.random() < 13 / 18 for _ in range(total))
        widths.append(sample_size.half_width(stats.wilson(successes, total)))
    assert 0.09 <= statistics.median(widths) <= 0.11
    assert sample_size.half_width(stats.wilson(13 * 3 // 4, 18 * 3 // 4)) > 0.1


def test_narrow_enough_is_zero_more_and_past_the_bound_is_none():
    assert sample_size.more_for_kappa([[400, 10], [12, 380]], None, TARGET) == 0
    assert sample_size.more_for_kappa([[5, 5], [5, 5]], None, 0.0001) is None  # κ 0 never narrows to ±0.0001


def _sheet(pairs):
    unit = LabelUnit(
        "polite", "Is polite", (Choice("MET", PASS), Choice("UNMET", FAIL), Choice("CANNOT_ASSESS", ABSTAIN))
    )
    sheet = Sheet([], in_file=True)
    given = {}
    for number, (truth, verdict) in enumerate(pairs, 1):
        item = LabelItem(f"k{number}", number, f"item {number}", [], "r", [unit])
        sheet.items.append(item)
        if truth is not None:
            given[(item.key, unit.id)] = [Given(Label(truth, "", "ann"))]
        sheet.judged[(item.key, unit.id)] = JudgeSaid(verdict)
    return sheet, given


def test_the_figure_says_it_in_one_line():
    pairs = [("MET", "MET")] * 8 + [("MET", "UNMET")] * 2 + [("UNMET", "MET")] * 3 + [("UNMET", "UNMET")] * 5
    sheet, given = _sheet(pairs + [(None, "UNMET")] * 4)
    figure = planning.figures(sheet, given)[0]
    more = sample_size.more_for_kappa([[8, 2], [3, 5]], None, TARGET)
    low, high = stats.kappa_interval_of([[8, 2], [3, 5]], None)
    kappa = stats.cohen_kappa([(0, 0)] * 8 + [(0, 1)] * 2 + [(1, 0)] * 3 + [(1, 1)] * 5)
    assert (
        figure["text"]
        == f"polite: κ {kappa:.2f} [{low:.2f}, {high:.2f}] over 18 label(s) — about {more} more for ±0.15"
    )
    # One class in all: no interval to narrow; the figure says to label the other.
    sheet, given = _sheet([("MET", "MET")] * 5)
    assert planning.figures(sheet, given)[0]["text"].endswith("every label and verdict is one class; label the other")


def test_the_order_puts_the_short_class_first():
    """With 11 MET labels and one UNMET, an unlabelled item the judge calls UNMET teaches more than one it calls MET."""
    sheet, given = _sheet([("MET", "MET")] * 11 + [("UNMET", "UNMET")] + [(None, "MET"), (None, "UNMET")])
    pending = [i for i in sheet.items if (i.key, "polite") not in given]
    queue = planning.order(pending, sheet, given)
    assert [q["number"] for q in queue] == [14, 13]
    assert queue[0]["why"] == ["polite: 1 'UNMET' label(s) against 11 of another"]


def test_the_order_puts_a_split_before_a_near_miss_before_a_clear_verdict():
    """Balanced labels (no class short): the judges' 2–1 split teaches most, then a score 0.05 from its pass mark,
    then one 0.15 from it; a clear, unanimous verdict nothing, so it keeps its place last."""
    sheet, given = _sheet([("MET", "MET"), ("UNMET", "UNMET")] + [(None, "MET")] * 4)
    key = {item.number: item.key for item in sheet.items}
    sheet.judged[(key[3], "polite")] = JudgeSaid("MET", score=0.8, threshold=0.5)  # clear
    sheet.judged[(key[4], "polite")] = JudgeSaid("MET", score=0.65, threshold=0.5)
    sheet.judged[(key[5], "polite")] = JudgeSaid("MET", score=0.55, threshold=0.5)
    sheet.judged[(key[6], "polite")] = JudgeSaid("MET", votes=("MET", "UNMET", "MET"))
    pending = [i for i in sheet.items if (i.key, "polite") not in given]
    queue = planning.order(pending, sheet, given)
    assert [q["number"] for q in queue] == [6, 5, 4, 3]
    assert queue[0]["why"] == ["polite: the judges split 2–1"]
    assert queue[1]["why"] == ["polite: score 0.55 near its pass mark 0.5"]
    assert queue[3]["why"] == [] and queue[2]["weight"] < queue[1]["weight"]
