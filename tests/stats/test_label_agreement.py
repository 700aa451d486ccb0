"""Kept rate and estimated kept-set Jaccard against hand-computed cases."""

from __future__ import annotations

import math

import pytest

from judgeaudit.stats.bootstrap import bootstrap_metric
from judgeaudit.stats.label_agreement import (
    estimated_jaccard,
    jaccard_metric,
    kept_rate,
    sampled_class_size_metric,
    sampled_jaccard_metric,
)


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


# The sampled estimator: a labeller known only through a reference sample and a candidate sample.


def _rows(dev_kept: list[int], sample_kept: list[int]) -> dict[str, list[float]]:
    """Dev rows first, then sample rows, in the four columns of the sampled estimator."""
    n_dev, n_sample = len(dev_kept), len(sample_kept)
    return {
        "dev": [1.0] * n_dev + [0.0] * n_sample,
        "dev_kept": [float(k) for k in dev_kept] + [0.0] * n_sample,
        "sample": [0.0] * n_dev + [1.0] * n_sample,
        "sample_kept": [0.0] * n_dev + [float(k) for k in sample_kept],
    }


def test_sampled_jaccard_by_hand() -> None:
    # recall 2/3, rate 1/2; D = 3 reference ideas sampled at share 1/3 -> N = 9; C = 10 candidates outside:
    # K = 0.5 * 10 + 2/3 * 3 = 7, O = min(2/3 * 9, 7) = 6, J = 6 / (7 + 9 - 6) = 0.6
    rows = _rows([1, 1, 0], [1, 0])
    assert float(sampled_jaccard_metric(10, 3, 1 / 3)(rows)) == pytest.approx(0.6)
    assert float(sampled_class_size_metric(10, 3)(rows)) == pytest.approx(7.0)


def test_sampled_jaccard_is_one_for_the_same_set_and_zero_for_disjoint_sets() -> None:
    # recall 1, rate 1/2 of 12 outside: K = 6 + 3 = 9 = N -> J = 1; recall 0 -> no overlap
    assert float(sampled_jaccard_metric(12, 3, 1 / 3)(_rows([1, 1, 1], [1, 0]))) == pytest.approx(
        1.0
    )
    assert float(sampled_jaccard_metric(12, 3, 1 / 3)(_rows([0, 0, 0], [1, 0]))) == pytest.approx(
        0.0
    )


def test_sampled_overlap_cannot_exceed_the_labellers_size() -> None:
    # recall 1 of D = 3 at share 1/3 extrapolates to 9, but rate 0 gives K = 3 -> O = 3, J = 3 / (3 + 9 - 3)
    assert float(sampled_jaccard_metric(100, 3, 1 / 3)(_rows([1, 1, 1], [0, 0]))) == pytest.approx(
        1 / 3
    )


def test_sampled_jaccard_is_undefined_without_rows_of_either_kind() -> None:
    assert math.isnan(float(sampled_jaccard_metric(10, 3, 1 / 3)(_rows([], []))))
    assert math.isnan(float(sampled_jaccard_metric(10, 3, 1 / 3)(_rows([1, 0], []))))
    assert math.isnan(float(sampled_jaccard_metric(10, 3, 1 / 3)(_rows([], [1, 0]))))
    assert math.isnan(float(sampled_class_size_metric(10, 3)(_rows([], [1]))))


def test_sampled_jaccard_interval_brackets_the_estimate_and_records_the_seed() -> None:
    rows = _rows([1, 1, 0, 1, 0, 1], [1, 0, 0, 0, 1, 0, 0, 0])
    got = bootstrap_metric(rows, sampled_jaccard_metric(40, 6, 1 / 3), resamples=2_000, seed=7)
    assert got.low <= got.estimate <= got.high
    assert got.seed == 7 and got.resamples == 2_000 and got.n == 14


def test_sampled_jaccard_rejects_bad_parameters() -> None:
    with pytest.raises(ValueError, match="reference_share"):
        sampled_jaccard_metric(1, 1, 1.5)
    with pytest.raises(ValueError, match="candidates_outside"):
        sampled_jaccard_metric(-1, 1, 0.5)
    with pytest.raises(ValueError, match="kept_outside"):
        sampled_class_size_metric(1, 1, kept_outside=-2)


def test_a_census_adds_its_kept_papers_to_the_class_size() -> None:
    # the by-hand case above with 4 more kept papers from a census: K = 7 + 4 = 11, O = 6, J = 6 / (11 + 9 - 6)
    rows = _rows([1, 1, 0], [1, 0])
    assert float(sampled_class_size_metric(10, 3, kept_outside=4)(rows)) == pytest.approx(11.0)
    assert float(sampled_jaccard_metric(10, 3, 1 / 3, kept_outside=4)(rows)) == pytest.approx(
        6 / 14
    )
