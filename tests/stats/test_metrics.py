"""Every metric in judgeaudit.stats.metrics against hand-computed values, edge cases included."""

from __future__ import annotations

import math

import numpy as np
import pytest

from judgeaudit.stats import PAIRWISE, POINTWISE, flip_flags, pairwise_outcomes, pointwise_outcomes
from judgeaudit.stats.metrics import FLIP_RATE, metrics_for


def _pair(verdicts: list[str], gold: list[str]) -> dict[str, float]:
    o = pairwise_outcomes(verdicts, gold)
    return {name: float(m(o)) for name, m in PAIRWISE.items()}


def _point(verdicts: list[str], gold: list[str]) -> dict[str, float]:
    o = pointwise_outcomes(verdicts, gold)
    return {name: float(m(o)) for name, m in POINTWISE.items()}


def test_pairwise_hand_computed() -> None:
    # correct: items 0 and 5; tie: item 2 (worth 0.5 in soft); invalid: item 3; decided: 0,1,4,5.
    got = _pair(["a", "b", "tie", "invalid", "a", "b"], ["a", "a", "b", "a", "b", "b"])
    assert got["strict_accuracy"] == pytest.approx(2 / 6)
    assert got["soft_accuracy"] == pytest.approx(2.5 / 6)
    assert got["accuracy_no_ties"] == pytest.approx(2 / 4)
    assert got["tie_rate"] == pytest.approx(1 / 6)
    assert got["invalid_rate"] == pytest.approx(1 / 6)


def test_pairwise_all_ties() -> None:
    got = _pair(["tie"] * 4, ["a", "b", "a", "b"])
    assert got["strict_accuracy"] == 0.0
    assert got["soft_accuracy"] == 0.5
    assert math.isnan(got["accuracy_no_ties"])
    assert got["tie_rate"] == 1.0 and got["invalid_rate"] == 0.0


def test_pairwise_all_invalid() -> None:
    got = _pair(["invalid"] * 3, ["a", "b", "a"])
    assert got["strict_accuracy"] == 0.0 and got["soft_accuracy"] == 0.0
    assert math.isnan(got["accuracy_no_ties"])
    assert got["invalid_rate"] == 1.0 and got["tie_rate"] == 0.0


def test_pointwise_hand_computed() -> None:
    v = ["novel", "novel", "not_novel", "invalid", "not_novel", "novel"]
    g = ["novel", "not_novel", "not_novel", "novel", "novel", "novel"]
    got = _point(v, g)
    # novel: TP = {0, 5}, predicted = {0, 1, 5}, gold = {0, 3, 4, 5} (the invalid item 3 is a miss)
    assert got["precision_novel"] == pytest.approx(2 / 3)
    assert got["recall_novel"] == pytest.approx(2 / 4)
    assert got["f1_novel"] == pytest.approx(2 * 2 / (3 + 4))
    # not_novel: TP = {2}, predicted = {2, 4}, gold = {1, 2}
    assert got["precision_not_novel"] == pytest.approx(1 / 2)
    assert got["recall_not_novel"] == pytest.approx(1 / 2)
    assert got["f1_not_novel"] == pytest.approx(2 * 1 / (2 + 2))
    assert got["macro_f1"] == pytest.approx((4 / 7 + 1 / 2) / 2)
    assert got["accuracy"] == pytest.approx(3 / 6)
    assert got["invalid_rate"] == pytest.approx(1 / 6)


def test_pointwise_all_invalid_is_all_misses() -> None:
    got = _point(["invalid"] * 4, ["novel", "not_novel", "novel", "not_novel"])
    for key in (
        "precision_novel",
        "recall_novel",
        "f1_novel",
        "f1_not_novel",
        "macro_f1",
        "accuracy",
    ):
        assert got[key] == 0.0, key
    assert got["invalid_rate"] == 1.0


def test_pointwise_class_absent_from_gold() -> None:
    # gold has no not_novel item; predicting it once gives F1 0 for that class (label union).
    got = _point(["novel", "not_novel", "novel"], ["novel"] * 3)
    assert got["f1_novel"] == pytest.approx(2 * 2 / (2 + 3))
    assert got["f1_not_novel"] == 0.0
    assert math.isnan(got["recall_not_novel"])
    assert got["macro_f1"] == pytest.approx((0.8 + 0.0) / 2)
    # neither predicted nor in gold: the class is undefined and left out of macro-F1.
    got = _point(["novel"] * 3, ["novel"] * 3)
    assert math.isnan(got["f1_not_novel"])
    assert got["precision_not_novel"] == 0.0
    assert got["macro_f1"] == 1.0


def test_metrics_vectorise_over_resample_rows() -> None:
    o = pairwise_outcomes(["a", "b", "tie", "a"], ["a", "a", "a", "b"])
    rows = {k: np.stack([v, v[::-1], np.zeros_like(v)]) for k, v in o.items()}
    got = PAIRWISE["soft_accuracy"](rows)
    assert got.shape == (3,)
    assert got[0] == got[1] == pytest.approx(1.5 / 4)
    assert got[2] == 0.0


def test_flip_rate() -> None:
    flags = flip_flags(["a", "b", "tie", "invalid", "a"], ["a", "a", "tie", "b", "error"])
    # items 4 and 5 are not valid in both configurations: left out (NaN), the rate is 1 of 3
    assert flags[:3].tolist() == [0.0, 1.0, 0.0] and np.isnan(flags[3:]).all()
    assert float(FLIP_RATE({"flip": flags})) == pytest.approx(1 / 3)
    with pytest.raises(ValueError, match="aligned"):
        flip_flags(["a"], ["a", "b"])


def test_flip_rates_of_one_configuration_against_several_at_once() -> None:
    """Rows of `y` broadcast against `x`: each row's flags and rate as when compared alone."""
    x = ["a", "b", "tie", "invalid"]
    ys = [["a", "a", "tie", "b"], ["b", "b", "error", "a"], ["invalid", "a", "a", "a"]]
    flags = flip_flags(x, ys)
    assert flags.shape == (3, 4)
    for row, y in zip(flags, ys, strict=True):
        np.testing.assert_array_equal(row, flip_flags(x, y))
    assert FLIP_RATE({"flip": flags}).tolist() == pytest.approx([1 / 3, 1 / 2, 1.0])


@pytest.mark.parametrize(
    ("fn", "verdicts", "gold", "match"),
    [
        (pairwise_outcomes, ["a", "maybe"], ["a", "b"], "unknown pairwise verdicts"),
        (pairwise_outcomes, ["a", "b"], ["a", "tie"], "pairwise gold"),
        (pointwise_outcomes, ["novel", "a"], ["novel", "novel"], "unknown pointwise verdicts"),
        (pairwise_outcomes, ["a"], ["a", "b"], "differ in length"),
    ],
)
def test_bad_input_is_named(fn, verdicts, gold, match) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=match):
        fn(verdicts, gold)


def test_metrics_for_kind() -> None:
    assert metrics_for("pairwise") is PAIRWISE and metrics_for("pointwise") is POINTWISE
    with pytest.raises(ValueError, match="unknown task kind"):
        metrics_for("listwise")
