"""The gold-label selection rule on hand-built records (DESIGN.md, "Gold labels")."""

from __future__ import annotations

import numpy as np
import pytest

from judgeaudit.mine.parse import Corpus, Review, Submission
from judgeaudit.mine.select import (
    PaperScores,
    Thresholds,
    area_cutoffs,
    candidate_side,
    decide,
    find_candidates,
    paper_scores,
)
from judgeaudit.mine.signals import AFFIRM, DISPUTE, ReviewSignals, Signal

TH = Thresholds()


def sig(*polarities: str, weak: bool = False) -> ReviewSignals:
    return ReviewSignals("r", tuple(Signal(p, f"quote {i}", "strengths", weak=weak) for i, p in enumerate(polarities)))  # type: ignore[arg-type]


NONE = sig()
AFF = sig(AFFIRM)
DIS = sig(DISPUTE)
WEAK = sig(AFFIRM, weak=True)


@pytest.mark.parametrize("signals, kept", [
    ([AFF, AFF, NONE], True),            # 2 of 3 is a majority
    ([AFF, NONE, NONE], False),          # 1 of 3 is not
    ([AFF, AFF, NONE, NONE], False),     # 2 of 4 is not MORE than half
    ([AFF, AFF, AFF, NONE], True),
    ([AFF, AFF, AFF, DIS], False),       # one dispute kills it
    ([sig(AFFIRM, DISPUTE), AFF, AFF], False),  # a review that both affirms and disputes also kills it
    ([WEAK, WEAK, AFF], False),          # hedged/descriptive affirmations do not make a majority
])
def test_novel_rule(signals: list[ReviewSignals], kept: bool) -> None:
    d = decide("F", "novel", len(signals), signals, TH)
    assert (d.label == "novel") is kept
    if not kept:
        assert d.label is None and d.reason != "kept"


@pytest.mark.parametrize("signals, kept", [
    ([DIS, DIS, NONE], True),
    ([DIS, DIS, AFF], False),            # mirror: one affirmation kills it
    ([DIS, DIS, WEAK], False),           # ... and so does a hedged one ("relatively novel")
    ([DIS, NONE, NONE], False),
])
def test_not_novel_mirror_rule(signals: list[ReviewSignals], kept: bool) -> None:
    assert (decide("F", "not_novel", len(signals), signals, TH).label == "not_novel") is kept


def test_majority_counts_all_official_reviews_not_only_those_with_text() -> None:
    # 2 affirming reviews out of 5 official reviews: no majority even if 3 reviews carry no text
    assert decide("F", "novel", 5, [AFF, AFF], TH).label is None


def test_thresholds_are_options() -> None:
    loose = Thresholds(majority=0.3, max_opposing=1)
    assert decide("F", "novel", 4, [AFF, AFF, DIS, NONE], loose).label == "novel"
    assert decide("F", "novel", 4, [AFF, AFF, DIS, DIS], loose).label is None


def test_failed_extraction_is_never_read_as_no_signal() -> None:
    failed = ReviewSignals("r", failed="bad JSON")
    d = decide("F", "not_novel", 3, [DIS, DIS, failed], TH)
    assert d.label is None and "failed" in d.reason


def scores(area: str, ratings: list[float], contribution: float = 3.0, n: int = 4) -> dict[str, PaperScores]:
    return {f"{area}{i}": PaperScores(f"{area}{i}", area, "active", n, r, contribution) for i, r in enumerate(ratings)}


def test_decile_cuts_are_inclusive_and_use_linear_interpolation() -> None:
    ratings = [float(x) for x in range(1, 11)]  # 1..10
    s = scores("A", ratings)
    lo, hi = area_cutoffs(s, TH)["A"]
    assert (lo, hi) == (float(np.percentile(ratings, 10)), float(np.percentile(ratings, 90))) == (1.9, 9.1)
    sides = {f: candidate_side(p, (lo, hi), TH)[0] for f, p in s.items()}
    assert [f for f, side in sides.items() if side == "novel"] == ["A9"]
    # a paper exactly at the cut is inside the decile
    tied = scores("B", [2.0] * 5 + [6.0] * 5)
    lo_b, hi_b = area_cutoffs(tied, TH)["B"]
    assert hi_b == 6.0 and lo_b == 2.0
    assert {candidate_side(p, (lo_b, hi_b), TH)[0] for p in tied.values()} == {"novel", None}


def test_cuts_are_per_area() -> None:
    s = {**scores("A", [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]), **scores("B", [5, 5, 5, 5, 5, 5, 5, 5, 5, 9])}
    cuts = area_cutoffs(s, TH)
    assert cuts["A"] != cuts["B"]


@pytest.mark.parametrize("contribution, side", [(3.0, "novel"), (2.99, None), (3.5, "novel")])
def test_novel_contribution_threshold(contribution: float, side: str | None) -> None:
    p = PaperScores("F", "A", "active", 4, 9.0, contribution)
    assert candidate_side(p, (2.0, 8.0), TH)[0] == side


@pytest.mark.parametrize("contribution, side", [(2.0, "not_novel"), (2.01, None), (1.0, "not_novel")])
def test_not_novel_contribution_threshold(contribution: float, side: str | None) -> None:
    p = PaperScores("F", "A", "active", 4, 1.0, contribution)
    assert candidate_side(p, (2.0, 8.0), TH)[0] == side


def test_review_count_missing_contribution_and_withdrawn() -> None:
    assert candidate_side(PaperScores("F", "A", "active", 2, 9.0, 4.0), (2.0, 8.0), TH) == (None, "fewer than 3 official reviews")
    assert candidate_side(PaperScores("F", "A", "active", 3, 9.0, None), (2.0, 8.0), TH)[0] is None
    withdrawn = PaperScores("F", "A", "withdrawn", 4, 1.0, 1.0)
    assert candidate_side(withdrawn, (2.0, 8.0), TH)[0] == "not_novel"
    assert candidate_side(withdrawn, (2.0, 8.0), Thresholds(include_withdrawn=False))[0] is None


def test_decile_population_includes_papers_with_few_reviews() -> None:
    corpus = Corpus()
    for i, rating in enumerate([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]):
        f = f"P{i}"
        corpus.submissions[f] = Submission(f, i, "t", "a", "A", "active", "", 0)
        n = 1 if i == 0 else 4  # P0 has one review: in the population, never a candidate
        corpus.reviews[f] = [Review(f"{f}r{k}", f, float(rating), 1.0, (), 0) for k in range(n)]
    s = paper_scores(corpus)
    assert len(s) == 10
    cuts, candidates, dropped = find_candidates(s, TH)
    assert cuts["A"][0] == 1.9
    assert "P0" not in candidates and dropped["fewer than 3 official reviews"] == 1
    assert candidates == {}  # P1 (2.0) is above the 1.9 cut
