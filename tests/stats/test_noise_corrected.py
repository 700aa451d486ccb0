"""The noise-corrected flip rate (`stats.noise_corrected_flip_rate`): a flip rate minus the noise floor on the
same items, as a difference of two samples (Mee's score interval, Hauck-Anderson correction), checked against
hand-derived closed forms.

With every item flipping and no noise flip (x = n of n, y = 0 of n) the most likely (p1, p2) with p1 - p2 = d
maximises (p2 + d)^n (1 - p2)^n: p2 = (1 - d) / 2, p1 = (1 + d) / 2, so the variance is (1 - d^2) / (2n) and
the lower end solves (1 - 1/(2n) - d)^2 = z^2 (1 - d^2) / (2n). With no flip at all (0 of n against 0 of n)
the most likely pair at d > 0 is p2 = 0, p1 = d, variance d (1 - d) / n, and the upper end solves
(d - 1/(2n))^2 = z^2 d (1 - d) / n.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from judgeaudit.stats import noise_corrected_flip_rate
from judgeaudit.stats.defaults import CORRECTED_METHOD
from judgeaudit.stats.exact import z_of

Z = z_of(0.95)


def _all_flip_low(n: int) -> float:
    a = 1 - 1 / (
        2 * n
    )  # (a - d)^2 2n = z^2 (1 - d^2): (2n + z^2) d^2 - 4 n a d + 2 n a^2 - z^2 = 0
    qa, qb, qc = 2 * n + Z * Z, -4 * n * a, 2 * n * a * a - Z * Z
    return (-qb - math.sqrt(qb * qb - 4 * qa * qc)) / (2 * qa)


def _no_flip_high(n: int) -> float:
    c = 1 / (2 * n)  # (d - c)^2 n = z^2 d (1 - d): (n + z^2) d^2 - (2 n c + z^2) d + n c^2 = 0
    qa, qb, qc = n + Z * Z, -(2 * n * c + Z * Z), n * c * c
    return (-qb + math.sqrt(qb * qb - 4 * qa * qc)) / (2 * qa)


@pytest.mark.parametrize("n", [6, 10, 40])
def test_every_item_flips_without_noise_matches_the_closed_form(n: int) -> None:
    d = noise_corrected_flip_rate(np.ones(n), np.zeros(n))
    assert (
        d.estimate == 1.0 and d.high == 1.0 and d.low == pytest.approx(_all_flip_low(n), abs=1e-9)
    )
    assert (
        d.method == CORRECTED_METHOD
        and d.significant
        and d.status == "ok"
        and (d.n, d.excluded) == (n, 0)
    )


def test_six_of_six_against_none_lies_beyond_the_fail_threshold() -> None:
    """The README main job's data: 6 order flips in 6, no noise flip: [0.397, 1], Fisher's p = 1/462 x 1."""
    d = noise_corrected_flip_rate(np.ones(6), np.zeros(6))
    assert round(d.low, 4) == 0.3975 and d.low > 0.25
    assert d.p_value == pytest.approx(
        2 / math.comb(12, 6)
    )  # Fisher two-sided: the two extreme tables


@pytest.mark.parametrize("n", [1, 6, 30])
def test_no_flip_and_every_flip_on_both_sides_are_symmetric_about_zero(n: int) -> None:
    none = noise_corrected_flip_rate(np.zeros(n), np.zeros(n))
    every = noise_corrected_flip_rate(np.ones(n), np.ones(n))
    for d in (none, every):
        assert d.estimate == 0.0 and not d.significant
        assert d.high == pytest.approx(_no_flip_high(n), abs=1e-9) and d.low == pytest.approx(
            -d.high, abs=1e-9
        )


def test_one_item() -> None:
    """n = 1, a flip and no noise flip: the lower end from the closed form (-0.604), the upper end 1;
    Fisher's test on one item against one cannot reject."""
    d = noise_corrected_flip_rate([1.0], [0.0])
    assert (
        d.estimate == 1.0 and d.high == 1.0 and d.low == pytest.approx(_all_flip_low(1), abs=1e-9)
    )
    assert round(d.low, 3) == -0.604 and d.p_value == 1.0 and not d.significant


def test_no_items_and_no_comparable_items_have_no_number() -> None:
    empty = noise_corrected_flip_rate([], [])
    assert empty.status == "no_items" and math.isnan(empty.estimate) and math.isnan(empty.low)
    left_out = noise_corrected_flip_rate([np.nan, 1.0], [0.0, np.nan])
    assert (
        left_out.status == "no_comparable_items"
        and left_out.excluded == 2
        and math.isnan(left_out.high)
    )


def test_items_invalid_on_either_side_are_left_out() -> None:
    d = noise_corrected_flip_rate([1.0, 1.0, np.nan, 0.0], [0.0, np.nan, 0.0, 1.0])
    assert (d.n, d.excluded) == (
        4,
        2,
    ) and d.estimate == 0.0  # items 0 and 3: (1 + 0) / 2 - (0 + 1) / 2


def test_three_of_three_is_widened_to_zero_where_fisher_does_not_reject() -> None:
    """3 of 3 against 0 of 3: the score interval excludes 0 but Fisher's p = 0.1: the interval is widened to 0."""
    d = noise_corrected_flip_rate(np.ones(3), np.zeros(3))
    assert d.low == 0.0 and not d.significant and d.p_value == pytest.approx(0.1) and d.note


def test_pooled_flips_take_the_score_test_and_a_fractional_sum() -> None:
    """Flips pooled over 4 edits (j/4) against 0/1 noise flips: the sums are 3.5 of 6 and 1 of 6."""
    flips = [0.25, 0.5, 1.0, 0.0, 0.75, 1.0]
    d = noise_corrected_flip_rate(flips, [0, 0, 1, 0, 0, 0])
    assert (
        d.estimate == pytest.approx(3.5 / 6 - 1 / 6)
        and d.test == "score test (continuity-corrected)"
    )
    assert d.low < d.estimate < d.high and d.note is None


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="same items"):
        noise_corrected_flip_rate([1.0, 0.0], [0.0])
    with pytest.raises(ValueError, match="noise flips be 0 or 1"):
        noise_corrected_flip_rate([1.0], [0.5])
    with pytest.raises(ValueError, match="flips must lie in"):
        noise_corrected_flip_rate([1.5], [0.0])
