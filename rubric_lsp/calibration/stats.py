"""The figures of a calibration, from (human label, judge verdict) pairs: pure Python, no imports from the project.

- Cohen's κ (quadratic-weighted for ordinal scales) exactly as scikit-learn's ``cohen_kappa_score``
  computes it, which is what autorubric 1.6.1's ``compute_metrics`` calls; its interval is a seeded
  percentile bootstrap (the same resamples every run, so a record does not change on a re-run).
- Proportions (accuracy, sensitivity, specificity) with Wilson score intervals, as statsmodels'
  ``proportion_confint(method="wilson")``.
- The Rogan–Gladen correction of an observed pass rate for the judge's sensitivity and specificity,
  with an interval that carries the calibration's own uncertainty (``corrected_rate_interval``).
- A judge's agreement with itself over repeated calls: the share of unanimous items, the mean
  pairwise agreement and Fleiss' κ.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Hashable, Sequence
from statistics import NormalDist
from typing import Any

LEVEL = 0.95
KAPPA_RESAMPLES = 200  # the dataset grading's interval (agreement.py) uses the same: equal figures
RATE_DRAWS = 4000
RATE_SEED = 28


def cohen_kappa(pairs: Sequence[tuple[Any, Any]], weights: str | None = None) -> float | None:
    """Cohen's κ of (truth, judged) pairs, as scikit-learn's ``cohen_kappa_score`` computes it.

    The categories are the labels present on either side, in sorted order (option indices
    for multi-choice criteria, so the authored order is the scale); ``weights="quadratic"``
    weighs a disagreement by the squared distance between those positions. None when κ is
    undefined: fewer than two labels in all (autorubric's ``_kappa_or_none``).
    """
    labels = sorted({label for pair in pairs for label in pair})
    if len(labels) < 2:
        return None
    position = {label: i for i, label in enumerate(labels)}
    k = len(labels)
    observed = [[0] * k for _ in range(k)]
    for truth, judged in pairs:
        observed[position[truth]][position[judged]] += 1
    return _kappa(observed, len(pairs), weights)


def _kappa(observed: list[list[int]], n: int, weights: str | None) -> float | None:
    """κ of a confusion matrix over the labels present (every row or column non-empty), in sorted order."""
    k = len(observed)
    truth_counts = [sum(row) for row in observed]
    judged_counts = [sum(observed[i][j] for i in range(k)) for j in range(k)]

    def weight(i: int, j: int) -> int:
        return (i - j) ** 2 if weights == "quadratic" else int(i != j)

    disagreement = sum(weight(i, j) * observed[i][j] for i in range(k) for j in range(k))
    expected = sum(weight(i, j) * truth_counts[i] * judged_counts[j] for i in range(k) for j in range(k)) / n
    if expected == 0:
        return None
    return 1.0 - disagreement / expected


def bootstrap_kappas(pairs: Sequence[tuple[Any, Any]], resamples: int, weights: str | None) -> list[float]:
    """κ of each of ``resamples`` seeded resamples of ``pairs`` (None ones left out), unsorted.

    Exactly ``cohen_kappa(random.Random(len(pairs)).choices(pairs, k=len(pairs)), weights)`` per
    resample (the same draws, the same integer counts, so the same floats), counted instead of
    rebuilt pair by pair: at 10,000 items the per-pair way took ~1.5 s per criterion (measured),
    serialised after the last judge call."""
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
    pairs: Sequence[tuple[Any, Any]], weights: str | None, resamples: int = KAPPA_RESAMPLES, level: float = LEVEL
) -> list[float] | None:
    """A percentile bootstrap interval of κ over ``pairs``, seeded by their number (stable across runs).

    None with fewer than two pairs, or when κ is undefined (one label in all) in more than half
    the resamples: there is nothing to say then."""
    if len(pairs) < 2:
        return None
    kappas = sorted(bootstrap_kappas(pairs, resamples, weights))
    if len(kappas) < resamples // 2:
        return None
    tail = (1 - level) / 2
    return [kappas[int(tail * (len(kappas) - 1))], kappas[round((1 - tail) * (len(kappas) - 1))]]


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
    zero. Seeded: the same counts give the same interval on every run."""
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
    return [rates[int(tail * (len(rates) - 1))], rates[round((1 - tail) * (len(rates) - 1))]]


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
