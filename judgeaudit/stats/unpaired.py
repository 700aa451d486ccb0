"""Two-sample (unpaired) bootstrap of a difference of proportions between independent groups.

Group x (n_x items) and group y (n_y items) hold per-item shares in [0, 1] (usually 0/1 hits).
The estimate is mean(x) - mean(y). Each replicate resamples x and y separately, with
replacement and at their own sizes, from one seeded `numpy.random.default_rng(seed)` (first an
(resamples, n_x) index matrix for x, then an (resamples, n_y) one for y), so the two groups'
draws are independent even when n_x == n_y. Interval: percentiles of the replicate
differences; p-value and `significant` as for the paired bootstrap (two-sided, +1 corrected; a
point interval is never significant). Binary outcomes get the closed-form two-sample score
interval instead (`stats.intervals.unpaired_difference`); this serves shares that are not 0/1.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from judgeaudit.stats.bootstrap import (
    DEFAULT_CONFIDENCE,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    _p_value,
    _percentiles,
)
from judgeaudit.stats.results import UnpairedDifference, significance_note

UNPAIRED_METHOD = "two-sample percentile"


def _shares(values: ArrayLike, name: str) -> np.ndarray:
    arr = np.asarray(values, dtype=float).ravel()
    if arr.size == 0:
        raise ValueError(
            f"group {name} is empty: a difference of proportions needs items on both sides"
        )
    if not np.isfinite(arr).all() or (arr < 0).any() or (arr > 1).any():
        raise ValueError(f"group {name} must hold shares in [0, 1]")
    return arr


def unpaired_bootstrap(
    x: ArrayLike,
    y: ArrayLike,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
    indices_x: np.ndarray | None = None,
    indices_y: np.ndarray | None = None,
) -> UnpairedDifference:
    """Bootstrap of mean(x) - mean(y) for two independent groups, each resampled on its own.

    `indices_x` / `indices_y` (resamples x n index matrices) replace the seeded draws when given
    (both or neither), e.g. to check a replicate by hand.
    """
    xs, ys = _shares(x, "x"), _shares(y, "y")
    if (indices_x is None) != (indices_y is None):
        raise ValueError("give both indices_x and indices_y, or neither")
    if indices_x is None or indices_y is None:
        if resamples <= 0:
            raise ValueError(f"resamples must be positive, got {resamples}")
        rng = np.random.default_rng(seed)
        ix = rng.integers(0, xs.size, size=(resamples, xs.size))
        iy = rng.integers(0, ys.size, size=(resamples, ys.size))
    else:
        ix, iy = np.asarray(indices_x), np.asarray(indices_y)
        if ix.shape[0] != iy.shape[0]:
            raise ValueError(f"indices_x has {ix.shape[0]} resamples, indices_y {iy.shape[0]}")
    diff = xs[ix].mean(axis=1) - ys[iy].mean(axis=1)
    lo, hi, undefined = _percentiles(diff, confidence)
    note = significance_note(lo, hi)
    significant = bool(note is None and (lo > 0 or hi < 0))
    return UnpairedDifference(
        float(xs.mean() - ys.mean()),
        lo,
        hi,
        _p_value(diff),
        significant,
        confidence,
        UNPAIRED_METHOD,
        int(ix.shape[0]),
        seed,
        int(xs.size),
        int(ys.size),
        undefined,
        note,
    )
