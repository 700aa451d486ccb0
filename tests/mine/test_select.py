"""The gold-label selection rule on hand-built records (the reference study's steps, `mine/select.py`): every step and option."""

from __future__ import annotations

import numpy as np
import pytest

from judgeaudit.mine.parse import Corpus, Review, Submission, decision_of
from judgeaudit.mine.pipeline import select_labels
from judgeaudit.mine.select import (
    OTHER_TOPICS,
    SIDE_STEPS,
    PaperScores,
    Thresholds,
    area_cutoffs,
    candidate_side,
    carries_decisions,
    decide,
    find_candidates,
    majority_reachable,
    normalise_title,
    paper_scores,
)
from judgeaudit.mine.signals.base import AFFIRM, DISPUTE, ReviewSignals, Signal
from judgeaudit.mine.signals.cues import OfflineExtractor

TH = Thresholds()


def sig(*polarities: str, weak: bool = False) -> ReviewSignals:
    return ReviewSignals(
        "r",
        tuple(Signal(p, f"quote {i}", "strengths", weak=weak) for i, p in enumerate(polarities)),
    )  # type: ignore[arg-type]


NONE = sig()
AFF = sig(AFFIRM)
DIS = sig(DISPUTE)
WEAK = sig(AFFIRM, weak=True)
UNSURE = sig(DISPUTE, weak=True)
UNREAD = ReviewSignals("r", unread="an empty signal field")


@pytest.mark.parametrize(
    "signals, kept",
    [
        ([AFF, AFF, NONE], True),  # 2 of 3 is a majority
        ([AFF, NONE, NONE], False),  # 1 of 3 is not
        ([AFF, AFF, NONE, NONE], False),  # 2 of 4 is half, not MORE than half
        ([AFF, AFF, AFF, NONE], True),  # 3 of 4 is more than half
        ([AFF, AFF, AFF, DIS], False),  # one disputing review among affirming ones blocks it
        (
            [sig(AFFIRM, DISPUTE), AFF, AFF],
            False,
        ),  # a review that both affirms and disputes blocks it too
        ([WEAK, WEAK, AFF], False),  # hedged/descriptive affirmations are no signal
        ([AFF, AFF, UNSURE], True),  # hedged uncertainty is no dispute
        (
            [AFF, AFF, UNREAD, UNREAD],
            False,
        ),  # a review with an empty field gives no signal but counts among all reviews
    ],
)
def test_novel_rule(signals: list[ReviewSignals], kept: bool) -> None:
    d = decide("F", "novel", len(signals), signals, TH)
    assert (d.label == "novel") is kept
    if not kept:
        assert d.label is None and d.reason != "kept"


@pytest.mark.parametrize(
    "signals, kept",
    [
        ([DIS, DIS, NONE], True),
        ([DIS, DIS, AFF], False),  # mirror: one affirmation blocks it
        ([DIS, DIS, WEAK], True),  # a weak affirmation ("relatively novel") is no signal at all
        ([DIS, NONE, NONE], False),
        ([DIS, UNSURE, NONE], False),  # hedged uncertainty does not count towards the majority
        ([DIS, DIS, DIS, NONE, NONE, NONE], False),  # half
    ],
)
def test_not_novel_mirror_rule(signals: list[ReviewSignals], kept: bool) -> None:
    assert (decide("F", "not_novel", len(signals), signals, TH).label == "not_novel") is kept


def test_the_earlier_weak_rules_are_options() -> None:
    oppose = Thresholds(weak_affirmations="oppose")
    assert (
        decide("F", "not_novel", 3, [DIS, DIS, WEAK], oppose).label is None
    )  # weak ones block not_novel
    assert (
        decide("F", "novel", 3, [WEAK, WEAK, AFF], oppose).label is None
    )  # ... but do not support novel
    count = Thresholds(weak_affirmations="count")
    assert decide("F", "novel", 3, [WEAK, WEAK, AFF], count).label == "novel"
    assert decide("F", "not_novel", 3, [DIS, DIS, WEAK], count).label is None
    support = Thresholds(weak_affirmations="support")  # towards a novel majority only
    assert decide("F", "novel", 3, [WEAK, WEAK, AFF], support).label == "novel"
    assert decide("F", "not_novel", 3, [DIS, DIS, WEAK], support).label == "not_novel"
    disputes = Thresholds(weak_disputes="count")
    assert decide("F", "novel", 3, [AFF, AFF, UNSURE], disputes).label is None
    assert decide("F", "not_novel", 3, [DIS, UNSURE, NONE], disputes).label == "not_novel"


def test_agreeing_reviews_must_carry_their_side_only() -> None:
    both = sig(DISPUTE, AFFIRM)
    loose = Thresholds(
        max_opposing=1
    )  # one opposing review allowed: the mixed review still does not agree
    assert decide("F", "not_novel", 3, [DIS, both, NONE], loose).label is None
    assert decide("F", "not_novel", 3, [DIS, DIS, both], loose).label == "not_novel"


def test_majority_counts_all_official_reviews_not_only_those_with_text() -> None:
    # 2 affirming reviews out of 5 official reviews: no majority even if 3 reviews carry no text
    assert decide("F", "novel", 5, [AFF, AFF], TH).label is None


def test_thresholds_are_options() -> None:
    loose = Thresholds(majority=0.3, max_opposing=1)
    assert decide("F", "novel", 4, [AFF, AFF, DIS, NONE], loose).label == "novel"
    assert decide("F", "novel", 4, [AFF, AFF, DIS, DIS], loose).label is None
    inclusive = Thresholds(strict_majority=False)
    assert decide("F", "novel", 4, [AFF, AFF, NONE, NONE], inclusive).label == "novel"
    assert (
        decide("F", "novel", 2, [NONE, NONE], Thresholds(strict_majority=False, majority=0.0)).label
        is None
    )


@pytest.mark.parametrize(
    "readable, n, strict, reachable",
    [
        (2, 3, True, True),
        (2, 4, True, False),
        (2, 4, False, True),
        (0, 0, False, False),
        (3, 4, True, True),
    ],
)
def test_a_majority_is_reachable_only_with_enough_readable_reviews(
    readable: int, n: int, strict: bool, reachable: bool
) -> None:
    assert majority_reachable(readable, n, Thresholds(strict_majority=strict)) is reachable


def test_failed_extraction_is_never_read_as_no_signal() -> None:
    failed = ReviewSignals("r", failed="bad JSON")
    d = decide("F", "not_novel", 3, [DIS, DIS, failed], TH)
    assert d.label is None and "failed" in d.reason


def scores(
    area: str, ratings: list[float], contribution: float = 3.0, n: int = 4
) -> dict[str, PaperScores]:
    return {
        f"{area}{i}": PaperScores(f"{area}{i}", area, "active", n, r, contribution)
        for i, r in enumerate(ratings)
    }


def test_decile_cuts_are_inclusive_and_use_linear_interpolation() -> None:
    ratings = [float(x) for x in range(1, 11)]  # 1..10
    s = scores("A", ratings)
    lo, hi = area_cutoffs(s, TH)["A"]
    assert (
        (lo, hi)
        == (float(np.percentile(ratings, 10)), float(np.percentile(ratings, 90)))
        == (1.9, 9.1)
    )
    sides = {f: candidate_side(p, (lo, hi), TH)[0] for f, p in s.items()}
    assert [f for f, side in sides.items() if side == "novel"] == ["A9"]
    # a paper exactly at the 90th percentile is inside the top decile
    tied = scores("B", [2.0] * 5 + [7.0] * 5)
    lo_b, hi_b = area_cutoffs(tied, TH)["B"]
    assert hi_b == 7.0 and lo_b == 2.0
    assert {candidate_side(p, (lo_b, hi_b), TH)[0] for p in tied.values()} == {
        "novel",
        None,
    }  # 2.0: contribution 3


def test_cuts_are_per_area() -> None:
    s = {
        **scores("A", [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]),
        **scores("B", [5, 5, 5, 5, 5, 5, 5, 5, 5, 9]),
    }
    cuts = area_cutoffs(s, TH)
    assert cuts["A"] != cuts["B"]


@pytest.mark.parametrize("rating, side", [(6.0, "novel"), (5.9, None), (9.0, "novel")])
def test_novel_needs_the_rating_floor_as_well_as_the_top_decile(
    rating: float, side: str | None
) -> None:
    p = PaperScores("F", "A", "active", 4, rating, 3.5)
    assert candidate_side(p, (1.0, 5.0), TH) == (
        side,
        "candidate" if side else "novel: rating floor",
    )
    assert candidate_side(p, (1.0, 5.0), Thresholds(novel_min_rating=None))[0] == "novel"


@pytest.mark.parametrize("rating, side", [(3.5, "not_novel"), (3.6, None), (1.0, "not_novel")])
def test_not_novel_needs_the_rating_ceiling_as_well_as_the_bottom_decile(
    rating: float, side: str | None
) -> None:
    p = PaperScores("F", "A", "active", 4, rating, 1.5)
    assert candidate_side(p, (4.0, 9.0), TH) == (
        side,
        "candidate" if side else "not_novel: rating ceiling",
    )
    assert candidate_side(p, (4.0, 9.0), Thresholds(not_novel_max_rating=None))[0] == "not_novel"


@pytest.mark.parametrize("contribution, side", [(3.0, "novel"), (2.99, None), (3.5, "novel")])
def test_novel_contribution_threshold(contribution: float, side: str | None) -> None:
    p = PaperScores("F", "A", "active", 4, 9.0, contribution)
    assert candidate_side(p, (2.0, 8.0), TH)[0] == side


@pytest.mark.parametrize(
    "contribution, side", [(2.0, "not_novel"), (2.01, None), (1.0, "not_novel")]
)
def test_not_novel_contribution_threshold(contribution: float, side: str | None) -> None:
    p = PaperScores("F", "A", "active", 4, 1.0, contribution)
    assert candidate_side(p, (2.0, 8.0), TH)[0] == side


def test_review_count_missing_contribution_and_withdrawn() -> None:
    assert candidate_side(
        PaperScores("F", "A", "active", 2, 9.0, 4.0), (2.0, 8.0), Thresholds(min_reviews=3)
    ) == (None, "enough reviews")
    assert (
        candidate_side(PaperScores("F", "A", "active", 1, 9.0, 4.0), (2.0, 8.0), TH)[0] == "novel"
    )  # no minimum
    assert candidate_side(PaperScores("F", "A", "active", 3, 9.0, None), (2.0, 8.0), TH)[0] is None
    withdrawn = PaperScores("F", "A", "withdrawn", 4, 1.0, 1.0)
    assert candidate_side(withdrawn, (2.0, 8.0), TH)[0] == "not_novel"
    assert candidate_side(withdrawn, (2.0, 8.0), Thresholds(include_withdrawn=False))[0] is None


def test_the_other_topics_area_is_excluded_unless_asked_and_a_blocklist_leaves_titles_out() -> None:
    other = PaperScores("F", OTHER_TOPICS, "active", 4, 9.0, 4.0, title="A Paper")
    assert candidate_side(other, (2.0, 8.0), TH) == (None, "outside the excluded areas")
    assert candidate_side(other, (2.0, 8.0), Thresholds(excluded_areas=()))[0] == "novel"
    listed = PaperScores("G", "A", "active", 4, 9.0, 4.0, title="Blocked: a Title!")
    block = Thresholds(blocklist=(normalise_title("blocked  A title"),))
    assert candidate_side(listed, (2.0, 8.0), block) == (None, "title not blocklisted")
    assert candidate_side(listed, (2.0, 8.0), TH)[0] == "novel"


@pytest.mark.parametrize(
    "decision, novel, not_novel",
    [
        ("accepted", "novel", None),
        ("rejected", None, "not_novel"),
        ("withdrawn", None, "not_novel"),
        ("desk_rejected", None, "not_novel"),
        (None, None, None),
    ],
)
def test_the_decision_filter_when_decisions_are_known(
    decision: str | None, novel: str | None, not_novel: str | None
) -> None:
    top = PaperScores("F", "A", "active", 4, 9.0, 4.0, decision=decision)
    bottom = PaperScores("G", "A", "active", 4, 1.0, 1.0, decision=decision)
    assert candidate_side(top, (2.0, 8.0), TH, decisions=True)[0] == novel
    assert candidate_side(bottom, (2.0, 8.0), TH, decisions=True)[0] == not_novel
    # without decisions (the bundled snapshot) the filter is not applied
    assert candidate_side(top, (2.0, 8.0), TH)[0] == "novel"
    assert candidate_side(bottom, (2.0, 8.0), TH)[0] == "not_novel"


def _corpus(venueids: dict[str, str], decision_replies: dict[str, str] | None = None) -> Corpus:
    corpus = Corpus()
    for i, (f, venueid) in enumerate(venueids.items()):
        status = "withdrawn" if "Withdrawn" in venueid else "active"  # as parse_submission sets it
        corpus.submissions[f] = Submission(f, i, f"title {f}", "abstract", "A", status, venueid, 0)
        corpus.reviews[f] = [Review(f"{f}r", f, 5.0, 2.0, (), 0)]
    corpus.decision_replies.update(decision_replies or {})
    return corpus


def test_decisions_are_read_from_venue_fields_and_decision_notes() -> None:
    venue = "ICLR.cc/2026/Conference"
    corpus = _corpus(
        {
            "a": venue,
            "r": f"{venue}/Rejected_Submission",
            "u": f"{venue}/Submission",
            "d": f"{venue}/Submission",
            "w": f"{venue}/Withdrawn_Submission",
        },
        {"d": "accepted"},
    )
    got = {f: decision_of(corpus, f, venue) for f in corpus.submissions}
    assert got == {"a": "accepted", "r": "rejected", "u": None, "d": "accepted", "w": "withdrawn"}
    assert carries_decisions(paper_scores(corpus, venue))
    before = _corpus({"u": f"{venue}/Submission", "w": f"{venue}/Withdrawn_Submission"})
    assert not carries_decisions(paper_scores(before, venue))  # withdrawals alone are not decisions


def test_decile_population_includes_papers_with_few_reviews() -> None:
    corpus = Corpus()
    for i, rating in enumerate([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]):
        f = f"P{i}"
        corpus.submissions[f] = Submission(f, i, "t", "a", "A", "active", "", 0)
        n = (
            1 if i == 0 else 4
        )  # P0 has one review: in the population, not a candidate with --min-reviews 3
        corpus.reviews[f] = [Review(f"{f}r{k}", f, float(rating), 1.0, (), 0) for k in range(n)]
    s = paper_scores(corpus)
    assert len(s) == 10
    cuts, candidates, dropped = find_candidates(s, Thresholds(min_reviews=3))
    assert cuts["A"][0] == 1.9
    assert "P0" not in candidates and dropped["enough reviews"] == 1
    assert candidates == {}  # P1 (2.0) is above the 1.9 cut


def _review(
    rid: str, forum: str, rating: float, contribution: float, strengths: str, weaknesses: str
) -> Review:
    texts = tuple(
        (k, v)
        for k, v in (
            ("summary", "A summary."),
            ("strengths", strengths),
            ("weaknesses", weaknesses),
        )
        if v
    )
    return Review(rid, forum, rating, contribution, texts, 0)


NOVEL = "The idea is novel and has not been explored before."
LIMITED = "The novelty is limited."


def test_the_funnel_adds_up_and_an_empty_field_and_an_unreachable_candidate_are_counted() -> None:
    corpus = Corpus()
    plan = {  # forum: (area, rating, contribution, [(strengths, weaknesses)])
        "n1": ("A", 9.0, 4.0, [(NOVEL, "Few baselines."), (NOVEL, "None."), ("Clear.", "Typos.")]),
        "n2": (
            "A",
            9.0,
            4.0,
            [(NOVEL, ""), (NOVEL, ""), (NOVEL, "Slow.")],
        ),  # 2 of 3 reviews unread: unreachable
        "n3": (
            "A",
            9.0,
            3.0,
            [(NOVEL, "Some."), (NOVEL, LIMITED), ("Good.", "Small.")],
        ),  # a dispute opposes
        "b1": ("A", 1.0, 1.0, [("Clear.", LIMITED), ("Fine.", LIMITED), ("Ok.", "Typos.")]),
        "b2": (
            "A",
            2.0,
            1.5,
            [("Clear.", LIMITED), ("Fine.", "Typos."), ("Ok.", "Typos.")],
        ),  # short of a majority
        "o1": (OTHER_TOPICS, 9.0, 4.0, [(NOVEL, "x"), (NOVEL, "y")]),
    }
    plan.update({f"m{i}": ("A", 5.0, 2.5, [("Fine.", "Fine.")]) for i in range(12)})
    for i, (forum, (area, rating, contribution, texts)) in enumerate(plan.items()):
        corpus.submissions[forum] = Submission(
            forum, i, f"t{forum}", "abstract", area, "active", "", 0
        )
        corpus.reviews[forum] = [
            _review(f"{forum}-{k}", forum, rating, contribution, s, w)
            for k, (s, w) in enumerate(texts)
        ]
    selection, signals = select_labels(corpus, OfflineExtractor(), TH)
    assert {f: d.label for f, d in selection.kept().items()} == {"n1": "novel", "b1": "not_novel"}
    assert (
        selection.decisions["n2"].reason == "too few readable reviews to reach a majority"
        and "n2" not in signals
    )
    assert selection.unread_reviews == 2 and selection.skipped_unreachable == 1
    funnel = selection.funnel
    population = list(funnel.population.values())
    assert (
        population[0] == len(plan) and population[1] == len(plan) - 1
    )  # the other-topics paper is out
    band = funnel.population["in a decile band"]
    novel, not_novel = funnel.sides["novel"], funnel.sides["not_novel"]
    assert novel[SIDE_STEPS["novel"][0]] + not_novel[SIDE_STEPS["not_novel"][0]] == band
    assert list(novel.values()) == [3, 3, 3, 3, 2, 1, 1]
    assert list(not_novel.values()) == [2, 2, 2, 2, 2, 2, 1]
    for side in ("novel", "not_novel"):  # the steps never grow, and the last is what was kept
        counts = list(funnel.sides[side].values())
        assert counts == sorted(counts, reverse=True)
        assert counts[-1] == sum(1 for d in selection.kept().values() if d.label == side)
