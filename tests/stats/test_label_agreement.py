"""Kept rate and estimated kept-set Jaccard against hand-computed cases."""

from __future__ import annotations

import math

import pytest

from judgeaudit.stats.label_agreement import estimated_jaccard, jaccard_metric, kept_rate


def test_kept_rate_is_the_share_kept_and_its_interval_brackets_it() -> None:
    got = kept_rate([1, 1, 0, 1], resamples=2_000)
    assert got.estimate == pytest.approx(0.75)
    assert 0.0 <= got.low <= 0.75 <= got.high <= 1.0
    assert got.seed == 20260 and got.n == 4


def test_jaccard_by_hand() -> None:
    # sample of 3 reference ideas (a third), 2 kept: overlap 6, reference 9, ours 4 + 2 = 6 -> 6 / (6 + 9 - 6)
    got = estimated_jaccard([1, 1, 0], kept_outside=4, reference_share=1 / 3, resamples=2_000)
    assert got.estimate == pytest.approx(6 / 9)


def test_jaccard_is_one_when_the_sets_coincide_and_zero_when_disjoint() -> None:
    # all 2 sampled kept, share 1/2: reference 4, overlap 4, ours must be 4 = 2 outside + 2
    assert float(jaccard_metric(2, 0.5)({"kept": [1, 1]})) == pytest.approx(1.0)
    assert float(jaccard_metric(5, 0.5)({"kept": [0, 0]})) == pytest.approx(0.0)


def test_jaccard_rejects_bad_parameters() -> None:
    with pytest.raises(ValueError, match="reference_share"):
        jaccard_metric(1, 0.0)
    with pytest.raises(ValueError, match="kept_outside"):
        jaccard_metric(-1, 0.5)


def test_the_overlap_cannot_exceed_what_the_miner_keeps() -> None:
    # 1 of 1 sampled kept at share 1/3 extrapolates to 3, but the miner keeps only 1 -> 1 / (1 + 3 - 1)
    assert float(jaccard_metric(0, 1 / 3)({"kept": [1]})) == pytest.approx(1 / 3)


def test_jaccard_undefined_only_for_an_empty_union() -> None:
    value = float(jaccard_metric(0, 1.0)({"kept": [0.0]}))
    assert not math.isnan(value)  # reference has 1 idea, so the union is 1
