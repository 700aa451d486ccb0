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
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from judgeaudit.stats.bootstrap import (
    DEFAULT_CONFIDENCE,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    bootstrap_many,
    bootstrap_metric,
    interval_from_replicates,
    resample_counts,
)
from judgeaudit.stats.metrics import Count, FloatArray, Metric, Sums
from judgeaudit.stats.results import Interval

Level = Literal["nominal", "ordinal", "interval"]


def _pair(x: ArrayLike, y: ArrayLike) -> tuple[FloatArray, FloatArray]:
    xa, ya = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if xa.shape != ya.shape or xa.ndim != 1:
        raise ValueError(
            f"agreement needs two 1-D arrays of equal length, got {xa.shape} and {ya.shape}"
        )
    if not (np.isfinite(xa).all() and np.isfinite(ya).all()):
        raise ValueError(
            "agreement inputs must be finite (drop missing units first and report them)"
        )
    if xa.size < 2:
        raise ValueError("agreement needs at least two units")
    return xa, ya


def _pearson_from_sums(s: Sums, n: Count) -> FloatArray:
    cov = s["xy"] - s["x"] * s["y"] / n
    vx = s["xx"] - s["x"] ** 2 / n
    vy = s["yy"] - s["y"] ** 2 / n
    den = np.sqrt(np.clip(vx, 0, None) * np.clip(vy, 0, None))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(
            np.where(den > 1e-12, cov / np.where(den > 1e-12, den, 1.0), np.nan), dtype=float
        )


CORRELATION_BOUNDS = (-1.0, 1.0)
PEARSON = Metric("pearson", ("x", "y", "xx", "yy", "xy"), _pearson_from_sums, CORRELATION_BOUNDS)


def _moment_columns(x: FloatArray, y: FloatArray) -> dict[str, FloatArray]:
    return {"x": x, "y": y, "xx": x * x, "yy": y * y, "xy": x * y}


def pearson(x: ArrayLike, y: ArrayLike) -> float:
    """Pearson correlation; NaN when either side is constant."""
    xa, ya = _pair(x, y)
    return float(PEARSON(_moment_columns(xa, ya)))


def _spearman_rows(o: Mapping[str, FloatArray]) -> FloatArray:
    """Spearman correlation along the last axis (average ranks for ties)."""
    # imported on first use: scipy.stats costs about half a second to import
    from scipy.stats import rankdata

    rx = rankdata(o["x"], axis=-1)
    ry = rankdata(o["y"], axis=-1)
    rx = rx - rx.mean(axis=-1, keepdims=True)
    ry = ry - ry.mean(axis=-1, keepdims=True)
    den = np.sqrt((rx * rx).sum(axis=-1) * (ry * ry).sum(axis=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(
            np.where(den > 0, (rx * ry).sum(axis=-1) / np.where(den > 0, den, 1.0), np.nan),
            dtype=float,
        )


@dataclass(frozen=True)
class _RankSide:
    """One variable's ranks inside every resample, kept per tie group (items with equal values)."""

    group_of_item: np.ndarray  # n: tie group of each item
    onehot: FloatArray | None  # n x groups, when there are few groups
    group_rank: FloatArray  # resamples x groups: average rank of the group inside the resample
    s: FloatArray  # resamples: sum of ranks over drawn units
    ss: FloatArray  # resamples: sum of squared ranks over drawn units

    def full(self) -> FloatArray:
        """Rank of every item inside every resample (resamples x n)."""
        return np.asarray(self.group_rank[:, self.group_of_item], dtype=np.float64)


def _rank_side(values: FloatArray, counts: FloatArray) -> _RankSide:
    """Average ranks inside each resample, from the multiplicity matrix.

    An item drawn w times occupies w consecutive positions after everything smaller; items
    with equal values share one block, so each gets the block's mean position (average rank).
    """
    levels, group_of_item = np.unique(values, return_inverse=True)
    onehot = None
    if (
        levels.size <= 64
    ):  # few distinct values (vote shares, ratings): group totals by one matrix product
        onehot = (group_of_item[:, None] == np.arange(levels.size)[None, :]).astype(np.float64)
        totals = counts @ onehot  # resamples x groups
    else:
        order = np.argsort(group_of_item, kind="stable")
        starts = np.flatnonzero(np.r_[True, np.diff(group_of_item[order]) != 0])
        totals = np.add.reduceat(counts[:, order], starts, axis=1)
    before = np.cumsum(totals, axis=1) - totals
    group_rank = before + (totals + 1) / 2
    s = (totals * group_rank).sum(axis=1)
    ss = (totals * group_rank * group_rank).sum(axis=1)
    return _RankSide(group_of_item, onehot, group_rank, s, ss)


def _resample_ranks(values: FloatArray, counts: FloatArray) -> FloatArray:
    """Average rank of every item inside every resample (resamples x n)."""
    return _rank_side(values, counts).full()


@lru_cache(maxsize=2)
def _seeded_side(values: bytes, resamples: int, seed: int) -> tuple[_RankSide, FloatArray]:
    """Ranks (and counts x ranks) for the seeded resamples, cached: the human side is shared by every configuration."""
    v = np.frombuffer(values, dtype=np.float64)
    counts = resample_counts(v.size, resamples, seed)
    side = _rank_side(v, counts)
    weighted = counts * side.full()
    weighted.flags.writeable = False
    return side, weighted


# Tie groups ranked at once by `spearman_replicates_many`: bounds its resamples x groups arrays.
_RANK_BLOCK_GROUPS = 256
_FEW_LEVELS = 64  # a column with more distinct values is ranked alone, by sorting (not a product)


def _tie_groups(values: FloatArray) -> tuple[np.ndarray, np.ndarray]:
    """(group of each item per column, n x C, numbered across columns; first group of each column):
    the items with equal values within each column of `values` (n x C)."""
    groups = np.empty(values.shape, dtype=np.int64)
    starts = np.empty(values.shape[1], dtype=np.int64)
    offset = 0
    for j in range(values.shape[1]):
        levels, inverse = np.unique(values[:, j], return_inverse=True)
        groups[:, j] = inverse + offset
        starts[j] = offset
        offset += levels.size
    return groups, starts


def _spearman_block(
    x: FloatArray, ry: _RankSide, weighted_y: FloatArray, counts: FloatArray, m: FloatArray
) -> FloatArray:
    """Spearman replicates (resamples x C) of the columns of `x` against one ranked y side.

    Every sum here is of integers and half-integers (counts, average ranks), exact in float64,
    so the result does not depend on how many columns are ranked together."""
    groups, starts = _tie_groups(x)
    n, total = x.shape[0], int(groups.max()) + 1
    if (
        x.shape[1] > 1 or total <= _FEW_LEVELS
    ):  # draws of each tie group (resamples x groups) by one product
        onehot = np.zeros((n, total), dtype=np.float64)
        onehot[np.arange(n)[:, None], groups] = 1.0
        totals, drawn_y = counts @ onehot, weighted_y @ onehot
    else:  # one column of many distinct values: items sorted by value, summed per group
        order = np.argsort(groups[:, 0], kind="stable")
        first = np.flatnonzero(np.r_[True, np.diff(groups[order, 0]) != 0])
        totals = np.add.reduceat(counts[:, order], first, axis=1)
        drawn_y = np.add.reduceat(weighted_y[:, order], first, axis=1)
    column = np.repeat(np.arange(starts.size), np.diff(np.r_[starts, total]))
    before = np.cumsum(totals, axis=1) - totals
    before -= before[:, starts][:, column]  # draws of smaller values, within the column
    group_rank = before + (totals + 1) / 2
    s = np.add.reduceat(totals * group_rank, starts, axis=1)
    ss = np.add.reduceat(totals * group_rank * group_rank, starts, axis=1)
    cross = np.add.reduceat(drawn_y * group_rank, starts, axis=1)
    cov = cross - s * ry.s[:, None] / m
    vx = ss - s * s / m
    vy = ry.ss - ry.s * ry.s / m[:, 0]
    den = np.sqrt(np.clip(vx, 0, None) * np.clip(vy, 0, None)[:, None])
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(
            np.where(den > 1e-9, cov / np.where(den > 1e-9, den, 1.0), np.nan), dtype=float
        )


def spearman_replicates_many(
    x: FloatArray, y: FloatArray, counts: FloatArray, seeded: tuple[int, int] | None = None
) -> FloatArray:
    """Spearman correlation of every resample (rows of the multiplicity matrix) for every column
    of `x` (n x C, one judge per column) against `y` (n), re-ranked inside each: resamples x C.

    `seeded` = (resamples, seed) says `counts` are the cached seeded resamples, so the y side
    (the human scores, the same for every configuration) may be cached.
    """
    xa = np.asarray(x, dtype=np.float64)
    if xa.shape[0] == 0:  # no unit: no correlation in any resample
        return np.full((counts.shape[0], xa.shape[1]), np.nan)
    if seeded is not None:
        ry, weighted_y = _seeded_side(np.ascontiguousarray(y, dtype=np.float64).tobytes(), *seeded)
    else:
        ry = _rank_side(np.asarray(y, dtype=np.float64), counts)
        weighted_y = counts * ry.full()
    m = counts.sum(axis=1)[:, None]
    out = np.empty((counts.shape[0], xa.shape[1]))
    for start, stop in _rank_blocks(xa):
        out[:, start:stop] = _spearman_block(xa[:, start:stop], ry, weighted_y, counts, m)
    return out


def _rank_blocks(x: FloatArray) -> list[tuple[int, int]]:
    """Column ranges of `x` ranked together: up to `_RANK_BLOCK_GROUPS` tie groups of columns with
    few distinct values; a column with more than `_FEW_LEVELS` alone."""
    blocks: list[tuple[int, int]] = []
    start, size = 0, 0
    for j in range(x.shape[1]):
        levels = np.unique(x[:, j]).size
        alone = levels > _FEW_LEVELS
        if j > start and (alone or size + levels > _RANK_BLOCK_GROUPS):
            blocks.append((start, j))
            start, size = j, 0
        size += levels if not alone else _RANK_BLOCK_GROUPS + 1
    if x.shape[1]:
        blocks.append((start, x.shape[1]))
    return blocks


def spearman_replicates(
    x: FloatArray, y: FloatArray, counts: FloatArray, seeded: tuple[int, int] | None = None
) -> FloatArray:
    """Spearman correlation of every resample (rows of the multiplicity matrix), re-ranked inside each
    (`spearman_replicates_many` of one column)."""
    return spearman_replicates_many(np.asarray(x, dtype=np.float64)[:, None], y, counts, seeded)[
        :, 0
    ]


def spearman(x: ArrayLike, y: ArrayLike) -> float:
    """Spearman rank correlation (Pearson on average ranks); NaN when either side is constant."""
    xa, ya = _pair(x, y)
    return float(_spearman_rows({"x": xa, "y": ya}))


def _codes(labels: Sequence[object], categories: Sequence[object]) -> np.ndarray:
    index = {c: i for i, c in enumerate(categories)}
    missing = sorted({str(v) for v in labels if v not in index})
    if missing:
        raise ValueError(
            f"labels {missing} are not among the categories {list(map(str, categories))}"
        )
    return np.array([index[v] for v in labels], dtype=int)


def _kappa_metric(k: int) -> Metric:
    cols = tuple(f"c{i}_{j}" for i in range(k) for j in range(k))

    def from_sums(s: Sums, n: Count) -> FloatArray:
        table = np.stack([np.asarray(s[c], dtype=float) for c in cols], axis=-1)
        table = table.reshape(table.shape[:-1] + (k, k))
        po = np.trace(table, axis1=-2, axis2=-1) / n
        pe = (table.sum(axis=-1) * table.sum(axis=-2)).sum(axis=-1) / n**2
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.asarray(
                np.where(pe < 1, (po - pe) / np.where(pe < 1, 1 - pe, 1.0), np.nan), dtype=float
            )

    return Metric("cohen_kappa", cols, from_sums, CORRELATION_BOUNDS)


def _kappa_columns(
    x: Sequence[object], y: Sequence[object], categories: Sequence[object] | None
) -> tuple[Metric, dict[str, FloatArray]]:
    if len(x) != len(y):
        raise ValueError(
            f"kappa needs two label sequences of equal length, got {len(x)} and {len(y)}"
        )
    if len(x) < 2:
        raise ValueError("kappa needs at least two units")
    cats = list(categories) if categories is not None else sorted({*x, *y}, key=str)
    cx, cy = _codes(x, cats), _codes(y, cats)
    k = len(cats)
    cols = {f"c{i}_{j}": ((cx == i) & (cy == j)).astype(float) for i in range(k) for j in range(k)}
    return _kappa_metric(k), cols


def cohen_kappa(
    x: Sequence[object], y: Sequence[object], categories: Sequence[object] | None = None
) -> float:
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

    def from_sums(s: Sums, n_units: Count) -> FloatArray:
        o = np.stack([np.asarray(s[c], dtype=float) for c in cols], axis=-1)
        o = o.reshape(o.shape[:-1] + (v, v))
        n_c = o.sum(axis=-1)
        n = n_c.sum(axis=-1)
        d = _distance(level, values, n_c)
        observed = (o * d).sum(axis=(-2, -1))
        expected = (n_c[..., :, None] * n_c[..., None, :] * d).sum(axis=(-2, -1))
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.asarray(
                np.where(
                    expected > 0,
                    1 - (n - 1) * observed / np.where(expected > 0, expected, 1.0),
                    np.nan,
                ),
                dtype=float,
            )

    return Metric(f"krippendorff_alpha_{level}", cols, from_sums, (-np.inf, 1.0))


def _alpha_columns(
    data: ArrayLike, level: Level, values: Sequence[float] | None
) -> tuple[Metric, dict[str, FloatArray]]:
    """Per-unit coincidence contributions: for unit u, o_ck += (#c-k pairs) / (m_u - 1)."""
    arr = np.asarray(data, dtype=float)
    if arr.ndim != 2:
        raise ValueError(f"alpha needs a coders x units matrix, got shape {arr.shape}")
    observed = np.unique(arr[np.isfinite(arr)])
    vals = np.asarray(sorted(values), dtype=float) if values is not None else observed
    if not set(observed.tolist()) <= set(vals.tolist()):
        raise ValueError(
            f"values {sorted(set(observed.tolist()) - set(vals.tolist()))} are not in the declared scale"
        )
    v = vals.size
    if v < 2:
        raise ValueError("alpha needs at least two distinct values on the scale")
    onehot = (arr[:, :, None] == vals[None, None, :]).astype(float)  # coders x units x V
    counts = onehot.sum(axis=0)  # units x V
    m = counts.sum(axis=1)
    pairs = counts[:, :, None] * counts[:, None, :] - np.eye(v)[None] * counts[:, :, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        contrib = np.where(
            (m >= 2)[:, None, None], pairs / np.where(m >= 2, m - 1, 1.0)[:, None, None], 0.0
        )
    cols = {f"o{i}_{j}": contrib[:, i, j] for i in range(v) for j in range(v)}
    return _alpha_metric(level, vals), cols


def krippendorff_alpha(
    data: ArrayLike, level: Level = "ordinal", values: Sequence[float] | None = None
) -> float:
    """Krippendorff's alpha of a coders x units matrix (NaN = missing) at the given level."""
    metric, cols = _alpha_columns(data, level, values)
    return float(metric(cols))


def pearson_interval(
    x: ArrayLike,
    y: ArrayLike,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> Interval:
    """Pearson correlation with a percentile bootstrap interval over units."""
    xa, ya = _pair(x, y)
    return bootstrap_metric(_moment_columns(xa, ya), PEARSON, resamples, seed, confidence)


def spearman_interval(
    x: ArrayLike,
    y: ArrayLike,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> Interval:
    """Spearman correlation with a percentile bootstrap interval over units (re-ranked per resample)."""
    xa, ya = _pair(x, y)
    reps = spearman_replicates(
        xa, ya, resample_counts(xa.size, resamples, seed), seeded=(resamples, seed)
    )
    return interval_from_replicates(
        spearman(xa, ya), reps, confidence, resamples, seed, int(xa.size), CORRELATION_BOUNDS
    )


def cohen_kappa_interval(
    x: Sequence[object],
    y: Sequence[object],
    categories: Sequence[object] | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> Interval:
    """Cohen's kappa with a percentile bootstrap interval over units."""
    metric, cols = _kappa_columns(x, y, categories)
    return bootstrap_metric(cols, metric, resamples, seed, confidence)


def krippendorff_alpha_interval(
    data: ArrayLike,
    level: Level = "ordinal",
    values: Sequence[float] | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> Interval:
    """Krippendorff's alpha with a percentile bootstrap interval over units."""
    metric, cols = _alpha_columns(data, level, values)
    return bootstrap_metric(cols, metric, resamples, seed, confidence)


def _by_size(arrays: Mapping[str, int]) -> dict[int, list[str]]:
    groups: dict[int, list[str]] = {}
    for name, n in arrays.items():
        groups.setdefault(n, []).append(name)
    return groups


def agreement_many(
    scores: Mapping[str, tuple[ArrayLike, ArrayLike]],
    labels: Mapping[str, tuple[Sequence[object], Sequence[object]]],
    categories: Sequence[object],
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> dict[str, dict[str, Interval | str]]:
    """Pearson, Spearman, Cohen's kappa and ordinal Krippendorff alpha for many judges at once.

    `scores[name]` = (judge score, human score) per unit, `labels[name]` = (judge label, human
    label) per unit, labels on the ordinal scale `categories` (lowest first). Units must be
    complete (filter missing ones first). Judges with the same number of units share one
    seeded resample draw and one matrix product per statistic; a statistic that cannot be
    computed is a string saying why.
    """
    out: dict[str, dict[str, Interval | str]] = {name: {} for name in {*scores, *labels}}
    pearson_cols: dict[str, dict[str, FloatArray]] = {}
    same_y: dict[bytes, list[str]] = {}
    for name, (x, y) in scores.items():
        try:
            xa, ya = _pair(x, y)
        except ValueError as exc:
            out[name]["pearson"] = out[name]["spearman"] = str(exc)
            continue
        pearson_cols[name] = _moment_columns(xa, ya)
        same_y.setdefault(ya.tobytes(), []).append(name)
    for names in same_y.values():  # judges scored against the same human scores: ranked together
        ya = pearson_cols[names[0]]["y"]
        xs = np.stack([pearson_cols[k]["x"] for k in names], axis=1)
        reps = spearman_replicates_many(
            xs, ya, resample_counts(ya.size, resamples, seed), seeded=(resamples, seed)
        )
        for j, name in enumerate(names):
            out[name]["spearman"] = interval_from_replicates(
                spearman(xs[:, j], ya),
                reps[:, j],
                confidence,
                resamples,
                seed,
                int(ya.size),
                CORRELATION_BOUNDS,
            )
    for names in _by_size({k: v["x"].size for k, v in pearson_cols.items()}).values():
        for name, iv in bootstrap_many(
            {k: pearson_cols[k] for k in names}, PEARSON, resamples, seed, confidence
        ).items():
            out[name]["pearson"] = iv
    values = [float(i) for i in range(len(categories))]
    kappa_cols: dict[str, dict[str, FloatArray]] = {}
    alpha_cols: dict[str, dict[str, FloatArray]] = {}
    kappa_metric = alpha_metric = None
    for name, (judge, human) in labels.items():
        try:
            kappa_metric, kappa_cols[name] = _kappa_columns(judge, human, categories)
            codes = np.array([_codes(judge, categories), _codes(human, categories)], dtype=float)
            alpha_metric, alpha_cols[name] = _alpha_columns(codes, "ordinal", values)
        except ValueError as exc:
            out[name]["cohen_kappa"] = out[name]["krippendorff_alpha_ordinal"] = str(exc)
            kappa_cols.pop(name, None)
    for key, cols, metric in (
        ("cohen_kappa", kappa_cols, kappa_metric),
        ("krippendorff_alpha_ordinal", alpha_cols, alpha_metric),
    ):
        if metric is None:
            continue
        for names in _by_size({k: len(next(iter(v.values()))) for k, v in cols.items()}).values():
            for name, iv in bootstrap_many(
                {k: cols[k] for k in names}, metric, resamples, seed, confidence
            ).items():
                out[name][key] = iv
    return out
