"""Agreement between a judge and human scores: Pearson, Spearman, Cohen's kappa, Krippendorff's alpha.

Each statistic is written from its definition with numpy. Pearson, kappa and alpha are
functions of per-unit sums (moments, contingency counts, coincidence counts), so they are
`Metric`s and their bootstrap replicates come from one matrix product like every other
metric; Spearman re-ranks inside each resample (ties get average ranks).

Krippendorff's alpha follows Krippendorff (2011), "Computing Krippendorff's
Alpha-Reliability": coincidence matrix o_ck over pairable values (units with at least
two values), marginals n_c, alpha = 1 - (n - 1) * sum(o_ck d_ck) / sum(n_c n_k d_ck), with
the squared ordinal distance d_ck = (sum_{g=c..k} n_g - (n_c + n_k) / 2)^2. Values are
ranked on the sorted set of values observed in the data (or the `values` given).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike
from scipy.stats import rankdata

from judgeaudit.stats.bootstrap import (
    DEFAULT_CONFIDENCE,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    METHOD,
    Interval,
    _percentiles,
    bootstrap_metric,
    resample_counts,
)
from judgeaudit.stats.metrics import FloatArray, Metric, Sums

Level = Literal["nominal", "ordinal", "interval"]


def _pair(x: ArrayLike, y: ArrayLike) -> tuple[FloatArray, FloatArray]:
    xa, ya = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if xa.shape != ya.shape or xa.ndim != 1:
        raise ValueError(f"agreement needs two 1-D arrays of equal length, got {xa.shape} and {ya.shape}")
    if not (np.isfinite(xa).all() and np.isfinite(ya).all()):
        raise ValueError("agreement inputs must be finite (drop missing units first and report them)")
    if xa.size < 2:
        raise ValueError("agreement needs at least two units")
    return xa, ya


def _pearson_from_sums(s: Sums, n: int) -> FloatArray:
    cov = s["xy"] - s["x"] * s["y"] / n
    vx = s["xx"] - s["x"] ** 2 / n
    vy = s["yy"] - s["y"] ** 2 / n
    den = np.sqrt(np.clip(vx, 0, None) * np.clip(vy, 0, None))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(np.where(den > 1e-12, cov / np.where(den > 1e-12, den, 1.0), np.nan), dtype=float)


PEARSON = Metric("pearson", ("x", "y", "xx", "yy", "xy"), _pearson_from_sums)


def _moment_columns(x: FloatArray, y: FloatArray) -> dict[str, FloatArray]:
    return {"x": x, "y": y, "xx": x * x, "yy": y * y, "xy": x * y}


def pearson(x: ArrayLike, y: ArrayLike) -> float:
    """Pearson correlation; NaN when either side is constant."""
    xa, ya = _pair(x, y)
    return float(PEARSON(_moment_columns(xa, ya)))


def _spearman_rows(o: Mapping[str, FloatArray]) -> FloatArray:
    """Spearman correlation along the last axis (average ranks for ties)."""
    rx = rankdata(o["x"], axis=-1)
    ry = rankdata(o["y"], axis=-1)
    rx = rx - rx.mean(axis=-1, keepdims=True)
    ry = ry - ry.mean(axis=-1, keepdims=True)
    den = np.sqrt((rx * rx).sum(axis=-1) * (ry * ry).sum(axis=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(np.where(den > 0, (rx * ry).sum(axis=-1) / np.where(den > 0, den, 1.0), np.nan), dtype=float)


def _resample_ranks(values: FloatArray, counts: FloatArray) -> FloatArray:
    """Average ranks of every item inside each resample, from the multiplicity matrix.

    An item drawn w times occupies w consecutive positions after everything smaller; items
    with equal values share one block, so each gets the block's mean position (average rank).
    """
    levels, group_of_item = np.unique(values, return_inverse=True)
    if levels.size <= 64:  # few distinct values (vote shares, ratings): group totals by one matrix product
        onehot = (group_of_item[:, None] == np.arange(levels.size)[None, :]).astype(np.float64)
        totals = counts @ onehot  # resamples x groups
    else:
        order = np.argsort(group_of_item, kind="stable")
        starts = np.flatnonzero(np.r_[True, np.diff(group_of_item[order]) != 0])
        totals = np.add.reduceat(counts[:, order], starts, axis=1)
    before = np.cumsum(totals, axis=1) - totals
    group_rank = before + (totals + 1) / 2
    return np.asarray(group_rank[:, group_of_item], dtype=np.float64)


@lru_cache(maxsize=4)
def _seeded_ranks(values: bytes, resamples: int, seed: int) -> FloatArray:
    """Resample ranks for the seeded resamples, cached: the human side is the same for every configuration."""
    v = np.frombuffer(values, dtype=np.float64)
    ranks = _resample_ranks(v, resample_counts(v.size, resamples, seed))
    ranks.flags.writeable = False
    return ranks


def spearman_replicates(x: FloatArray, y: FloatArray, counts: FloatArray,
                        seeded: tuple[int, int] | None = None) -> FloatArray:
    """Spearman correlation of every resample (rows of the multiplicity matrix), re-ranked inside each.

    `seeded` = (resamples, seed) says `counts` are the cached seeded resamples, so ranks may be cached.
    """
    if seeded is not None:
        rx = _seeded_ranks(np.ascontiguousarray(x, dtype=np.float64).tobytes(), *seeded)
        ry = _seeded_ranks(np.ascontiguousarray(y, dtype=np.float64).tobytes(), *seeded)
    else:
        rx, ry = _resample_ranks(x, counts), _resample_ranks(y, counts)
    m = counts.sum(axis=1)
    sx = np.einsum("ij,ij->i", counts, rx)
    sy = np.einsum("ij,ij->i", counts, ry)
    wry = counts * ry
    cov = np.einsum("ij,ij->i", wry, rx) - sx * sy / m
    vx = np.einsum("ij,ij,ij->i", counts, rx, rx) - sx * sx / m
    vy = np.einsum("ij,ij->i", wry, ry) - sy * sy / m
    den = np.sqrt(np.clip(vx, 0, None) * np.clip(vy, 0, None))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(np.where(den > 1e-9, cov / np.where(den > 1e-9, den, 1.0), np.nan), dtype=float)


def spearman(x: ArrayLike, y: ArrayLike) -> float:
    """Spearman rank correlation (Pearson on average ranks); NaN when either side is constant."""
    xa, ya = _pair(x, y)
    return float(_spearman_rows({"x": xa, "y": ya}))


def _codes(labels: Sequence[object], categories: Sequence[object]) -> np.ndarray:
    index = {c: i for i, c in enumerate(categories)}
    missing = sorted({str(v) for v in labels if v not in index})
    if missing:
        raise ValueError(f"labels {missing} are not among the categories {list(map(str, categories))}")
    return np.array([index[v] for v in labels], dtype=int)


def _kappa_metric(k: int) -> Metric:
    cols = tuple(f"c{i}_{j}" for i in range(k) for j in range(k))

    def from_sums(s: Sums, n: int) -> FloatArray:
        table = np.stack([np.asarray(s[c], dtype=float) for c in cols], axis=-1)
        table = table.reshape(table.shape[:-1] + (k, k))
        po = np.trace(table, axis1=-2, axis2=-1) / n
        pe = (table.sum(axis=-1) * table.sum(axis=-2)).sum(axis=-1) / n**2
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.asarray(np.where(pe < 1, (po - pe) / np.where(pe < 1, 1 - pe, 1.0), np.nan), dtype=float)

    return Metric("cohen_kappa", cols, from_sums)


def _kappa_columns(x: Sequence[object], y: Sequence[object], categories: Sequence[object] | None) -> tuple[Metric, dict[str, FloatArray]]:
    if len(x) != len(y):
        raise ValueError(f"kappa needs two label sequences of equal length, got {len(x)} and {len(y)}")
    if len(x) < 2:
        raise ValueError("kappa needs at least two units")
    cats = list(categories) if categories is not None else sorted({*x, *y}, key=str)
    cx, cy = _codes(x, cats), _codes(y, cats)
    k = len(cats)
    cols = {f"c{i}_{j}": ((cx == i) & (cy == j)).astype(float) for i in range(k) for j in range(k)}
    return _kappa_metric(k), cols


def cohen_kappa(x: Sequence[object], y: Sequence[object], categories: Sequence[object] | None = None) -> float:
    """Cohen's kappa between two raters' labels; NaN when chance agreement is 1."""
    metric, cols = _kappa_columns(x, y, categories)
    return float(metric(cols))


def _distance(level: Level, values: FloatArray, n_c: FloatArray) -> FloatArray:
    """Squared distance matrices (..., V, V) from the value marginals n_c (..., V)."""
    v = values.size
    if level == "nominal":
        return np.broadcast_to(1.0 - np.eye(v), n_c.shape[:-1] + (v, v))
    if level == "interval":
        d = (values[:, None] - values[None, :]) ** 2
        return np.broadcast_to(d, n_c.shape[:-1] + (v, v))
    cum = np.cumsum(n_c, axis=-1)
    lo = np.minimum.outer(np.arange(v), np.arange(v))
    hi = np.maximum.outer(np.arange(v), np.arange(v))
    # sum_{g=lo..hi} n_g = cum[hi] - cum[lo] + n_lo
    between = cum[..., hi] - cum[..., lo] + n_c[..., lo]
    half = (n_c[..., :, None] + n_c[..., None, :]) / 2
    return np.asarray((between - half) ** 2, dtype=float)


def _alpha_metric(level: Level, values: FloatArray) -> Metric:
    v = values.size
    cols = tuple(f"o{i}_{j}" for i in range(v) for j in range(v))

    def from_sums(s: Sums, n_units: int) -> FloatArray:
        o = np.stack([np.asarray(s[c], dtype=float) for c in cols], axis=-1)
        o = o.reshape(o.shape[:-1] + (v, v))
        n_c = o.sum(axis=-1)
        n = n_c.sum(axis=-1)
        d = _distance(level, values, n_c)
        observed = (o * d).sum(axis=(-2, -1))
        expected = (n_c[..., :, None] * n_c[..., None, :] * d).sum(axis=(-2, -1))
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.asarray(np.where(expected > 0, 1 - (n - 1) * observed / np.where(expected > 0, expected, 1.0), np.nan), dtype=float)

    return Metric(f"krippendorff_alpha_{level}", cols, from_sums)


def _alpha_columns(data: ArrayLike, level: Level, values: Sequence[float] | None) -> tuple[Metric, dict[str, FloatArray]]:
    """Per-unit coincidence contributions: for unit u, o_ck += (#c-k pairs) / (m_u - 1)."""
    arr = np.asarray(data, dtype=float)
    if arr.ndim != 2:
        raise ValueError(f"alpha needs a coders x units matrix, got shape {arr.shape}")
    observed = np.unique(arr[np.isfinite(arr)])
    vals = np.asarray(sorted(values), dtype=float) if values is not None else observed
    if not set(observed.tolist()) <= set(vals.tolist()):
        raise ValueError(f"values {sorted(set(observed.tolist()) - set(vals.tolist()))} are not in the declared scale")
    v = vals.size
    if v < 2:
        raise ValueError("alpha needs at least two distinct values on the scale")
    onehot = (arr[:, :, None] == vals[None, None, :]).astype(float)  # coders x units x V
    counts = onehot.sum(axis=0)  # units x V
    m = counts.sum(axis=1)
    pairs = counts[:, :, None] * counts[:, None, :] - np.eye(v)[None] * counts[:, :, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        contrib = np.where((m >= 2)[:, None, None], pairs / np.where(m >= 2, m - 1, 1.0)[:, None, None], 0.0)
    cols = {f"o{i}_{j}": contrib[:, i, j] for i in range(v) for j in range(v)}
    return _alpha_metric(level, vals), cols


def krippendorff_alpha(data: ArrayLike, level: Level = "ordinal", values: Sequence[float] | None = None) -> float:
    """Krippendorff's alpha of a coders x units matrix (NaN = missing) at the given level."""
    metric, cols = _alpha_columns(data, level, values)
    return float(metric(cols))


def pearson_interval(x: ArrayLike, y: ArrayLike, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                     confidence: float = DEFAULT_CONFIDENCE) -> Interval:
    """Pearson correlation with a percentile bootstrap interval over units."""
    xa, ya = _pair(x, y)
    return bootstrap_metric(_moment_columns(xa, ya), PEARSON, resamples, seed, confidence)


def spearman_interval(x: ArrayLike, y: ArrayLike, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                      confidence: float = DEFAULT_CONFIDENCE) -> Interval:
    """Spearman correlation with a percentile bootstrap interval over units (re-ranked per resample)."""
    xa, ya = _pair(x, y)
    reps = spearman_replicates(xa, ya, resample_counts(xa.size, resamples, seed), seeded=(resamples, seed))
    lo, hi, undefined = _percentiles(reps, confidence)
    return Interval(spearman(xa, ya), lo, hi, confidence, METHOD, resamples, seed, int(xa.size), undefined)


def cohen_kappa_interval(x: Sequence[object], y: Sequence[object], categories: Sequence[object] | None = None,
                         resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                         confidence: float = DEFAULT_CONFIDENCE) -> Interval:
    """Cohen's kappa with a percentile bootstrap interval over units."""
    metric, cols = _kappa_columns(x, y, categories)
    return bootstrap_metric(cols, metric, resamples, seed, confidence)


def krippendorff_alpha_interval(data: ArrayLike, level: Level = "ordinal", values: Sequence[float] | None = None,
                                resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                                confidence: float = DEFAULT_CONFIDENCE) -> Interval:
    """Krippendorff's alpha with a percentile bootstrap interval over units."""
    metric, cols = _alpha_columns(data, level, values)
    return bootstrap_metric(cols, metric, resamples, seed, confidence)
