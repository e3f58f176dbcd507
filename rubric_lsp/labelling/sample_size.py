"""How many more labels would narrow a figure's interval to a target half-width (docs/labelling.md).

The answer is computed with the interval the figure itself is reported with (``calibration/stats.py``), never
a rule of thumb: the labels so far are a table of (label, verdict) counts; more labels are assumed to fall
into its cells in the shares they do now, so the table at N labels is today's scaled by N / n, and N is the
smallest number at which that table's interval is narrow enough. tests/test_labelling_sample_size.py checks the
answer against simulation: datasets of N labels drawn from the table's shares give intervals that narrow
(their median half-width) to the target at N, and not at three quarters of N.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from rubric_lsp.calibration import stats

MAX_LABELS = 100_000  # past this the answer is "more than 100,000": the figure will not narrow with labels
Matrix = Sequence[Sequence[float]]


def half_width(interval: Sequence[float] | None) -> float:
    return math.inf if not interval else (interval[1] - interval[0]) / 2


def kappa_half_width(matrix: Matrix, weights: str | None) -> float:
    """The half-width of κ's interval for a table of counts (floats allowed: a scaled table)."""
    if sum(map(sum, matrix)) < 2:
        return math.inf
    # Its arithmetic takes a scaled table's fractional counts as they are (they are typed as whole ones).
    return half_width(stats.kappa_interval_of(matrix, weights))  # type: ignore[arg-type]


def labels_for(width_at: Callable[[float], float], n: int, target: float) -> int | None:
    """The smallest total N ≥ n whose ``width_at(N / n)`` (the width of the table scaled to N) is at most
    ``target``; None past :data:`MAX_LABELS`. The width falls as N grows (as 1/√N, give or take), so a
    doubling search finds a bracket and a bisection the least N in it."""
    if n <= 0:
        return None
    if width_at(1.0) <= target:
        return n
    low, high = n, n * 2
    while width_at(high / n) > target:
        low, high = high, high * 2
        if high > MAX_LABELS:
            if width_at(MAX_LABELS / n) > target:
                return None
            high = MAX_LABELS
            break
    while high - low > 1:
        middle = (low + high) // 2
        if width_at(middle / n) <= target:
            high = middle
        else:
            low = middle
    return high


def more_for_kappa(matrix: Matrix, weights: str | None, target: float) -> int | None:
    """How many labels beyond the table's would bring κ's interval to ±``target`` (0: it is already)."""
    n = round(sum(map(sum, matrix)))
    total = labels_for(
        lambda factor: kappa_half_width([[c * factor for c in row] for row in matrix], weights), n, target
    )
    return None if total is None else total - n


def more_for_share(successes: int, n: int, target: float) -> int | None:
    """How many labels beyond ``n`` would bring a share's Wilson interval to ±``target`` (0: it is already)."""
    total = labels_for(lambda factor: half_width(_wilson(successes * factor, n * factor)), n, target)
    return None if total is None else total - n


def _wilson(successes: float, n: float) -> list[float] | None:
    """stats.wilson on a scaled table's (fractional) counts: its arithmetic takes them as they are."""
    return stats.wilson(successes, n)  # type: ignore[arg-type]
