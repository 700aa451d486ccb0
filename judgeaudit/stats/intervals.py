"""The interval of every metric and figure, by the kind of figure it is (formulas in `stats.exact`,
the bootstrap in `stats.bootstrap`).

Which figure gets which method, the noise-corrected flip rate's assumption, when a difference is
significant, and the measured coverage of each: docs/methods/intervals.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike

from judgeaudit.stats.bootstrap import (
    bootstrap_many,
    bootstrap_metric,
    paired_bootstrap,
    paired_bootstrap_many,
    reference_pairs,
)
from judgeaudit.stats.defaults import (
    BOUND_METHOD,
    CORRECTED_METHOD,
    DEFAULT_CONFIDENCE,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    EXACT_MCNEMAR,
    FISHER_EXACT,
    PAIRED_SCORE_METHOD,
    RATE_METHOD,
    SCORE_METHOD,
    SCORE_TEST,
    UNPAIRED_SCORE_METHOD,
)
from judgeaudit.stats.exact import (
    clopper_pearson,
    fisher_exact_p,
    mcnemar_exact_p,
    score_interval,
    score_p_value,
    two_sample_score_interval,
    two_sample_score_p_value,
)
from judgeaudit.stats.metrics import BINARY, FloatArray, Mean, Metric, applicable
from judgeaudit.stats.results import (
    NAN,
    STATUS_NO_COMPARABLE,
    STATUS_NO_ITEMS,
    STATUS_OK,
    STATUS_UNDEFINED,
    Interval,
    PairedDifference,
    Tally,
    UnpairedDifference,
    answer_status,
    excluded_items,
    n_items,
    paired_check,
    proper,
)
from judgeaudit.stats.unpaired import unpaired_bootstrap

_TOLERANCE = (
    1e-9  # how far a value may sit from its support point (float noise of means such as 1/3)
)


def closed_form(metric: Metric) -> Mean | None:
    """The metric's per-item column when it has one (its interval is then a closed form), else None."""
    return metric.mean if isinstance(metric, Metric) else None


def support_counts(
    values: ArrayLike, support: tuple[float, ...], name: str = "values"
) -> FloatArray:
    """How many of `values` sit at each point of `support` (a value off the support is an error)."""
    v = np.asarray(values, dtype=float).ravel()
    points = np.asarray(support, dtype=float)
    idx = np.abs(v[:, None] - points[None, :]).argmin(axis=1) if v.size else np.zeros(0, dtype=int)
    off = v.size and np.abs(v - points[idx]).max() > _TOLERANCE
    if off:
        bad = sorted({float(x) for x in v if np.abs(points - x).min() > _TOLERANCE})[:5]
        raise ValueError(f"{name}: values {bad} are not on the declared support {support}")
    return np.bincount(idx, minlength=points.size).astype(float)


def _used(outcomes: Mapping[str, ArrayLike], metric: Metric, mean: Mean) -> np.ndarray:
    """Per item: whether it enters the mean (a number in every column of the metric, and in `over`)."""
    mask = applicable({c: outcomes[c] for c in metric.columns})
    if mean.over is not None:
        mask &= np.asarray(outcomes[mean.over], dtype=float) == 1.0
    return np.asarray(mask, dtype=bool)


@lru_cache(maxsize=4096)
def _clopper_pearson_once(k: float, n: float, confidence: float) -> tuple[float, float]:
    """`clopper_pearson` of one count, remembered: a report's rates repeat (0 errors of 300 items
    for every configuration), and each costs two calls of scipy's beta quantile."""
    low, high = clopper_pearson(k, n, confidence)
    return float(low), float(high)


def rate_interval(
    values: ArrayLike,
    support: tuple[float, ...],
    confidence: float = DEFAULT_CONFIDENCE,
    name: str = "values",
) -> tuple[float, float, str]:
    """(low, high, method) of the mean of per-item values on `support`: Clopper-Pearson on 0/1,
    else the score interval. No value: NaN ends."""
    v = np.asarray(values, dtype=float).ravel()
    counts = support_counts(v, support, name)
    if tuple(support) == BINARY:
        low, high = _clopper_pearson_once(float(counts[1]), float(counts.sum()), confidence)
        return low, high, RATE_METHOD
    lo, hi = score_interval(counts, support, confidence)
    return float(lo[0]), float(hi[0]), SCORE_METHOD


def interval(
    outcomes: Mapping[str, ArrayLike],
    metric: Metric,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> Interval:
    """The metric's interval: a closed form for the mean of a per-item column, else the percentile bootstrap."""
    mean = closed_form(metric)
    if mean is None:
        return _unless_point(
            bootstrap_metric(outcomes, metric, resamples, seed, confidence), outcomes, metric
        )
    method = RATE_METHOD if tuple(mean.support) == BINARY else SCORE_METHOD
    n = n_items(outcomes)
    excluded = excluded_items(outcomes, metric) if n else 0
    status = answer_status(outcomes, metric, excluded)
    if status != STATUS_OK:
        return Interval(NAN, NAN, NAN, confidence, method, None, None, n, 0, status, excluded)
    estimate = float(metric(outcomes))
    if not np.isfinite(estimate):
        return Interval(
            NAN, NAN, NAN, confidence, method, None, None, n, 0, STATUS_UNDEFINED, excluded
        )
    values = np.asarray(outcomes[mean.column], dtype=float)[_used(outcomes, metric, mean)]
    tally = None
    if (
        values.size == 0
    ):  # a convention value on no item (precision of a class never predicted): nothing known
        low, high = metric.bounds
    else:
        low, high, method = rate_interval(values, mean.support, confidence, metric.name)
        tally = tally_of(mean.support, support_counts(values, mean.support, metric.name))
    return Interval(
        estimate,
        float(low),
        float(high),
        confidence,
        method,
        None,
        None,
        n,
        0,
        STATUS_OK,
        excluded,
        tally,
    )


def tally_of(support: tuple[float, ...], *rows: ArrayLike) -> Tally:
    """The counts behind a closed-form interval, one row per sample."""
    return Tally(
        tuple(float(v) for v in support), tuple(tuple(float(c) for c in np.ravel(r)) for r in rows)
    )


def _unless_point(iv: Interval, outcomes: Mapping[str, ArrayLike], metric: Metric) -> Interval:
    """A bootstrap interval, or the metric's valid `bound` where the bootstrap collapsed to a point."""
    if (
        iv.status != STATUS_OK
        or not iv.degenerate
        or not isinstance(metric, Metric)
        or metric.bound is None
    ):
        return iv
    low, high = metric.bound(outcomes, iv.confidence)
    return replace(
        iv,
        low=min(low, iv.estimate),
        high=max(high, iv.estimate),
        method=BOUND_METHOD,
        resamples=None,
        seed=None,
    )


def intervals_many(
    outcomes_by_config: Mapping[str, Mapping[str, ArrayLike]],
    metric: Metric,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> dict[str, Interval]:
    """Intervals of one metric for many configurations on the same items (bootstrap: shared resamples)."""
    if closed_form(metric) is None:
        ivs = bootstrap_many(outcomes_by_config, metric, resamples, seed, confidence)
        return {
            name: _unless_point(iv, outcomes_by_config[name], metric) for name, iv in ivs.items()
        }
    return {
        name: interval(o, metric, resamples, seed, confidence)
        for name, o in outcomes_by_config.items()
    }


def _difference_support(support: tuple[float, ...]) -> tuple[float, ...]:
    """Every value x - y can take when both lie on `support`."""
    points = np.asarray(support, dtype=float)
    diffs = np.round((points[:, None] - points[None, :]).ravel(), 12)
    return tuple(float(d) for d in np.unique(diffs))


def _agreeing(
    low: float, high: float, p_exact: float, alpha: float
) -> tuple[float, float, str | None]:
    """The interval widened to include 0 when the exact test does not reject (the claim needs both)."""
    if p_exact >= alpha and (low > 0 or high < 0):
        note = f"the exact test does not reject (p = {p_exact:.4g}): the interval is widened to include 0"
        return min(low, 0.0), max(high, 0.0), note
    return low, high, None


@dataclass(frozen=True)
class _PairedTally:
    """What the paired score interval of one comparison needs: the items, the differences' tally."""

    n: int
    excluded: int
    estimate: float
    support: tuple[float, ...]
    counts: FloatArray


def _paired_tally(
    outcomes_x: Mapping[str, ArrayLike],
    outcomes_y: Mapping[str, ArrayLike],
    metric: Metric,
    mean: Mean,
    confidence: float,
) -> _PairedTally | PairedDifference:
    """The tally of metric(x) - metric(y) per item, or the finished result when none can be formed."""
    n, unavailable = paired_check(
        outcomes_x, outcomes_y, metric, confidence, PAIRED_SCORE_METHOD, None, None
    )
    if unavailable is not None:
        return unavailable
    both = applicable(
        {
            **{f"x.{c}": outcomes_x[c] for c in metric.columns},
            **{f"y.{c}": outcomes_y[c] for c in metric.columns},
        }
    )
    excluded = int(n - both.sum())
    used = _used(outcomes_x, metric, mean) & _used(outcomes_y, metric, mean)
    if not used.any():
        return PairedDifference(
            NAN,
            NAN,
            NAN,
            NAN,
            False,
            confidence,
            PAIRED_SCORE_METHOD,
            None,
            None,
            n,
            0,
            STATUS_NO_COMPARABLE,
            excluded,
            "no difference: no item measured on both sides",
        )
    d = (
        np.asarray(outcomes_x[mean.column], dtype=float)
        - np.asarray(outcomes_y[mean.column], dtype=float)
    )[used]
    support = _difference_support(mean.support)
    counts = support_counts(d, support, f"{metric.name} difference")
    return _PairedTally(n, excluded, float(d.mean()), support, counts)


def _paired_result(
    t: _PairedTally, low: float, high: float, p_value: float, mean: Mean, confidence: float
) -> PairedDifference:
    """The paired difference from its tally and its score interval and p-value (`_paired_tally`)."""
    test, note = SCORE_TEST, None
    alpha = 1.0 - confidence
    if tuple(mean.support) == BINARY:
        p_exact = mcnemar_exact_p(int(t.counts[-1]), int(t.counts[0]))
        low, high, note = _agreeing(low, high, p_exact, alpha)
        p_value, test = (
            max(p_exact, p_value),
            f"{EXACT_MCNEMAR} (or the interval's own score test at 0, if larger)",
        )
    significant = proper(low, high) and (low > 0 or high < 0)
    return PairedDifference(
        t.estimate,
        low,
        high,
        p_value,
        bool(significant),
        confidence,
        PAIRED_SCORE_METHOD,
        None,
        None,
        t.n,
        0,
        STATUS_OK,
        t.excluded,
        note,
        test,
        tally_of(t.support, t.counts),
    )


def paired_difference(
    outcomes_x: Mapping[str, ArrayLike],
    outcomes_y: Mapping[str, ArrayLike],
    metric: Metric,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> PairedDifference:
    """metric(x) - metric(y) on the same items (aligned on item id), over the items both measure."""
    mean = closed_form(metric)
    if mean is None or not mean.shared:
        return paired_bootstrap(outcomes_x, outcomes_y, metric, resamples, seed, confidence)
    t = _paired_tally(outcomes_x, outcomes_y, metric, mean, confidence)
    if isinstance(t, PairedDifference):
        return t
    lo, hi = score_interval(t.counts, t.support, confidence)
    p_value = float(score_p_value(t.counts, t.support, 0.0)[0])
    return _paired_result(t, float(lo[0]), float(hi[0]), p_value, mean, confidence)


def paired_differences_many(
    outcomes_by_config: Mapping[str, Mapping[str, ArrayLike]],
    reference: str | Mapping[str, str],
    metric: Metric,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> dict[str, PairedDifference]:
    """Paired differences (configuration - reference) of one metric: every other configuration
    against one `reference`, or each configuration against its own (a mapping, `reference_pairs`).

    The score intervals and p-values of all comparisons are solved together, one table per row
    (`exact.score_interval` on many tables: the same computation, vectorised)."""
    pairs = reference_pairs(outcomes_by_config, reference)
    mean = closed_form(metric)
    if mean is None or not mean.shared:
        return paired_bootstrap_many(outcomes_by_config, pairs, metric, resamples, seed, confidence)
    tallies = {
        name: _paired_tally(
            outcomes_by_config[name], outcomes_by_config[ref], metric, mean, confidence
        )
        for name, ref in pairs.items()
    }
    ready = {n: t for n, t in tallies.items() if isinstance(t, _PairedTally)}
    out: dict[str, PairedDifference] = {
        n: t for n, t in tallies.items() if isinstance(t, PairedDifference)
    }
    if ready:
        support = next(iter(ready.values())).support
        counts = np.stack([t.counts for t in ready.values()])
        lows, highs = score_interval(counts, support, confidence)
        p_values = score_p_value(counts, support, 0.0)
        for (name, t), lo, hi, p in zip(ready.items(), lows, highs, p_values, strict=True):
            out[name] = _paired_result(t, float(lo), float(hi), float(p), mean, confidence)
    return {name: out[name] for name in tallies}


def _binary(values: np.ndarray) -> bool:
    return bool(np.isin(values, BINARY).all())


def unpaired_difference(
    x: ArrayLike,
    y: ArrayLike,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> UnpairedDifference:
    """mean(x) - mean(y) of two independent groups: the two-sample score interval for 0/1 outcomes,
    else the two-sample bootstrap (an empty group is an error)."""
    xs, ys = np.asarray(x, dtype=float).ravel(), np.asarray(y, dtype=float).ravel()
    if xs.size == 0 or ys.size == 0 or not (_binary(xs) and _binary(ys)):
        return unpaired_bootstrap(xs, ys, resamples, seed, confidence)
    k1, n1, k2, n2 = int(xs.sum()), int(xs.size), int(ys.sum()), int(ys.size)
    lo, hi = two_sample_score_interval(k1, n1, k2, n2, confidence)
    p_score = float(two_sample_score_p_value(k1, n1, k2, n2)[0])
    p_exact = fisher_exact_p(k1, n1, k2, n2)
    low, high, note = _agreeing(float(lo[0]), float(hi[0]), p_exact, 1.0 - confidence)
    significant = proper(low, high) and (low > 0 or high < 0)
    return UnpairedDifference(
        float(xs.mean() - ys.mean()),
        low,
        high,
        max(p_exact, p_score),
        bool(significant),
        confidence,
        UNPAIRED_SCORE_METHOD,
        None,
        None,
        n1,
        n2,
        0,
        note,
        f"{FISHER_EXACT} (or the interval's own score test at 0, if larger)",
        STATUS_OK,
        tally_of(BINARY, (n1 - k1, k1), (n2 - k2, k2)),
    )


def noise_corrected_flip_rate(
    flips: ArrayLike, noise: ArrayLike, confidence: float = DEFAULT_CONFIDENCE
) -> PairedDifference:
    """A flip rate net of the noise floor on the same items, as a difference of two samples (its assumption: docs/methods/intervals.md).

    `flips` per item in [0, 1] (0/1, or j/k pooled over k edits), `noise` per item 0/1 (the repeat
    runs' flip), aligned; an item with NaN on either side is left out. The interval treats the two
    means as independent: their variance is then never below the paired one's when the within-item
    correlation is non-negative, and Var(x) <= m (1 - m) for any x in [0, 1] makes the binomial
    score test conservative for pooled flips.
    """
    x, y = np.asarray(flips, dtype=float).ravel(), np.asarray(noise, dtype=float).ravel()
    if x.size != y.size:
        raise ValueError(
            "a noise-corrected flip rate needs flips and noise flips on the same items"
        )
    if np.any((x < 0) | (x > 1)) or not np.isin(y[np.isfinite(y)], BINARY).all():
        raise ValueError("flips must lie in [0, 1] and noise flips be 0 or 1")
    n = int(x.size)
    used = np.isfinite(x) & np.isfinite(y)
    m = int(used.sum())
    if m == 0:
        status = STATUS_NO_ITEMS if n == 0 else STATUS_NO_COMPARABLE
        return PairedDifference(
            NAN,
            NAN,
            NAN,
            NAN,
            False,
            confidence,
            CORRECTED_METHOD,
            None,
            None,
            n,
            0,
            status,
            n,
            "no difference: no item with a flip and a noise flip",
        )
    s1, s2 = float(x[used].sum()), float(y[used].sum())
    lo, hi = two_sample_score_interval(s1, m, s2, m, confidence)
    low, high = float(lo[0]), float(hi[0])
    p_value = float(two_sample_score_p_value(s1, m, s2, m)[0])
    test, note = SCORE_TEST, None
    if _binary(x[used]):
        p_exact = fisher_exact_p(int(s1), m, int(s2), m)
        low, high, note = _agreeing(low, high, p_exact, 1.0 - confidence)
        p_value, test = (
            max(p_exact, p_value),
            f"{FISHER_EXACT} (or the interval's own score test at 0, if larger)",
        )
    significant = proper(low, high) and (low > 0 or high < 0)
    return PairedDifference(
        (s1 - s2) / m,
        low,
        high,
        p_value,
        bool(significant),
        confidence,
        CORRECTED_METHOD,
        None,
        None,
        n,
        0,
        STATUS_OK,
        n - m,
        note,
        test,
        tally_of(BINARY, (m - s1, s1), (m - s2, s2)),
    )
