"""The study's absolute cuts on each venue's scale: one linear rule, hand-computed here."""

from __future__ import annotations

import pytest

from judgeaudit.mine.select import Thresholds
from judgeaudit.mine.venues.cuts import (
    REFERENCE_NOVELTY,
    REFERENCE_RATING,
    cuts_record,
    map_cut,
    venue_thresholds,
)
from judgeaudit.mine.venues.profile import packaged_profiles


@pytest.mark.parametrize(
    "cut, scale, expected",
    [
        (6.0, (1.0, 6.0), 4.0),  # 1 + 6 x 5/10
        (3.5, (1.0, 6.0), 2.75),  # 1 + 3.5 x 5/10
        (6.0, (1.0, 10.0), 6.4),  # 1 + 6 x 9/10
        (3.5, (1.0, 10.0), 4.15),
        (6.0, (1.0, 5.0), 3.4),  # 1 + 6 x 4/10
        (3.5, (1.0, 5.0), 2.4),
        (0.0, (1.0, 6.0), 1.0),
        (10.0, (1.0, 6.0), 6.0),
        (6.0, (0.0, 10.0), 6.0),
        (None, (1.0, 6.0), None),
    ],
)
def test_a_rating_cut_maps_linearly_between_the_ranges(
    cut: float | None, scale: tuple[float, float], expected: float | None
) -> None:
    assert map_cut(cut, REFERENCE_RATING, scale) == expected


def test_novelty_cuts_on_a_1_to_4_scale_are_unchanged_and_skipped_without_a_score() -> None:
    profiles = packaged_profiles()
    study = Thresholds()
    n25 = venue_thresholds(study, profiles["NeurIPS.cc/2025/Conference"])
    assert (n25.novel_min_rating, n25.not_novel_max_rating) == (4.0, 2.75)
    assert (n25.novel_min_contribution, n25.not_novel_max_contribution) == (3.0, 2.0)
    icml = venue_thresholds(study, profiles["ICML.cc/2025/Conference"])
    assert (icml.novel_min_rating, icml.not_novel_max_rating) == (3.4, 2.4)
    assert icml.novel_min_contribution is None and icml.not_novel_max_contribution is None
    tmlr = venue_thresholds(study, profiles["TMLR"])
    assert tmlr.novel_min_rating is None and tmlr.novel_min_contribution is None
    for venue in ("ICLR.cc/2023/Conference", "ICLR.cc/2024/Conference", "ICLR.cc/2026/Conference"):
        assert (
            venue_thresholds(study, profiles[venue]) == study
        )  # ICLR's frame: the cuts themselves
    assert map_cut(2.0, REFERENCE_NOVELTY, (0.0, 10.0)) == pytest.approx(10 / 3, abs=1e-6)


def test_the_record_states_the_rule_each_cut_and_what_is_skipped() -> None:
    profiles = packaged_profiles()
    record = cuts_record(Thresholds(), profiles["ICML.cc/2025/Conference"])
    assert "linearly" in record["rule"]
    assert record["rating"]["cuts"]["novel_min_rating"] == {"reference": 6.0, "venue": 3.4}
    assert record["novelty"] == {"skipped": True, "reference_scale": [1.0, 4.0]}
