"""Closed-form intervals and exact tests (judgeaudit.stats.exact) against hand-computed values and
against implementations we did not write (scipy's binomtest intervals, Fisher's test) or wrote
apart from the code under test (Tango's closed-form likelihood, Farrington and Manning's cubic)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from judgeaudit.stats.exact import (
    _score_intervals,
    _two_sample_mle,
    _two_sample_mle_bisection,
    clopper_pearson,
    default_cc,
    fisher_exact_p,
    macro_f1_bounds,
    mcnemar_exact_p,
    score_interval,
    score_p_value,
    tilted_variance,
    two_sample_score_interval,
    two_sample_score_p_value,
)

Z = float(stats.norm.ppf(0.975))


def _all_tables(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Every (b, c) with b + c <= n, as float arrays."""
    b, c = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
    keep = b + c <= n
    return b[keep].astype(float), c[keep].astype(float)


def _trinomial(b: np.ndarray, c: np.ndarray, n: int) -> np.ndarray:
    """Counts on the support (-1, 0, 1): c items at -1, the rest at 0, b at +1."""
    return np.stack([c, n - b - c, b], axis=1)


# ---- Clopper-Pearson -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [
        (6, 6, 0.025 ** (1 / 6), 1.0),  # 0.5407: P(6 of 6) = p^6 = 2.5% at the lower end
        (0, 6, 0.0, 1 - 0.025 ** (1 / 6)),
        (1, 1, 0.025, 1.0),
        (0, 1, 0.0, 0.975),
        (30, 30, 0.025 ** (1 / 30), 1.0),
    ],
)
def test_clopper_pearson_by_hand(k: int, n: int, low: float, high: float) -> None:
    lo, hi = clopper_pearson(k, n)
    assert (float(lo), float(hi)) == (pytest.approx(low, abs=1e-12), pytest.approx(high, abs=1e-12))
    assert round(0.025 ** (1 / 6), 4) == 0.5407


def test_clopper_pearson_equals_scipy_binomtest_exact_interval() -> None:
    for n in range(1, 31):
        k = np.arange(n + 1)
        lo, hi = clopper_pearson(k, n)
        for kk in range(n + 1):
            ci = stats.binomtest(kk, n).proportion_ci(confidence_level=0.95, method="exact")
            assert lo[kk] == pytest.approx(ci.low, abs=1e-10) and hi[kk] == pytest.approx(
                ci.high, abs=1e-10
            )


def test_clopper_pearson_properties_and_bad_input() -> None:
    for n in (1, 2, 5, 20, 150):
        k = np.arange(n + 1)
        lo, hi = clopper_pearson(k, n)
        assert np.all((0 <= lo) & (lo <= k / n) & (k / n <= hi) & (hi <= 1))
        assert np.all(np.diff(lo) > 0) and np.all(np.diff(hi) > 0)  # monotone in k
        assert np.all(hi - lo > 0)  # never a point, at any n >= 1
    assert np.isnan(clopper_pearson(0, 0)).all()
    with pytest.raises(ValueError, match="0 <= k <= n"):
        clopper_pearson(7, 6)


# ---- the score interval on a finite support ----------------------------------------------------


def test_on_zero_one_it_is_wilson_and_its_corrected_form() -> None:
    for n in (1, 2, 6, 20, 150):
        k = np.arange(n + 1.0)
        counts = np.stack([n - k, k], axis=1)
        plain = score_interval(counts, [0, 1], cc=0.0)
        corrected = score_interval(counts, [0, 1])  # cc = 1/2, half the support's range
        for kk in range(n + 1):
            w = stats.binomtest(kk, n).proportion_ci(method="wilson")
            wcc = stats.binomtest(kk, n).proportion_ci(method="wilsoncc")
            assert plain[0][kk] == pytest.approx(w.low, abs=1e-9) and plain[1][kk] == pytest.approx(
                w.high, abs=1e-9
            )
            assert corrected[0][kk] == pytest.approx(wcc.low, abs=1e-9)
            assert corrected[1][kk] == pytest.approx(wcc.high, abs=1e-9)
    # by hand: Wilson's lower end of 6 of 6 is 6 / (6 + z^2)
    assert float(score_interval([[0, 6]], [0, 1], cc=0.0)[0][0]) == pytest.approx(
        6 / (6 + Z * Z), abs=1e-10
    )


def _tango(b: np.ndarray, c: np.ndarray, n: int, cc: float) -> tuple[np.ndarray, np.ndarray]:
    """Tango's interval written from his closed-form constrained likelihood (a quadratic in p21)."""

    def t(d: np.ndarray, side: float) -> np.ndarray:
        qa, qb, qc = 2 * n, -b - c + (2 * n - b + c) * d, -c * d * (1 - d)
        p21 = (np.sqrt(np.maximum(qb * qb - 4 * qa * qc, 0)) - qb) / (2 * qa)
        return (b - c - n * d - side * cc) / np.sqrt(
            np.maximum(n * (2 * p21 + d * (1 - d)), 1e-300)
        )

    def solve(side: float, target: float) -> np.ndarray:
        lo, hi = np.full_like(b, -1 + 1e-12), np.full_like(b, 1 - 1e-12)
        for _ in range(80):
            mid = (lo + hi) / 2
            above = t(mid, side) > target
            lo, hi = np.where(above, mid, lo), np.where(above, hi, mid)
        return (lo + hi) / 2

    est = (b - c) / n
    low = np.where(est <= -1, -1.0, np.minimum(solve(1.0, Z), est))
    high = np.where(est >= 1, 1.0, np.maximum(solve(-1.0, -Z), est))
    return low, high


@pytest.mark.parametrize("n", [1, 5, 6, 20, 50])
@pytest.mark.parametrize("cc", [0.0, 1.0])
def test_on_minus_one_zero_one_it_is_tangos_interval(n: int, cc: float) -> None:
    b, c = _all_tables(n)
    lo, hi = score_interval(_trinomial(b, c, n), [-1, 0, 1], cc=cc)
    tl, th = _tango(b, c, n, cc)
    assert np.abs(lo - tl).max() < 1e-8 and np.abs(hi - th).max() < 1e-8


def test_every_item_discordant_one_way_by_hand() -> None:
    """b = n of n: the likely distribution with mean m puts (1 - m) / 2 on -1, so var = 1 - m^2."""
    n = 6
    plain = float(score_interval([[0, 0, n]], [-1, 0, 1], cc=0.0)[0][0])
    assert plain == pytest.approx((n - Z * Z) / (n + Z * Z), abs=1e-10)  # 0.2193
    # with the correction of 1: (n - 1 - n m)^2 = z^2 n (1 - m^2), the smaller root
    qa, qb, qc = n * n + Z * Z * n, -2 * n * (n - 1), (n - 1) ** 2 - Z * Z * n
    root = (-qb - math.sqrt(qb * qb - 4 * qa * qc)) / (2 * qa)
    lo, hi = score_interval([[0, 0, n]], [-1, 0, 1])
    assert (
        float(lo[0]) == pytest.approx(root, abs=1e-10)
        and round(root, 4) == 0.0336
        and float(hi[0]) == 1.0
    )


def test_no_item_discordant_by_hand() -> None:
    """All n items at 0: the upper end solves (n m - 1)^2 = z^2 n m (1 - m) (mass m on +1)."""
    n = 30
    qa, qb = n * n + Z * Z * n, -(2 * n + Z * Z * n)
    upper = (-qb + math.sqrt(qb * qb - 4 * qa)) / (2 * qa)
    lo, hi = score_interval([[0, n, 0]], [-1, 0, 1])
    assert float(hi[0]) == pytest.approx(upper, abs=1e-10) and float(lo[0]) == pytest.approx(
        -upper, abs=1e-10
    )


def test_three_value_closed_form_equals_the_general_tilt() -> None:
    """An unobserved value inside the support gets no mass, so adding one must not change the variance:
    this runs the general (Newton) path against the three-value closed form."""
    rng = np.random.default_rng(0)
    counts = rng.integers(0, 6, (500, 3)).astype(float)
    counts[counts.sum(axis=1) == 0, 1] = 1
    m = rng.uniform(-0.999, 0.999, 500)
    three = tilted_variance(counts, [-1, 0, 1], m)
    four = tilted_variance(np.insert(counts, 1, 0.0, axis=1), [-1, -0.5, 0, 1], m)
    assert np.abs(three - four).max() < 1e-9
    # all items at the bottom of j/4: the likely distribution is Bernoulli on the two ends
    assert tilted_variance([[7, 0, 0, 0, 0]], [0, 0.25, 0.5, 0.75, 1], [0.3])[0] == pytest.approx(
        0.3 * 0.7
    )


def test_score_interval_properties() -> None:
    for n in (1, 5, 12):
        b, c = _all_tables(n)
        lo, hi = score_interval(_trinomial(b, c, n), [-1, 0, 1])
        est = (b - c) / n
        assert np.all((-1 <= lo) & (lo <= est) & (est <= hi) & (hi <= 1)) and np.all(hi > lo)
        for cc in range(n + 1):  # monotone in b at fixed c
            pick = c == cc
            assert np.all(np.diff(lo[pick]) > 0) and np.all(np.diff(hi[pick]) >= 0)
    k = np.arange(9.0)
    lo, hi = score_interval(np.stack([8 - k, np.zeros(9), k], axis=1), [0, 0.5, 1])
    assert np.all(np.diff(lo) > 0) and np.all(np.diff(hi) > 0)
    assert np.isnan(score_interval([[0, 0, 0]], [-1, 0, 1])).all()  # no items: no interval
    assert default_cc([-1, 0, 1]) == 1.0 and default_cc([0, 0.5, 1]) == 0.5


@pytest.mark.parametrize(
    ("counts", "support", "message"),
    [
        ([[1, 2]], [0, 1, 2], "2 categories"),
        ([[1, 2]], [1, 0], "increasing order"),
        ([[-1, 2]], [0, 1], "non-negative"),
    ],
)
def test_bad_score_inputs(counts: list, support: list, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        score_interval(counts, support)


# ---- tests --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("b", "c", "p"),
    [
        (6, 0, 2 * 0.5**6),  # 0.03125
        (5, 1, 2 * (1 + 6) / 64),  # 0.21875
        (3, 3, 1.0),
        (0, 0, 1.0),
        (0, 1, 1.0),
        (10, 2, 2 * (1 + 12 + 66) / 4096),
    ],
)
def test_exact_mcnemar_by_hand(b: int, c: int, p: float) -> None:
    assert mcnemar_exact_p(b, c) == pytest.approx(p, abs=1e-12)


def test_score_test_at_zero_is_mcnemar_with_edwards_correction() -> None:
    b, c = _all_tables(12)
    p = score_p_value(_trinomial(b, c, 12), [-1, 0, 1], 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(b + c > 0, np.maximum(np.abs(b - c) - 1, 0) / np.sqrt(b + c), 0.0)
    assert np.abs(p - 2 * stats.norm.sf(z)).max() < 1e-10
    assert float(score_p_value([[0, 0, 6]], [-1, 0, 1], 0.0)[0]) == pytest.approx(
        2 * stats.norm.sf(5 / math.sqrt(6))
    )
    # the interval excludes 0 exactly when its test rejects
    lo, hi = score_interval(_trinomial(b, c, 12), [-1, 0, 1])
    assert np.array_equal((lo > 0) | (hi < 0), p < 0.05)


def test_fisher_by_hand() -> None:
    assert fisher_exact_p(6, 6, 0, 6) == pytest.approx(2 / 924)  # 2 / C(12, 6)
    assert fisher_exact_p(3, 3, 0, 3) == pytest.approx(2 / 20)


def test_two_sample_likelihood_equals_bisection_and_the_interval_ends_are_roots() -> None:
    rng = np.random.default_rng(1)
    n1, n2 = rng.integers(1, 40, 3000).astype(float), rng.integers(1, 40, 3000).astype(float)
    x1, x2 = np.floor(rng.random(3000) * (n1 + 1)), np.floor(rng.random(3000) * (n2 + 1))
    d0 = rng.uniform(-0.99, 0.99, 3000)
    closed, bisected = (
        _two_sample_mle(x1, n1, x2, n2, d0),
        _two_sample_mle_bisection(x1, n1, x2, n2, d0),
    )
    assert np.abs(closed[0] - bisected[0]).max() < 1e-9
    # the test at 0 by hand: pooled p = 1/2, var = p (1 - p) (1/6 + 1/6), correction 1/12
    assert float(two_sample_score_p_value(6, 6, 0, 6)[0]) == pytest.approx(
        2 * stats.norm.sf((1 - 1 / 12) / math.sqrt(0.25 / 3))
    )
    lo, hi = two_sample_score_interval(4, 9, 1, 7)
    assert float(two_sample_score_p_value(4, 9, 1, 7, float(lo[0]))[0]) == pytest.approx(
        0.05, abs=1e-6
    )
    assert float(two_sample_score_p_value(4, 9, 1, 7, float(hi[0]))[0]) == pytest.approx(
        0.05, abs=1e-6
    )


def test_two_sample_interval_properties() -> None:
    k1, k2 = np.meshgrid(np.arange(9), np.arange(6), indexing="ij")
    lo, hi = two_sample_score_interval(k1.ravel(), 8, k2.ravel(), 5)
    est = k1.ravel() / 8 - k2.ravel() / 5
    assert np.all((-1 <= lo) & (lo <= est) & (est <= hi) & (hi <= 1)) and np.all(hi > lo)
    grid_lo = lo.reshape(9, 6)
    assert np.all(np.diff(grid_lo, axis=0) > 0) and np.all(np.diff(grid_lo, axis=1) < 0)
    with pytest.raises(ValueError, match="at least one item"):
        two_sample_score_interval(0, 0, 1, 2)


def test_macro_f1_bounds_by_hand() -> None:
    """12 of 12 right, classes half and half: the wrong share is at most w = 1 - 0.025^(1/12) = 0.265; the
    lowest macro-F1 puts all of it on one class with every miss predicting the other:
    ((1 - 2w) / (1 - w) + 1 / (1 + w)) / 2."""
    w = 1 - 0.025 ** (1 / 12)
    low, high = macro_f1_bounds(0.5, 0, 12)
    assert low == pytest.approx(((1 - 2 * w) / (1 - w) + 1 / (1 + w)) / 2, abs=1e-6) and high == 1.0
    # every item wrong: the upper end comes from the lower end of the wrong share, 0.025^(1/12)
    low, high = macro_f1_bounds(0.5, 12, 12)
    assert low == 0.0 and 0 < high < 0.5
    # one class only: a wrong verdict on it may predict the absent class, whose F1 is then 0
    assert macro_f1_bounds(1.0, 0, 12)[0] < 0.5


def test_one_table_s_remembered_interval_is_its_computation_to_the_bit() -> None:
    """A single table's ends are remembered (they recur across an audit's figures and replays): the same
    bits as computing that table alone, every time, empty tables included; and within 1e-12 of the ends the
    vectorised computation gives it inside a batch (whose shared Newton steps run until every row is still)."""
    rng = np.random.default_rng(3)
    for support in ([0.0, 1.0], [-1.0, 0.0, 1.0], [0.0, 0.25, 0.5, 0.75, 1.0]):
        tables = rng.integers(0, 6, size=(12, len(support))).astype(float)
        tables[0] = 0.0  # no items: NaN ends
        tables[1] = [0.0] * (len(support) - 1) + [7.0]  # every item at the top
        batch_low, batch_high = score_interval(tables, support)
        for k, table in enumerate(tables):
            alone = _score_intervals(table[None, :], np.array(support), 0.95, default_cc(support))
            for _ in range(2):  # computed, then remembered
                low, high = score_interval(table, support)
                assert low.shape == high.shape == (1,)
                assert np.array_equal(low, alone[0], equal_nan=True) and np.array_equal(
                    high, alone[1], equal_nan=True
                )
            assert np.allclose(
                [low[0], high[0]], [batch_low[k], batch_high[k]], rtol=0, atol=1e-12, equal_nan=True
            )
