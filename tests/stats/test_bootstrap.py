"""Bootstrap intervals and paired tests: reproducibility, coverage and false-positive rate by
simulation, and agreement with scipy.stats.bootstrap(method='percentile') within Monte Carlo error."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from judgeaudit.stats import (
    PAIRWISE,
    POINTWISE,
    Interval,
    PairedDifference,
    UnpairedDifference,
    bootstrap_metric,
    excludes_from_above,
    items_behind,
    paired_bootstrap,
    pairwise_outcomes,
    pointwise_outcomes,
)
from judgeaudit.stats.bootstrap import (
    _paired_result,
    bootstrap_many,
    counts_from_indices,
    paired_bootstrap_many,
    replicate_matrix,
    resample_counts,
    resample_indices,
)

ACC = PAIRWISE["strict_accuracy"]


def _correct_outcomes(flags: np.ndarray) -> dict[str, np.ndarray]:
    gold = np.array(["a"] * flags.size, dtype=object)
    verdicts = np.where(flags > 0, "a", "b")
    return pairwise_outcomes(list(verdicts), list(gold))


def test_interval_records_seed_and_method_and_is_reproducible() -> None:
    o = _correct_outcomes(np.random.default_rng(1).random(50) < 0.6)
    a = bootstrap_metric(o, ACC, resamples=2000, seed=7)
    b = bootstrap_metric(o, ACC, resamples=2000, seed=7)
    c = bootstrap_metric(o, ACC, resamples=2000, seed=8)
    assert a == b and a != c
    assert (a.method, a.resamples, a.seed, a.n, a.confidence) == ("percentile", 2000, 7, 50, 0.95)
    assert a.low <= a.estimate <= a.high


def test_matrix_product_path_equals_index_path() -> None:
    """The fast Metric path (counts @ columns) gives the same replicates as fancy indexing."""
    o = pointwise_outcomes(
        list(np.random.default_rng(2).choice(["novel", "not_novel", "invalid"], 40)),
        list(np.random.default_rng(3).choice(["novel", "not_novel"], 40)),
    )
    idx = resample_indices(40, 500, 11)
    fast = bootstrap_metric(o, POINTWISE["macro_f1"], indices=idx, seed=11)
    slow = bootstrap_metric(
        o, lambda d: POINTWISE["macro_f1"](d), indices=idx, seed=11
    )  # plain callable
    assert fast.low == pytest.approx(slow.low) and fast.high == pytest.approx(slow.high)
    counts = counts_from_indices(idx, 40)
    assert counts.sum(axis=1).tolist() == [40.0] * 500
    assert np.array_equal(counts, resample_counts(40, 500, 11))


def test_undefined_replicates_are_counted() -> None:
    # one decided item among 5: resamples without it have no accuracy without ties
    o = pairwise_outcomes(["a", "tie", "tie", "tie", "tie"], ["a"] * 5)
    iv = bootstrap_metric(o, PAIRWISE["accuracy_no_ties"], resamples=1000, seed=1)
    expected_share = (4 / 5) ** 5  # chance a resample never draws the decided item
    assert iv.undefined / 1000 == pytest.approx(expected_share, abs=0.05)
    assert iv.low == iv.high == 1.0


def test_empty_inputs_have_a_status_and_mismatched_inputs_fail() -> None:
    empty = bootstrap_metric({"correct": np.array([])}, ACC)
    assert (
        empty.status == "no_items"
        and empty.n == 0
        and np.isnan(empty.estimate)
        and not empty.conclusive
    )
    with pytest.raises(ValueError, match="same items"):
        paired_bootstrap(_correct_outcomes(np.ones(3)), _correct_outcomes(np.ones(4)), ACC)
    with pytest.raises(KeyError, match="reference"):
        paired_bootstrap_many({"x": _correct_outcomes(np.ones(3))}, "y", ACC)


def test_paired_many_equals_single_pairs() -> None:
    rng = np.random.default_rng(5)
    outs = {f"c{i}": _correct_outcomes(rng.random(60) < 0.5 + 0.1 * i) for i in range(3)}
    many = paired_bootstrap_many(outs, "c0", ACC, resamples=3000, seed=9)
    one = paired_bootstrap(outs["c2"], outs["c0"], ACC, resamples=3000, seed=9)
    assert many["c2"].low == pytest.approx(one.low) and many["c2"].p_value == pytest.approx(
        one.p_value
    )
    assert set(many) == {"c1", "c2"}
    ivs = bootstrap_many(outs, ACC, resamples=3000, seed=9)
    assert ivs["c1"] == bootstrap_metric(outs["c1"], ACC, resamples=3000, seed=9)


def test_p_value_and_significance_on_clear_cases() -> None:
    x = _correct_outcomes(np.ones(100))
    y = _correct_outcomes(np.r_[np.ones(50), np.zeros(50)])
    d = paired_bootstrap(x, y, ACC, resamples=2000, seed=3)
    assert d.estimate == 0.5 and d.significant and d.p_value == pytest.approx(2 / 2001)
    same = paired_bootstrap(x, x, ACC, resamples=2000, seed=3)
    assert same.estimate == 0 and not same.significant and same.p_value == 1.0


def _simulated_replicates(
    data: np.ndarray, resamples: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """Point estimates and bootstrap replicates of accuracy for many simulated datasets (columns)."""
    outs = {str(j): {"correct": data[:, j]} for j in range(data.shape[1])}
    return replicate_matrix(outs, ACC, resample_counts(data.shape[0], resamples, seed))


def test_coverage_of_nominal_95_interval_by_simulation() -> None:
    """Known true accuracy 0.7, 2,000 simulated datasets of 308 items: coverage within 93-97%."""
    true_p, n, datasets = 0.7, 308, 2000
    data = (np.random.default_rng(123).random((n, datasets)) < true_p).astype(float)
    _, reps = _simulated_replicates(data, 2000, 456)
    lo, hi = np.quantile(reps, [0.025, 0.975], axis=0)
    coverage = float(np.mean((lo <= true_p) & (true_p <= hi)))
    print(f"coverage={coverage:.4f}")
    assert 0.93 <= coverage <= 0.97, coverage


def test_paired_false_positive_rate_under_null() -> None:
    """Two judges with the same true accuracy (correlated errors): 4-6% of paired tests reject."""
    n, datasets = 308, 2000
    rng = np.random.default_rng(99)
    shared = rng.random((n, datasets)) < 0.5  # items both find easy
    x = np.where(shared, rng.random((n, datasets)) < 0.9, rng.random((n, datasets)) < 0.5).astype(
        float
    )
    y = np.where(shared, rng.random((n, datasets)) < 0.9, rng.random((n, datasets)) < 0.5).astype(
        float
    )
    counts = resample_counts(n, 2000, 7)
    px, rx = replicate_matrix({str(j): {"correct": x[:, j]} for j in range(datasets)}, ACC, counts)
    py, ry = replicate_matrix({str(j): {"correct": y[:, j]} for j in range(datasets)}, ACC, counts)
    results = [
        _paired_result(float(px[j] - py[j]), rx[:, j] - ry[:, j], 0.95, 2000, 7, n)
        for j in range(datasets)
    ]
    fpr = np.mean([r.significant for r in results])
    print(f"false-positive rate={fpr:.4f}")
    assert 0.04 <= fpr <= 0.06, fpr
    # the p-value and the interval tell the same story
    agree = np.mean([(r.p_value < 0.05) == r.significant for r in results])
    assert agree > 0.99
    # and the test has power against a real 10-point difference
    y_worse = np.where(rng.random((n, datasets)) < 0.1, 0.0, x)
    _, rw = replicate_matrix({str(j): {"correct": y_worse[:, j]} for j in range(200)}, ACC, counts)
    lo = np.quantile(rx[:, :200] - rw, 0.025, axis=0)
    assert np.mean(lo > 0) > 0.9


def test_agrees_with_scipy_percentile_bootstrap() -> None:
    """Same data, B = 10,000 each: interval ends agree within Monte Carlo error (~1.5 grid steps of 1/n)."""
    rng = np.random.default_rng(2024)
    n = 308
    gold = rng.choice(["a", "b"], n)
    v1 = np.where(rng.random(n) < 0.7, gold, np.where(gold == "a", "b", "a"))
    v2 = np.where(rng.random(n) < 0.1, "tie", v1)
    o1, o2 = pairwise_outcomes(list(v1), list(gold)), pairwise_outcomes(list(v2), list(gold))
    ours = bootstrap_metric(o1, ACC)
    ref = sps.bootstrap(
        (o1["correct"],),
        np.mean,
        n_resamples=10_000,
        method="percentile",
        vectorized=True,
        random_state=np.random.default_rng(1),
    )
    tol = 1.5 / n
    assert ours.low == pytest.approx(ref.confidence_interval.low, abs=tol)
    assert ours.high == pytest.approx(ref.confidence_interval.high, abs=tol)
    ours_d = paired_bootstrap(o2, o1, PAIRWISE["soft_accuracy"])
    ref_d = sps.bootstrap(
        (o2["soft"], o1["soft"]),
        lambda a, b, axis: a.mean(axis) - b.mean(axis),
        paired=True,
        vectorized=True,
        n_resamples=10_000,
        method="percentile",
        random_state=np.random.default_rng(2),
    )
    assert ours_d.low == pytest.approx(ref_d.confidence_interval.low, abs=tol)
    assert ours_d.high == pytest.approx(ref_d.confidence_interval.high, abs=tol)


def test_macro_f1_agrees_with_scipy() -> None:
    rng = np.random.default_rng(8)
    n = 200
    gold = rng.choice(["novel", "not_novel"], n)
    verdict = np.where(rng.random(n) < 0.75, gold, rng.choice(["novel", "not_novel", "invalid"], n))
    o = pointwise_outcomes(list(verdict), list(gold))
    ours = bootstrap_metric(o, POINTWISE["macro_f1"])
    cols = POINTWISE["macro_f1"].columns

    def stat(*arrays: np.ndarray, axis: int = -1) -> np.ndarray:
        return POINTWISE["macro_f1"]({c: a for c, a in zip(cols, arrays, strict=True)})

    ref = sps.bootstrap(
        tuple(o[c] for c in cols),
        stat,
        paired=True,
        vectorized=True,
        n_resamples=10_000,
        method="percentile",
        random_state=np.random.default_rng(3),
    )
    assert ours.low == pytest.approx(ref.confidence_interval.low, abs=0.01)
    assert ours.high == pytest.approx(ref.confidence_interval.high, abs=0.01)


def _interval(low: float, high: float, n: int, excluded: int = 0, status: str = "ok") -> Interval:
    """An interval written out by hand (estimate halfway), to test the claim rules on exact ends."""
    return Interval(
        (low + high) / 2, low, high, 0.95, "percentile", 1000, 0, n, 0, status, excluded
    )


@pytest.mark.parametrize(
    ("interval", "expected", "why"),
    [
        (_interval(0.55, 0.80, 25), True, "lower end above 0.5"),
        (_interval(0.50, 0.80, 25), False, "lower end at 0.5 is not above it"),
        (_interval(0.45, 0.80, 25), False, "interval reaches below 0.5"),
        (_interval(0.55, 0.80, 6), True, "6 items: the interval alone decides, at any n"),
        (
            _interval(0.55, 0.80, 25, excluded=24),
            True,
            "one item behind it, still the interval alone",
        ),
        (
            _interval(1.0, 1.0, 200),
            False,
            "point interval: the bootstrap's artefact, on any number of items",
        ),
        (_interval(1.0, 1.0, 4), False, "point interval on 4 items"),
        (
            _interval(float("nan"), float("nan"), 30, status="all_invalid"),
            False,
            "no answers: no number",
        ),
        (
            _interval(0.6, 0.9, 30, status="undefined"),
            False,
            "a status other than ok claims nothing",
        ),
    ],
)
def test_excludes_from_above_hand_written_intervals(
    interval: Interval, expected: bool, why: str
) -> None:
    assert excludes_from_above(interval, 0.5) is expected, why
    assert items_behind(interval) == interval.n - interval.excluded


def test_excludes_from_above_on_bootstrapped_accuracies() -> None:
    """20 of 20 correct: every resample is 1.0, the point interval [1, 1] claims nothing, as on 4 items.
    10 of 20: the interval holds 0.5."""
    all_right = bootstrap_metric(_correct_outcomes(np.ones(20)), ACC, resamples=500, seed=3)
    assert (all_right.low, all_right.high) == (1.0, 1.0) and not excludes_from_above(all_right, 0.5)
    few = bootstrap_metric(_correct_outcomes(np.ones(4)), ACC, resamples=500, seed=3)
    assert (few.low, few.high) == (1.0, 1.0) and not excludes_from_above(few, 0.5)
    half = bootstrap_metric(_correct_outcomes(np.array([1, 0] * 10)), ACC, resamples=500, seed=3)
    assert half.low < 0.5 < half.high and not excludes_from_above(half, 0.5)


def test_excludes_from_above_reads_other_interval_like_results() -> None:
    """A paired difference (n, excluded) and an unpaired one (n = n_x + n_y, no `excluded`)."""
    diff = PairedDifference(0.3, 0.1, 0.5, 0.01, True, 0.95, "paired", 1000, 0, 22, excluded=2)
    assert excludes_from_above(diff, 0.0) and not excludes_from_above(diff, 0.1)
    assert items_behind(diff) == 20
    unpaired = UnpairedDifference(0.3, 0.1, 0.5, 0.01, True, 0.95, "two-sample", 1000, 0, 10, 10)
    assert items_behind(unpaired) == 20 and excludes_from_above(unpaired, 0.0)
    point = UnpairedDifference(1.0, 1.0, 1.0, 0.002, False, 0.95, "two-sample", 1000, 0, 3, 2)
    assert not excludes_from_above(point, 0.0)


def test_replicate_matrix_blocks_equal_one_configuration_at_a_time() -> None:
    """More configurations than one block, repeated exact columns (a shared gold column) and items
    left out (NaN) in some: every configuration's replicates and estimate are those it gets alone."""
    from judgeaudit.stats import POINTWISE, pointwise_outcomes

    rng = np.random.default_rng(12)
    gold = list(rng.choice(["novel", "not_novel"], 30))
    outs = {}
    for i in range(40):
        o = pointwise_outcomes(list(rng.choice(["novel", "not_novel", "invalid"], 30)), gold)
        if i % 7 == 0:
            o = {k: np.where(np.arange(30) < i % 5 + 1, np.nan, v) for k, v in o.items()}
        outs[f"c{i}"] = o
    counts = resample_counts(30, 200, 4)
    metric = POINTWISE["macro_f1"]
    point, reps = replicate_matrix(outs, metric, counts)
    for j, (name, o) in enumerate(outs.items()):
        p1, r1 = replicate_matrix({name: o}, metric, counts)
        assert point[j] == p1[0] and np.array_equal(reps[:, j], r1[:, 0], equal_nan=True)
        assert point[j] == pytest.approx(float(metric(o)), nan_ok=True)
