"""Which interval each figure gets (judgeaudit.stats.intervals), what it records, and how the
significance flag, the interval and the p-value agree."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from judgeaudit.stats import (
    FLIP_RATE,
    HALVES,
    PAIRWISE,
    POINTWISE,
    interval,
    intervals_many,
    paired_difference,
    paired_differences_many,
    pairwise_outcomes,
    pointwise_outcomes,
    share_metric,
    unpaired_difference,
)

ACC = PAIRWISE["strict_accuracy"]


def pair(verdicts: list[str], gold: str = "a") -> dict[str, np.ndarray]:
    return pairwise_outcomes(verdicts, [gold] * len(verdicts))


def test_each_metric_gets_its_method_and_records_it() -> None:
    o = pair(["a", "b", "tie", "a", "invalid", "a"])
    methods = {m: interval(o, fn, resamples=500, seed=3) for m, fn in PAIRWISE.items()}
    assert {m: iv.method for m, iv in methods.items()} == {
        "strict_accuracy": "clopper-pearson",
        "soft_accuracy": "score (continuity-corrected)",
        "accuracy_no_ties": "clopper-pearson",
        "tie_rate": "clopper-pearson",
        "invalid_rate": "clopper-pearson",
        "error_rate": "clopper-pearson",
    }
    assert all(iv.resamples is None and iv.seed is None for iv in methods.values())
    # accuracy without ties: 3 right of the 4 decided items
    lo, hi = stats.binomtest(3, 4).proportion_ci(method="exact")
    assert (methods["accuracy_no_ties"].low, methods["accuracy_no_ties"].high) == (
        pytest.approx(lo),
        pytest.approx(hi),
    )
    p = pointwise_outcomes(
        ["novel", "not_novel", "novel", "invalid"], ["novel", "novel", "not_novel", "not_novel"]
    )
    f1 = interval(p, POINTWISE["macro_f1"], resamples=500, seed=3)
    assert (f1.method, f1.resamples, f1.seed) == (
        "percentile",
        500,
        3,
    )  # no closed form: the bootstrap
    recall = interval(p, POINTWISE["recall_novel"])  # 1 of the 2 gold-novel items
    assert recall.estimate == 0.5 and recall.method == "clopper-pearson"
    assert interval(p, POINTWISE["precision_not_novel"]).estimate == 0.0  # never predicted right
    never = pointwise_outcomes(["novel"] * 3, ["novel", "not_novel", "novel"])
    none_predicted = interval(
        never, POINTWISE["precision_not_novel"]
    )  # 0 by convention, on no item
    assert (none_predicted.estimate, none_predicted.low, none_predicted.high) == (0.0, 0.0, 1.0)
    d = paired_difference(o, pair(["a"] * 6), PAIRWISE["accuracy_no_ties"], resamples=500, seed=3)
    assert (d.method, d.resamples, d.seed) == (
        "paired percentile",
        500,
        3,
    )  # different decided items: bootstrap
    assert interval(o, ACC).to_dict()["conclusive"] is True


def test_many_equals_one_at_a_time() -> None:
    rng = np.random.default_rng(5)
    outs = {f"c{i}": pair(list(rng.choice(["a", "b", "tie"], 40))) for i in range(3)}
    many = intervals_many(outs, ACC)
    assert many["c1"] == interval(outs["c1"], ACC)
    diffs = paired_differences_many(outs, "c0", PAIRWISE["soft_accuracy"])
    assert set(diffs) == {"c1", "c2"} and diffs["c2"] == paired_difference(
        outs["c2"], outs["c0"], PAIRWISE["soft_accuracy"]
    )
    with pytest.raises(KeyError, match="reference"):
        paired_differences_many(outs, "nope", ACC)
    with pytest.raises(ValueError, match="same items"):
        paired_difference(pair(["a"]), pair(["a", "b"]), ACC)


def test_values_off_the_declared_support_are_an_error() -> None:
    with pytest.raises(
        ValueError, match=r"half_rate: values \[0.25\] are not on the declared support"
    ):
        interval({"h": np.array([0.0, 0.25, 1.0])}, share_metric("half_rate", "h", HALVES))
    third = share_metric("third_rate", "t", (0.0, 1 / 3, 2 / 3, 1.0))
    assert interval({"t": np.array([1, 2, 3, 0]) / 3}, third).estimate == pytest.approx(
        0.5
    )  # float noise of j/3 is fine


@pytest.mark.parametrize("n", [4, 6, 9, 12])
def test_significant_iff_the_interval_excludes_zero_iff_p_below_five_percent(n: int) -> None:
    """Every paired 0/1 table on n items, and every pair of groups of 3 to 6 items."""
    for b in range(n + 1):
        for c in range(n + 1 - b):
            x = np.r_[np.ones(b), np.zeros(c), np.ones(n - b - c)]
            y = np.r_[np.zeros(b), np.ones(c), np.ones(n - b - c)]
            d = paired_difference({"correct": x}, {"correct": y}, ACC)
            excludes = d.low > 0 or d.high < 0
            assert d.significant == excludes == (d.p_value < 0.05), (b, c, d)
            assert d.p_value >= stats.binomtest(b, b + c, 0.5).pvalue if b + c else d.p_value == 1.0
    for k1 in range(n // 2 + 1):
        for k2 in range(4):
            u = unpaired_difference(
                np.r_[np.ones(k1), np.zeros(n // 2 - k1 + 1)], np.r_[np.ones(k2), np.zeros(3 - k2)]
            )
            assert u.significant == (u.low > 0 or u.high < 0) == (u.p_value < 0.05), (k1, k2, u)


def test_the_interval_is_widened_to_zero_when_the_exact_test_does_not_reject() -> None:
    """3 of 3 against 0 of 3: the score interval alone is [0.034, 1], but Fisher's p = 2 / C(6, 3) = 0.1."""
    u = unpaired_difference([1, 1, 1], [0, 0, 0])
    assert (u.low, u.high) == (0.0, 1.0) and u.p_value == pytest.approx(0.1) and not u.significant
    assert u.note is not None and "widened to include 0" in u.note
    assert (u.method, u.n_x, u.n_y, u.resamples) == (
        "two-sample score (Mee, continuity-corrected)",
        3,
        3,
        None,
    )
    six = unpaired_difference([1] * 6, [0] * 6)
    assert (
        six.significant
        and six.p_value == pytest.approx(2 / 924)
        and six.low > 0
        and six.note is None
    )


def test_unpaired_shares_that_are_not_zero_one_take_the_bootstrap() -> None:
    u = unpaired_difference([0.5, 1.0, 0.0], [0.0, 0.5], resamples=400, seed=2)
    assert (u.method, u.resamples, u.seed) == ("two-sample percentile", 400, 2)
    with pytest.raises(ValueError, match="group x is empty"):
        unpaired_difference([], [1])


def test_corrected_flip_carries_both_uncertainties() -> None:
    """Flip 6 of 6 with no noise flip: the raw rate is above 0.54, the corrected difference only above 0.03."""
    raw = interval({"flip": np.ones(6)}, FLIP_RATE)
    corrected = paired_difference({"flip": np.ones(6)}, {"flip": np.zeros(6)}, FLIP_RATE)
    assert raw.low == pytest.approx(0.5407, abs=1e-4) and corrected.low == pytest.approx(
        0.0336, abs=1e-4
    )
    assert corrected.significant and corrected.high == 1.0


def test_each_configuration_against_its_own_reference() -> None:
    """A mapping of references (two judges, each with its own reference) gives what one call per
    reference gives, for a closed-form metric and a bootstrapped one; unknown names are refused."""
    from judgeaudit.stats import POINTWISE, pointwise_outcomes
    from judgeaudit.stats.bootstrap import reference_pairs

    rng = np.random.default_rng(8)
    gold = list(rng.choice(["novel", "not_novel"], 50))
    outs = {
        f"{judge}{i}": pointwise_outcomes(list(rng.choice(["novel", "not_novel"], 50)), gold)
        for judge in "ab"
        for i in range(3)
    }
    pairs = {"a1": "a0", "a2": "a0", "b1": "b0", "b2": "b0", "b0": "b0"}
    assert reference_pairs(outs, pairs) == {"a1": "a0", "a2": "a0", "b1": "b0", "b2": "b0"}
    for metric in (POINTWISE["accuracy"], POINTWISE["macro_f1"]):
        both = paired_differences_many(outs, pairs, metric, resamples=500, seed=2)
        for judge in "ab":
            own = {k: v for k, v in outs.items() if k.startswith(judge)}
            alone = paired_differences_many(own, f"{judge}0", metric, resamples=500, seed=2)
            assert {k: both[k] for k in alone} == alone
    with pytest.raises(KeyError, match="'zz'"):
        paired_differences_many(outs, {"a1": "zz"}, POINTWISE["accuracy"])
    assert paired_differences_many(outs, {}, POINTWISE["accuracy"]) == {}
