"""Closed-form intervals and exact tests for shares, valid at every n (methods chosen by measured
coverage: `docs/methods/intervals.md`, `tests/benchmarks/bench_coverage.py`).

- `clopper_pearson(k, n)`: the exact binomial interval (beta quantiles; the same ends as
  `scipy.stats.binomtest(k, n).proportion_ci(method="exact")`). 6 of 6 gives [0.5407, 1].
- `score_interval(counts, support)`: the score interval for the mean of a variable that takes
  the values `support` (a finite set), from how many items took each value. It holds every mean
  m whose score statistic |S - N m| - cc over sqrt(N var(m)) is at most z, with S the sum of
  the values, N the items and var(m) the variance of the most likely distribution on the support
  with mean m (constrained maximum likelihood). On {0, 1} this is Wilson's interval, on
  {-1, 0, 1} (per item, the difference of two binary outcomes) Tango's interval for paired
  proportions; other supports (0, 1/2, 1 for the mean of two binary outcomes, j/k for k edits)
  follow the same rule. `cc`, the continuity correction, defaults to half the largest change one
  item can make to S (half the support's range): 0.5 on {0, 1} (Wilson's corrected interval), 1
  on {-1, 0, 1}.
- `score_p_value(counts, support, value)`: the two-sided test the interval inverts, at `value`
  (on {-1, 0, 1} at 0: McNemar's test with Edwards' continuity correction).
- `mcnemar_exact_p(b, c)`: the exact (conditional binomial) McNemar p-value on the discordant pairs.
- `two_sample_score_interval(x1, n1, x2, n2)`: Mee's score interval for p1 - p2 of two independent
  groups, with the Hauck-Anderson continuity correction 1 / (2 min(n1, n2)) (half the largest
  change one item makes to the difference); `two_sample_score_p_value` is its test at a value.
- `fisher_exact_p(x1, n1, x2, n2)`: Fisher's exact test of p1 = p2 (two-sided).
- `macro_f1_bounds(novel_share, wrong, n)`: the lowest and highest macro-F1 a pointwise judge can
  have when its share of wrong items (invalid counted wrong) lies in its Clopper-Pearson interval:
  a valid interval for macro-F1 where its bootstrap collapses to a point (every item right).

Everything is vectorised over a batch of tables where that matters (the coverage benchmark
computes every possible table at once); the roots are found by bisection, so each end is exact
to about 1e-12.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]
_BISECTIONS = 60  # halvings of the search interval: ends exact to about 2^-60 of its width
_NEWTON = (
    100  # at most this many safeguarded Newton steps for the tilt (they stop once it is still)
)
_TINY = 1e-300


def _scipy_stats() -> Any:
    """scipy.stats, imported on first use: a command that computes no interval or test never loads it
    (about half a second of every `inspect eval` start, and of every refusal of a bad option)."""
    from scipy import stats

    return stats


def z_of(confidence: float) -> float:
    """The two-sided normal quantile of a confidence level (1.96 at 0.95)."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    return float(_scipy_stats().norm.ppf(0.5 + confidence / 2))


def clopper_pearson(
    k: ArrayLike, n: ArrayLike, confidence: float = 0.95
) -> tuple[FloatArray, FloatArray]:
    """Exact binomial interval of k successes in n trials (NaN where n = 0)."""
    k_a, n_a = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    if np.any(k_a < 0) or np.any(k_a > n_a):
        raise ValueError("clopper_pearson needs 0 <= k <= n")
    alpha = 1.0 - confidence
    with np.errstate(invalid="ignore", divide="ignore"):
        low = np.where(
            k_a <= 0, 0.0, _scipy_stats().beta.ppf(alpha / 2, np.maximum(k_a, 1e-9), n_a - k_a + 1)
        )
        high = np.where(
            k_a >= n_a,
            1.0,
            _scipy_stats().beta.ppf(1 - alpha / 2, k_a + 1, np.maximum(n_a - k_a, 1e-9)),
        )
    empty = n_a <= 0
    return np.where(empty, np.nan, low), np.where(empty, np.nan, high)


def _support(support: ArrayLike) -> FloatArray:
    v = np.asarray(support, dtype=float)
    if v.ndim != 1 or v.size < 2 or not np.all(np.diff(v) > 0):
        raise ValueError("support must be at least two distinct values in increasing order")
    return v


def _counts(counts: ArrayLike, k: int) -> FloatArray:
    c = np.asarray(counts, dtype=float)
    if c.shape[-1] != k:
        raise ValueError(f"counts have {c.shape[-1]} categories, the support {k}")
    if np.any(c < 0):
        raise ValueError("counts must be non-negative")
    return np.atleast_2d(c)


def _three_point_variance(c: FloatArray, v: FloatArray, m: FloatArray) -> FloatArray:
    """`tilted_variance` on three values in closed form (Tango's quadratic, for any three values).

    With u = (m - v0) / (v2 - v0) and w = (v1 - v0) / (v2 - v0), the middle value's mass x sets
    p2 = u - w x and p0 = 1 - u - (1 - w) x; the likelihood's stationary point is the smaller root
    of N (1-w) w x^2 - (n1 ((1-u) w + u (1-w)) + n0 (1-w) u + n2 w (1-u)) x + n1 (1-u) u = 0,
    kept inside the values that leave p0 and p2 non-negative.
    """
    span = v[2] - v[0]
    u = (m - v[0]) / span
    w = (v[1] - v[0]) / span
    n0, n1, n2 = c[:, 0], c[:, 1], c[:, 2]
    total = c.sum(axis=1)
    a = total * (1 - w) * w
    b = -(n1 * ((1 - u) * w + u * (1 - w)) + n0 * (1 - w) * u + n2 * w * (1 - u))
    q = n1 * (1 - u) * u
    root = np.sqrt(np.maximum(b * b - 4 * a * q, 0.0))
    x = np.clip(2 * q / np.maximum(-b + root, _TINY), 0.0, np.minimum((1 - u) / (1 - w), u / w))
    p2 = np.clip(u - w * x, 0.0, None)
    p0 = np.clip(1 - u - (1 - w) * x, 0.0, None)
    return np.asarray(span**2 * (p0 * u**2 + x * (w - u) ** 2 + p2 * (1 - u) ** 2), dtype=float)


def tilted_variance(counts: ArrayLike, support: ArrayLike, mean: ArrayLike) -> FloatArray:
    """Variance of the most likely distribution on `support` with the given mean (per table).

    Maximising sum_j n_j log p_j subject to sum_j p_j v_j = m gives p_j = n_j / (N + t (v_j - m))
    for a tilt t; a value nobody took gets mass only at an end of the support, when the tilt
    reaches the bound where that end's weight becomes free (e.g. all items at 0 and m > 0: mass
    1 - m at 0 and m at the top, the Bernoulli variance m (1 - m)). `mean` must lie strictly
    inside the support's range.
    """
    v = _support(support)
    c = _counts(counts, v.size)
    m = np.broadcast_to(np.asarray(mean, dtype=float), c.shape[:1]).astype(float)
    if v.size == 2:  # the only distribution on two values with mean m
        return np.asarray((m - v[0]) * (v[1] - m), dtype=float)
    if v.size == 3:
        return _three_point_variance(c, v, m)
    total = c.sum(axis=1)
    d = v[None, :] - m[:, None]
    top, bottom = v[-1] - m, v[0] - m  # > 0, < 0
    t_lo, t_hi = (
        -total / top,
        total / -bottom,
    )  # the weights stay positive for t inside (t_lo, t_hi)

    def g(t: FloatArray) -> FloatArray:  # decreasing in t; its root is the tilt
        den = total[:, None] + t[:, None] * d
        return np.asarray(
            np.sum(np.where(c > 0, c * d / np.where(c > 0, den, 1.0), 0.0), axis=1), dtype=float
        )

    # An end nobody took bounds the tilt where its own weight would turn negative: there the
    # root may lie beyond, and the tilt stops at the bound with the rest of the mass on that end.
    top_free, bottom_free = c[:, -1] <= 0, c[:, 0] <= 0
    with np.errstate(divide="ignore", invalid="ignore"):
        at_lo = top_free & (g(t_lo) <= 0)
        at_hi = bottom_free & (g(t_hi) >= 0) & ~at_lo
    lo, hi = t_lo.copy(), t_hi.copy()
    t = np.zeros_like(total)
    # a table whose tilt has converged keeps it: each table's tilt is the one it gets solved alone
    settled = np.zeros(total.shape, dtype=bool)
    taken = c > 0
    cd = c * d
    cdd = cd * d
    with np.errstate(divide="ignore", invalid="ignore"):
        for _ in range(_NEWTON):
            den = np.where(taken, total[:, None] + t[:, None] * d, 1.0)
            val = np.sum(np.where(taken, cd / den, 0.0), axis=1)
            slope = -np.sum(np.where(taken, cdd / (den * den), 0.0), axis=1)
            lo = np.where(val > 0, t, lo)
            hi = np.where(val > 0, hi, t)
            step = t - val / slope
            inside = np.isfinite(step) & (step > lo) & (step < hi)
            new_t = np.where(inside, step, (lo + hi) / 2)
            converged = np.abs(new_t - t) <= 1e-13 * (1.0 + np.abs(t))
            t = np.where(settled, t, new_t)
            settled |= converged
            if settled.all():
                break
    t = np.where(at_lo, t_lo, np.where(at_hi, t_hi, t))
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(c > 0, c / (total[:, None] + t[:, None] * d), 0.0)
    rest = np.clip(1.0 - p.sum(axis=1), 0.0, None)
    var = np.sum(p * d * d, axis=1)
    var = var + np.where(at_lo, rest * top**2, 0.0) + np.where(at_hi, rest * bottom**2, 0.0)
    return np.asarray(var, dtype=float)


def default_cc(support: ArrayLike) -> float:
    """Half the largest change one item can make to the sum: half the support's range."""
    v = _support(support)
    return float(v[-1] - v[0]) / 2


def _score(
    counts: FloatArray, v: FloatArray, m: FloatArray, cc: float, side: float | FloatArray
) -> FloatArray:
    """(S - N m - side * cc) / sqrt(N var(m)): side +1 for the lower end's test, -1 for the upper's."""
    total = counts.sum(axis=1)
    s = counts @ v
    var = tilted_variance(counts, v, m)
    return np.asarray(
        (s - total * m - side * cc) / np.sqrt(np.maximum(total * var, _TINY)), dtype=float
    )


def score_interval(
    counts: ArrayLike, support: ArrayLike, confidence: float = 0.95, cc: float | None = None
) -> tuple[FloatArray, FloatArray]:
    """Continuity-corrected score interval for the mean, per table of counts (NaN for no items)."""
    v = _support(support)
    c = _counts(counts, v.size)
    cc = default_cc(v) if cc is None else float(cc)
    if (
        c.shape[0] == 1
    ):  # one table (an audit's figure): the same table recurs across figures and replays
        low, high = _one_score_interval(
            tuple(c[0].tolist()), tuple(v.tolist()), float(confidence), cc
        )
        return np.array([low]), np.array([high])
    return _score_intervals(c, v, confidence, cc)


@lru_cache(maxsize=4096)
def _one_score_interval(
    counts: tuple[float, ...], support: tuple[float, ...], confidence: float, cc: float
) -> tuple[float, float]:
    """`score_interval` of one table, remembered (the batch computation, so the same ends to the bit)."""
    low, high = _score_intervals(np.array([counts]), np.array(support), confidence, cc)
    return float(low[0]), float(high[0])


def _score_intervals(
    c: FloatArray, v: FloatArray, confidence: float, cc: float
) -> tuple[FloatArray, FloatArray]:
    """`score_interval` of checked tables `c` (one per row) on the checked support `v`."""
    z = z_of(confidence)
    total = c.sum(axis=1)
    ok = total > 0
    c_ok = np.where(
        ok[:, None], c, 1.0
    )  # placeholder tables for empty rows (their ends become NaN)
    mean = (c_ok @ v) / c_ok.sum(axis=1)
    span = v[-1] - v[0]
    eps = 1e-12 * span

    # Both ends at once: the tables twice over, the lower end's test (side +1, target z) on the first
    # copy and the upper end's (side -1, target -z) on the second; each row is solved as if alone.
    rows = mean.size
    both = np.concatenate([c_ok, c_ok])
    side = np.repeat([1.0, -1.0], rows)
    target = side * z
    bottom, top = np.full_like(mean, v[0] + eps), np.full_like(mean, v[-1] - eps)
    # the score is decreasing in m: bisection between the support's end and the mean
    lo, hi = np.concatenate([bottom, mean]), np.concatenate([mean, top])
    for _ in range(_BISECTIONS):
        mid = (lo + hi) / 2
        above = _score(both, v, mid, cc, side) > target
        lo, hi = np.where(above, mid, lo), np.where(above, hi, mid)
    ends = (lo + hi) / 2
    # the interval reaches an end of the support when the test never rejects before it
    reach = _score(both, v, np.concatenate([bottom, top]), cc, side)
    low = np.where(reach[:rows] <= z, v[0], ends[:rows])
    high = np.where(reach[rows:] >= -z, v[-1], ends[rows:])
    low, high = np.minimum(low, mean), np.maximum(high, mean)
    return np.where(ok, low, np.nan), np.where(ok, high, np.nan)


def score_p_value(
    counts: ArrayLike, support: ArrayLike, value: float, cc: float | None = None
) -> FloatArray:
    """Two-sided p-value of the score test of mean = `value` (the test `score_interval` inverts)."""
    v = _support(support)
    c = _counts(counts, v.size)
    if not v[0] < value < v[-1]:
        raise ValueError(f"the tested mean {value} must lie strictly inside the support's range")
    cc = default_cc(v) if cc is None else float(cc)
    total = c.sum(axis=1)
    gap = np.maximum(np.abs(c @ v - total * value) - cc, 0.0)
    var = tilted_variance(np.where(total[:, None] > 0, c, 1.0), v, np.full(c.shape[0], value))
    with np.errstate(divide="ignore", invalid="ignore"):
        zs = np.where(gap > 0, gap / np.sqrt(np.maximum(total * var, _TINY)), 0.0)
    return np.where(total > 0, np.minimum(1.0, 2 * _scipy_stats().norm.sf(zs)), np.nan)


def mcnemar_exact_p(b: int, c: int) -> float:
    """Exact two-sided McNemar p-value: b of the b + c discordant pairs under Binomial(b + c, 1/2)."""
    if b < 0 or c < 0:
        raise ValueError("discordant counts must be non-negative")
    if b + c == 0:
        return 1.0
    return float(_scipy_stats().binomtest(int(b), int(b + c), 0.5).pvalue)


def _two_sample_mle(
    x1: FloatArray, n1: FloatArray, x2: FloatArray, n2: FloatArray, d0: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Most likely (p1, p2) with p1 - p2 = d0: Farrington and Manning's closed form (the root of a
    cubic), with bisection on the profile score where the closed form leaves the feasible range."""
    r1, r2 = x1 / n1, x2 / n2
    theta = n2 / n1
    a = 1 + theta
    b = -(1 + theta + r1 + theta * r2 + d0 * (theta + 2))
    c = d0 * d0 + d0 * (2 * r1 + theta + 1) + r1 + theta * r2
    d = -r1 * d0 * (1 + d0)
    v = b**3 / (27 * a**3) - b * c / (6 * a * a) + d / (2 * a)
    with np.errstate(divide="ignore", invalid="ignore"):
        u = np.sign(v) * np.sqrt(np.maximum(b * b / (9 * a * a) - c / (3 * a), 0.0))
        w = (np.pi + np.arccos(np.clip(v / u**3, -1.0, 1.0))) / 3
        p1 = 2 * u * np.cos(w) - b / (3 * a)
    p2 = p1 - d0
    bad = ~(
        np.isfinite(p1) & (p1 >= -1e-12) & (p1 <= 1 + 1e-12) & (p2 >= -1e-12) & (p2 <= 1 + 1e-12)
    )
    if bad.any():
        q1, q2 = _two_sample_mle_bisection(x1[bad], n1[bad], x2[bad], n2[bad], d0[bad])
        p1, p2 = p1.copy(), p2.copy()
        p1[bad], p2[bad] = q1, q2
    return np.clip(p1, 0.0, 1.0), np.clip(p2, 0.0, 1.0)


def _two_sample_mle_bisection(
    x1: FloatArray, n1: FloatArray, x2: FloatArray, n2: FloatArray, d0: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Most likely (p1, p2) with p1 - p2 = d0 by bisection on the profile score in p2 (concave likelihood)."""
    lo = np.maximum(0.0, -d0)
    hi = np.minimum(1.0, 1.0 - d0)

    def score(p2: FloatArray) -> FloatArray:
        p1 = p2 + d0
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = (
                np.where(x1 > 0, x1 / p1, 0.0)
                - np.where(n1 - x1 > 0, (n1 - x1) / (1 - p1), 0.0)
                + np.where(x2 > 0, x2 / p2, 0.0)
                - np.where(n2 - x2 > 0, (n2 - x2) / (1 - p2), 0.0)
            )
        return np.asarray(terms, dtype=float)

    a, b = lo.copy(), hi.copy()
    for _ in range(_BISECTIONS):
        mid = (a + b) / 2
        up = score(mid) > 0
        a, b = np.where(up, mid, a), np.where(up, b, mid)
    p2 = (a + b) / 2
    return p2 + d0, p2


def _two_sample_score(
    x1: FloatArray,
    n1: FloatArray,
    x2: FloatArray,
    n2: FloatArray,
    d0: FloatArray,
    cc: FloatArray,
    side: float | FloatArray,
) -> FloatArray:
    p1, p2 = _two_sample_mle(x1, n1, x2, n2, d0)
    var = p1 * (1 - p1) / n1 + p2 * (1 - p2) / n2
    return np.asarray(
        (x1 / n1 - x2 / n2 - d0 - side * cc) / np.sqrt(np.maximum(var, _TINY)), dtype=float
    )


def hauck_anderson_cc(n1: ArrayLike, n2: ArrayLike) -> FloatArray:
    """Half the largest change one item makes to p1 - p2: 1 / (2 min(n1, n2))."""
    return np.asarray(
        1.0 / (2.0 * np.minimum(np.asarray(n1, dtype=float), np.asarray(n2, dtype=float))),
        dtype=float,
    )


def _two_sample_args(
    x1: ArrayLike, n1: ArrayLike, x2: ArrayLike, n2: ArrayLike
) -> tuple[FloatArray, ...]:
    arrays = np.broadcast_arrays(
        *(np.atleast_1d(np.asarray(a, dtype=float)) for a in (x1, n1, x2, n2))
    )
    a1, m1, a2, m2 = (np.array(a, dtype=float) for a in arrays)
    if np.any(m1 <= 0) or np.any(m2 <= 0):
        raise ValueError("both groups need at least one item")
    if np.any((a1 < 0) | (a1 > m1) | (a2 < 0) | (a2 > m2)):
        raise ValueError("successes must lie between 0 and the group size")
    return a1, m1, a2, m2


def two_sample_score_interval(
    x1: ArrayLike, n1: ArrayLike, x2: ArrayLike, n2: ArrayLike, confidence: float = 0.95
) -> tuple[FloatArray, FloatArray]:
    """Mee's score interval for p1 - p2 of two independent groups, Hauck-Anderson corrected."""
    a1, m1, a2, m2 = _two_sample_args(x1, n1, x2, n2)
    z = z_of(confidence)
    cc = hauck_anderson_cc(m1, m2)
    est = a1 / m1 - a2 / m2
    eps = 1e-12

    # both ends in one bisection, as in `score_interval`: the groups twice over, one copy per end
    rows = est.size
    b1, k1, b2, k2, cc2 = (np.concatenate([a, a]) for a in (a1, m1, a2, m2, cc))
    side = np.repeat([1.0, -1.0], rows)
    target = side * z
    bottom, top = np.full_like(est, -1 + eps), np.full_like(est, 1 - eps)
    lo, hi = np.concatenate([bottom, est]), np.concatenate([est, top])
    for _ in range(_BISECTIONS):
        mid = (lo + hi) / 2
        above = _two_sample_score(b1, k1, b2, k2, mid, cc2, side) > target
        lo, hi = np.where(above, mid, lo), np.where(above, hi, mid)
    ends = (lo + hi) / 2
    reach = _two_sample_score(b1, k1, b2, k2, np.concatenate([bottom, top]), cc2, side)
    low = np.where(reach[:rows] <= z, -1.0, ends[:rows])
    high = np.where(reach[rows:] >= -z, 1.0, ends[rows:])
    return np.minimum(low, est), np.maximum(high, est)


def two_sample_score_p_value(
    x1: ArrayLike, n1: ArrayLike, x2: ArrayLike, n2: ArrayLike, value: float = 0.0
) -> FloatArray:
    """Two-sided p-value of the corrected score test of p1 - p2 = `value` (what the interval inverts)."""
    a1, m1, a2, m2 = _two_sample_args(x1, n1, x2, n2)
    d0 = np.full_like(a1, float(value))
    p1, p2 = _two_sample_mle(a1, m1, a2, m2, d0)
    var = p1 * (1 - p1) / m1 + p2 * (1 - p2) / m2
    gap = np.maximum(np.abs(a1 / m1 - a2 / m2 - value) - hauck_anderson_cc(m1, m2), 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        zs = np.where(gap > 0, gap / np.sqrt(np.maximum(var, _TINY)), 0.0)
    return np.asarray(np.minimum(1.0, 2 * _scipy_stats().norm.sf(zs)), dtype=float)


def fisher_exact_p(x1: int, n1: int, x2: int, n2: int) -> float:
    """Fisher's exact two-sided p-value for p1 = p2."""
    table = [[int(x1), int(n1 - x1)], [int(x2), int(n2 - x2)]]
    return float(_scipy_stats().fisher_exact(table, alternative="two-sided").pvalue)


def _f1(tp: FloatArray, fp: FloatArray, fn: FloatArray) -> FloatArray:
    """2 TP / (2 TP + FP + FN), NaN for a class neither in gold nor predicted (left out of the mean)."""
    den = 2 * tp + fp + fn
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(
            np.where(den > 0, 2 * tp / np.where(den > 0, den, 1.0), np.nan), dtype=float
        )


def _macro_f1_range(novel_share: float, wrong: float) -> tuple[float, float]:
    """(min, max) population macro-F1 over every way to spread a wrong share `wrong` over the classes.

    With x of the wrong share on gold novel and w - x on gold not novel, a wrong item is a miss of its
    class and at most a false positive of the other: no false positive (every wrong verdict invalid)
    gives the highest F1, one per miss (every miss predicts the other class) the lowest.
    """
    g0, g1 = novel_share, 1.0 - novel_share
    x = np.linspace(max(0.0, wrong - g1), min(wrong, g0), 2001)
    tp0, tp1, fn0, fn1 = g0 - x, g1 - (wrong - x), x, wrong - x
    zero = np.zeros_like(x)
    with np.errstate(invalid="ignore"):
        best = np.nanmean(np.stack([_f1(tp0, zero, fn0), _f1(tp1, zero, fn1)]), axis=0)
        worst = np.nanmean(np.stack([_f1(tp0, fn1, fn0), _f1(tp1, fn0, fn1)]), axis=0)
    return float(np.nanmin(worst)), float(np.nanmax(best))


def macro_f1_bounds(
    novel_share: float, wrong: int, n: int, confidence: float = 0.95
) -> tuple[float, float]:
    """A valid interval for macro-F1 from the Clopper-Pearson interval of the share of wrong items
    (invalid counted wrong): the lowest macro-F1 at its upper end, the highest at its lower end."""
    w_low, w_high = clopper_pearson(wrong, n, confidence)
    return _macro_f1_range(novel_share, float(w_high))[0], _macro_f1_range(
        novel_share, float(w_low)
    )[1]
