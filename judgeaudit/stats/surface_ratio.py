"""Surface-perturbation ratio of a judge with a numeric score per idea, with a bootstrap interval.

Inputs: `base[i]`, the judge's score of idea i; one shift per applied surface edit,
|score(edited idea) - score(idea)|, tagged with its idea's index; and index pairs (i, j) of
different ideas of the same area. Then

    ratio = median(shifts) / median(|base[i] - base[j]| over the pairs)

(the denominator is the *typical difference* between two different ideas of one area). A judge
that reads meaning keeps the ratio well below 1; near 1, formatting moves its score as much as
a different idea does.

Interval: percentile bootstrap over ideas, with the seeded draws of
`judgeaudit.stats.bootstrap.resample_counts`. An idea drawn c_i times contributes each of its
shifts c_i times and each of its pairs (i, j) c_i * c_j times (the pairs between the drawn
copies); both medians are taken exactly over these multisets (as `np.median` of the expanded
lists). A resample with no shift, no pair, or 0 / 0 is undefined: left out of the percentiles
and counted in `undefined`. A positive median shift over a zero typical difference is +inf
(kept: scores that do not separate ideas yet move under edits are as bad as it gets); an
interval end that falls among +inf replicates is +inf.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from judgeaudit.stats.bootstrap import (
    DEFAULT_CONFIDENCE,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    resample_counts,
)
from judgeaudit.stats.results import Interval

RATIO_METHOD = "percentile over ideas"
_BLOCK = 512  # resamples per block (keeps the resamples x values matrices small)


@dataclass(frozen=True)
class SurfaceRatio:
    """The ratio as an `Interval` (estimate, bounds, method, seed, n ideas, undefined resamples) and
    the sizes and medians behind it."""

    interval: Interval
    n_shifts: int
    n_pairs: int
    median_shift: float
    typical_difference: float

    @property
    def estimate(self) -> float:
        """The ratio of the observed medians."""
        return self.interval.estimate

    @property
    def low(self) -> float:
        """Lower interval end."""
        return self.interval.low

    @property
    def high(self) -> float:
        """Upper interval end."""
        return self.interval.high

    @property
    def n(self) -> int:
        """Ideas the ratio rests on."""
        return self.interval.n

    @property
    def confidence(self) -> float:
        """Confidence level of the interval."""
        return self.interval.confidence

    @property
    def method(self) -> str:
        """Bootstrap method of the interval."""
        return self.interval.method

    @property
    def resamples(self) -> int | None:
        """Bootstrap resamples."""
        return self.interval.resamples

    @property
    def seed(self) -> int | None:
        """Seed of the bootstrap draws."""
        return self.interval.seed

    @property
    def undefined(self) -> int:
        """Resamples without a defined ratio (left out of the percentiles)."""
        return self.interval.undefined

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready flat dict (the audit card's `ratio` record)."""
        i = self.interval
        return {
            "estimate": i.estimate,
            "low": i.low,
            "high": i.high,
            "confidence": i.confidence,
            "method": i.method,
            "resamples": i.resamples,
            "seed": i.seed,
            "n": i.n,
            "n_shifts": self.n_shifts,
            "n_pairs": self.n_pairs,
            "median_shift": self.median_shift,
            "typical_difference": self.typical_difference,
            "undefined": i.undefined,
        }


def weighted_medians(values: ArrayLike, weights: ArrayLike) -> np.ndarray:
    """Per row of integer `weights` (rows x values), the median of `values` each repeated weight times.

    Equals `np.median` of the expanded list (mean of the two middle elements for an even count);
    NaN for a row whose weights sum to 0.
    """
    v = np.asarray(values, dtype=float)
    w = np.atleast_2d(np.asarray(weights))
    if w.shape[1] != v.shape[0]:
        raise ValueError(f"weights have {w.shape[1]} columns for {v.shape[0]} values")
    if v.size == 0:
        return np.full(w.shape[0], np.nan)
    order = np.argsort(v, kind="stable")
    v, w = v[order], w[:, order].astype(np.int64)
    if (w < 0).any():
        raise ValueError("weights must be non-negative")
    cum = np.cumsum(w, axis=1)
    total = cum[:, -1]
    last = v.size - 1
    lo = np.minimum((cum <= ((total - 1) // 2)[:, None]).sum(axis=1), last)
    hi = np.minimum((cum <= (total // 2)[:, None]).sum(axis=1), last)
    out = (v[lo] + v[hi]) / 2
    out[total == 0] = np.nan
    return out


def _ratio(shift: np.ndarray, typical: np.ndarray) -> np.ndarray:
    """shift / typical; +inf for a positive shift over 0; NaN for 0 / 0 or a missing median."""
    shift, typical = np.asarray(shift, dtype=float), np.asarray(typical, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(typical > 0, shift / np.where(typical > 0, typical, 1.0), np.nan)
    out = np.where((typical == 0) & (shift > 0), np.inf, out)
    return np.where(np.isnan(shift) | np.isnan(typical), np.nan, out)


def _percentiles_with_inf(reps: np.ndarray, confidence: float) -> tuple[float, float, int]:
    defined = reps[~np.isnan(reps)]
    undefined = int(reps.size - defined.size)
    if defined.size == 0:
        return float("nan"), float("nan"), undefined
    finite = defined[np.isfinite(defined)]
    ceiling = float(finite.max()) if finite.size else 0.0
    big = np.where(np.isinf(defined), np.finfo(float).max / 4, defined)
    alpha = (1 - confidence) / 2
    lo, hi = (
        float(q) if q <= ceiling else float("inf") for q in np.quantile(big, [alpha, 1 - alpha])
    )
    return lo, hi, undefined


def _check(
    base: np.ndarray, shift_ideas: np.ndarray, shifts: np.ndarray, pairs: np.ndarray
) -> None:
    n = base.size
    if n < 2:
        raise ValueError(f"the surface ratio needs at least 2 ideas, got {n}")
    if shift_ideas.shape != shifts.shape:
        raise ValueError(f"{shifts.size} shifts but {shift_ideas.size} idea indices")
    if not np.isfinite(base).all() or not np.isfinite(shifts).all():
        raise ValueError("scores and shifts must be finite numbers")
    if (shifts < 0).any():
        raise ValueError("shifts are absolute differences and cannot be negative")
    if pairs.size == 0:
        raise ValueError("the surface ratio needs at least one pair of different ideas of one area")
    if pairs.ndim != 2 or pairs.shape[1] != 2 or (pairs[:, 0] == pairs[:, 1]).any():
        raise ValueError("pairs must be (i, j) index pairs of two different ideas")
    for name, idx in (("shift", shift_ideas), ("pair", pairs.ravel())):
        if idx.size and (idx.min() < 0 or idx.max() >= n):
            raise ValueError(f"a {name} refers to an idea index outside 0..{n - 1}")


def surface_ratio(
    base: ArrayLike,
    shift_ideas: Sequence[int] | ArrayLike,
    shifts: ArrayLike,
    pairs: Sequence[tuple[int, int]] | ArrayLike,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> SurfaceRatio:
    """median(shifts) / median same-area |base[i] - base[j]|, with a percentile bootstrap over ideas."""
    b = np.asarray(base, dtype=float)
    who = np.asarray(shift_ideas, dtype=np.int64).ravel()
    s = np.asarray(shifts, dtype=float).ravel()
    p = (
        np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        if np.size(pairs)
        else np.empty((0, 2), dtype=np.int64)
    )
    _check(b, who, s, p)
    diffs = np.abs(b[p[:, 0]] - b[p[:, 1]])
    median_shift = float(np.median(s)) if s.size else float("nan")
    typical = float(np.median(diffs))
    estimate = float(_ratio(np.array([median_shift]), np.array([typical]))[0])
    counts = resample_counts(b.size, resamples, seed)
    reps = np.empty(resamples)
    for start in range(0, resamples, _BLOCK):
        c = counts[start : start + _BLOCK]
        shift_med = weighted_medians(s, c[:, who])
        typ_med = weighted_medians(diffs, c[:, p[:, 0]] * c[:, p[:, 1]])
        reps[start : start + c.shape[0]] = _ratio(shift_med, typ_med)
    lo, hi, undefined = _percentiles_with_inf(reps, confidence)
    interval = Interval(
        estimate, lo, hi, confidence, RATIO_METHOD, resamples, seed, int(b.size), undefined
    )
    return SurfaceRatio(interval, int(s.size), int(p.shape[0]), median_shift, typical)
