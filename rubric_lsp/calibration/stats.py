"""The figures of a calibration, from (human label, judge verdict) pairs: pure Python, no imports from the project.

- Cohen's κ (quadratic-weighted for ordinal scales) exactly as scikit-learn's ``cohen_kappa_score``
  computes it, which is what autorubric 1.6.1's ``compute_metrics`` calls; given the scale's categories
  (``categories``), over the whole scale as scikit-learn's ``labels=`` does, so an option nobody chose
  still counts in the quadratic weights. Its interval (:func:`kappa_interval`) is a Fieller-type interval
  for κ = 1 − D/E (observed over chance-expected disagreement), checked by simulation to cover the true κ
  in at least 95 % of datasets of 12, 30 and 100 labels (tests/test_calibration_coverage.py).
- Proportions (accuracy, sensitivity, specificity) with Wilson score intervals, as statsmodels'
  ``proportion_confint(method="wilson")``.
- The Rogan–Gladen correction of an observed pass rate for the judge's sensitivity and specificity,
  with an interval that carries the calibration's own uncertainty (``corrected_rate_interval``).
- A judge's agreement with itself over repeated calls: the share of unanimous items, the mean
  pairwise agreement and Fleiss' κ.
"""

from __future__ import annotations

import functools
import math
import random
from collections import Counter
from collections.abc import Hashable, Sequence
from statistics import NormalDist
from typing import Any

LEVEL = 0.95
KAPPA_RESAMPLES = 200  # bootstrap_kappas' default resamples (tests/test_dataset_scale.py checks the draws)
RATE_DRAWS = 4000
RATE_SEED = 28
# The κ interval's pseudo-observations, spread evenly over the k × k table, for its variance only (never its
# centre): an Agresti–Coull-style guard, so 3 perfect labels or a judge that never varies get no zero width.
PSEUDO_COUNT = 2.0


def scale_of(pairs: Sequence[tuple[Any, Any]], categories: Sequence[Any] | None = None) -> list[Any]:
    """The categories κ is computed over: ``categories`` (the scale, in order) with any label outside it after
    them, else the labels present on either side in sorted order (scikit-learn's default)."""
    present = {label for pair in pairs for label in pair}
    if categories is None:
        return sorted(present)
    scale = list(dict.fromkeys(categories))
    return scale + sorted(present - set(scale), key=repr)


def confusion(pairs: Sequence[tuple[Any, Any]], categories: Sequence[Any] | None = None) -> list[list[int]]:
    """Counts of (truth, judged) over :func:`scale_of`'s categories: ``matrix[truth][judged]``."""
    scale = scale_of(pairs, categories)
    position = {label: i for i, label in enumerate(scale)}
    observed = [[0] * len(scale) for _ in scale]
    for truth, judged in pairs:
        observed[position[truth]][position[judged]] += 1
    return observed


def cohen_kappa(
    pairs: Sequence[tuple[Any, Any]], weights: str | None = None, categories: Sequence[Any] | None = None
) -> float | None:
    """Cohen's κ of (truth, judged) pairs, as scikit-learn's ``cohen_kappa_score`` computes it.

    The categories are ``categories`` when given (scikit-learn's ``labels=``: the whole scale, so the
    quadratic weights are the scale's distances), else the labels present on either side, in sorted order
    (option indices for multi-choice criteria, so the authored order is the scale); ``weights="quadratic"``
    weighs a disagreement by the squared distance between those positions. None when κ is undefined:
    fewer than two labels in all (autorubric's ``_kappa_or_none``)."""
    if len({label for pair in pairs for label in pair}) < 2:
        return None
    return _kappa(confusion(pairs, categories), len(pairs), weights)


def _disagreement(weights: str | None, k: int) -> list[list[float]]:
    """Each cell's disagreement weight: 0/1, or the squared distance ((i − j)²; scaled by (k − 1)² for the interval)."""
    return [[float((i - j) ** 2 if weights == "quadratic" else int(i != j)) for j in range(k)] for i in range(k)]


def _kappa(observed: list[list[int]], n: int, weights: str | None) -> float | None:
    """κ of a confusion matrix (its rows the truth, its columns the verdicts, over one scale)."""
    k = len(observed)
    truth_counts = [sum(row) for row in observed]
    judged_counts = [sum(observed[i][j] for i in range(k)) for j in range(k)]
    weight = _disagreement(weights, k)
    disagreement = sum(weight[i][j] * observed[i][j] for i in range(k) for j in range(k))
    expected = sum(weight[i][j] * truth_counts[i] * judged_counts[j] for i in range(k) for j in range(k)) / n
    if expected == 0:
        return None
    return 1.0 - disagreement / expected


def bootstrap_kappas(pairs: Sequence[tuple[Any, Any]], resamples: int, weights: str | None) -> list[float]:
    """κ of each of ``resamples`` seeded resamples of ``pairs`` (None ones left out), unsorted.

    Exactly ``cohen_kappa(random.Random(len(pairs)).choices(pairs, k=len(pairs)), weights)`` per
    resample (the same draws, the same integer counts, so the same floats), counted instead of
    rebuilt pair by pair. No interval rests on it any more (a percentile bootstrap covered the true κ in
    77 % of simulated 12-label sets); kept for the dataset grading's scale checks."""
    labels = sorted({label for pair in pairs for label in pair})
    size = len(labels)
    position = {label: i for i, label in enumerate(labels)}
    codes = [position[truth] * size + position[judged] for truth, judged in pairs]
    draw = random.Random(len(pairs)).choices
    kappas = []
    for _ in range(resamples):
        counts = Counter(draw(codes, k=len(codes)))
        present = sorted({code // size for code in counts} | {code % size for code in counts})
        if len(present) < 2:
            continue
        at = {label: i for i, label in enumerate(present)}
        observed = [[0] * len(present) for _ in present]
        for code, count in counts.items():
            observed[at[code // size]][at[code % size]] += count
        kappa = _kappa(observed, len(codes), weights)
        if kappa is not None:
            kappas.append(kappa)
    return kappas


def kappa_interval(
    pairs: Sequence[tuple[Any, Any]],
    weights: str | None,
    categories: Sequence[Any] | None = None,
    level: float = LEVEL,
) -> list[float] | None:
    """A ``level`` interval for κ over ``pairs`` (:func:`kappa_interval_of` their confusion matrix over
    ``categories``, as :func:`cohen_kappa` counts it). None with fewer than two pairs, or when κ is undefined
    (one label in all): there is nothing to say then."""
    if len(pairs) < 2 or cohen_kappa(pairs, weights, categories) is None:
        return None
    return kappa_interval_of(confusion(pairs, categories), weights, level)


def kappa_interval_of(observed: Sequence[Sequence[int]], weights: str | None, level: float = LEVEL) -> list[float]:
    """The interval of κ = 1 − D/E for a confusion matrix: D the mean disagreement of the pairs, E the
    disagreement expected by chance from the two sides' marginals (weights scaled to [0, 1]).

    Fieller's method for a ratio: the interval is every κ₀ whose T = D − (1 − κ₀)·E is within z standard
    errors of 0. T's variance at κ₀ is the larger of (a) the delta-method variance of the per-pair
    influence ψ = v − (1 − κ₀)·e (v the pair's disagreement, e its share of the chance term), taken on
    the table with ``PSEUDO_COUNT`` pseudo-observations spread over its cells, and (b) the variance the
    disagreement itself has when its mean is (1 − κ₀)·E, the Wilson score interval's device (exactly
    μ(1 − μ) for 0/1 disagreements; for weighted ones, with the severity of a chance disagreement). So a
    handful of perfect labels gives a wide interval, never [1, 1]; a judge that never varies never [0, 0].
    Both variances are quadratic in x = 1 − κ₀, so the interval is the hull of two quadratic inequalities'
    solutions, clipped to [−1, 1]."""
    k = len(observed)
    n = sum(map(sum, observed))
    scale = max(1, (k - 1) ** 2) if weights == "quadratic" else 1
    v = [[w / scale for w in row] for row in _disagreement(weights, k)]
    cells = [(i, j) for i in range(k) for j in range(k)]
    rows = [sum(r) / n for r in observed]
    cols = [sum(observed[i][j] for i in range(k)) / n for j in range(k)]
    d = sum(v[i][j] * observed[i][j] for i, j in cells) / n
    e = sum(v[i][j] * rows[i] * cols[j] for i, j in cells)
    pseudo = PSEUDO_COUNT / (k * k)
    p = {(i, j): (observed[i][j] + pseudo) / (n + PSEUDO_COUNT) for i, j in cells}
    p_rows = [sum(p[i, j] for j in range(k)) for i in range(k)]
    p_cols = [sum(p[i, j] for i in range(k)) for j in range(k)]
    # A pair's share of the chance term: its truth's expected disagreement plus its verdict's.
    by_truth = [sum(v[i][j] * p_cols[j] for j in range(k)) for i in range(k)]
    by_verdict = [sum(p_rows[i] * v[i][j] for i in range(k)) for j in range(k)]
    mean_v = sum(p[c] * v[c[0]][c[1]] for c in cells)
    mean_e = sum(p[i, j] * (by_truth[i] + by_verdict[j]) for i, j in cells)
    var_v = var_e = cov = 0.0
    for i, j in cells:
        dv, de = v[i][j] - mean_v, by_truth[i] + by_verdict[j] - mean_e
        var_v += p[i, j] * dv * dv
        var_e += p[i, j] * de * de
        cov += p[i, j] * dv * de
    chance = sum(by_truth[i] * p_rows[i] for i in range(k))
    severity = sum(v[i][j] ** 2 * p_rows[i] * p_cols[j] for i, j in cells) / chance if chance else 0.0
    c = _z(level) ** 2 / n
    # (D − xE)² ≤ c·V(x), as α·x² + β·x + γ ≤ 0, for each of the two variances.
    influence = (e * e - c * var_e, -2 * d * e + 2 * c * cov, d * d - c * var_v)
    wilson_like = (e * e + c * e * e, -2 * d * e - c * e * severity, d * d)
    pieces = _solved(*influence) + _solved(*wilson_like)
    if not pieces:  # cannot happen (x = D/E solves both); the point alone, not a made-up width
        x = d / e if e else 1.0
        pieces = [(x, x)]
    low_x, high_x = min(p[0] for p in pieces), max(p[1] for p in pieces)
    return [max(-1.0, 1.0 - high_x), min(1.0, 1.0 - low_x)]


@functools.lru_cache(maxsize=8)
def _z(level: float) -> float:
    return NormalDist().inv_cdf(1 - (1 - level) / 2)


def _solved(alpha: float, beta: float, gamma: float, top: float = 2.0) -> list[tuple[float, float]]:
    """The parts of [0, ``top``] where α·x² + β·x + γ ≤ 0 (x = 1 − κ₀ ranges over [0, 2] as κ₀ over [−1, 1])."""
    tiny = 1e-15
    if abs(alpha) < tiny:
        if abs(beta) < tiny:
            return [(0.0, top)] if gamma <= tiny else []
        root = -gamma / beta
        part = (0.0, min(top, root)) if beta > 0 else (max(0.0, root), top)
        return [part] if part[0] <= part[1] else []
    discriminant = beta * beta - 4 * alpha * gamma
    if discriminant < 0:
        return [] if alpha > 0 else [(0.0, top)]
    root = math.sqrt(discriminant)
    first, second = sorted(((-beta - root) / (2 * alpha), (-beta + root) / (2 * alpha)))
    candidates = [(first, second)] if alpha > 0 else [(-math.inf, first), (second, math.inf)]
    return [(max(0.0, lo), min(top, hi)) for lo, hi in candidates if max(0.0, lo) <= min(top, hi)]


def wilson(successes: int, n: int, level: float = LEVEL) -> list[float] | None:
    """The Wilson score interval of ``successes / n`` (statsmodels' ``proportion_confint(method="wilson")``)."""
    if n <= 0:
        return None
    z = NormalDist().inv_cdf(1 - (1 - level) / 2)
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5) / denominator
    return [max(0.0, centre - half), min(1.0, centre + half)]


def proportion(successes: int, n: int) -> dict[str, Any]:
    """A share with its count and Wilson interval: ``{"value", "successes", "n", "interval"}``."""
    return {
        "value": successes / n if n else None,
        "successes": successes,
        "n": n,
        "interval": wilson(successes, n),
    }


def rogan_gladen(observed_rate: float, sensitivity: float, specificity: float) -> float | None:
    """The true pass rate behind an observed one: ``(p + Sp − 1) / (Se + Sp − 1)``, clipped to [0, 1].

    None when ``Se + Sp ≤ 1``: a judge no better than a coin carries no information to correct with."""
    youden = sensitivity + specificity - 1
    if youden <= 0:
        return None
    return min(1.0, max(0.0, (observed_rate + specificity - 1) / youden))


def corrected_rate_interval(
    passed: int,
    n: int,
    true_positives: int,
    positives: int,
    true_negatives: int,
    negatives: int,
    level: float = LEVEL,
    draws: int = RATE_DRAWS,
    seed: int = RATE_SEED,
) -> list[float] | None:
    """An interval for the Rogan–Gladen rate that carries the calibration's uncertainty as well as the grading's.

    Each of the three proportions (the observed pass rate ``passed / n``, the sensitivity
    ``true_positives / positives``, the specificity ``true_negatives / negatives``) is drawn from its
    Jeffreys posterior, Beta(x + ½, n − x + ½), independently; each draw is corrected and clipped, and
    the interval is the draws' percentiles. Draws where Se + Sp ≤ 1 have no corrected rate and are left
    out; None when more than half are (the judge is too close to chance to correct with), or a count is
    zero. Seeded: the same counts give the same interval on every run, so it is computed once per process
    (12,000 beta draws, ~0.1 s of CPU; a record's figures are computed again wherever it is verified)."""
    counts = (passed, n, true_positives, positives, true_negatives, negatives)
    interval = _corrected_rate_interval(counts, level, draws, seed)
    return None if interval is None else list(interval)


@functools.lru_cache(maxsize=1024)
def _corrected_rate_interval(
    counts: tuple[int, int, int, int, int, int], level: float, draws: int, seed: int
) -> tuple[float, float] | None:
    passed, n, true_positives, positives, true_negatives, negatives = counts
    if min(n, positives, negatives) <= 0:
        return None
    rng = random.Random(seed)
    rates = []
    for _ in range(draws):
        p = rng.betavariate(passed + 0.5, n - passed + 0.5)
        se = rng.betavariate(true_positives + 0.5, positives - true_positives + 0.5)
        sp = rng.betavariate(true_negatives + 0.5, negatives - true_negatives + 0.5)
        rate = rogan_gladen(p, se, sp)
        if rate is not None:
            rates.append(rate)
    if len(rates) < draws // 2:
        return None
    rates.sort()
    tail = (1 - level) / 2
    return rates[int(tail * (len(rates) - 1))], rates[round((1 - tail) * (len(rates) - 1))]


def one_vs_rest(pairs: Sequence[tuple[Any, Any]], category: Any) -> dict[str, Any]:
    """Sensitivity and specificity of the judge for one category: the verdict ``category`` against the rest.

    Sensitivity: of the items people gave ``category``, the share the judge gave it too; specificity:
    of the items people gave another category, the share the judge did not give ``category``."""
    positives = [judged for truth, judged in pairs if truth == category]
    negatives = [judged for truth, judged in pairs if truth != category]
    return {
        "sensitivity": proportion(sum(j == category for j in positives), len(positives)),
        "specificity": proportion(sum(j != category for j in negatives), len(negatives)),
    }


def self_agreement(ratings: Sequence[Sequence[Hashable]]) -> dict[str, Any]:
    """How often a judge asked N times about the same item answers the same (items with N ≥ 2 answers).

    ``unanimous``: the share of items where every answer is the same (Wilson interval);
    ``pairwise``: the mean over items of the share of answer pairs that agree;
    ``fleiss_kappa``: Fleiss' κ over the items, the repeats taken as raters (chance agreement from
    the pooled category shares; None when every answer is one category). Fleiss' κ needs the same
    number of answers per item: items with fewer (a failed call) are left out of it and counted."""
    rated = [list(r) for r in ratings if len(r) >= 2]
    unanimous = sum(len(set(r)) == 1 for r in rated)
    pairwise = [_pair_share(r) for r in rated]
    full = max((len(r) for r in rated), default=0)
    complete = [r for r in rated if len(r) == full]
    return {
        "items": len(rated),
        "unanimous": proportion(unanimous, len(rated)),
        "pairwise": sum(pairwise) / len(pairwise) if pairwise else None,
        "fleiss_kappa": fleiss_kappa(complete),
        "short_items": len(rated) - len(complete) + sum(1 for r in ratings if len(r) < 2),
    }


def _pair_share(answers: list[Hashable]) -> float:
    n = len(answers)
    counts = Counter(answers).values()
    return sum(c * (c - 1) for c in counts) / (n * (n - 1))


def fleiss_kappa(ratings: Sequence[Sequence[Hashable]]) -> float | None:
    """Fleiss' κ of items each rated the same number of times (statsmodels' ``fleiss_kappa``, method "fleiss")."""
    if not ratings:
        return None
    n = len(ratings[0])
    if n < 2 or any(len(r) != n for r in ratings):
        return None
    counts = [Counter(r) for r in ratings]
    categories = sorted({c for row in counts for c in row}, key=repr)
    total = len(ratings) * n
    shares = [sum(row[c] for row in counts) / total for c in categories]
    observed = sum(sum(v * (v - 1) for v in row.values()) / (n * (n - 1)) for row in counts) / len(ratings)
    chance = sum(s * s for s in shares)
    if chance >= 1:
        return None
    return (observed - chance) / (1 - chance)
