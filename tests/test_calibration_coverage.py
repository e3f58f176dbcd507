"""The κ interval's coverage, by seeded simulation (issue 33: "never a zero-width interval from a handful of labels").

Datasets of n = 12, 30 and 100 labels are drawn from populations whose κ is known (binary criteria at a
balanced and a skewed prevalence, a judge biased to MET; 5-point ordinal criteria with a flat and a skewed
scale, quadratic weights), and the share of datasets whose 95 % interval holds the population's κ is
counted. Every cell of the table (n × binary/ordinal × true κ, the worst population of the cell) must reach
93 %. The interval is computed for thousands of tables by ``_intervals`` below, numpy's vectorised copy of
``stats.kappa_interval_of``'s algebra, which is checked equal to the product's own on every table drawn
at n = 12 and on a seeded sample of the others.
"""

from __future__ import annotations

from statistics import NormalDist

import numpy as np
import pytest

from rubric_lsp.calibration import stats

REPS = 1500
SIZES = (12, 30, 100)
KAPPAS = (0.0, 0.4, 0.6, 0.8, 0.9)
FLOOR = 0.93


def _weights(k: int, quadratic: bool) -> np.ndarray:
    i = np.arange(k)
    return ((i[:, None] - i[None, :]) ** 2 / (k - 1) ** 2) if quadratic else (i[:, None] != i[None, :]).astype(float)


def _kappa(p: np.ndarray, v: np.ndarray) -> float:
    return float(1 - (p * v).sum() / (p.sum(1) @ v @ p.sum(0)))


def _populations(kappa: float) -> list[tuple[str, bool, np.ndarray]]:
    """(kind, quadratic, the population's joint distribution of (truth, verdict)) with the population κ ``kappa``:
    a mixture of independence and perfect agreement on the same marginals has exactly κ = its mixing weight."""
    out = []
    for kind, quadratic, shares in [
        ("binary", False, [0.5, 0.5]),
        ("binary", False, [0.2, 0.8]),
        ("ordinal", True, [0.1, 0.2, 0.3, 0.25, 0.15]),
        ("ordinal", True, [0.05, 0.1, 0.15, 0.3, 0.4]),
    ]:
        pi = np.array(shares)
        out.append((kind, quadratic, (1 - kappa) * np.outer(pi, pi) + kappa * np.diag(pi)))
    # A judge leaning to MET: it passes every MET item and a share f of the UNMET ones, f found for ``kappa``.
    prevalence = 0.6

    def biased(f: float) -> np.ndarray:
        return np.array([[prevalence, 0.0], [(1 - prevalence) * f, (1 - prevalence) * (1 - f)]])

    low, high = 0.0, 1.0  # κ falls as f rises
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (middle, high) if _kappa(biased(middle), _weights(2, False)) > kappa else (low, middle)
    out.append(("binary", False, biased(low)))
    return out


def _intervals(tables: np.ndarray, quadratic: bool, level: float = stats.LEVEL) -> tuple[np.ndarray, np.ndarray]:
    """``stats.kappa_interval_of`` for many tables at once (R × k × k counts)."""
    k = tables.shape[1]
    v = _weights(k, quadratic)
    n = tables.sum((1, 2))
    p = tables / n[:, None, None]
    rows, cols = p.sum(2), p.sum(1)
    d = (p * v).sum((1, 2))
    e = np.einsum("ri,ij,rj->r", rows, v, cols)
    s = (tables + stats.PSEUDO_COUNT / k**2) / (n + stats.PSEUDO_COUNT)[:, None, None]
    s_rows, s_cols = s.sum(2), s.sum(1)
    share = np.einsum("ij,rj->ri", v, s_cols)[:, :, None] + np.einsum("ri,ij->rj", s_rows, v)[:, None, :]
    mean_v, mean_e = (s * v).sum((1, 2)), (s * share).sum((1, 2))
    dv, de = v[None] - mean_v[:, None, None], share - mean_e[:, None, None]
    var_v, var_e, cov = (s * dv * dv).sum((1, 2)), (s * de * de).sum((1, 2)), (s * dv * de).sum((1, 2))
    chance = np.einsum("ri,ij,rj->r", s_rows, v, s_cols)
    severity = np.einsum("ri,ij,rj->r", s_rows, v * v, s_cols) / chance
    c = NormalDist().inv_cdf(1 - (1 - level) / 2) ** 2 / n
    low = np.empty(len(n))
    high = np.empty(len(n))
    for r in range(len(n)):
        pieces = stats._solved(
            e[r] ** 2 - c[r] * var_e[r], -2 * d[r] * e[r] + 2 * c[r] * cov[r], d[r] ** 2 - c[r] * var_v[r]
        )
        pieces += stats._solved(e[r] ** 2 * (1 + c[r]), -2 * d[r] * e[r] - c[r] * e[r] * severity[r], d[r] ** 2)
        low[r] = max(-1.0, 1 - max(hi for _, hi in pieces))
        high[r] = min(1.0, 1 - min(lo for lo, _ in pieces))
    return low, high


def coverage_table(reps: int = REPS, seed: int = 33) -> dict[tuple[int, str, float], float]:
    """(n, kind, true κ) → the worst coverage over that cell's populations."""
    rng = np.random.default_rng(seed)
    table: dict[tuple[int, str, float], float] = {}
    for kappa in KAPPAS:
        for kind, quadratic, joint in _populations(kappa):
            k = joint.shape[0]
            truth = _kappa(joint, _weights(k, quadratic))
            assert truth == pytest.approx(kappa, abs=1e-9)
            for n in SIZES:
                tables = rng.multinomial(n, joint.ravel(), size=reps).reshape(reps, k, k)
                distinct, back = np.unique(tables, axis=0, return_inverse=True)
                low, high = _intervals(distinct.astype(float), quadratic)
                covered = ((low <= truth + 1e-9) & (truth - 1e-9 <= high))[back.ravel()]
                key = (n, kind, kappa)
                table[key] = min(table.get(key, 1.0), float(covered.mean()))
    return table


def test_the_vectorised_copy_is_the_products_interval():
    rng = np.random.default_rng(5)
    for quadratic, k in ((False, 2), (True, 5), (True, 3)):
        for n in (3, 12, 30, 100):
            joint = rng.dirichlet(np.ones(k * k))
            tables = rng.multinomial(n, joint, size=60).reshape(60, k, k)
            low, high = _intervals(tables.astype(float), quadratic)
            for table, lo, hi in zip(tables, low, high):
                ours = stats.kappa_interval_of(table.tolist(), "quadratic" if quadratic else None)
                assert ours == pytest.approx([lo, hi], abs=1e-9)


def test_the_kappa_interval_covers_the_true_kappa(capsys):
    table = coverage_table()
    with capsys.disabled():
        print("\nκ interval coverage (worst population per cell), 95 % level:")
        print("     n  kind     " + "  ".join(f"κ={k:.1f}" for k in KAPPAS))
        for n in SIZES:
            for kind in ("binary", "ordinal"):
                print(f"  {n:4d}  {kind:8s} " + "  ".join(f"{table[n, kind, k]:.3f}" for k in KAPPAS))
    short = {key: value for key, value in table.items() if value < FLOOR}
    assert not short, f"coverage below {FLOOR}: {short}"


@pytest.mark.parametrize(
    ("pairs", "weights"),
    [
        ([("MET", "MET"), ("MET", "MET"), ("UNMET", "UNMET")], None),  # 3 perfect labels
        ([("MET", "MET")] * 6 + [("UNMET", "UNMET")] * 6, None),  # 12 perfect labels
        ([("MET", "MET")] * 9 + [("UNMET", "MET")] * 3, None),  # a judge that always says MET
        ([("MET", "MET")] * 75 + [("UNMET", "MET")] * 25, None),
        ([(0, 0), (1, 1), (2, 2), (3, 3), (4, 4)], "quadratic"),
    ],
)
def test_a_handful_of_labels_never_gives_a_zero_width_interval(pairs, weights):
    low, high = stats.kappa_interval(pairs, weights)
    kappa = stats.cohen_kappa(pairs, weights)
    assert low <= kappa <= high
    assert high - low > 0.05
