"""`stats.projection.interval_scaled`: at factor 1 it gives back the interval each closed-form method
computed (so its counts are the interval's own), at factor k the interval of k times the counts."""

from __future__ import annotations

import numpy as np
import pytest

from judgeaudit.stats import (
    FLIP_RATE,
    HALVES,
    interval,
    noise_corrected_flip_rate,
    paired_difference,
    share_metric,
    unpaired_difference,
)
from judgeaudit.stats.exact import clopper_pearson
from judgeaudit.stats.projection import interval_scaled, projectable
from judgeaudit.stats.results import Interval, PairedDifference, Tally, UnpairedDifference

Value = Interval | PairedDifference | UnpairedDifference


def _values() -> list[Value]:
    flips = np.array([1.0, 0.0, 1.0, 1.0, np.nan, 0.0])
    return [
        interval({"flip": flips}, FLIP_RATE),
        interval({"v": np.array([1.0, 0.5, 1.0, 0.0, 1.0])}, share_metric("v", "v", HALVES)),
        paired_difference(
            {"flip": flips}, {"flip": np.array([0.0, 0.0, 1.0, 0.0, 0.0, 1.0])}, FLIP_RATE
        ),
        unpaired_difference(
            np.array([1.0, 1.0, 0.0, 1.0]), np.array([0.0, 1.0, 0.0, 0.0, 0.0, 0.0])
        ),
        noise_corrected_flip_rate(np.array([0.25, 1.0, 0.5, 0.0]), np.array([0.0, 1.0, 0.0, 0.0])),
    ]


@pytest.mark.parametrize("v", _values(), ids=lambda v: v.method)
def test_factor_one_gives_back_the_interval(v: Value) -> None:
    assert v.tally is not None and projectable(v.method, v.tally)
    low, high = interval_scaled(v.method, v.tally, 1.0)
    if getattr(v, "note", None) is None:  # no widening to 0 by an exact test
        assert (low, high) == (pytest.approx(v.low, abs=1e-9), pytest.approx(v.high, abs=1e-9))


def test_a_rate_scaled_is_clopper_pearson_of_the_scaled_counts() -> None:
    tally = Tally((0.0, 1.0), ((3.0, 2.0),))  # 2 of 5
    lo, hi = clopper_pearson(8, 20)
    assert interval_scaled("clopper-pearson", tally, 4.0) == (
        pytest.approx(float(lo)),
        pytest.approx(float(hi)),
    )


def test_no_projection_without_counts_or_for_the_bootstrap() -> None:
    assert not projectable("percentile", Tally((0.0, 1.0), ((1.0, 1.0),)))
    assert not projectable("clopper-pearson", None)
    assert not projectable("clopper-pearson", Tally((0.0, 1.0), ((0.0, 0.0),)))  # no item
    with pytest.raises(ValueError, match="no projection"):
        interval_scaled("percentile", Tally((0.0, 1.0), ((1.0, 1.0),)), 2.0)
    with pytest.raises(ValueError, match="positive"):
        interval_scaled("clopper-pearson", Tally((0.0, 1.0), ((1.0, 1.0),)), 0.0)
