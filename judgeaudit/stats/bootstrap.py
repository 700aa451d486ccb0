"""Percentile bootstrap over items, single and paired, vectorised with numpy."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from judgeaudit.stats.metrics import FloatArray, MetricFn

DEFAULT_RESAMPLES = 10_000
DEFAULT_SEED = 20260
DEFAULT_CONFIDENCE = 0.95
METHOD = "percentile"


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

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return asdict(self)


def resample_indices(n: int, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> np.ndarray:
    """A (resamples, n) matrix of item indices drawn with replacement (seeded)."""
    if n <= 0:
        raise ValueError("cannot bootstrap an empty set of items")
    rng = np.random.default_rng(seed)
    dtype = np.int16 if n < 2**15 else np.int32
    return rng.integers(0, n, size=(resamples, n), dtype=dtype)


def _percentiles(reps: FloatArray, confidence: float) -> tuple[float, float]:
    finite = reps[np.isfinite(reps)]
    if finite.size == 0:
        return float("nan"), float("nan")
    alpha = (1 - confidence) / 2
    lo, hi = np.quantile(finite, [alpha, 1 - alpha])
    return float(lo), float(hi)


def _n_items(outcomes: dict[str, FloatArray]) -> int:
    sizes = {np.asarray(v).shape[-1] for v in outcomes.values()}
    if len(sizes) != 1:
        raise ValueError(f"outcome columns differ in length: {sorted(sizes)}")
    return sizes.pop()


def bootstrap_metric(
    outcomes: dict[str, FloatArray],
    metric: MetricFn,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
    indices: np.ndarray | None = None,
) -> Interval:
    """Percentile bootstrap interval of `metric` over items (resampling whole items)."""
    n = _n_items(outcomes)
    idx = resample_indices(n, resamples, seed) if indices is None else indices
    reps = metric({k: np.asarray(v, dtype=float)[idx] for k, v in outcomes.items()})
    lo, hi = _percentiles(np.asarray(reps, dtype=float), confidence)
    est = float(metric({k: np.asarray(v, dtype=float) for k, v in outcomes.items()}))
    return Interval(est, lo, hi, confidence, METHOD, int(idx.shape[0]), seed, n)


def paired_bootstrap(
    outcomes_x: dict[str, FloatArray],
    outcomes_y: dict[str, FloatArray],
    metric: MetricFn,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
    indices: np.ndarray | None = None,
) -> PairedDifference:
    """Bootstrap of metric(x) - metric(y) with the same item resample applied to both sides.

    Inputs must already be aligned on item id. The two-sided p-value is twice the smaller
    share of resampled differences on either side of zero (capped at 1), so `significant`
    agrees with whether the percentile interval excludes zero.
    """
    n = _n_items(outcomes_x)
    if _n_items(outcomes_y) != n:
        raise ValueError("paired bootstrap needs both configurations on the same items")
    idx = resample_indices(n, resamples, seed) if indices is None else indices
    rx = np.asarray(metric({k: np.asarray(v, dtype=float)[idx] for k, v in outcomes_x.items()}), dtype=float)
    ry = np.asarray(metric({k: np.asarray(v, dtype=float)[idx] for k, v in outcomes_y.items()}), dtype=float)
    diff = rx - ry
    est = float(metric({k: np.asarray(v, dtype=float) for k, v in outcomes_x.items()})) - float(
        metric({k: np.asarray(v, dtype=float) for k, v in outcomes_y.items()})
    )
    lo, hi = _percentiles(diff, confidence)
    finite = diff[np.isfinite(diff)]
    if finite.size == 0 or np.all(finite == 0):
        p = 1.0
    else:
        p = float(min(1.0, 2 * min(np.mean(finite <= 0), np.mean(finite >= 0))))
    significant = bool(np.isfinite(lo) and (lo > 0 or hi < 0))
    return PairedDifference(est, lo, hi, p, significant, confidence, METHOD, int(idx.shape[0]), seed, n)
