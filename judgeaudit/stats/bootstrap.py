"""Percentile bootstrap over items, single and paired, vectorised with numpy: the interval of the
figures no closed form fits (macro-F1, F1, precision differences, ordinal and agreement
statistics, the surface ratio); every share of binary outcomes gets a closed-form interval instead
(`stats.intervals`, docs/methods/intervals.md).

Resampling draws item indices with replacement (seeded `numpy.random.default_rng`). For a
`Metric` (a function of outcome-column sums) the replicates are computed as one matrix
product: multiplicity matrix (resamples x items) @ outcome columns (items x columns), for
all configurations at once. Every configuration compared on the same items sees the same
resamples, which is what makes differences paired.

Undefined replicates (e.g. accuracy without ties on a resample with no decided item) are
left out of the percentiles and counted in `undefined` beside the interval.

Small samples: interval ends are replicate values (`inverted_cdf` quantiles, a value the
statistic took on a resample), kept inside the metric's `bounds` ([0, 1] for a share, [-1, 1] for
a difference of shares). When every resample agrees (one item; or every item alike, e.g. 6 of 6
correct) the interval is a single point, [1, 1]: it is `degenerate`, not `conclusive`, supports
no claim (a difference on it is not `significant`) and a gate reading it stays inconclusive
(`stats.results`). The percentile bootstrap is a plug-in interval, too narrow at small n: its
measured coverage is in docs/methods/intervals.md, and no claim is built on it where a closed form exists.
Statuses (no items, every answer invalid or error, no comparable item) as in `stats.results`.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from judgeaudit.stats.defaults import (  # noqa: F401  (re-exported)
    DEFAULT_CONFIDENCE,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    METHOD,
    PAIRED_METHOD,
)
from judgeaudit.stats.metrics import Count, FloatArray, Metric, MetricFn
from judgeaudit.stats.results import (
    NAN,
    STATUS_NO_ITEMS,
    STATUS_OK,
    STATUS_UNDEFINED,
    Interval,
    PairedDifference,
    answer_status,
    excluded_items,
    n_items,
    paired_check,
    paired_unavailable,
    side_states,
    significance_note,
)

QUANTILE_METHOD: Literal["inverted_cdf"] = (
    "inverted_cdf"  # numpy quantile method: interval ends are replicate values
)


def resample_indices(
    n: int, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> np.ndarray:
    """A (resamples, n) matrix of item indices drawn with replacement (seeded)."""
    if n <= 0:
        raise ValueError("cannot bootstrap an empty set of items")
    if resamples <= 0:
        raise ValueError(f"resamples must be positive, got {resamples}")
    rng = np.random.default_rng(seed)
    dtype = np.int16 if n < 2**15 else np.int32
    return rng.integers(0, n, size=(resamples, n), dtype=dtype)


# Rows of the index matrix counted per bincount: about 2**18 bins each, so the bin array
# stays in cache (one bincount over all resamples x items bins is several times slower).
_COUNT_BLOCK_BINS = 2**18


def counts_from_indices(indices: np.ndarray, n: int) -> FloatArray:
    """Multiplicity matrix (resamples x n): how often each item is drawn in each resample."""
    b = indices.shape[0]
    out = np.empty((b, n), dtype=np.float64)
    rows = max(1, _COUNT_BLOCK_BINS // max(n, 1))
    offsets = (np.arange(rows, dtype=np.int64) * n)[:, None]
    for start in range(0, b, rows):
        block = np.asarray(indices[start : start + rows], dtype=np.int64)
        r = block.shape[0]
        flat = (block + offsets[:r]).ravel()
        out[start : start + r] = np.bincount(flat, minlength=r * n).reshape(r, n)
    return out


@lru_cache(maxsize=4)
def resample_counts(
    n: int, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> FloatArray:
    """Multiplicity matrix of the seeded resamples (same draws as `resample_indices`).

    Cached (read-only) so the many metrics and configurations of one item set share one draw.
    """
    counts = counts_from_indices(resample_indices(n, resamples, seed), n)
    counts.flags.writeable = False
    return counts


def _percentiles(
    reps: FloatArray, confidence: float, bounds: tuple[float, float] = (-np.inf, np.inf)
) -> tuple[float, float, int]:
    """(low, high, undefined replicates): replicate values at the two tails, inside `bounds`."""
    finite = reps[np.isfinite(reps)]
    undefined = int(reps.size - finite.size)
    if finite.size == 0:
        return NAN, NAN, undefined
    alpha = (1 - confidence) / 2
    lo, hi = np.quantile(finite, [alpha, 1 - alpha], method=QUANTILE_METHOD)
    lo, hi = np.clip([lo, hi], bounds[0], bounds[1])
    return float(lo), float(hi), undefined


def _bounds(metric: MetricFn | Metric) -> tuple[float, float]:
    return metric.bounds if isinstance(metric, Metric) else (-np.inf, np.inf)


def _difference_bounds(metric: MetricFn | Metric) -> tuple[float, float]:
    lo, hi = _bounds(metric)
    return lo - hi, hi - lo


def _interval(
    estimate: float,
    reps: FloatArray,
    confidence: float,
    resamples: int,
    seed: int,
    n: int,
    metric: MetricFn | Metric,
    status: str,
    excluded: int,
) -> Interval:
    """An Interval from replicates, with the status rules applied (no number without answers)."""
    if status != STATUS_OK:
        return Interval(NAN, NAN, NAN, confidence, METHOD, resamples, seed, n, 0, status, excluded)
    lo, hi, undefined = _percentiles(reps, confidence, _bounds(metric))
    if not np.isfinite(estimate):
        status = STATUS_UNDEFINED
    return Interval(
        float(estimate), lo, hi, confidence, METHOD, resamples, seed, n, undefined, status, excluded
    )


def interval_from_replicates(
    estimate: float,
    reps: FloatArray,
    confidence: float,
    resamples: int,
    seed: int,
    n: int,
    bounds: tuple[float, float],
) -> Interval:
    """An Interval for a statistic bootstrapped outside `bootstrap_metric` (e.g. Spearman), same rules."""
    metric = Metric("external", (), lambda s, k: np.asarray(NAN), bounds)
    return _interval(estimate, reps, confidence, resamples, seed, n, metric, STATUS_OK, 0)


def _p_value(diff: FloatArray) -> float:
    """Two-sided bootstrap p-value: 2 x the smaller tail share at zero, with the +1 correction."""
    finite = diff[np.isfinite(diff)]
    if finite.size == 0:
        return float("nan")
    b = finite.size
    below = (1 + np.count_nonzero(finite <= 0)) / (b + 1)
    above = (1 + np.count_nonzero(finite >= 0)) / (b + 1)
    return float(min(1.0, 2 * min(below, above)))


def _masked_columns(
    outcomes: Mapping[str, ArrayLike], metric: Metric
) -> tuple[FloatArray, FloatArray | None]:
    """(items x columns with left-out items zeroed, 0/1 applicability per item or None when all apply)."""
    cols = np.stack([np.asarray(outcomes[c], dtype=float) for c in metric.columns], axis=1)
    applies = np.isfinite(cols).all(axis=1)
    if applies.all():
        return cols, None
    return np.where(applies[:, None], cols, 0.0), applies.astype(float)


def _replicates(
    outcomes: Mapping[str, ArrayLike],
    metric: MetricFn | Metric,
    idx: np.ndarray,
    counts: FloatArray | None,
) -> FloatArray:
    if isinstance(metric, Metric):
        n = n_items(outcomes)
        w = counts if counts is not None else counts_from_indices(idx, n)
        cols, applies = _masked_columns(outcomes, metric)
        sums = w @ cols
        count: Count = n if applies is None else w @ applies
        return np.asarray(
            metric.from_sums({c: sums[:, j] for j, c in enumerate(metric.columns)}, count),
            dtype=float,
        )
    return np.asarray(
        metric({k: np.asarray(v, dtype=float)[idx] for k, v in outcomes.items()}), dtype=float
    )


def _point(outcomes: Mapping[str, ArrayLike], metric: MetricFn | Metric) -> float:
    return float(metric({k: np.asarray(v, dtype=float) for k, v in outcomes.items()}))


def bootstrap_metric(
    outcomes: Mapping[str, ArrayLike],
    metric: MetricFn | Metric,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
    indices: np.ndarray | None = None,
) -> Interval:
    """Percentile bootstrap interval of `metric` over items (resampling whole items), with its status."""
    n = n_items(outcomes)
    excluded = excluded_items(outcomes, metric) if n else 0
    status = answer_status(outcomes, metric, excluded)
    if status != STATUS_OK:
        return _interval(NAN, np.empty(0), confidence, resamples, seed, n, metric, status, excluded)
    if indices is None and isinstance(metric, Metric):
        counts = resample_counts(n, resamples, seed)
        reps = _replicates(outcomes, metric, np.empty((0, n)), counts)
        b = resamples
    else:
        idx = resample_indices(n, resamples, seed) if indices is None else indices
        reps = _replicates(outcomes, metric, idx, None)
        b = int(idx.shape[0])
    return _interval(
        _point(outcomes, metric), reps, confidence, b, seed, n, metric, status, excluded
    )


def paired_bootstrap(
    outcomes_x: Mapping[str, ArrayLike],
    outcomes_y: Mapping[str, ArrayLike],
    metric: MetricFn | Metric,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
    indices: np.ndarray | None = None,
) -> PairedDifference:
    """Bootstrap of metric(x) - metric(y) with the same item resample applied to both sides.

    Inputs must already be aligned on item id. The two-sided p-value is
    2 x min((1 + #{d <= 0}) / (B + 1), (1 + #{d >= 0}) / (B + 1)), capped at 1; `significant`
    says whether the percentile interval of the difference excludes zero (a point interval
    never does; both sides need valid answers).
    """
    n, unavailable = paired_check(
        outcomes_x, outcomes_y, metric, confidence, PAIRED_METHOD, resamples, seed
    )
    if unavailable is not None:
        return unavailable
    counts: FloatArray | None = None
    if indices is None and isinstance(metric, Metric):
        counts = resample_counts(n, resamples, seed)
        idx = np.empty((counts.shape[0], 0))
    else:
        idx = resample_indices(n, resamples, seed) if indices is None else indices
        counts = counts_from_indices(idx, n) if isinstance(metric, Metric) else None
    diff = _replicates(outcomes_x, metric, idx, counts) - _replicates(
        outcomes_y, metric, idx, counts
    )
    est = _point(outcomes_x, metric) - _point(outcomes_y, metric)
    excluded = max(excluded_items(outcomes_x, metric), excluded_items(outcomes_y, metric))
    return _paired_result(
        est, diff, confidence, int(idx.shape[0]), seed, n, excluded, _difference_bounds(metric)
    )


def _paired_result(
    est: float,
    diff: FloatArray,
    confidence: float,
    resamples: int,
    seed: int,
    n: int,
    excluded: int = 0,
    bounds: tuple[float, float] = (-1.0, 1.0),
) -> PairedDifference:
    lo, hi, undefined = _percentiles(diff, confidence, bounds)
    note = significance_note(lo, hi)
    significant = bool(note is None and (lo > 0 or hi < 0))
    status = STATUS_OK if np.isfinite(est) else STATUS_UNDEFINED
    return PairedDifference(
        est,
        lo,
        hi,
        _p_value(diff),
        significant,
        confidence,
        PAIRED_METHOD,
        resamples,
        seed,
        n,
        undefined,
        status,
        excluded,
        note,
    )


# Configurations whose replicates `replicate_matrix` computes at once (bounds its temporaries).
_CONFIG_BLOCK = 32


def _exact_columns(x: FloatArray) -> bool:
    """Whether every value is a multiple of 1/2 small enough that sums of them are exact in float64
    (0/1 indicators, half points, integer counts): then no summation order changes a sum."""
    return bool(np.all(x * 2 == np.round(x * 2)) and np.all(np.abs(x) < 2**20))


def _column_sums(counts: FloatArray, x: FloatArray) -> FloatArray:
    """counts @ x (resamples x columns); columns of exact values that repeat (a gold column shared
    by every configuration, an empty cell of a contingency table) are multiplied once."""
    if x.shape[1] < 2 or not _exact_columns(x):
        return np.asarray(counts @ x, dtype=np.float64)
    unique, inverse = np.unique(x, axis=1, return_inverse=True)
    if unique.shape[1] == x.shape[1]:
        return np.asarray(counts @ x, dtype=np.float64)
    return np.asarray((counts @ unique)[:, inverse.ravel()], dtype=np.float64)


def replicate_matrix(
    outcomes_by_config: Mapping[str, Mapping[str, ArrayLike]], metric: Metric, counts: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """(point estimates per configuration, replicates resamples x configurations) in one product.

    Items with NaN outcomes are left out per configuration (of its sums and its item count). The
    metric is evaluated on blocks of configurations at once (its `from_sums` is elementwise)."""
    names = list(outcomes_by_config)
    if not names:
        raise ValueError("no configurations to bootstrap")
    n = counts.shape[1]
    blocks, masks = [], []
    for name in names:
        o = outcomes_by_config[name]
        if n_items(o) != n:
            raise ValueError(
                f"configuration {name!r} has {n_items(o)} items, the resamples have {n}"
            )
        cols, applies = _masked_columns(o, metric)
        blocks.append(cols)
        masks.append(applies)
    x = np.concatenate(blocks, axis=1)  # items x (configs * columns)
    m, c = len(metric.columns), len(names)
    sums = _column_sums(counts, x).reshape(counts.shape[0], c, m)
    totals = x.sum(axis=0).reshape(c, m)
    # item counts: n, or per resample the drawn items a configuration's mask keeps
    rep_n = np.full((counts.shape[0], c), float(n))
    masked = {j: mask for j, mask in enumerate(masks) if mask is not None}
    if masked:
        rep_n[:, list(masked)] = counts @ np.stack(list(masked.values()), axis=1)
    reps = np.empty((counts.shape[0], c))
    for start in range(0, c, _CONFIG_BLOCK):
        block = slice(start, start + _CONFIG_BLOCK)
        reps[:, block] = metric.from_sums(
            {col: sums[:, block, i] for i, col in enumerate(metric.columns)}, rep_n[:, block]
        )
    # estimates one configuration at a time, on scalars (numpy's scalar and array arithmetic may
    # round a power differently in the last bit; the estimates stay those of one configuration)
    point = np.array(
        [
            metric.from_sums({col: totals[j, i] for i, col in enumerate(metric.columns)}, n_j)
            for j, n_j in enumerate(
                n if mask is None else np.asarray(mask.sum(), dtype=float) for mask in masks
            )
        ],
        dtype=float,
    )
    return point, reps


def _empty_many(
    names: list[str], metric: Metric, resamples: int, seed: int, confidence: float
) -> dict[str, Interval]:
    return {
        name: _interval(
            NAN, np.empty(0), confidence, resamples, seed, 0, metric, STATUS_NO_ITEMS, 0
        )
        for name in names
    }


def bootstrap_many(
    outcomes_by_config: Mapping[str, Mapping[str, ArrayLike]],
    metric: Metric,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> dict[str, Interval]:
    """Intervals of one metric for many configurations on the same items (shared resamples), with statuses."""
    names = list(outcomes_by_config)
    n = n_items(outcomes_by_config[names[0]])
    if n == 0:
        return _empty_many(names, metric, resamples, seed, confidence)
    counts = resample_counts(n, resamples, seed)
    point, reps = replicate_matrix(outcomes_by_config, metric, counts)
    out = {}
    for j, name in enumerate(names):
        o = outcomes_by_config[name]
        excluded = excluded_items(o, metric)
        status = answer_status(o, metric, excluded)
        out[name] = _interval(
            float(point[j]), reps[:, j], confidence, resamples, seed, n, metric, status, excluded
        )
    return out


def reference_pairs(
    outcomes_by_config: Mapping[str, object], reference: str | Mapping[str, str]
) -> dict[str, str]:
    """Each compared configuration -> its reference: every other configuration against one
    `reference`, or the pairs given (configuration -> reference); KeyError naming an unknown one."""
    if isinstance(reference, str):
        if reference not in outcomes_by_config:
            raise KeyError(
                f"reference configuration {reference!r} not among {sorted(outcomes_by_config)}"
            )
        return {name: reference for name in outcomes_by_config if name != reference}
    unknown = sorted({*reference, *reference.values()} - set(outcomes_by_config))
    if unknown:
        raise KeyError(f"configurations {unknown} not among {sorted(outcomes_by_config)}")
    return {name: ref for name, ref in reference.items() if name != ref}


def paired_bootstrap_many(
    outcomes_by_config: Mapping[str, Mapping[str, ArrayLike]],
    reference: str | Mapping[str, str],
    metric: Metric,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> dict[str, PairedDifference]:
    """Paired differences (configuration - reference) of one metric: every other configuration
    against one `reference`, or each configuration against its own (a mapping), in one product."""
    pairs = reference_pairs(outcomes_by_config, reference)
    if not pairs:
        return {}
    names = [n for n in outcomes_by_config if n in pairs or n in pairs.values()]
    n = n_items(outcomes_by_config[names[0]])
    if n == 0:
        return {
            name: paired_unavailable(
                (STATUS_NO_ITEMS, STATUS_NO_ITEMS), confidence, PAIRED_METHOD, resamples, seed, 0
            )
            for name in pairs
        }
    counts = resample_counts(n, resamples, seed)
    point, reps = replicate_matrix({k: outcomes_by_config[k] for k in names}, metric, counts)
    column = {name: j for j, name in enumerate(names)}
    out = {}
    for name, ref_name in pairs.items():
        j, r = column[name], column[ref_name]
        o, ref = outcomes_by_config[name], outcomes_by_config[ref_name]
        sides = side_states(o, ref, metric)
        if sides is not None:
            out[name] = paired_unavailable(sides, confidence, PAIRED_METHOD, resamples, seed, n)
            continue
        excluded = max(excluded_items(o, metric), excluded_items(ref, metric))
        out[name] = _paired_result(
            float(point[j] - point[r]),
            reps[:, j] - reps[:, r],
            confidence,
            resamples,
            seed,
            n,
            excluded,
            _difference_bounds(metric),
        )
    return out
