"""Benchmark: coverage of nominal 95% intervals, per method and n (the tables of docs/methods/intervals.md).

Every interval method in use (`judgeaudit.stats.exact`, `stats.intervals`) and the percentile bootstrap
for comparison, at n = 5, 10, 20, 50, 150 items. Coverage is the probability that the interval holds
the true value; per method and n the table gives its minimum and mean over a grid of true values.

- Rates of 0/1 outcomes: exact, by enumerating the binomial, over true rates 0, 0.005, ..., 1.
- Paired differences of 0/1 outcomes on the same items: exact, by enumerating the trinomial (items at
  +1, -1, 0) over the grid of discordant-cell probabilities P(+1), P(-1) in steps of 0.02 (0.05 at
  n = 150). The same table holds for every figure whose per-item value is 0, 1/2 or 1 (the
  first-position rate over items decided in both orders, the mean of two arms' 0/1 outcomes such as
  the cue-follow rate, soft accuracy): it is (1 + d) / 2 of such a difference, whatever the
  correlation of the two outcomes within an item. Newcombe's hybrid interval depends on the
  concordant cells too: enumerated over the four cells with the concordant share split 0, 1/2, 1.
- Unpaired difference (two independent groups of n and of n or 2n items): exact, by enumerating both
  binomials, over (p1, p2) in steps of 0.02.
- Figures that are means of more values per item (simulated: `--replications` data sets per grid
  cell from `numpy.random.default_rng(--seed)`; Monte Carlo standard error of a coverage near 0.95
  about sqrt(0.95 x 0.05 / R), 0.005 at R = 2,000): flips pooled over k = 4 edits with within-item
  correlation 0, 0.5, 1 (with probability rho all edits flip together), over flip rates 0, 0.1, ...,
  1; their noise-corrected difference (pooled flips minus an independent noise flip at rates 0, 0.1,
  0.3); paired differences of soft accuracy (per item x - y on -1, -1/2, ..., 1; 40 joint
  distributions of (x, y) on 0, 1/2, 1, Dirichlet(1/2) draws and their corners); macro-F1 of a
  pointwise judge (per-class accuracy 0.6, 0.8, 0.95; invalid 0 or 10%), which only the bootstrap serves.

The percentile bootstrap rows of the exact sections use the ideal bootstrap (its limit as the
resamples grow: quantiles of the resampling distribution, computed exactly); the simulated sections
use B = `--resamples` resamples (one seeded multiplicity matrix per n).

Run: python tests/benchmarks/bench_coverage.py [--quick] [--only noise-corrected] [--write docs/methods/intervals.md]
(--only noise-corrected: just the block of the noise-corrected flip rate and the items each gate needs.)
(--quick: coarser grids and 500 replications, a smoke run; the committed tables use the defaults.)
"""

from __future__ import annotations

import argparse
import math
import platform
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import scipy
from doc_block import publish
from scipy import stats
from scipy.special import gammaln, xlogy

from judgeaudit.stats import (
    BINARY,
    FLIP_RATE,
    HALVES,
    interval,
    noise_corrected_flip_rate,
    paired_difference,
    share_metric,
    unpaired_difference,
)
from judgeaudit.stats.bootstrap import resample_counts
from judgeaudit.stats.exact import (
    clopper_pearson,
    fisher_exact_p,
    macro_f1_bounds,
    score_interval,
    two_sample_score_interval,
    z_of,
)

NS = (5, 10, 20, 50, 150)
Z = z_of(0.95)
TOL = 1e-10  # a true value this close to an end counts as inside
Bounds = tuple[np.ndarray, np.ndarray]
Table = dict[str, dict[int, tuple[float, float]]]  # method -> n -> (min, mean)
BEGIN, END = "<!-- coverage:begin -->", "<!-- coverage:end -->"
BEGIN_CORRECTED, END_CORRECTED = (
    "<!-- coverage-corrected:begin -->",
    "<!-- coverage-corrected:end -->",
)


def _wilson(k: np.ndarray, n: np.ndarray | int, cc: float = 0.0) -> Bounds:
    """Wilson's interval (cc = 0) or its continuity-corrected form (cc = 1/2), vectorised."""
    n_arr = np.asarray(n, dtype=float)
    counts = np.stack(np.broadcast_arrays(n_arr - k, np.asarray(k, dtype=float)), axis=-1).reshape(
        -1, 2
    )
    lo, hi = score_interval(counts, (0.0, 1.0), cc=cc)
    return lo.reshape(np.shape(k)), hi.reshape(np.shape(k))


def _ideal_percentiles(values: np.ndarray, probs: np.ndarray) -> Bounds:
    """2.5% and 97.5% inverted-CDF quantiles of a discrete distribution (values sorted ascending per row)."""
    cdf = np.cumsum(probs, axis=-1)
    lo = np.take_along_axis(values, np.argmax(cdf >= 0.025 - 1e-12, axis=-1)[..., None], axis=-1)[
        ..., 0
    ]
    hi = np.take_along_axis(values, np.argmax(cdf >= 0.975 - 1e-12, axis=-1)[..., None], axis=-1)[
        ..., 0
    ]
    return lo, hi


# ---- rates of 0/1 outcomes -------------------------------------------------------------------------


def rate_methods(n: int) -> dict[str, Bounds]:
    """Every method's interval for k = 0..n successes of n."""
    k = np.arange(n + 1, dtype=float)
    boot_vals = np.tile(np.arange(n + 1) / n, (n + 1, 1))
    boot_probs = stats.binom.pmf(np.arange(n + 1)[None, :], n, (k / n)[:, None])
    return {
        "Clopper-Pearson (in use)": clopper_pearson(k, n),
        "Wilson": _wilson(k, n),
        "Wilson, continuity-corrected": _wilson(k, n, 0.5),
        "percentile bootstrap": _ideal_percentiles(boot_vals, boot_probs),
    }


def rate_coverage(n: int, step: float) -> dict[str, tuple[float, float]]:
    """Exact (min, mean) coverage over true rates 0, step, ..., 1."""
    grid = np.linspace(0, 1, round(1 / step) + 1)
    pm = stats.binom.pmf(np.arange(n + 1)[None, :], n, grid[:, None])
    out = {}
    for name, (lo, hi) in rate_methods(n).items():
        covered = (lo[None, :] <= grid[:, None] + TOL) & (grid[:, None] <= hi[None, :] + TOL)
        cov = (pm * covered).sum(axis=1)
        out[name] = (float(cov.min()), float(cov.mean()))
    return out


# ---- paired differences (the trinomial) ------------------------------------------------------------


def trinomial_tables(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Every (b, c): b items at +1, c at -1, the rest at 0."""
    b, c = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
    keep = b + c <= n
    return b[keep].astype(float), c[keep].astype(float)


def _exact_mcnemar(b: np.ndarray, c: np.ndarray) -> np.ndarray:
    m = b + c
    with np.errstate(invalid="ignore"):
        p = np.minimum(1.0, 2 * stats.binom.cdf(np.minimum(b, c), m, 0.5))
    return np.where(m > 0, p, 1.0)


def _paired_bootstrap(b: np.ndarray, c: np.ndarray, n: int) -> Bounds:
    """Ideal paired percentile bootstrap of (b - c) / n: D* = 2 B* - M*, M* ~ Bin(n, (b + c) / n), B* | M* ~ Bin(M*, b / (b + c))."""
    from scipy.sparse import csr_matrix

    m, j = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
    valid = j <= m
    log_choose = np.where(
        valid, gammaln(m + 1) - gammaln(j + 1) - gammaln(np.maximum(m - j, 0) + 1), -np.inf
    ).ravel()
    to_d = csr_matrix(
        (np.ones(int(valid.sum())), (np.flatnonzero(valid.ravel()), (2 * j - m + n)[valid])),
        shape=((n + 1) ** 2, 2 * n + 1),
    )
    values = ((np.arange(2 * n + 1) - n) / n)[None, :]
    lo, hi = np.empty_like(b), np.empty_like(b)
    mm, jj = m.ravel().astype(float), j.ravel().astype(float)
    for sl in _chunks(b.size, max(1, 3_000_000 // (n + 1) ** 2)):
        q = ((b[sl] + c[sl]) / n)[:, None]
        pi = np.where(b[sl] + c[sl] > 0, b[sl] / np.maximum(b[sl] + c[sl], 1), 0.5)[:, None]
        log_m = (
            gammaln(n + 1)
            - gammaln(mm + 1)
            - gammaln(n - mm + 1)
            + xlogy(mm, q)
            + xlogy(n - mm, 1 - q)
        )
        with np.errstate(invalid="ignore"):
            log_j = xlogy(jj, pi) + xlogy(np.maximum(mm - jj, 0), 1 - pi)
        joint = np.where(np.isfinite(log_choose), np.exp(log_m + log_choose + log_j), 0.0)
        dist = np.asarray((to_d.T @ joint.T).T)
        lo[sl], hi[sl] = _ideal_percentiles(np.broadcast_to(values, dist.shape), dist)
    return lo, hi


def paired_methods(n: int) -> dict[str, Bounds]:
    """Every method's interval for every trinomial table on n items (Newcombe apart: it needs four cells)."""
    b, c = trinomial_tables(n)
    counts = np.stack([c, n - b - c, b], axis=1)
    score = score_interval(counts, (-1.0, 0.0, 1.0))
    agree = _exact_mcnemar(b, c) < 0.05
    in_use = (
        np.where(agree, score[0], np.minimum(score[0], 0.0)),
        np.where(agree, score[1], np.maximum(score[1], 0.0)),
    )
    return {
        "paired score, Tango, correction 1, exact McNemar (in use)": in_use,
        "Tango, no correction": score_interval(counts, (-1.0, 0.0, 1.0), cc=0.0),
        "paired percentile bootstrap": _paired_bootstrap(b, c, n),
    }


def _chunks(total: int, size: int) -> Iterator[slice]:
    for start in range(0, total, size):
        yield slice(start, min(total, start + size))


def trinomial_coverage(n: int, step: float) -> dict[str, tuple[float, float]]:
    """Exact (min, mean) coverage over (P(+1), P(-1)) on a grid with P(+1) + P(-1) <= 1."""
    b, c = trinomial_tables(n)
    a = n - b - c
    coef = gammaln(n + 1) - gammaln(b + 1) - gammaln(c + 1) - gammaln(a + 1)
    k = round(1 / step)
    pts = np.array([(i / k, j / k) for i in range(k + 1) for j in range(k + 1 - i)])
    methods = paired_methods(n)
    covs: dict[str, list[np.ndarray]] = {name: [] for name in methods}
    for sl in _chunks(len(pts), max(1, 2_000_000 // len(b))):
        pb, pc = pts[sl, 0:1], pts[sl, 1:2]
        pr = np.clip(1 - pb - pc, 0, 1)
        prob = np.exp(coef + xlogy(b, pb) + xlogy(c, pc) + xlogy(a, pr))
        d = pb - pc
        for name, (lo, hi) in methods.items():
            covered = (lo[None, :] <= d + TOL) & (d <= hi[None, :] + TOL)
            covs[name].append((prob * covered).sum(axis=1))
    return {
        name: (float(np.concatenate(v).min()), float(np.concatenate(v).mean()))
        for name, v in covs.items()
    }


def newcombe_paired(a: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray) -> Bounds:
    """Newcombe's hybrid score interval for paired proportions (Wilson limits, correlation phi; phi = 0 when undefined)."""
    n = a + b + c + d
    p1, p2 = (a + b) / n, (a + c) / n
    l1, u1 = _wilson(a + b, n)
    l2, u2 = _wilson(a + c, n)
    den = np.sqrt((a + b) * (c + d) * (a + c) * (b + d))
    with np.errstate(invalid="ignore", divide="ignore"):
        phi = np.where(den > 0, (a * d - b * c) / np.where(den > 0, den, 1.0), 0.0)
    delta = np.sqrt(
        np.maximum((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2, 0.0)
    )
    eps = np.sqrt(
        np.maximum((u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2, 0.0)
    )
    return p1 - p2 - delta, p1 - p2 + eps


def newcombe_coverage(n: int, step: float) -> tuple[float, float]:
    """Exact (min, mean) coverage of Newcombe's interval over the four-cell tables, concordant split 0, 1/2, 1."""
    grids = np.meshgrid(*(np.arange(n + 1),) * 3, indexing="ij")
    keep = grids[0] + grids[1] + grids[2] <= n
    a, b, c = (g[keep].astype(float) for g in grids)
    d = n - a - b - c
    lo, hi = newcombe_paired(a, b, c, d)
    coef = gammaln(n + 1) - gammaln(a + 1) - gammaln(b + 1) - gammaln(c + 1) - gammaln(d + 1)
    k = round(1 / step)
    pts = np.array(
        [(i / k, j / k, s) for i in range(k + 1) for j in range(k + 1 - i) for s in (0.0, 0.5, 1.0)]
    )
    covs = []
    for sl in _chunks(len(pts), max(1, 4_000_000 // len(a))):
        pb, pc, share = pts[sl, 0:1], pts[sl, 1:2], pts[sl, 2:3]
        rest = np.clip(1 - pb - pc, 0, 1)
        pa, pd = rest * share, rest * (1 - share)
        prob = np.exp(coef + xlogy(a, pa) + xlogy(b, pb) + xlogy(c, pc) + xlogy(d, pd))
        dd = pb - pc
        covs.append((prob * ((lo[None, :] <= dd + TOL) & (dd <= hi[None, :] + TOL))).sum(axis=1))
    cov = np.concatenate(covs)
    return float(cov.min()), float(cov.mean())


# ---- unpaired differences --------------------------------------------------------------------------


def _agresti_caffo(k1: np.ndarray, n1: int, k2: np.ndarray, n2: int) -> Bounds:
    p1, p2 = (k1 + 1) / (n1 + 2), (k2 + 1) / (n2 + 2)
    se = np.sqrt(p1 * (1 - p1) / (n1 + 2) + p2 * (1 - p2) / (n2 + 2))
    return np.clip(p1 - p2 - Z * se, -1, 1), np.clip(p1 - p2 + Z * se, -1, 1)


def _mover(k1: np.ndarray, n1: int, k2: np.ndarray, n2: int, cc: float) -> Bounds:
    """Newcombe's hybrid score interval for independent proportions (Wilson limits; cc = 1/2: corrected)."""
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = _wilson(k1, n1, cc)
    l2, u2 = _wilson(k2, n2, cc)
    return p1 - p2 - np.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), p1 - p2 + np.sqrt(
        (u1 - p1) ** 2 + (p2 - l2) ** 2
    )


def _two_sample_bootstrap(k1: np.ndarray, n1: int, k2: np.ndarray, n2: int) -> Bounds:
    """Ideal two-sample percentile bootstrap: K1* ~ Bin(n1, k1 / n1), K2* ~ Bin(n2, k2 / n2), independent."""
    v = (np.arange(n1 + 1)[:, None] / n1 - np.arange(n2 + 1)[None, :] / n2).ravel()
    order = np.argsort(v, kind="stable")
    lo, hi = np.empty(k1.size), np.empty(k1.size)
    for i, (a, b) in enumerate(zip(k1, k2, strict=True)):
        pr = np.outer(
            stats.binom.pmf(np.arange(n1 + 1), n1, a / n1),
            stats.binom.pmf(np.arange(n2 + 1), n2, b / n2),
        ).ravel()
        ends = _ideal_percentiles(v[order][None, :], pr[order][None, :])
        lo[i], hi[i] = ends[0][0], ends[1][0]
    return lo, hi


def _two_sample_in_use(n1: int, n2: int, score: Bounds | None = None) -> Bounds:
    """The interval in use for every table (k1 of n1, k2 of n2), k1 major: Mee's, widened to 0 where Fisher's
    exact test does not reject (`stats.unpaired_difference`, `stats.noise_corrected_flip_rate`)."""
    k1g, k2g = np.meshgrid(
        np.arange(n1 + 1, dtype=float), np.arange(n2 + 1, dtype=float), indexing="ij"
    )
    k1, k2 = k1g.ravel(), k2g.ravel()
    lo, hi = two_sample_score_interval(k1, n1, k2, n2) if score is None else score
    fisher = np.array([fisher_exact_p(int(a), n1, int(b), n2) for a, b in zip(k1, k2, strict=True)])
    reject = fisher < 0.05
    return np.where(reject, lo, np.minimum(lo, 0.0)), np.where(reject, hi, np.maximum(hi, 0.0))


# Within-item dependence of a probe flip (rate p) and a noise flip (rate q): P(both) for each case.
CORRELATIONS: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "independent": lambda p, q: p * q,
    "positive (halfway to the most)": lambda p, q: (p * q + np.minimum(p, q)) / 2,
    "positive, the most (comonotone)": np.minimum,
    "negative, halfway to the worst case": lambda p, q: (p * q + np.maximum(p + q - 1, 0.0)) / 2,
    "negative, the worst case (flips and noise flips on different items)": lambda p, q: np.maximum(
        p + q - 1, 0.0
    ),
}


def _joint_counts_pmf(n: int, cells: np.ndarray) -> np.ndarray:
    """P(x1 = a, x2 = b) of the flip and noise-flip counts over n items, per row of cells (p11, p10, p01, p00)."""
    pmf = np.zeros((cells.shape[0], n + 1, n + 1))
    pmf[:, 0, 0] = 1.0
    c11, c10, c01, c00 = (cells[:, j, None, None] for j in range(4))
    for _ in range(n):  # add one item: (a, b) moves by (1, 1), (1, 0), (0, 1) or stays
        new = c00 * pmf
        new[:, 1:, :] += c10 * pmf[:, :-1, :]
        new[:, :, 1:] += c01 * pmf[:, :, :-1]
        new[:, 1:, 1:] += c11 * pmf[:, :-1, :-1]
        pmf = new
    return pmf


def corrected_coverage(n: int, step: float) -> dict[str, tuple[float, float]]:
    """Exact (min, mean) coverage of the noise-corrected flip rate's interval over (p, q) on a grid, per correlation."""
    lo, hi = (b.reshape(n + 1, n + 1) for b in _two_sample_in_use(n, n))
    grid = np.linspace(0, 1, round(1 / step) + 1)
    pg, qg = (g.ravel() for g in np.meshgrid(grid, grid, indexing="ij"))
    out = {}
    for name, both in CORRELATIONS.items():
        p11 = both(pg, qg)
        cells = np.clip(np.stack([p11, pg - p11, qg - p11, 1 - pg - qg + p11], axis=1), 0.0, 1.0)
        truth = (pg - qg)[:, None, None]
        covs = (_joint_counts_pmf(n, cells) * ((lo <= truth + TOL) & (truth <= hi + TOL))).sum(
            axis=(1, 2)
        )
        out[f"two-sample score, Mee, Fisher (in use), {name}"] = (
            float(covs.min()),
            float(covs.mean()),
        )
    return out


def unpaired_coverage(
    n1: int, n2: int, step: float, bootstrap: bool
) -> dict[str, tuple[float, float]]:
    """Exact (min, mean) coverage over (p1, p2) on a grid of the given step."""
    k1g, k2g = np.meshgrid(
        np.arange(n1 + 1, dtype=float), np.arange(n2 + 1, dtype=float), indexing="ij"
    )
    k1, k2 = k1g.ravel(), k2g.ravel()
    score = two_sample_score_interval(k1, n1, k2, n2)
    methods: dict[str, Bounds] = {
        "two-sample score, Mee, Hauck-Anderson correction, Fisher (in use)": _two_sample_in_use(
            n1, n2, score
        ),
        "two-sample score, Mee, corrected, alone": score,
        "Newcombe hybrid score": _mover(k1, n1, k2, n2, 0.0),
        "Newcombe hybrid score, corrected": _mover(k1, n1, k2, n2, 0.5),
        "Agresti-Caffo": _agresti_caffo(k1, n1, k2, n2),
    }
    if bootstrap:
        methods["two-sample percentile bootstrap"] = _two_sample_bootstrap(k1, n1, k2, n2)
    grid = np.linspace(0, 1, round(1 / step) + 1)
    p1m = stats.binom.pmf(np.arange(n1 + 1)[None, :], n1, grid[:, None])
    p2m = stats.binom.pmf(np.arange(n2 + 1)[None, :], n2, grid[:, None])
    out = {}
    for name, (lo, hi) in methods.items():
        lo2, hi2 = lo.reshape(n1 + 1, n2 + 1), hi.reshape(n1 + 1, n2 + 1)
        covs = [
            p1m[i] @ ((lo2 <= a - b + TOL) & (a - b <= hi2 + TOL)) @ p2m[j]
            for i, a in enumerate(grid)
            for j, b in enumerate(grid)
        ]
        out[name] = (float(np.min(covs)), float(np.mean(covs)))
    return out


# ---- simulated: means of more values per item -------------------------------------------------------


def _score_on(values: np.ndarray, support: np.ndarray) -> Bounds:
    """The score interval per row of per-item values on `support`, computed once per distinct table."""
    idx = np.abs(values[..., None] - support).argmin(axis=-1)
    counts = np.stack([(idx == j).sum(axis=1) for j in range(support.size)], axis=1).astype(float)
    tables, inverse = np.unique(counts, axis=0, return_inverse=True)
    lo, hi = score_interval(tables, support)
    return lo[inverse.ravel()], hi[inverse.ravel()]


def _bootstrap_on(values: np.ndarray, resamples: int, seed: int) -> Bounds:
    """Percentile bootstrap of each row's mean, one seeded multiplicity matrix for all rows."""
    n = values.shape[1]
    reps = resample_counts(n, resamples, seed) @ values.T / n  # resamples x rows
    lo, hi = np.quantile(reps, [0.025, 0.975], axis=0, method="inverted_cdf")
    return lo, hi


def _two_sample_on(x: np.ndarray, y: np.ndarray) -> Bounds:
    """The noise-corrected flip rate's interval per row (pooled flips x, noise flips y; score test, no Fisher
    for values off 0/1), computed once per distinct pair of sums."""
    n = x.shape[1]
    sums = np.stack([x.sum(axis=1), y.sum(axis=1)], axis=1)
    pairs, inverse = np.unique(sums, axis=0, return_inverse=True)
    lo, hi = two_sample_score_interval(pairs[:, 0], n, pairs[:, 1], n)
    return lo[inverse.ravel()], hi[inverse.ravel()]


def _cover(bounds: Bounds, truth: float) -> float:
    return float(np.mean((bounds[0] <= truth + TOL) & (truth <= bounds[1] + TOL)))


def _pooled_flips(
    rng: np.random.Generator, reps: int, n: int, p: float, rho: float, k: int = 4
) -> np.ndarray:
    together = rng.random((reps, n, 1)) < rho
    common = rng.random((reps, n, 1)) < p
    apart = rng.random((reps, n, k)) < p
    return np.where(together, common, apart).mean(axis=2)


def simulated_coverage(reps: int, resamples: int, seed: int, quick: bool) -> dict[str, Table]:
    """(section -> method -> n -> (min, mean)) for the simulated figures."""
    rng = np.random.default_rng(seed)
    rates = np.linspace(0, 1, 6 if quick else 11)
    k = 4
    pooled_support = np.arange(k + 1) / k
    soft_support = np.array([-1, -0.5, 0, 0.5, 1.0])
    dists = _soft_distributions(np.random.default_rng(seed + 1), 10 if quick else 40)
    sections: dict[str, Table] = {}

    def record(section: str, method: str, n: int, covs: list[float]) -> None:
        sections.setdefault(section, {}).setdefault(method, {})[n] = (
            min(covs),
            float(np.mean(covs)),
        )

    for n in NS:
        pooled: dict[str, list[float]] = {"score": [], "boot": []}
        for rho in (0.0, 0.5, 1.0):
            for p in rates:
                v = _pooled_flips(rng, reps, n, p, rho)
                pooled["score"].append(_cover(_score_on(v, pooled_support), p))
                pooled["boot"].append(_cover(_bootstrap_on(v, resamples, seed), p))
        record("pooled", "score, correction 1/2 (in use)", n, pooled["score"])
        record("pooled", "percentile bootstrap", n, pooled["boot"])
        soft: dict[str, list[float]] = {"score": [], "boot": []}
        for joint in dists:
            cells = rng.choice(9, size=(reps, n), p=joint)
            v = (cells // 3) / 2 - (cells % 3) / 2  # x on 0, 1/2, 1 (row), y (column)
            truth = float(np.dot(joint, (np.arange(9) // 3) / 2 - (np.arange(9) % 3) / 2))
            soft["score"].append(_cover(_score_on(v, soft_support), truth))
            soft["boot"].append(_cover(_bootstrap_on(v, resamples, seed), truth))
        record("soft", "paired score, correction 1 (in use)", n, soft["score"])
        record("soft", "paired percentile bootstrap", n, soft["boot"])
        in_use, alone = _macro_f1_coverage(rng, reps, n, resamples, seed, quick)
        record(
            "macro_f1",
            "percentile bootstrap, error-rate bound where it is a point (in use)",
            n,
            in_use,
        )
        record("macro_f1", "percentile bootstrap alone", n, alone)
        print(f"[simulated, n = {n}: done]", flush=True)
    return sections


def pooled_corrected_coverage(reps: int, resamples: int, seed: int, quick: bool) -> Table:
    """method -> n -> (min, mean) for flips pooled over 4 edits minus an independent noise flip (simulated)."""
    rng = np.random.default_rng(seed + 2)
    rates = np.linspace(0, 1, 6 if quick else 11)
    support = np.arange(-4, 5) / 4
    table: Table = {}
    for n in NS:
        covs: dict[str, list[float]] = {
            "two-sample score, Mee, correction 1/(2n) (in use)": [],
            "paired score, correction 1": [],
            "paired percentile bootstrap": [],
        }
        for rho in (0.0, 1.0):
            for q in (0.0, 0.1, 0.3):
                for p in rates:
                    x, y = (
                        _pooled_flips(rng, reps, n, p, rho),
                        (rng.random((reps, n)) < q).astype(float),
                    )
                    for method, bounds in zip(
                        covs,
                        (
                            _two_sample_on(x, y),
                            _score_on(x - y, support),
                            _bootstrap_on(x - y, resamples, seed),
                        ),
                        strict=True,
                    ):
                        covs[method].append(_cover(bounds, p - q))
        for method, c in covs.items():
            table.setdefault(method, {})[n] = (min(c), float(np.mean(c)))
    return table


def _soft_distributions(rng: np.random.Generator, count: int) -> list[np.ndarray]:
    """Joint distributions of (x, y) on {0, 1/2, 1}^2: Dirichlet(1/2) draws and the nine corners' pairs."""
    out = [rng.dirichlet(np.full(9, 0.5)) for _ in range(count)]
    for i, j in ((0, 8), (2, 6), (4, 4), (0, 0), (8, 8), (1, 7)):
        e = np.zeros(9)
        e[i] += 0.5
        e[j] += 0.5
        out.append(e)
    return out


def _macro_f1(
    tp_n: np.ndarray,
    pred_n: np.ndarray,
    gold_n: np.ndarray,
    tp_o: np.ndarray,
    pred_o: np.ndarray,
    gold_o: np.ndarray,
) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        f_n = np.where(pred_n + gold_n > 0, 2 * tp_n / (pred_n + gold_n), np.nan)
        f_o = np.where(pred_o + gold_o > 0, 2 * tp_o / (pred_o + gold_o), np.nan)
    both = np.stack([f_n, f_o])
    return np.nanmean(both, axis=0)


def _macro_f1_coverage(
    rng: np.random.Generator, reps: int, n: int, resamples: int, seed: int, quick: bool
) -> tuple[list[float], list[float]]:
    """Coverage of the population macro-F1 (expected counts) of a pointwise judge: (in use, bootstrap alone)."""
    gold = np.arange(n) % 2 == 0  # novel on even items
    counts = resample_counts(n, resamples, seed)
    covs: list[float] = []
    boot_covs: list[float] = []
    boot_only: list[Bounds] = []
    accs = (0.6, 0.95) if quick else (0.6, 0.8, 0.95)
    for r_novel in accs:
        for r_not in accs:
            for invalid in (0.0, 0.1):
                u = rng.random((reps, n))
                right = np.where(gold, u < r_novel * (1 - invalid), u < r_not * (1 - invalid))
                bad = u >= 1 - invalid
                pred_novel = np.where(gold, right, ~right & ~bad)
                pred_not = np.where(gold, ~right & ~bad, right)
                g_n, g_o = gold.astype(float), (~gold).astype(float)
                cols = [
                    pred_novel & gold,
                    pred_novel,
                    np.broadcast_to(gold, (reps, n)),
                    pred_not & ~gold,
                    pred_not,
                    np.broadcast_to(~gold, (reps, n)),
                ]
                sums = [counts @ c.T.astype(float) for c in cols]  # resamples x reps
                boot = _macro_f1(*sums)
                lo, hi = np.nanquantile(boot, 0.025, axis=0), np.nanquantile(boot, 0.975, axis=0)
                boot_only.append((lo.copy(), hi.copy()))
                wrong = n - (pred_novel & gold).sum(axis=1) - (pred_not & ~gold).sum(axis=1)
                for r in np.flatnonzero(
                    lo == hi
                ):  # in use: the error-rate bound where the bootstrap is a point
                    lo[r], hi[r] = macro_f1_bounds(float(gold.mean()), int(wrong[r]), n)
                # population value: expected counts of a large sample with the same class shares
                gn, go = g_n.mean(), g_o.mean()
                e_tp_n, e_tp_o = gn * r_novel * (1 - invalid), go * r_not * (1 - invalid)
                e_pred_n = e_tp_n + go * (1 - r_not) * (1 - invalid)
                e_pred_o = e_tp_o + gn * (1 - r_novel) * (1 - invalid)
                truth = float((2 * e_tp_n / (e_pred_n + gn) + 2 * e_tp_o / (e_pred_o + go)) / 2)
                covs.append(_cover((lo, hi), truth))
                boot_covs.append(_cover(boot_only[-1], truth))
    return covs, boot_covs


# ---- how many items a gate needs when every item is alike ------------------------------------------------


def smallest_n(decides: Callable[[int], bool], stop: int = 400) -> int | None:
    """The smallest n <= `stop` at which `decides` holds, by bisection (it holds from there on: more
    items alike only narrow the interval), checked on the next five n."""
    if not decides(stop):
        return None
    lo, hi = 0, stop  # decides(hi) holds; decides(lo) does not (n = 0 decides nothing)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if decides(mid) else (mid, hi)
    if not all(decides(n) for n in range(hi, min(hi + 5, stop) + 1)):
        raise AssertionError(f"the decision is not monotone in n near {hi}")
    return hi


def deciding_items() -> list[tuple[str, str, int | None]]:
    """(gate, data, smallest n) for every default gate on data where every item is alike."""

    def rate(k_of_n: Callable[[int], int]) -> Callable[[int], tuple[float, float]]:
        def f(n: int) -> tuple[float, float]:
            lo, hi = clopper_pearson(k_of_n(n), n)
            return float(lo), float(hi)

        return f

    def paired(
        value: float, support: tuple[float, ...] = BINARY
    ) -> Callable[[int], tuple[float, float]]:
        metric = FLIP_RATE if support == BINARY else share_metric("x", "flip", support)

        def f(n: int) -> tuple[float, float]:
            d = paired_difference({"flip": np.full(n, value)}, {"flip": np.zeros(n)}, metric)
            return d.low, d.high

        return f

    def corrected(value: float) -> Callable[[int], tuple[float, float]]:
        def f(n: int) -> tuple[float, float]:
            d = noise_corrected_flip_rate(np.full(n, value), np.zeros(n))
            return d.low, d.high

        return f

    def halves(value: float) -> Callable[[int], tuple[float, float]]:
        def f(n: int) -> tuple[float, float]:
            iv = interval({"v": np.full(n, value)}, share_metric("v", "v", HALVES))
            return iv.low, iv.high

        return f

    def gap(own: float) -> Callable[[int], tuple[float, float]]:
        def f(n: int) -> tuple[float, float]:  # n items in each group
            u = unpaired_difference(np.full(n, own), np.zeros(n))
            return u.low, u.high

        return f

    rows = [
        (
            "accuracy",
            "every item right: passes (lower end >= 0.6)",
            smallest_n(lambda n: rate(lambda m: m)(n)[0] >= 0.6),
        ),
        (
            "accuracy",
            "every item wrong: fails (upper end < 0.5)",
            smallest_n(lambda n: rate(lambda m: 0)(n)[1] < 0.5),
        ),
        (
            "above_chance",
            "every item right: passes (lower end > 0.5)",
            smallest_n(lambda n: rate(lambda m: m)(n)[0] > 0.5),
        ),
        (
            "invalid_rate",
            "no invalid verdict: passes (upper end <= 0.05)",
            smallest_n(lambda n: rate(lambda m: 0)(n)[1] <= 0.05),
        ),
        (
            "noise_floor",
            "no flip between runs: passes (<= 0.10)",
            smallest_n(lambda n: rate(lambda m: 0)(n)[1] <= 0.10),
        ),
        (
            "noise_floor",
            "every item flips: fails (> 0.25)",
            smallest_n(lambda n: rate(lambda m: m)(n)[0] > 0.25),
        ),
        (
            "position_flip",
            "every item flips, no repeat run (raw rate): fails (> 0.25)",
            smallest_n(lambda n: rate(lambda m: m)(n)[0] > 0.25),
        ),
        (
            "position_flip",
            "every item flips, no noise flip (corrected, two samples): fails (> 0.25)",
            smallest_n(lambda n: corrected(1.0)(n)[0] > 0.25),
        ),
        (
            "position_flip",
            "the same, paired per item (Tango; valid whatever the within-item correlation)",
            smallest_n(lambda n: paired(1.0)(n)[0] > 0.25),
        ),
        (
            "position_flip",
            "no flip, no noise flip (corrected): passes (<= 0.10)",
            smallest_n(lambda n: corrected(0.0)(n)[1] <= 0.10),
        ),
        (
            "position_first",
            "first-shown idea in both orders on every item: fails (> 0.75)",
            smallest_n(lambda n: halves(1.0)(n)[0] > 0.75),
        ),
        (
            "position_first",
            "same idea in both orders on every item: passes (within 0.5 +- 0.10)",
            smallest_n(lambda n: halves(0.5)(n)[1] <= 0.6),
        ),
        (
            "presumption, verbosity, injection",
            "no shift on any item: passes (absolute shift <= 0.10)",
            smallest_n(lambda n: paired(0.0)(n)[1] <= 0.10),
        ),
        (
            "presumption, verbosity, injection",
            "shift on every item: fails (absolute shift > 0.30)",
            smallest_n(lambda n: paired(1.0)(n)[0] > 0.30),
        ),
        (
            "surface",
            "no flip under 4 edits, no noise flip: passes (<= 0.10)",
            smallest_n(lambda n: corrected(0.0)(n)[1] <= 0.10),
        ),
        (
            "surface",
            "every edit flips every item, no noise flip: fails (> 0.25)",
            smallest_n(lambda n: corrected(1.0)(n)[0] > 0.25),
        ),
        (
            "self_preference",
            "no generated idea wins (n items per group): passes (<= 0.10)",
            smallest_n(lambda n: gap(0.0)(n)[1] <= 0.10),
        ),
        (
            "self_preference",
            "own ideas always win, others never (n per group): fails (> 0.25)",
            smallest_n(lambda n: gap(1.0)(n)[0] > 0.25),
        ),
    ]
    return rows


# ---- tables and the document ------------------------------------------------------------------------


def _cell(x: tuple[float, float] | None) -> str:
    return "–" if x is None else f"{x[0]:.3f} / {x[1]:.3f}"


def markdown(title: str, table: Table, note: str = "") -> list[str]:
    """One section: rows = methods, columns = n, cells = min / mean coverage."""
    lines = [
        f"**{title}**",
        "",
        "| method | " + " | ".join(f"n = {n}" for n in NS) + " | lowest minimum |",
        "|---|" + "---|" * (len(NS) + 1),
    ]
    for method, by_n in table.items():
        lowest = min(by_n.values(), key=lambda t: t[0])
        at = min(by_n, key=lambda n: by_n[n][0])
        verdict = f"{lowest[0]:.3f} (n = {at})" + ("" if lowest[0] >= 0.93 else ", below 0.93")
        lines.append(
            f"| {method} | " + " | ".join(_cell(by_n.get(n)) for n in NS) + f" | {verdict} |"
        )
    return lines + (["", note, ""] if note else [""])


def _timed(label: str, fn: Callable[[], Table]) -> Table:
    start = time.perf_counter()
    out = fn()
    print(f"[{label}: {time.perf_counter() - start:.1f} s]", flush=True)
    return out


def main() -> None:
    """Compute every table, print it, and with --write put it into the coverage document."""
    ap = argparse.ArgumentParser()
    ap.add_argument(
        "--quick", action="store_true", help="coarser grids and fewer replications (a smoke run)"
    )
    ap.add_argument(
        "--replications", type=int, default=2000, help="simulated data sets per grid cell"
    )
    ap.add_argument(
        "--resamples", type=int, default=1000, help="bootstrap resamples in the simulated sections"
    )
    ap.add_argument("--seed", type=int, default=20260)
    ap.add_argument(
        "--write", type=Path, help="replace the blocks between the coverage markers of this file"
    )
    ap.add_argument(
        "--only",
        choices=("noise-corrected",),
        help="compute and write only the noise-corrected flip rate's block (and the items each gate needs)",
    )
    args = ap.parse_args()
    reps = 500 if args.quick else args.replications
    step_rate, step_pair, step_unpaired = (0.02, 0.05, 0.05) if args.quick else (0.005, 0.02, 0.02)

    def by_n(fn: Callable[[int], dict[str, tuple[float, float]]]) -> Table:
        table: Table = {}
        for n in NS:
            for method, v in fn(n).items():
                table.setdefault(method, {})[n] = v
        return table

    run = (
        f"`python tests/benchmarks/bench_coverage.py{' --quick' if args.quick else ''}"
        f"{' --only ' + args.only if args.only else ''}` (replications {reps}, bootstrap resamples {args.resamples}, "
        f"seed {args.seed}; numpy {np.__version__}, scipy {scipy.__version__}, Python {platform.python_version()})"
    )
    mc = math.sqrt(0.95 * 0.05 / reps)
    step_corrected = 0.1 if args.quick else 0.05
    corrected = _timed(
        "noise-corrected",
        lambda: by_n(lambda n: corrected_coverage(n, step_corrected if n < 150 else 0.1)),
    )
    pooled_corrected = _timed(
        "noise-corrected, pooled",
        lambda: pooled_corrected_coverage(reps, args.resamples, args.seed, args.quick),
    )
    lines = [
        BEGIN_CORRECTED,
        "",
        f"Generated by {run}. Cells: minimum / mean coverage of nominal 95% intervals over "
        "the grid.",
        "",
    ]
    lines += markdown(
        f"Noise-corrected flip rate: flip rate minus noise floor on the same items, as two samples (exact; P(flip), "
        f"P(noise flip) in steps of {step_corrected}, 0.1 at n = 150; by the within-item dependence of the two flips)",
        corrected,
        "The first three rows are the assumption the gates state (non-negative within-item correlation); "
        "the negative rows are its failure, shown for what it costs.",
    )
    lines += markdown(
        "Noise-corrected pooled flips, per item j/4 minus a noise flip (simulated, "
        f"{reps} data sets per cell; noise 0, 0.1, 0.3, independent of the flips; correlation of the "
        "edits 0, 1)",
        pooled_corrected,
        f"Monte Carlo standard error of a simulated coverage near 0.95: {mc:.3f}.",
    )
    lines += [
        "**Items a gate needs when every item is alike** (the default thresholds; the interval alone decides)",
        "",
        "| gate | data | smallest n |",
        "|---|---|---|",
    ]
    lines += [
        f"| {g} | {what} | {n if n is not None else '> 400'} |" for g, what, n in deciding_items()
    ]
    lines += ["", END_CORRECTED]
    publish("\n".join(lines), args.write, BEGIN_CORRECTED, END_CORRECTED)
    if args.only:
        return

    rates = _timed("rates", lambda: by_n(lambda n: rate_coverage(n, step_rate)))
    paired = _timed(
        "paired", lambda: by_n(lambda n: trinomial_coverage(n, step_pair if n < 150 else 0.05))
    )
    paired_newcombe = _timed(
        "newcombe",
        lambda: {
            "Newcombe hybrid score (four cells)": {
                n: newcombe_coverage(n, 0.05 if n < 150 else 0.1) for n in NS
            }
        },
    )
    paired.update(paired_newcombe)
    unpaired = _timed(
        "unpaired", lambda: by_n(lambda n: unpaired_coverage(n, n, step_unpaired, n <= 50))
    )
    unequal = _timed(
        "unpaired n, 2n",
        lambda: by_n(
            lambda n: {
                f"{k}, groups n and 2n": v
                for k, v in unpaired_coverage(n, 2 * n, step_unpaired, n <= 20).items()
            }
        ),
    )
    unpaired.update(unequal)
    simulated = simulated_coverage(reps, args.resamples, args.seed, args.quick)
    lines = [
        BEGIN,
        "",
        f"Generated by {run}. Cells: minimum / mean coverage of nominal 95% intervals over the grid.",
        "",
    ]
    lines += markdown(
        f"Rates of 0/1 outcomes (exact; true rate 0 to 1 in steps of {step_rate})", rates
    )
    lines += markdown(
        f"Paired differences of 0/1 outcomes, and figures on 0, 1/2, 1 per item (exact; P(+1), P(-1) in steps of "
        f"{step_pair}, 0.05 at n = 150)",
        paired,
        "Newcombe: four cells, concordant share split 0, 1/2, 1; (P(+1), P(-1)) in steps of 0.05 (0.1 at n = 150).",
    )
    lines += markdown(
        f"Unpaired difference, groups of n and n, or n and 2n (exact; p1, p2 in steps of {step_unpaired})",
        unpaired,
        "The ideal bootstrap rows stop where enumerating it for every table gets too slow (–).",
    )
    lines += markdown(
        f"Flips pooled over 4 edits, per item j/4 (simulated, {reps} data sets per cell; within-item "
        "correlation 0, 0.5, 1; flip rate 0 to 1)",
        simulated["pooled"],
    )
    lines += markdown(
        "Paired differences of soft accuracy, per item on -1, -1/2, ..., 1 (simulated; 46 joint "
        "distributions)",
        simulated["soft"],
    )
    lines += markdown(
        "Macro-F1 of a pointwise judge (simulated; per-class accuracy 0.6 to 0.95, invalid 0 or 10%; a "
        "point interval covers only its own value)",
        simulated["macro_f1"],
        f"Monte Carlo standard error of a simulated coverage near 0.95: {mc:.3f}.",
    )
    lines += [
        "The noise-corrected flip rate's tables and the items each gate needs are in the next block.",
        "",
        END,
    ]
    publish("\n".join(lines), args.write, BEGIN, END)


if __name__ == "__main__":
    main()
