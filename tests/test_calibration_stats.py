"""calibration/stats.py: each figure against an independent computation (scikit-learn, statsmodels, by hand).

scikit-learn, scipy and statsmodels are autorubric 1.6.1's own requirements (the test extra pins it)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score, recall_score
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_fleiss
from statsmodels.stats.proportion import proportion_confint

from rubric_lsp.calibration import stats
from rubric_lsp.formats.autorubric.grading.agreement import CriterionAgreement


def random_pairs(seed: int, n: int, categories: int) -> list[tuple[int, int]]:
    rng = random.Random(seed)
    pairs = []
    for _ in range(n):
        truth = rng.randrange(categories)
        # A judge right two times in three, else off by one or anywhere: κ well inside (0, 1).
        judged = truth if rng.random() < 0.67 else rng.randrange(categories)
        pairs.append((truth, judged))
    return pairs


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("weights", [None, "quadratic"])
def test_kappa_is_scikit_learns(seed, weights):
    pairs = random_pairs(seed, 40 + 13 * seed, 2 + seed % 4)
    theirs = cohen_kappa_score([t for t, _ in pairs], [j for _, j in pairs], weights=weights)
    assert stats.cohen_kappa(pairs, weights) == pytest.approx(float(theirs), abs=1e-12)


def test_the_kappa_interval_is_the_dataset_gradings_and_the_same_every_run():
    pairs = random_pairs(3, 60, 3)
    agreement = CriterionAgreement(0, "tone", "ordinal", pairs=list(pairs))
    first = stats.kappa_interval(pairs, "quadratic")
    assert first == agreement.kappa_interval() == stats.kappa_interval(pairs, "quadratic")
    low, high = first
    assert low < stats.cohen_kappa(pairs, "quadratic") < high
    assert stats.kappa_interval(pairs[:1], None) is None
    assert stats.kappa_interval([("MET", "MET")] * 30, None) is None  # one label: κ undefined


@pytest.mark.parametrize(("successes", "n"), [(0, 1), (0, 12), (3, 12), (8, 12), (12, 12), (412, 500), (1, 10_000)])
def test_wilson_is_statsmodels(successes, n):
    low, high = proportion_confint(successes, n, alpha=0.05, method="wilson")
    assert stats.wilson(successes, n) == pytest.approx([low, high], abs=1e-12)
    assert stats.wilson(0, 0) is None


def test_sensitivity_and_specificity_are_recalls():
    pairs = [(t, j) for t, j in random_pairs(7, 80, 2)]
    named = [("MET" if t else "UNMET", "MET" if j else "UNMET") for t, j in pairs]
    split = stats.one_vs_rest(named, "MET")
    truth, judged = [t for t, _ in named], [j for _, j in named]
    assert split["sensitivity"]["value"] == pytest.approx(recall_score(truth, judged, pos_label="MET"))
    assert split["specificity"]["value"] == pytest.approx(recall_score(truth, judged, pos_label="UNMET"))
    positives = sum(t == "MET" for t in truth)
    assert split["sensitivity"]["n"] == positives and split["specificity"]["n"] == len(named) - positives


def test_rogan_gladen_on_a_worked_case():
    # True pass rate 0.3, a judge with Se 0.9 and Sp 0.8: it passes 0.3·0.9 + 0.7·0.2 = 0.41 of the items.
    assert stats.rogan_gladen(0.41, 0.9, 0.8) == pytest.approx(0.3)
    assert stats.rogan_gladen(0.5, 0.9, 0.8) == pytest.approx(0.3 / 0.7)
    assert stats.rogan_gladen(0.1, 0.9, 0.8) == 0.0  # (0.1 + 0.8 − 1) / 0.7 < 0: clipped
    assert stats.rogan_gladen(0.99, 0.9, 0.95) == 1.0  # > 1: clipped
    assert stats.rogan_gladen(0.5, 0.5, 0.5) is None  # a coin: nothing to correct with
    assert stats.rogan_gladen(0.5, 0.4, 0.3) is None


def test_the_corrected_rates_interval_carries_the_calibrations_uncertainty():
    # 410 of 1,000 graded items passed; the judge measured at Se 0.9, Sp 0.8 on few or many labels.
    few = stats.corrected_rate_interval(410, 1000, 9, 10, 8, 10)
    many = stats.corrected_rate_interval(410, 1000, 900, 1000, 800, 1000)
    assert few[0] < 0.3 < few[1] and many[0] < 0.3 < many[1]
    assert few[1] - few[0] > 3 * (many[1] - many[0])  # ten labels a side say little
    assert stats.corrected_rate_interval(410, 1000, 9, 10, 8, 10) == few  # seeded
    assert stats.corrected_rate_interval(5, 10, 0, 0, 8, 10) is None

    # The same method computed independently with numpy's Beta draws: the percentiles agree.
    rng = np.random.default_rng(1)
    p = rng.beta(410.5, 590.5, 200_000)
    se = rng.beta(900.5, 100.5, 200_000)
    sp = rng.beta(800.5, 200.5, 200_000)
    rates = np.clip((p + sp - 1) / (se + sp - 1), 0, 1)
    assert many == pytest.approx(list(np.percentile(rates, [2.5, 97.5])), abs=0.004)


def test_the_corrected_rates_interval_is_drawn_once_per_counts_and_handed_out_as_a_copy():
    counts = (37, 60, 11, 14, 19, 23)
    stats._corrected_rate_interval.cache_clear()
    first = stats.corrected_rate_interval(*counts)
    first[0] = -1.0  # a caller that rounds or edits its figures in place
    again = stats.corrected_rate_interval(*counts)
    assert again[0] != -1.0 and again is not first
    assert stats._corrected_rate_interval.cache_info().misses == 1  # the draws ran once
    stats._corrected_rate_interval.cache_clear()
    assert stats.corrected_rate_interval(*counts) == again  # what a fresh draw gives: the seed, not the cache
    assert stats.corrected_rate_interval(*counts, seed=29) != again


def test_fleiss_kappa_is_statsmodels():
    rng = random.Random(5)
    ratings = []
    for _ in range(30):
        usual = rng.randrange(3)
        ratings.append([usual if rng.random() < 0.8 else rng.randrange(3) for _ in range(4)])
    table, _ = aggregate_raters(np.array(ratings))
    assert stats.fleiss_kappa(ratings) == pytest.approx(statsmodels_fleiss(table, method="fleiss"), abs=1e-12)
    assert stats.fleiss_kappa([["MET", "MET"], ["MET", "MET"]]) is None  # one category: undefined
    assert stats.fleiss_kappa([["MET", "MET", "UNMET"], ["MET", "MET"]]) is None  # unequal counts


def test_self_agreement_by_hand():
    ratings = [["MET"] * 3, ["MET"] * 3, ["MET", "UNMET", "MET"], ["UNMET"] * 3, ["MET"]]
    figures = stats.self_agreement(ratings)
    assert figures["items"] == 4 and figures["short_items"] == 1  # one answer is no agreement to measure
    assert figures["unanimous"]["value"] == 0.75 and figures["unanimous"]["successes"] == 3
    assert figures["pairwise"] == pytest.approx((1 + 1 + 1 / 3 + 1) / 4)
    table, _ = aggregate_raters(np.array([[1, 1, 1], [1, 1, 1], [1, 0, 1], [0, 0, 0]]))
    assert figures["fleiss_kappa"] == pytest.approx(statsmodels_fleiss(table))


def test_an_ordinal_units_figures():
    from rubric_lsp.calibration.units import UnitSamples, figures

    pairs = random_pairs(11, 90, 3)
    unit = UnitSamples(
        id="tone",
        title="Tone?",
        kind="ordinal",
        text={},
        prompt="p",
        categories=(0, 1, 2),
        names={0: "bad", 1: "ok", 2: "good", 3: "n/a"},
        pairs=pairs,
        abstained={"both": 1, "judge_only": 2, "truth_only": 0},
    )
    data = figures(unit)
    truth, judged = [t for t, _ in pairs], [j for _, j in pairs]
    assert data["kappa"]["statistic"] == "quadratic-weighted"
    assert data["kappa"]["value"] == pytest.approx(cohen_kappa_score(truth, judged, weights="quadratic"))
    recalls = recall_score(truth, judged, labels=[0, 1, 2], average=None)
    for category, name in enumerate(("bad", "ok", "good")):
        split = data["per_category"][name]
        assert split["sensitivity"]["value"] == pytest.approx(recalls[category])
        rest = [j for t, j in pairs if t != category]
        assert split["specificity"]["value"] == pytest.approx(sum(j != category for j in rest) / len(rest))
    assert data["balance"] == {"bad": truth.count(0), "ok": truth.count(1), "good": truth.count(2)}
    assert "sensitivity" not in data and "pass_rate" not in data  # no single pass on a scale
    assert data["abstained"] == {"both": 1, "judge_only": 2, "truth_only": 0}


def test_ordinal_kappa_is_over_the_whole_scale():
    # Two criteria on one 5-point scale, each with one L4→L3 miss among its labels: on the labels that happen
    # to occur they differed (0.89 against 0.95); over the scale (scikit-learn's labels=) they are one figure.
    from rubric_lsp.calibration.units import UnitSamples, figures

    scale = (0, 1, 2, 3, 4)
    few = [(3, 2)] + [(level, level) for level in (0, 2, 3, 4)] * 2  # no L2 label: a gap in the scale
    many = [(3, 2)] + [(level, level) for level in scale] * 2
    for pairs in (few, many):
        truth, judged = [t for t, _ in pairs], [j for _, j in pairs]
        theirs = cohen_kappa_score(truth, judged, weights="quadratic", labels=list(scale))
        assert stats.cohen_kappa(pairs, "quadratic", scale) == pytest.approx(float(theirs), abs=1e-12)
    assert stats.cohen_kappa(few, "quadratic") != pytest.approx(stats.cohen_kappa(few, "quadratic", scale))
    unit = UnitSamples("tone", "Tone?", "ordinal", {}, "p", scale, {c: f"L{c + 1}" for c in scale}, pairs=few)
    kappa = figures(unit)["kappa"]
    assert kappa["value"] == pytest.approx(stats.cohen_kappa(few, "quadratic", scale))
    assert kappa["n"] == len(few)  # every figure carries its sample size
