"""Honest small-sample statistics (stats/intervals.py, results.py, bootstrap.py), hand-computed:
n = 0, 1, 2, 6 of 6, all ties, all invalid, all errors, every item discordant, none discordant,
identical configurations, flip rates over items valid in both, interval ends inside the
statistic's values; the bootstrap's point intervals, which claim nothing; and the error rate of
the paired claim at small n, where the bootstrap's is too high."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from judgeaudit.stats import (
    FLIP_RATE,
    PAIRWISE,
    POINTWISE,
    bootstrap_metric,
    comparable_items,
    flip_flags,
    interval,
    intervals_many,
    paired_bootstrap,
    paired_difference,
    paired_differences_many,
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
from judgeaudit.stats.exact import score_interval

ACC = PAIRWISE["strict_accuracy"]
B = 2000
Z = float(stats.norm.ppf(0.975))


def pair(verdicts: list[str], gold: str = "a") -> dict[str, np.ndarray]:
    return pairwise_outcomes(verdicts, [gold] * len(verdicts))


def cp_low_all(n: int) -> float:
    """Clopper-Pearson lower end of n successes in n: 0.025^(1/n)."""
    return float(0.025 ** (1 / n))


def test_no_items_is_a_status_not_a_number() -> None:
    iv = interval(pair([]), ACC)
    assert (iv.status, iv.n, iv.method) == ("no_items", 0, "clopper-pearson")
    assert (
        np.isnan([iv.estimate, iv.low, iv.high]).all()
        and not iv.conclusive
        and not iv.excludes(0.5)
    )
    assert intervals_many({"x": pair([]), "y": pair([])}, ACC)["y"].status == "no_items"
    d = paired_difference(pair([]), pair([]), ACC)
    assert d.status == "no_items" and not d.significant and "no difference" in (d.note or "")
    assert (
        paired_differences_many({"x": pair([]), "ref": pair([])}, "ref", ACC)["x"].status
        == "no_items"
    )
    assert (
        bootstrap_metric(pointwise_outcomes([], []), POINTWISE["macro_f1"], resamples=B).status
        == "no_items"
    )


def test_one_item_gets_a_wide_interval_not_a_point() -> None:
    right, wrong = interval(pair(["a"]), ACC), interval(pair(["b"]), ACC)
    assert (right.estimate, right.low, right.high) == (1.0, pytest.approx(0.025), 1.0)
    assert (wrong.estimate, wrong.low, wrong.high) == (0.0, 0.0, pytest.approx(0.975))
    assert right.conclusive and not right.excludes(0.5)  # a proper interval, and it holds chance
    d = paired_difference(pair(["a"]), pair(["b"]), ACC)
    # one item at +1, correction 1: the lower end solves -m / sqrt(1 - m^2) = z, i.e. m = -z / sqrt(1 + z^2)
    assert (d.estimate, d.high) == (1.0, 1.0) and d.low == pytest.approx(
        -Z / math.sqrt(1 + Z * Z), abs=1e-9
    )
    assert d.p_value == 1.0 and not d.significant
    # the bootstrap of one item: every resample is that item, a point interval that claims nothing
    boot = bootstrap_metric(pair(["a"]), ACC, resamples=B)
    assert (boot.low, boot.high) == (1.0, 1.0) and boot.degenerate and not boot.conclusive
    point = paired_bootstrap(pair(["a"]), pair(["b"]), ACC, resamples=B)
    assert (point.low, point.high) == (1.0, 1.0) and not point.significant
    assert point.note == "degenerate interval (every resample gives the same value)"


def test_six_of_six_is_decided_by_the_exact_interval_where_the_bootstrap_gives_a_point() -> None:
    """The README main job's data: 6 flips of 6 exclude any flip rate below 0.5407."""
    flips = interval({"flip": np.ones(6)}, FLIP_RATE)
    assert flips.low == pytest.approx(cp_low_all(6)) and flips.high == 1.0 and flips.excludes(0.25)
    boot = bootstrap_metric({"flip": np.ones(6)}, FLIP_RATE, resamples=B)
    assert (boot.low, boot.high) == (1.0, 1.0) and not boot.excludes(0.25)


def test_two_items() -> None:
    iv = interval(pair(["a", "b"]), ACC)
    lo, hi = stats.binomtest(1, 2).proportion_ci(method="exact")
    assert (iv.estimate, iv.low, iv.high) == (0.5, pytest.approx(lo), pytest.approx(hi))
    d = paired_difference(pair(["a", "b"]), pair(["b", "b"]), ACC)
    assert d.estimate == 0.5 and d.low < 0 < d.high and not d.significant


def test_all_ties() -> None:
    n = 30
    ivs = {m: interval(pair(["tie"] * n), fn) for m, fn in PAIRWISE.items()}
    assert (
        ivs["strict_accuracy"].estimate,
        ivs["soft_accuracy"].estimate,
        ivs["tie_rate"].estimate,
    ) == (0.0, 0.5, 1.0)
    assert ivs["tie_rate"].low == pytest.approx(cp_low_all(n)) and ivs["tie_rate"].excludes(0.5)
    assert ivs["strict_accuracy"].high == pytest.approx(1 - cp_low_all(n))
    # soft accuracy: every item at 1/2, the score interval is symmetric about it
    soft = ivs["soft_accuracy"]
    assert soft.method == "score (continuity-corrected)" and soft.low + soft.high == pytest.approx(
        1.0
    )
    lo, hi = score_interval(
        [[0, n, 0]], [-1, 0, 1]
    )  # the same items on -1, 0, 1: soft = (1 + d) / 2
    assert soft.high == pytest.approx((1 + float(hi[0])) / 2)
    assert ivs["accuracy_no_ties"].status == "undefined" and np.isnan(
        ivs["accuracy_no_ties"].estimate
    )
    assert ivs["invalid_rate"].estimate == 0.0 == ivs["error_rate"].estimate


@pytest.mark.parametrize(
    ("verdict", "status", "rate"),
    [("invalid", "all_invalid", "invalid_rate"), ("error", "all_error", "error_rate")],
)
def test_all_invalid_or_all_error_is_reported_as_such(verdict: str, status: str, rate: str) -> None:
    failed = pair([verdict] * 25)
    good = pair(["a"] * 20 + ["b"] * 5)
    iv = interval(failed, ACC)
    assert iv.status == status and np.isnan(iv.estimate) and not iv.conclusive
    failure_rate = interval(failed, PAIRWISE[rate])  # the failure rate itself stays
    assert failure_rate.estimate == 1.0 and failure_rate.low == pytest.approx(cp_low_all(25))
    many = intervals_many({"failed": failed, "good": good}, ACC)
    assert many["failed"].status == status and many["good"].estimate == 0.8
    # a configuration compared against an all-failed reference: no number, no significance
    d = paired_differences_many({"failed": failed, "good": good}, "failed", ACC)["good"]
    assert d.status == status and np.isnan(d.estimate) and not d.significant
    assert d.note == f"no difference: reference is {status}"
    point = interval(
        pointwise_outcomes([verdict] * 25, ["novel"] * 25), POINTWISE["macro_f1"], resamples=B
    )
    assert point.status == status


def test_invalid_and_error_mixed_is_no_answers_and_error_is_counted_apart() -> None:
    assert interval(pair(["invalid", "error", "invalid", "error"]), ACC).status == "no_answers"
    mixed = pair(["a", "error", "invalid", "tie"])
    assert [
        float(PAIRWISE[m](mixed))
        for m in ("error_rate", "invalid_rate", "tie_rate", "accuracy_no_ties")
    ] == [0.25, 0.25, 0.25, 1.0]


def test_identical_configurations_none_discordant() -> None:
    n = 30
    o = pair(["a"] * 15 + ["b"] * 15)
    d = paired_difference(o, o, ACC)
    # all items at 0: the upper end solves (n m - 1)^2 = z^2 n m (1 - m)
    qa, qb = n * n + Z * Z * n, -(2 * n + Z * Z * n)
    upper = (-qb + math.sqrt(qb * qb - 4 * qa)) / (2 * qa)
    assert (d.estimate, d.p_value, d.significant) == (0.0, 1.0, False)
    assert d.high == pytest.approx(upper) and d.low == pytest.approx(-upper)
    flips = interval({"flip": flip_flags(["a"] * n, ["a"] * n)}, FLIP_RATE)
    assert (flips.estimate, flips.low, flips.excluded) == (
        0.0,
        0.0,
        0,
    ) and flips.high == pytest.approx(1 - cp_low_all(n))


def test_every_item_discordant() -> None:
    n = 6
    d = paired_difference(pair(["a"] * n), pair(["b"] * n), ACC)
    qa, qb, qc = n * n + Z * Z * n, -2 * n * (n - 1), (n - 1) ** 2 - Z * Z * n
    assert (
        d.estimate == 1.0
        and d.high == 1.0
        and d.low == pytest.approx((-qb - math.sqrt(qb * qb - 4 * qa * qc)) / (2 * qa))
    )
    # exact McNemar 2 / 2^6 = 0.031; the interval's own test (|b - c| - 1) / sqrt(b + c) is the larger p
    assert d.p_value == pytest.approx(2 * stats.norm.sf(5 / math.sqrt(6))) and d.significant
    half = paired_difference(
        pair(["a", "b"] * 3), pair(["b", "a"] * 3), ACC
    )  # 3 discordant each way
    assert (half.estimate, half.p_value, half.significant) == (0.0, 1.0, False)


def test_a_clear_difference_is_significant_once_the_exact_test_allows_it() -> None:
    """No minimum of items: 4 discordant pairs cannot reach p < 0.05 (2 / 2^4 = 0.125), 6 of 6 can."""
    four = paired_difference(pair(["a"] * 8), pair(["a", "b"] * 4), ACC)
    assert four.estimate == 0.5 and not four.significant and four.p_value >= 0.05 and four.low < 0
    six = paired_difference(pair(["a"] * 12), pair(["a", "b"] * 6), ACC)
    assert six.estimate == 0.5 and six.significant and six.p_value < 0.05 and six.low > 0


def test_flip_rate_counts_only_items_valid_in_both() -> None:
    x = ["a", "b", "tie", "invalid", "a", "error"]
    y = ["a", "a", "tie", "b", "invalid", "b"]
    assert comparable_items(x, y) == (3, 3)
    iv = interval({"flip": flip_flags(x, y)}, FLIP_RATE)
    lo, hi = stats.binomtest(1, 3).proportion_ci(method="exact")
    assert iv.estimate == pytest.approx(1 / 3) and iv.excluded == 3 and iv.n == 6
    assert (iv.low, iv.high) == (pytest.approx(lo), pytest.approx(hi))
    none = interval({"flip": flip_flags(["invalid"] * 4, ["a"] * 4)}, FLIP_RATE)
    assert none.status == "no_comparable_items" and np.isnan(none.estimate) and none.excluded == 4
    many = intervals_many(
        {"c": {"flip": flip_flags(x, y)}, "d": {"flip": flip_flags(y, y)}}, FLIP_RATE
    )
    assert (
        many["c"].estimate == pytest.approx(1 / 3)
        and many["d"].excluded == 1
        and many["d"].estimate == 0.0
    )
    assert (
        float(FLIP_RATE({"flip": flip_flags(["invalid", "a"], ["a", "a"])})) == 0.0
    )  # invalid -> valid is no flip
    # a paired difference of flips runs over the items valid on both sides: here items 1 and 2 (flips 1, 0
    # against 0, 0), so 1/2, not x's own rate 1/3 minus y's 0
    d = paired_difference(
        {"flip": flip_flags(x, y)}, {"flip": np.array([np.nan, 0, 0, 0, 0, 0.0])}, FLIP_RATE
    )
    assert d.excluded == 4 and d.estimate == pytest.approx(1 / 2)


def test_interval_ends_stay_inside_the_values_of_the_statistic() -> None:
    rng = np.random.default_rng(0)
    for n in (3, 7, 12):
        o = pair(list(rng.choice(["a", "b", "tie"], n)))
        for fn in PAIRWISE.values():
            iv = interval(o, fn)
            if iv.status == "ok":
                assert 0 <= iv.low <= iv.estimate <= iv.high <= 1
        d = paired_difference(o, pair(["a"] * n), ACC)
        assert -1 <= d.low <= d.estimate <= d.high <= 1
        soft = paired_difference(o, pair(["a"] * n), PAIRWISE["soft_accuracy"])
        assert -1 <= soft.low <= soft.estimate <= soft.high <= 1 and soft.method.startswith(
            "paired score"
        )
        # the bootstrap's ends are values the statistic can take on a resample
        boot = bootstrap_metric(o, ACC, resamples=B, seed=n)
        assert boot.low * n == pytest.approx(
            round(boot.low * n)
        ) and boot.high * n == pytest.approx(round(boot.high * n))
    assert _percentiles(np.array([-0.5, 0.2, 1.5]), 0.5, (0.0, 1.0)) == (0.0, 1.0, 0)


def test_correlation_intervals_stay_in_minus_one_to_one_and_two_units_claim_nothing() -> None:
    iv = pearson_interval([0.0, 1.0], [0.0, 1.0], resamples=B)
    assert (
        iv.estimate == pytest.approx(1.0) and iv.degenerate and not iv.conclusive
    )  # resamples: 1 or undefined
    rng = np.random.default_rng(4)
    x = rng.normal(size=12)
    for result in (
        pearson_interval(x, x + rng.normal(size=12), resamples=B),
        spearman_interval(x, -x + rng.normal(size=12), resamples=B),
    ):
        assert -1 <= result.low <= result.high <= 1


def _null_rejection_rates(n: int, discordances: tuple[float, ...]) -> list[float]:
    """Exact probability, per discordance, that `paired_difference` claims a difference between two
    exchangeable judges (each item discordant with probability `discordance`, either way alike), summed
    over every table; a table's claim does not depend on the discordance, so each table is judged once."""
    rates = [0.0] * len(discordances)
    for b in range(n + 1):
        for c in range(n + 1 - b):
            probs = [
                stats.multinomial.pmf([b, c, n - b - c], n, [q / 2, q / 2, 1 - q])
                for q in discordances
            ]
            if max(probs) > 1e-12:
                x = np.r_[np.ones(b), np.zeros(c), np.ones(n - b - c)]
                y = np.r_[np.zeros(b), np.ones(c), np.ones(n - b - c)]
                if paired_difference({"correct": x}, {"correct": y}, ACC).significant:
                    rates = [rate + prob for rate, prob in zip(rates, probs, strict=True)]
    return rates


def test_the_paired_claim_keeps_its_error_rate_at_small_n_where_the_bootstrap_does_not() -> None:
    discordances = (0.2, 0.5, 1.0)
    for n in (6, 8, 20):
        for q, rate in zip(discordances, _null_rejection_rates(n, discordances), strict=True):
            assert rate <= 0.05, (n, q, rate)
    # the percentile bootstrap, simulated on the same null at n = 8, claims a difference far too often
    rng = np.random.default_rng(11)
    n, datasets = 8, 2000
    disc = rng.random((n, datasets)) < 0.5
    coin, both = rng.random((n, datasets)) < 0.5, rng.random((n, datasets)) < 0.5
    x, y = np.where(disc, coin, both).astype(float), np.where(disc, ~coin, both).astype(float)
    counts = resample_counts(n, B, 7)
    _, rx = replicate_matrix({str(j): {"correct": x[:, j]} for j in range(datasets)}, ACC, counts)
    _, ry = replicate_matrix({str(j): {"correct": y[:, j]} for j in range(datasets)}, ACC, counts)
    claims = np.mean(
        [
            _paired_result(0.0, rx[:, j] - ry[:, j], 0.95, B, 7, n).significant
            for j in range(datasets)
        ]
    )
    assert claims > 0.075
