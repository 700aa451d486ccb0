"""Two-sample bootstrap difference of proportions (judgeaudit.stats.unpaired: shares that are not 0/1)
against hand-computed cases."""

from __future__ import annotations

import numpy as np
import pytest

from judgeaudit.stats import UnpairedDifference, unpaired_bootstrap


def test_estimate_is_the_difference_of_the_group_means() -> None:
    d = unpaired_bootstrap([1, 1, 0, 0], [1, 0, 0], resamples=500, seed=9)
    assert d.estimate == pytest.approx(0.5 - 1 / 3)
    assert (d.n_x, d.n_y, d.n, d.resamples, d.seed, d.method) == (
        4,
        3,
        7,
        500,
        9,
        "two-sample percentile",
    )
    assert d.to_dict()["n_x"] == 4


def test_replicates_by_hand_from_given_indices() -> None:
    x, y = [1, 0, 0], [1, 1, 0, 0]
    ix = np.array([[0, 0, 0], [1, 2, 1]])  # means 1 and 0
    iy = np.array([[0, 1, 2, 3], [2, 3, 2, 3]])  # means 0.5 and 0
    d = unpaired_bootstrap(x, y, indices_x=ix, indices_y=iy, seed=0)
    # replicate differences 0.5 and 0.0; the interval ends are replicate values (inverted-CDF percentiles)
    assert (d.low, d.high) == (0.0, 0.5)
    # p = 2 * min((1 + #{d <= 0}) / 3, (1 + #{d >= 0}) / 3) = 2 * min(2/3, 1), capped at 1
    assert d.p_value == 1.0 and d.resamples == 2
    assert not d.significant  # `significant` follows the interval, which reaches 0
    assert d.estimate == pytest.approx(1 / 3 - 1 / 2)


def test_certain_difference_has_a_point_interval_that_claims_nothing() -> None:
    d = unpaired_bootstrap([1, 1, 1], [0, 0], resamples=999, seed=2)
    assert (d.estimate, d.low, d.high) == (1.0, 1.0, 1.0) and d.p_value == pytest.approx(2 / 1000)
    # every replicate is 1 - 0: a point interval, the bootstrap's artefact on 5 items, is not significant
    assert (
        not d.significant and d.note == "degenerate interval (every resample gives the same value)"
    )


def test_groups_are_drawn_independently_even_at_equal_sizes() -> None:
    # A paired draw of identical groups would give 0 in every replicate; independent draws spread.
    d = unpaired_bootstrap([1, 0, 1, 0], [1, 0, 1, 0], resamples=2000, seed=4)
    assert d.estimate == 0.0 and d.low < -0.2 and d.high > 0.2 and not d.significant
    again = unpaired_bootstrap([1, 0, 1, 0], [1, 0, 1, 0], resamples=2000, seed=4)
    assert again == d
    # x alone is Binomial(4, 1/2)/4 against a fixed y = 0: P(0) = 1/16 > 2.5%, so the interval is [0, 1]
    half = unpaired_bootstrap([1, 1, 0, 0], [0], resamples=4000, seed=7)
    assert (half.low, half.high) == (0.0, 1.0)


@pytest.mark.parametrize(
    ("x", "y", "kw", "message"),
    [
        ([], [1], {}, "group x is empty"),
        ([1], [2], {}, r"group y must hold shares in \[0, 1\]"),
        ([1], [0], {"indices_x": np.zeros((1, 1), dtype=int)}, "both indices_x and indices_y"),
        ([1], [0], {"resamples": 0}, "resamples must be positive"),
    ],
)
def test_bad_inputs_are_named(x: list, y: list, kw: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        unpaired_bootstrap(x, y, **kw)


def test_result_type() -> None:
    assert isinstance(unpaired_bootstrap([1], [0], resamples=10), UnpairedDifference)
