"""Percentile bootstrap over items, single and paired, vectorised with numpy.

Resampling draws item indices with replacement (seeded `numpy.random.default_rng`). For a
`Metric` (a function of outcome-column sums) the replicates are computed as one matrix
product: multiplicity matrix (resamples x items) @ outcome columns (items x columns), for
all configurations at once. Every configuration compared on the same items sees the same
resamples, which is what makes differences paired.

Undefined replicates (e.g. accuracy without ties on a resample with no decided item) are
left out of the percentiles and counted in `undefined` beside the interval.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from judgeaudit.stats.defaults import (  # noqa: F401  (re-exported)
    DEFAULT_CONFIDENCE,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    METHOD,
    PAIRED_METHOD,
)
from judgeaudit.stats.metrics import FloatArray, Metric, MetricFn


@dataclass(frozen=True)
class Interval:
    """A point estimate with its bootstrap interval and everything needed to reproduce it."""

    estimate: float
    low: float
    high: float
    confidence: float
    method: str
    resamples: int
    seed: int
    n: int
    undefined: int = 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return asdict(self)


@dataclass(frozen=True)
class PairedDifference:
    """Difference (x - y) of one metric on the same items, its interval and two-sided p-value."""

    estimate: float
    low: float
    high: float
    p_value: float
    significant: bool
    confidence: float
    method: str
    resamples: int
    seed: int
    n: int
    undefined: int = 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return asdict(self)


def resample_indices(n: int, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> np.ndarray:
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
def resample_counts(n: int, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> FloatArray:
    """Multiplicity matrix of the seeded resamples (same draws as `resample_indices`).

    Cached (read-only) so the many metrics and configurations of one item set share one draw.
    """
    counts = counts_from_indices(resample_indices(n, resamples, seed), n)
    counts.flags.writeable = False
    return counts


def _n_items(outcomes: Mapping[str, ArrayLike]) -> int:
    sizes = {np.asarray(v).shape[-1] for v in outcomes.values()}
    if len(sizes) != 1:
        raise ValueError(f"outcome columns differ in length: {sorted(sizes)}")
    n = sizes.pop()
    if n <= 0:
        raise ValueError("cannot bootstrap an empty set of items")
    return n


def _percentiles(reps: FloatArray, confidence: float) -> tuple[float, float, int]:
    finite = reps[np.isfinite(reps)]
    undefined = int(reps.size - finite.size)
    if finite.size == 0:
        return float("nan"), float("nan"), undefined
    alpha = (1 - confidence) / 2
    lo, hi = np.quantile(finite, [alpha, 1 - alpha])
    return float(lo), float(hi), undefined


def _p_value(diff: FloatArray) -> float:
    """Two-sided bootstrap p-value: 2 x the smaller tail share at zero, with the +1 correction."""
    finite = diff[np.isfinite(diff)]
    if finite.size == 0:
        return float("nan")
    b = finite.size
    below = (1 + np.count_nonzero(finite <= 0)) / (b + 1)
    above = (1 + np.count_nonzero(finite >= 0)) / (b + 1)
    return float(min(1.0, 2 * min(below, above)))


def _replicates(
    outcomes: Mapping[str, ArrayLike], metric: MetricFn | Metric, idx: np.ndarray, counts: FloatArray | None
) -> FloatArray:
    if isinstance(metric, Metric):
        n = _n_items(outcomes)
        w = counts if counts is not None else counts_from_indices(idx, n)
        cols = np.stack([np.asarray(outcomes[c], dtype=float) for c in metric.columns], axis=1)
        sums = w @ cols
        return np.asarray(metric.from_sums({c: sums[:, j] for j, c in enumerate(metric.columns)}, n), dtype=float)
    return np.asarray(metric({k: np.asarray(v, dtype=float)[idx] for k, v in outcomes.items()}), dtype=float)


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
    """Percentile bootstrap interval of `metric` over items (resampling whole items)."""
    n = _n_items(outcomes)
    if indices is None and isinstance(metric, Metric):
        counts = resample_counts(n, resamples, seed)
        reps = _replicates(outcomes, metric, np.empty((0, n)), counts)
        b = resamples
    else:
        idx = resample_indices(n, resamples, seed) if indices is None else indices
        reps = _replicates(outcomes, metric, idx, None)
        b = int(idx.shape[0])
    lo, hi, undefined = _percentiles(reps, confidence)
    return Interval(_point(outcomes, metric), lo, hi, confidence, METHOD, b, seed, n, undefined)


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
    says whether the percentile interval of the difference excludes zero.
    """
    n = _n_items(outcomes_x)
    if _n_items(outcomes_y) != n:
        raise ValueError("paired bootstrap needs both configurations on the same items")
    counts: FloatArray | None = None
    if indices is None and isinstance(metric, Metric):
        counts = resample_counts(n, resamples, seed)
        idx = np.empty((counts.shape[0], 0))
    else:
        idx = resample_indices(n, resamples, seed) if indices is None else indices
        counts = counts_from_indices(idx, n) if isinstance(metric, Metric) else None
    diff = _replicates(outcomes_x, metric, idx, counts) - _replicates(outcomes_y, metric, idx, counts)
    est = _point(outcomes_x, metric) - _point(outcomes_y, metric)
    return _paired_result(est, diff, confidence, int(idx.shape[0]), seed, n)


def _paired_result(est: float, diff: FloatArray, confidence: float, resamples: int, seed: int, n: int) -> PairedDifference:
    lo, hi, undefined = _percentiles(diff, confidence)
    significant = bool(np.isfinite(lo) and (lo > 0 or hi < 0))
    return PairedDifference(est, lo, hi, _p_value(diff), significant, confidence, PAIRED_METHOD, resamples, seed, n, undefined)


def replicate_matrix(
    outcomes_by_config: Mapping[str, Mapping[str, ArrayLike]], metric: Metric, counts: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """(point estimates per configuration, replicates resamples x configurations) in one product."""
    names = list(outcomes_by_config)
    if not names:
        raise ValueError("no configurations to bootstrap")
    n = counts.shape[1]
    blocks = []
    for name in names:
        o = outcomes_by_config[name]
        if _n_items(o) != n:
            raise ValueError(f"configuration {name!r} has {_n_items(o)} items, the resamples have {n}")
        blocks.append(np.stack([np.asarray(o[c], dtype=float) for c in metric.columns], axis=1))
    x = np.concatenate(blocks, axis=1)  # items x (configs * columns)
    m = len(metric.columns)
    sums = counts @ x
    totals = x.sum(axis=0)
    reps = np.empty((counts.shape[0], len(names)))
    point = np.empty(len(names))
    for j in range(len(names)):
        cols = metric.columns
        reps[:, j] = metric.from_sums({c: sums[:, j * m + i] for i, c in enumerate(cols)}, n)
        point[j] = metric.from_sums({c: totals[j * m + i] for i, c in enumerate(cols)}, n)
    return point, reps


def bootstrap_many(
    outcomes_by_config: Mapping[str, Mapping[str, ArrayLike]],
    metric: Metric,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> dict[str, Interval]:
    """Intervals of one metric for many configurations on the same items (shared resamples)."""
    names = list(outcomes_by_config)
    n = _n_items(outcomes_by_config[names[0]])
    counts = resample_counts(n, resamples, seed)
    point, reps = replicate_matrix(outcomes_by_config, metric, counts)
    out = {}
    for j, name in enumerate(names):
        lo, hi, undefined = _percentiles(reps[:, j], confidence)
        out[name] = Interval(float(point[j]), lo, hi, confidence, METHOD, resamples, seed, n, undefined)
    return out


def paired_bootstrap_many(
    outcomes_by_config: Mapping[str, Mapping[str, ArrayLike]],
    reference: str,
    metric: Metric,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> dict[str, PairedDifference]:
    """Paired differences (configuration - reference) of one metric for every other configuration."""
    if reference not in outcomes_by_config:
        raise KeyError(f"reference configuration {reference!r} not among {sorted(outcomes_by_config)}")
    names = list(outcomes_by_config)
    n = _n_items(outcomes_by_config[reference])
    counts = resample_counts(n, resamples, seed)
    point, reps = replicate_matrix(outcomes_by_config, metric, counts)
    r = names.index(reference)
    diffs = reps - reps[:, [r]]
    out = {}
    for j, name in enumerate(names):
        if j == r:
            continue
        out[name] = _paired_result(float(point[j] - point[r]), diffs[:, j], confidence, resamples, seed, n)
    return out
