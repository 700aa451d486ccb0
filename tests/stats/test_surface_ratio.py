"""Surface-perturbation ratio (judgeaudit.stats.surface_ratio) against hand-computed cases."""

from __future__ import annotations

import math

import numpy as np
import pytest

from judgeaudit.stats import SurfaceRatio, weighted_medians
from judgeaudit.stats.bootstrap import resample_counts
from judgeaudit.stats.surface_ratio import surface_ratio


def test_weighted_medians_equal_the_median_of_the_expanded_list() -> None:
    values = [3.0, 1.0, 2.0]
    weights = [[1, 1, 1], [2, 0, 1], [0, 0, 0], [1, 1, 0], [0, 3, 1]]
    # [1,2,3] -> 2; [3,3,2] -> 3; nothing -> nan; [3,1] -> 2 (mean of the middle two); [1,1,1,2] -> 1
    out = weighted_medians(values, weights)
    assert out[[0, 1, 3, 4]].tolist() == [2.0, 3.0, 2.0, 1.0] and math.isnan(out[2])
    with pytest.raises(ValueError, match="2 columns for 3 values"):
        weighted_medians(values, [[1, 1]])


def test_ratio_point_estimate_by_hand() -> None:
    base = [0.0, 1.0, 3.0]
    pairs = [(0, 1), (0, 2), (1, 2)]  # |diffs| 1, 3, 2 -> typical difference 2
    r = surface_ratio(base, [0, 1, 2, 2], [0.1, 0.3, 0.2, 0.6], pairs, resamples=200, seed=3)
    assert r.typical_difference == pytest.approx(2.0)
    assert r.median_shift == pytest.approx(0.25)  # median of 0.1, 0.2, 0.3, 0.6
    assert r.estimate == pytest.approx(0.125)
    assert (r.n, r.n_shifts, r.n_pairs, r.interval.resamples, r.interval.seed) == (3, 4, 3, 200, 3)
    assert r.interval.method == "percentile over ideas" and r.to_dict()["estimate"] == r.estimate


def _replicate_by_hand(
    counts: np.ndarray,
    base: list[float],
    who: list[int],
    shifts: list[float],
    pairs: list[tuple[int, int]],
) -> float:
    """One replicate by expanding the drawn ideas explicitly (loops, no weighting tricks)."""
    drawn = [i for i, c in enumerate(counts) for _ in range(int(c))]
    s = [shifts[k] for i in drawn for k, w in enumerate(who) if w == i]
    pair_set = set(pairs) | {(j, i) for i, j in pairs}
    d = [
        abs(base[i] - base[j])
        for x, i in enumerate(drawn)
        for j in drawn[x + 1 :]
        if (i, j) in pair_set
    ]
    if not s or not d:
        return float("nan")
    typ = float(np.median(d))
    return (
        float(np.median(s)) / typ if typ > 0 else (math.inf if np.median(s) > 0 else float("nan"))
    )


def test_bootstrap_replicates_match_explicit_expansion() -> None:
    base = [0.0, 0.5, 2.0, 2.5, 4.0]
    pairs = [(0, 1), (0, 2), (1, 2), (3, 4)]
    who, shifts = [0, 0, 1, 2, 3, 4, 4], [0.05, 0.1, 0.2, 0.0, 0.3, 0.1, 0.4]
    r = surface_ratio(base, who, shifts, pairs, resamples=300, seed=11)
    counts = resample_counts(5, 300, 11)
    reps = np.array([_replicate_by_hand(c, base, who, shifts, pairs) for c in counts])
    defined = reps[~np.isnan(reps)]
    assert r.undefined == int(np.isnan(reps).sum())
    finite = np.where(np.isinf(defined), np.finfo(float).max / 4, defined)
    lo, hi = np.quantile(finite, [0.025, 0.975])
    assert r.low == pytest.approx(lo) and (
        r.high == pytest.approx(hi) if hi < 1e300 else math.isinf(r.high)
    )
    assert r.low <= r.estimate <= r.high


def test_resamples_without_a_pair_are_undefined_and_counted() -> None:
    # Two ideas: a resample that draws one idea twice has no pair of different ideas.
    r = surface_ratio([0.0, 1.0], [0, 1], [0.1, 0.1], [(0, 1)], resamples=1000, seed=5)
    counts = resample_counts(2, 1000, 5)
    assert r.undefined == int(((counts[:, 0] == 0) | (counts[:, 1] == 0)).sum()) > 0
    assert (
        r.estimate == pytest.approx(0.1)
        and r.low == pytest.approx(0.1)
        and r.high == pytest.approx(0.1)
    )


def test_unmoved_scores_give_zero_and_flat_scores_infinity_or_undefined() -> None:
    zero = surface_ratio(
        [0.0, 1.0, 2.0], [0, 1, 2], [0.0, 0.0, 0.0], [(0, 1), (1, 2)], resamples=100, seed=1
    )
    assert (zero.estimate, zero.low, zero.high) == (0.0, 0.0, 0.0)
    flat = surface_ratio(
        [0.5, 0.5, 0.5], [0, 1], [0.2, 0.2], [(0, 1), (1, 2)], resamples=100, seed=1
    )
    assert math.isinf(flat.estimate) and math.isinf(flat.high)
    idle = surface_ratio([0.5, 0.5], [0, 1], [0.0, 0.0], [(0, 1)], resamples=100, seed=1)
    assert math.isnan(idle.estimate) and idle.undefined == 100
    none = surface_ratio([0.0, 1.0], [], [], [(0, 1)], resamples=50, seed=1)
    assert isinstance(none, SurfaceRatio) and math.isnan(none.estimate) and none.n_shifts == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (([1.0], [0], [0.1], []), "at least 2 ideas"),
        (([0.0, 1.0], [0], [0.1], []), "at least one pair"),
        (([0.0, 1.0], [0], [0.1], [(1, 1)]), "two different ideas"),
        (([0.0, 1.0], [0], [-0.1], [(0, 1)]), "cannot be negative"),
        (([0.0, 1.0], [2], [0.1], [(0, 1)]), "outside 0..1"),
        (([0.0, 1.0], [0, 1], [0.1], [(0, 1)]), "1 shifts but 2 idea indices"),
        (([0.0, float("nan")], [0], [0.1], [(0, 1)]), "finite"),
    ],
)
def test_bad_inputs_are_named(args: tuple, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        surface_ratio(*args, resamples=10)
