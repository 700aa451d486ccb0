"""Honest small-sample statistics (stats/bootstrap.py, metrics.py, agreement.py), hand-computed:
n = 0, 1, 2, all ties, all invalid, all errors, identical configurations, flip rates over
items valid in both, interval ends inside the statistic's values, and the minimum n."""

from __future__ import annotations

import numpy as np
import pytest

from judgeaudit.stats import (
    FLIP_RATE,
    MIN_ITEMS_FOR_SIGNIFICANCE,
    PAIRWISE,
    POINTWISE,
    bootstrap_many,
    bootstrap_metric,
    comparable_items,
    flip_flags,
    paired_bootstrap,
    paired_bootstrap_many,
    pairwise_outcomes,
    pointwise_outcomes,
)
from judgeaudit.stats.agreement import pearson_interval, spearman_interval
from judgeaudit.stats.bootstrap import (
    _paired_result,
    _percentiles,
    replicate_matrix,
    resample_counts,
)

ACC = PAIRWISE["strict_accuracy"]
B = 2000


def pair(verdicts: list[str], gold: str = "a") -> dict[str, np.ndarray]:
    return pairwise_outcomes(verdicts, [gold] * len(verdicts))


def test_no_items_is_a_status_not_a_number() -> None:
    iv = bootstrap_metric(pair([]), ACC, resamples=B)
    assert (iv.status, iv.n) == ("no_items", 0) and np.isnan([iv.estimate, iv.low, iv.high]).all()
    assert not iv.conclusive and not iv.excludes(0.5)
    assert bootstrap_many({"x": pair([]), "y": pair([])}, ACC, resamples=B)["y"].status == "no_items"
    d = paired_bootstrap(pair([]), pair([]), ACC, resamples=B)
    assert d.status == "no_items" and not d.significant and "no difference" in (d.note or "")
    assert paired_bootstrap_many({"x": pair([]), "ref": pair([])}, "ref", ACC, resamples=B)["x"].status == "no_items"


def test_one_item_gives_a_point_interval_that_claims_nothing() -> None:
    iv = bootstrap_metric(pair(["a"]), ACC, resamples=B)
    assert (iv.estimate, iv.low, iv.high, iv.status) == (1.0, 1.0, 1.0, "ok")
    assert iv.degenerate and not iv.conclusive and not iv.excludes(0.5)
    d = paired_bootstrap(pair(["a"]), pair(["b"]), ACC, resamples=B)
    # every resample is the one item: difference 1 - 0 = 1, interval [1, 1], yet no significance
    assert (d.estimate, d.low, d.high) == (1.0, 1.0, 1.0) and not d.significant
    assert d.note == f"n = 1 items, below the minimum of {MIN_ITEMS_FOR_SIGNIFICANCE} for a significance claim"


def test_two_items_interval_ends_are_values_accuracy_can_take() -> None:
    iv = bootstrap_metric(pair(["a", "b"]), ACC, resamples=B, seed=3)
    # resample means are 0, 1/2, 1 with probabilities 1/4, 1/2, 1/4: 2.5% and 97.5% ends are 0 and 1
    assert (iv.estimate, iv.low, iv.high) == (0.5, 0.0, 1.0) and not iv.conclusive
    d = paired_bootstrap(pair(["a", "b"]), pair(["b", "b"]), ACC, resamples=B, seed=3)
    assert (d.estimate, d.low, d.high) == (0.5, 0.0, 1.0) and not d.significant


def test_all_ties() -> None:
    o = pair(["tie"] * 30)
    ivs = {m: bootstrap_metric(o, fn, resamples=B) for m, fn in PAIRWISE.items()}
    assert (ivs["strict_accuracy"].estimate, ivs["soft_accuracy"].estimate, ivs["tie_rate"].estimate) == (0.0, 0.5, 1.0)
    assert ivs["tie_rate"].degenerate and not ivs["tie_rate"].excludes(0.5)  # 30 of 30 ties: no spread at all
    assert ivs["accuracy_no_ties"].status == "undefined" and ivs["accuracy_no_ties"].undefined == B
    assert ivs["invalid_rate"].estimate == 0.0 == ivs["error_rate"].estimate


@pytest.mark.parametrize(("verdict", "status", "rate"), [("invalid", "all_invalid", "invalid_rate"),
                                                         ("error", "all_error", "error_rate")])
def test_all_invalid_or_all_error_is_reported_as_such(verdict: str, status: str, rate: str) -> None:
    failed = pair([verdict] * 25)
    good = pair(["a"] * 20 + ["b"] * 5)
    iv = bootstrap_metric(failed, ACC, resamples=B)
    assert iv.status == status and np.isnan(iv.estimate) and not iv.conclusive
    assert bootstrap_metric(failed, PAIRWISE[rate], resamples=B).estimate == 1.0  # the failure rate itself stays
    many = bootstrap_many({"failed": failed, "good": good}, ACC, resamples=B)
    assert many["failed"].status == status and many["good"].estimate == 0.8
    # a configuration compared against an all-failed reference: no number, no significance
    d = paired_bootstrap_many({"failed": failed, "good": good}, "failed", ACC, resamples=B)["good"]
    assert d.status == status and np.isnan(d.estimate) and not d.significant
    assert d.note == f"no difference: reference is {status}"
    point = bootstrap_metric(pointwise_outcomes([verdict] * 25, ["novel"] * 25), POINTWISE["macro_f1"], resamples=B)
    assert point.status == status


def test_invalid_and_error_mixed_is_no_answers_and_error_is_counted_apart() -> None:
    o = pair(["invalid", "error", "invalid", "error"])
    assert bootstrap_metric(o, ACC, resamples=B).status == "no_answers"
    mixed = pair(["a", "error", "invalid", "tie"])
    assert [float(PAIRWISE[m](mixed)) for m in ("error_rate", "invalid_rate", "tie_rate", "accuracy_no_ties")] == [
        0.25, 0.25, 0.25, 1.0]


def test_identical_configurations() -> None:
    o = pair(["a"] * 15 + ["b"] * 15)
    d = paired_bootstrap(o, o, ACC, resamples=B)
    assert (d.estimate, d.low, d.high, d.p_value, d.significant) == (0.0, 0.0, 0.0, 1.0, False)
    assert d.note == "degenerate interval (every resample gives the same value)"
    flips = bootstrap_metric({"flip": flip_flags(["a"] * 30, ["a"] * 30)}, FLIP_RATE, resamples=B)
    assert (flips.estimate, flips.low, flips.high, flips.excluded) == (0.0, 0.0, 0.0, 0)


def test_a_clear_difference_on_enough_items_is_significant() -> None:
    n = MIN_ITEMS_FOR_SIGNIFICANCE
    d = paired_bootstrap(pair(["a"] * n), pair(["a", "b"] * (n // 2)), ACC, resamples=B)
    assert d.estimate == 0.5 and d.low > 0 and d.significant and d.note is None
    below = paired_bootstrap(pair(["a"] * (n - 2)), pair(["a", "b"] * (n // 2 - 1)), ACC, resamples=B)
    assert below.low > 0 and not below.significant and below.note is not None


def test_flip_rate_counts_only_items_valid_in_both() -> None:
    x = ["a", "b", "tie", "invalid", "a", "error"]
    y = ["a", "a", "tie", "b", "invalid", "b"]
    assert comparable_items(x, y) == (3, 3)
    iv = bootstrap_metric({"flip": flip_flags(x, y)}, FLIP_RATE, resamples=B)
    assert iv.estimate == pytest.approx(1 / 3) and iv.excluded == 3 and iv.n == 6
    none = bootstrap_metric({"flip": flip_flags(["invalid"] * 4, ["a"] * 4)}, FLIP_RATE, resamples=B)
    assert none.status == "no_comparable_items" and np.isnan(none.estimate) and none.excluded == 4
    many = bootstrap_many({"c": {"flip": flip_flags(x, y)}, "d": {"flip": flip_flags(y, y)}}, FLIP_RATE, resamples=B)
    assert many["c"].estimate == pytest.approx(1 / 3) and many["d"].excluded == 1 and many["d"].estimate == 0.0
    # an invalid -> valid change is not a flip
    assert float(FLIP_RATE({"flip": flip_flags(["invalid", "a"], ["a", "a"])})) == 0.0


def test_interval_ends_stay_inside_the_values_of_the_statistic() -> None:
    rng = np.random.default_rng(0)
    for n in (3, 7, 12):
        o = pair(list(rng.choice(["a", "b", "tie"], n)))
        for fn in PAIRWISE.values():
            iv = bootstrap_metric(o, fn, resamples=B, seed=n)
            if iv.status == "ok":
                assert 0 <= iv.low <= iv.high <= 1
        iv = bootstrap_metric(o, ACC, resamples=B, seed=n)
        attainable = {k / n for k in range(n + 1)}
        assert {round(iv.low * n), round(iv.high * n)} <= {round(v * n) for v in attainable}
        assert iv.low * n == pytest.approx(round(iv.low * n)) and iv.high * n == pytest.approx(round(iv.high * n))
        d = paired_bootstrap(o, pair(["a"] * n), ACC, resamples=B, seed=n)
        assert -1 <= d.low <= d.high <= 1
    # the bounds also clip: replicates outside [0, 1] cannot reach the ends
    assert _percentiles(np.array([-0.5, 0.2, 1.5]), 0.5, (0.0, 1.0)) == (0.0, 1.0, 0)


def test_correlation_intervals_stay_in_minus_one_to_one_and_two_units_claim_nothing() -> None:
    iv = pearson_interval([0.0, 1.0], [0.0, 1.0], resamples=B)
    assert iv.estimate == pytest.approx(1.0) and iv.degenerate and not iv.conclusive  # resamples: 1 or undefined
    rng = np.random.default_rng(4)
    x = rng.normal(size=12)
    for interval in (pearson_interval(x, x + rng.normal(size=12), resamples=B),
                     spearman_interval(x, -x + rng.normal(size=12), resamples=B)):
        assert -1 <= interval.low <= interval.high <= 1


def test_minimum_items_keeps_the_false_positive_rate() -> None:
    """Two exchangeable judges (half of the items discordant): the interval rule alone rejects
    far too often at n = 8, and about at the nominal 5% at the documented minimum."""
    rng = np.random.default_rng(11)

    def false_positive_rate(n: int, datasets: int = 2000) -> float:
        disc = rng.random((n, datasets)) < 0.5
        coin, both = rng.random((n, datasets)) < 0.5, rng.random((n, datasets)) < 0.5
        x, y = np.where(disc, coin, both).astype(float), np.where(disc, ~coin, both).astype(float)
        counts = resample_counts(n, B, 7)
        _, rx = replicate_matrix({str(j): {"correct": x[:, j]} for j in range(datasets)}, ACC, counts)
        _, ry = replicate_matrix({str(j): {"correct": y[:, j]} for j in range(datasets)}, ACC, counts)
        # significance from the interval alone (as if there were no minimum): n_used = the minimum
        results = [_paired_result(0.0, rx[:, j] - ry[:, j], 0.95, B, 7, MIN_ITEMS_FOR_SIGNIFICANCE)
                   for j in range(datasets)]
        return float(np.mean([r.significant for r in results]))

    assert false_positive_rate(8) > 0.075
    assert false_positive_rate(MIN_ITEMS_FOR_SIGNIFICANCE) <= 0.07
