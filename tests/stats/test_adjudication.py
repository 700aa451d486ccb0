"""Exact shares and label-error accuracy bounds against hand-computed cases."""

from __future__ import annotations

import math

import pytest

from judgeaudit.stats.adjudication import exact_share, relabelled_accuracy


def test_thirty_of_thirty_is_the_two_sided_clopper_pearson_interval() -> None:
    iv = exact_share(30, 30)
    # two-sided 95%: the lower end solves p^30 = 0.025, so p = 0.025^(1/30) = 0.88430...
    # (the one-sided 95% bound would be 0.05^(1/30) = 0.90497...; we report the two-sided one)
    assert iv.low == pytest.approx(0.025 ** (1 / 30), abs=1e-9)
    assert round(iv.low, 4) == 0.8843 and iv.high == 1.0 and iv.estimate == 1.0
    assert (iv.n, iv.method, iv.status) == (30, "clopper-pearson", "ok")


def test_edge_counts() -> None:
    none = exact_share(0, 0)
    assert none.status == "no_items" and math.isnan(none.estimate) and math.isnan(none.low)
    one = exact_share(1, 1)
    assert one.low == pytest.approx(0.025) and one.high == 1.0
    zero = exact_share(0, 28)
    assert zero.low == 0.0 and zero.high == pytest.approx(1 - 0.025 ** (1 / 28), abs=1e-9)
    with pytest.raises(ValueError, match="0 <= k <= n"):
        exact_share(3, 2)


def test_accuracy_if_the_judge_sided_errors_are_label_errors() -> None:
    # 100 items, 70 right, 28 wrong (2 undecided); the expert sided with the judge on 0 of 28
    iv = relabelled_accuracy(70, 100, 28, 0, 28)
    assert iv.estimate == pytest.approx(0.70) and iv.low == pytest.approx(0.70)
    assert iv.high == pytest.approx((70 + (1 - 0.025 ** (1 / 28)) * 28) / 100, abs=1e-9)
    # all adjudicated errors sided with the judge: at best every error becomes right
    every = relabelled_accuracy(70, 100, 28, 28, 28)
    assert every.estimate == pytest.approx(0.98) and every.high == pytest.approx(0.98)
    assert every.low == pytest.approx((70 + 0.025 ** (1 / 28) * 28) / 100, abs=1e-9)
    # half of a sample of 10 errors: q = 0.5 scales all 28
    half = relabelled_accuracy(70, 100, 28, 5, 10)
    assert half.estimate == pytest.approx((70 + 14) / 100)


def test_accuracy_bounds_without_items_or_adjudicated_errors() -> None:
    assert relabelled_accuracy(0, 0, 0, 0, 0).status == "no_items"
    assert relabelled_accuracy(10, 10, 0, 0, 0).status == "no_items"  # no error to adjudicate
    with pytest.raises(ValueError, match="inconsistent"):
        relabelled_accuracy(70, 100, 40, 0, 0)
    with pytest.raises(ValueError, match="only 28"):
        relabelled_accuracy(70, 100, 28, 0, 29)
