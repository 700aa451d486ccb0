"""The study's absolute cuts on a venue's own scales, by one stated rule.

The reference study writes its cuts on ICLR 2026's scales: a mean rating floor of 6.0 and ceiling of
3.5 on the 0-10 rating, and contribution cuts of 3.0 and 2.0 on the 1-4 contribution score. The
`judgeaudit mine` options take them on those reference scales too. On another venue each cut is
mapped linearly from the reference scale's range onto the venue's declared scale:

    cut' = low' + (cut - low) * (high' - low') / (high - low)

so a cut keeps its relative position between the scale's ends (6.0 of 0-10 is 4.0 of 1-6, 6.4 of
1-10). A scale equal to the reference one maps every cut to itself. A venue without a novelty-related
score skips both novelty cuts; one without a rating skips the rating cuts (and the rating deciles:
`select.candidate_side` takes a paper's side from its decision). The rating deciles themselves are
per-area percentiles, so they need no mapping.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from judgeaudit.mine.select import Thresholds
from judgeaudit.mine.venues.profile import Score, VenueProfile

REFERENCE_RATING: tuple[float, float] = (0.0, 10.0)
"""ICLR 2026's rating scale: the scale the rating floor and ceiling are written on."""
REFERENCE_NOVELTY: tuple[float, float] = (1.0, 4.0)
"""ICLR 2026's contribution scale: the scale the novelty cuts are written on."""
RULE = (
    "each cut is mapped linearly from the reference scale's range (ICLR 2026: rating 0-10, "
    "contribution 1-4) onto the venue's declared scale: cut' = low' + (cut - low) x "
    "(high' - low') / (high - low)"
)
_RATING_CUTS = ("novel_min_rating", "not_novel_max_rating")
_NOVELTY_CUTS = ("novel_min_contribution", "not_novel_max_contribution")


def map_cut(
    value: float | None, reference: tuple[float, float], scale: tuple[float, float]
) -> float | None:
    """A cut on `reference` mapped linearly onto `scale` (None stays None; equal scales map to itself)."""
    if value is None or tuple(scale) == tuple(reference):
        return value
    low, high = reference
    to_low, to_high = scale
    return round(to_low + (value - low) * (to_high - to_low) / (high - low), 6)


def _mapped(
    th: Thresholds, names: tuple[str, ...], score: Score | None, reference: tuple[float, float]
) -> dict[str, float | None]:
    return {
        n: None if score is None else map_cut(getattr(th, n), reference, score.scale) for n in names
    }


def venue_thresholds(th: Thresholds, profile: VenueProfile) -> Thresholds:
    """The thresholds with the absolute cuts on the venue's scales (skipped cuts: None)."""
    rating = _mapped(th, _RATING_CUTS, profile.rating, REFERENCE_RATING)
    novelty = _mapped(th, _NOVELTY_CUTS, profile.novelty, REFERENCE_NOVELTY)
    return replace(
        th,
        novel_min_rating=rating["novel_min_rating"],
        not_novel_max_rating=rating["not_novel_max_rating"],
        novel_min_contribution=novelty["novel_min_contribution"],
        not_novel_max_contribution=novelty["not_novel_max_contribution"],
    )


def _side(
    th: Thresholds, names: tuple[str, ...], score: Score | None, reference: tuple[float, float]
) -> dict[str, Any]:
    if score is None:
        return {"skipped": True, "reference_scale": list(reference)}
    mapped = _mapped(th, names, score, reference)
    return {
        "skipped": False,
        "fields": list(score.fields),
        "scale": list(score.scale),
        "reference_scale": list(reference),
        "cuts": {n: {"reference": getattr(th, n), "venue": mapped[n]} for n in names},
    }


def cuts_record(th: Thresholds, profile: VenueProfile) -> dict[str, Any]:
    """The rule and every absolute cut on the reference and the venue's scale (or that it is skipped)."""
    return {
        "rule": RULE,
        "rating": _side(th, _RATING_CUTS, profile.rating, REFERENCE_RATING),
        "novelty": _side(th, _NOVELTY_CUTS, profile.novelty, REFERENCE_NOVELTY),
    }
