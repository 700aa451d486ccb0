"""Percentile bootstrap over items, single and paired, vectorised with numpy.

Resampling draws item indices with replacement (seeded `numpy.random.default_rng`). For a
`Metric` (a function of outcome-column sums) the replicates are computed as one matrix
product: multiplicity matrix (resamples x items) @ outcome columns (items x columns), for
all configurations at once. Every configuration compared on the same items sees the same
resamples, which is what makes differences paired.

Undefined replicates (e.g. accuracy without ties on a resample with no decided item) are
left out of the percentiles and counted in `undefined` beside the interval.

Honest small samples (the rules live here, so every caller gets them):
- interval ends are replicate values (`inverted_cdf` quantiles, a value the statistic took on
  a resample), kept inside the metric's `bounds` ([0, 1] for a share, [-1, 1] for a difference
  of shares);
- a paired difference is `significant` only when its interval excludes zero, is not degenerate
  (low < high) and rests on at least `MIN_ITEMS_FOR_SIGNIFICANCE` items; `Interval.excludes`
  applies the same rule to "the interval excludes chance"; `note` says why a claim is withheld;
- a configuration without any valid answer (every item `invalid` and/or `error`, seen in the
  `invalid`/`error` outcome columns) gets `status` `all_invalid`, `all_error` or `no_answers`
  and no number for the metrics of answers (NaN); a difference against it likewise. No items
  is `no_items`; every item left out (NaN outcomes, e.g. no item valid in both
  configurations of a flip rate) is `no_comparable_items`; `excluded` counts left-out items;
- "the interval lies above x" (`excludes_from_above`, e.g. an accuracy above chance) needs the
  same minimum of items; on that many items a point interval above x counts (every item agreed).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any, Literal, Protocol

import numpy as np
from numpy.typing import ArrayLike

from judgeaudit.stats.defaults import (  # noqa: F401  (re-exported)
    DEFAULT_CONFIDENCE,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    METHOD,
    PAIRED_METHOD,
)
from judgeaudit.stats.metrics import Count, FloatArray, Metric, MetricFn, applicable

QUANTILE_METHOD: Literal["inverted_cdf"] = "inverted_cdf"  # numpy quantile method: interval ends are replicate values

MIN_ITEMS_FOR_SIGNIFICANCE = 20
"""Fewest items (valid for the statistic) on which a significance claim, or "the interval
excludes chance", is made.

Why 20: a claim needs a test that keeps its error rate. (1) Even an exact test cannot reach
p < 0.05 two-sided below 6 items (the sign test's smallest p-value is 2 x 0.5^n = 0.031 at
n = 6), while the percentile bootstrap on 1-5 items returns a point interval ([1, 1]) and would
"exclude" zero. (2) The percentile bootstrap of a share is a plug-in (Wald-like) interval, too
narrow by about sqrt((n - 1) / n) and lumpy at small n. Simulated under the null (two
exchangeable judges, 1,000 item sets per cell, discordance 0.2 / 0.5 / 1.0, B = 2,000), the
paired test's false-positive rate at nominal 5% is up to 11% at n = 6, 10% at n = 8, 7-9% at
n = 10-15, and at most 5.7% from n = 20 on (`tests/stats/test_small_samples.py` checks n = 8
against n = 20). 20 is the smallest round number at which the claim keeps its nominal error
rate within Monte Carlo error.
"""

STATUS_OK = "ok"
STATUS_NO_ITEMS = "no_items"
STATUS_ALL_INVALID = "all_invalid"
STATUS_ALL_ERROR = "all_error"
STATUS_NO_ANSWERS = "no_answers"  # every item invalid or error, both present
STATUS_NO_COMPARABLE = "no_comparable_items"  # every item left out (NaN outcomes)
STATUS_UNDEFINED = "undefined"  # the statistic is undefined on these items (e.g. no decided item)
NO_ANSWER_STATUSES: tuple[str, ...] = (STATUS_ALL_INVALID, STATUS_ALL_ERROR, STATUS_NO_ANSWERS)
_NAN = float("nan")


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
    status: str = STATUS_OK
    excluded: int = 0  # items left out of the statistic (it is computed over n - excluded)

    @property
    def degenerate(self) -> bool:
        """Whether the interval is a single point (every resample gave the same value) or missing."""
        return not (np.isfinite(self.low) and np.isfinite(self.high) and self.low < self.high)

    @property
    def conclusive(self) -> bool:
        """Whether the interval may support a claim: status ok, not degenerate, enough items."""
        return (self.status == STATUS_OK and not self.degenerate
                and self.n - self.excluded >= MIN_ITEMS_FOR_SIGNIFICANCE)

    def excludes(self, value: float) -> bool:
        """Whether the interval excludes `value` (e.g. chance), claimed only when `conclusive`."""
        return self.conclusive and (self.low > value or self.high < value)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (with `conclusive`)."""
        return {**asdict(self), "conclusive": self.conclusive}


class Bounded(Protocol):
    """What `excludes_from_above` reads of an interval-like result (Interval, differences, ratios)."""

    @property
    def low(self) -> float: ...  # noqa: D102
    @property
    def high(self) -> float: ...  # noqa: D102
    @property
    def n(self) -> int: ...  # noqa: D102


def items_behind(value: Bounded) -> int:
    """Items an interval rests on: `n` less the items left out of the statistic (`excluded`)."""
    return int(value.n) - int(getattr(value, "excluded", 0))


def excludes_from_above(value: Bounded, x: float) -> bool:
    """Whether the interval lies above `x` as a claim may say: its lower end above `x`, an upper
    end, status ok, and at least `MIN_ITEMS_FOR_SIGNIFICANCE` items behind it. A point interval
    above `x` on that many items counts (every item agreed, e.g. a perfect judge); on fewer it
    is the bootstrap's artefact and does not."""
    low, high = float(value.low), float(value.high)
    if np.isnan(low) or np.isnan(high) or not low > x:
        return False
    if getattr(value, "status", STATUS_OK) != STATUS_OK:
        return False
    return items_behind(value) >= MIN_ITEMS_FOR_SIGNIFICANCE


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
    status: str = STATUS_OK
    excluded: int = 0
    note: str | None = None  # why significance is not claimed, when it is not

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
    return int(sizes.pop())


def _percentiles(reps: FloatArray, confidence: float,
                 bounds: tuple[float, float] = (-np.inf, np.inf)) -> tuple[float, float, int]:
    """(low, high, undefined replicates): replicate values at the two tails, inside `bounds`."""
    finite = reps[np.isfinite(reps)]
    undefined = int(reps.size - finite.size)
    if finite.size == 0:
        return _NAN, _NAN, undefined
    alpha = (1 - confidence) / 2
    lo, hi = np.quantile(finite, [alpha, 1 - alpha], method=QUANTILE_METHOD)
    lo, hi = np.clip([lo, hi], bounds[0], bounds[1])
    return float(lo), float(hi), undefined


def _bounds(metric: MetricFn | Metric) -> tuple[float, float]:
    return metric.bounds if isinstance(metric, Metric) else (-np.inf, np.inf)


def _difference_bounds(metric: MetricFn | Metric) -> tuple[float, float]:
    lo, hi = _bounds(metric)
    return lo - hi, hi - lo


def _excluded(outcomes: Mapping[str, ArrayLike], metric: MetricFn | Metric) -> int:
    """Items the metric leaves out (NaN in one of its columns)."""
    cols = metric.columns if isinstance(metric, Metric) else tuple(outcomes)
    if not cols:
        return 0
    return int((~applicable({c: outcomes[c] for c in cols})).sum())


def answer_status(outcomes: Mapping[str, ArrayLike], metric: MetricFn | Metric, excluded: int = 0) -> str:
    """`ok`, or why the metric has no value on these items (no items, no valid answer, none comparable)."""
    n = _n_items(outcomes) if outcomes else 0
    if n == 0:
        return STATUS_NO_ITEMS
    measures_failures = isinstance(metric, Metric) and bool({"invalid", "error"} & set(metric.columns))
    if (not isinstance(metric, Metric) or metric.of_answers) and not measures_failures:
        zeros = np.zeros(n)
        invalid = np.asarray(outcomes.get("invalid", zeros), dtype=float)
        error = np.asarray(outcomes.get("error", zeros), dtype=float)
        if ("invalid" in outcomes or "error" in outcomes) and np.all(invalid + error >= 1):
            if np.all(invalid >= 1):
                return STATUS_ALL_INVALID
            return STATUS_ALL_ERROR if np.all(error >= 1) else STATUS_NO_ANSWERS
    if excluded >= n:
        return STATUS_NO_COMPARABLE
    return STATUS_OK


def _interval(estimate: float, reps: FloatArray, confidence: float, resamples: int, seed: int, n: int,
              metric: MetricFn | Metric, status: str, excluded: int) -> Interval:
    """An Interval from replicates, with the status rules applied (no number without answers)."""
    if status != STATUS_OK:
        return Interval(_NAN, _NAN, _NAN, confidence, METHOD, resamples, seed, n, 0, status, excluded)
    lo, hi, undefined = _percentiles(reps, confidence, _bounds(metric))
    if not np.isfinite(estimate):
        status = STATUS_UNDEFINED
    return Interval(float(estimate), lo, hi, confidence, METHOD, resamples, seed, n, undefined, status, excluded)


def interval_from_replicates(estimate: float, reps: FloatArray, confidence: float, resamples: int, seed: int,
                             n: int, bounds: tuple[float, float]) -> Interval:
    """An Interval for a statistic bootstrapped outside `bootstrap_metric` (e.g. Spearman), same rules."""
    metric = Metric("external", (), lambda s, k: np.asarray(_NAN), bounds)
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


def _masked_columns(outcomes: Mapping[str, ArrayLike], metric: Metric) -> tuple[FloatArray, FloatArray | None]:
    """(items x columns with left-out items zeroed, 0/1 applicability per item or None when all apply)."""
    cols = np.stack([np.asarray(outcomes[c], dtype=float) for c in metric.columns], axis=1)
    applies = np.isfinite(cols).all(axis=1)
    if applies.all():
        return cols, None
    return np.where(applies[:, None], cols, 0.0), applies.astype(float)


def _replicates(
    outcomes: Mapping[str, ArrayLike], metric: MetricFn | Metric, idx: np.ndarray, counts: FloatArray | None
) -> FloatArray:
    if isinstance(metric, Metric):
        n = _n_items(outcomes)
        w = counts if counts is not None else counts_from_indices(idx, n)
        cols, applies = _masked_columns(outcomes, metric)
        sums = w @ cols
        count: Count = n if applies is None else w @ applies
        return np.asarray(metric.from_sums({c: sums[:, j] for j, c in enumerate(metric.columns)}, count), dtype=float)
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
    """Percentile bootstrap interval of `metric` over items (resampling whole items), with its status."""
    n = _n_items(outcomes)
    excluded = _excluded(outcomes, metric) if n else 0
    status = answer_status(outcomes, metric, excluded)
    if status != STATUS_OK:
        return _interval(_NAN, np.empty(0), confidence, resamples, seed, n, metric, status, excluded)
    if indices is None and isinstance(metric, Metric):
        counts = resample_counts(n, resamples, seed)
        reps = _replicates(outcomes, metric, np.empty((0, n)), counts)
        b = resamples
    else:
        idx = resample_indices(n, resamples, seed) if indices is None else indices
        reps = _replicates(outcomes, metric, idx, None)
        b = int(idx.shape[0])
    return _interval(_point(outcomes, metric), reps, confidence, b, seed, n, metric, status, excluded)


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
    says whether the percentile interval of the difference excludes zero, under the small-sample
    rules of this module (enough items, not degenerate, both sides with valid answers).
    """
    n = _n_items(outcomes_x)
    if _n_items(outcomes_y) != n:
        raise ValueError("paired bootstrap needs both configurations on the same items")
    sides = _side_states(outcomes_x, outcomes_y, metric)
    if sides is not None:
        return _paired_unavailable(sides, confidence, resamples, seed, n)
    counts: FloatArray | None = None
    if indices is None and isinstance(metric, Metric):
        counts = resample_counts(n, resamples, seed)
        idx = np.empty((counts.shape[0], 0))
    else:
        idx = resample_indices(n, resamples, seed) if indices is None else indices
        counts = counts_from_indices(idx, n) if isinstance(metric, Metric) else None
    diff = _replicates(outcomes_x, metric, idx, counts) - _replicates(outcomes_y, metric, idx, counts)
    est = _point(outcomes_x, metric) - _point(outcomes_y, metric)
    excluded = max(_excluded(outcomes_x, metric), _excluded(outcomes_y, metric))
    return _paired_result(est, diff, confidence, int(idx.shape[0]), seed, n, excluded, _difference_bounds(metric))


def _side_states(outcomes_x: Mapping[str, ArrayLike], outcomes_y: Mapping[str, ArrayLike],
                 metric: MetricFn | Metric) -> tuple[str, str] | None:
    """(status of x, status of y) when either side has no value for the metric, else None."""
    n = _n_items(outcomes_x)
    sx = answer_status(outcomes_x, metric, _excluded(outcomes_x, metric) if n else 0)
    sy = answer_status(outcomes_y, metric, _excluded(outcomes_y, metric) if n else 0)
    return None if sx == sy == STATUS_OK else (sx, sy)


def _paired_unavailable(sides: tuple[str, str], confidence: float, resamples: int, seed: int,
                        n: int) -> PairedDifference:
    """A difference with no number: one side has no items, no valid answer or no comparable item."""
    sx, sy = sides
    status = sx if sx != STATUS_OK else sy
    note = "; ".join(f"{side} is {s}" for side, s in (("configuration", sx), ("reference", sy)) if s != STATUS_OK)
    return PairedDifference(_NAN, _NAN, _NAN, _NAN, False, confidence, PAIRED_METHOD, resamples, seed, n, 0,
                            status, 0, f"no difference: {note}")


def significance_note(n_used: int, low: float, high: float) -> str | None:
    """Why a significance claim is withheld (too few items, degenerate or missing interval), else None."""
    if n_used < MIN_ITEMS_FOR_SIGNIFICANCE:
        return f"n = {n_used} items, below the minimum of {MIN_ITEMS_FOR_SIGNIFICANCE} for a significance claim"
    if not (np.isfinite(low) and np.isfinite(high)):
        return "no interval (undefined on every resample)"
    if not low < high:
        return "degenerate interval (every resample gives the same value)"
    return None


def _paired_result(est: float, diff: FloatArray, confidence: float, resamples: int, seed: int, n: int,
                   excluded: int = 0, bounds: tuple[float, float] = (-1.0, 1.0)) -> PairedDifference:
    lo, hi, undefined = _percentiles(diff, confidence, bounds)
    note = significance_note(n - excluded, lo, hi)
    significant = bool(note is None and (lo > 0 or hi < 0))
    status = STATUS_OK if np.isfinite(est) else STATUS_UNDEFINED
    return PairedDifference(est, lo, hi, _p_value(diff), significant, confidence, PAIRED_METHOD, resamples, seed, n,
                            undefined, status, excluded, note)


def replicate_matrix(
    outcomes_by_config: Mapping[str, Mapping[str, ArrayLike]], metric: Metric, counts: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """(point estimates per configuration, replicates resamples x configurations) in one product.

    Items with NaN outcomes are left out per configuration (of its sums and its item count).
    """
    names = list(outcomes_by_config)
    if not names:
        raise ValueError("no configurations to bootstrap")
    n = counts.shape[1]
    blocks, masks = [], []
    for name in names:
        o = outcomes_by_config[name]
        if _n_items(o) != n:
            raise ValueError(f"configuration {name!r} has {_n_items(o)} items, the resamples have {n}")
        cols, applies = _masked_columns(o, metric)
        blocks.append(cols)
        masks.append(applies)
    x = np.concatenate(blocks, axis=1)  # items x (configs * columns)
    m = len(metric.columns)
    sums = counts @ x
    totals = x.sum(axis=0)
    reps = np.empty((counts.shape[0], len(names)))
    point = np.empty(len(names))
    names_of = metric.columns
    for j in range(len(names)):
        mask = masks[j]
        rep_n: Count = n if mask is None else counts @ mask
        point_n: Count = n if mask is None else np.asarray(mask.sum(), dtype=float)
        reps[:, j] = metric.from_sums({c: sums[:, j * m + i] for i, c in enumerate(names_of)}, rep_n)
        point[j] = metric.from_sums({c: totals[j * m + i] for i, c in enumerate(names_of)}, point_n)
    return point, reps


def _empty_many(names: list[str], metric: Metric, resamples: int, seed: int, confidence: float) -> dict[str, Interval]:
    return {name: _interval(_NAN, np.empty(0), confidence, resamples, seed, 0, metric, STATUS_NO_ITEMS, 0)
            for name in names}


def bootstrap_many(
    outcomes_by_config: Mapping[str, Mapping[str, ArrayLike]],
    metric: Metric,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> dict[str, Interval]:
    """Intervals of one metric for many configurations on the same items (shared resamples), with statuses."""
    names = list(outcomes_by_config)
    n = _n_items(outcomes_by_config[names[0]])
    if n == 0:
        return _empty_many(names, metric, resamples, seed, confidence)
    counts = resample_counts(n, resamples, seed)
    point, reps = replicate_matrix(outcomes_by_config, metric, counts)
    out = {}
    for j, name in enumerate(names):
        o = outcomes_by_config[name]
        excluded = _excluded(o, metric)
        status = answer_status(o, metric, excluded)
        out[name] = _interval(float(point[j]), reps[:, j], confidence, resamples, seed, n, metric, status, excluded)
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
    ref = outcomes_by_config[reference]
    out = {}
    if n == 0:
        return {name: _paired_unavailable((STATUS_NO_ITEMS, STATUS_NO_ITEMS), confidence, resamples, seed, 0)
                for name in names if name != reference}
    counts = resample_counts(n, resamples, seed)
    point, reps = replicate_matrix(outcomes_by_config, metric, counts)
    r = names.index(reference)
    diffs = reps - reps[:, [r]]
    for j, name in enumerate(names):
        if j == r:
            continue
        o = outcomes_by_config[name]
        sides = _side_states(o, ref, metric)
        if sides is not None:
            out[name] = _paired_unavailable(sides, confidence, resamples, seed, n)
            continue
        excluded = max(_excluded(o, metric), _excluded(ref, metric))
        out[name] = _paired_result(float(point[j] - point[r]), diffs[:, j], confidence, resamples, seed, n,
                                   excluded, _difference_bounds(metric))
    return out
