"""Gold-label selection (Human-Only) as the reference study describes it: its steps, each an option.

Population and cuts (documented in the dataset card):
- Scores use each paper's official reviews. A paper's mean rating and mean contribution are plain
  means over its reviews (contribution over the reviews that score it).
- Per ICLR primary area, the decile cuts are computed over ALL submissions of the area with at
  least one official review (withdrawn and desk-rejected papers included), with numpy's default
  linear-interpolation percentile. Top decile: mean rating >= the area's `top_quantile` percentile
  (inclusive: papers tied at the cut are all in); bottom decile: <= the `bottom_quantile` percentile.
- Before the sides: a paper of an excluded area (`excluded_areas`, by default the one area of "other
  topics") or with a blocklisted title is out; so is one with fewer than `min_reviews` reviews.
- `novel` candidates: top decile, mean rating >= `novel_min_rating` (6.0), mean contribution >=
  `novel_min_contribution` (3.0) and, where the source carries decisions, accepted.
  `not_novel` candidates: bottom decile, mean rating <= `not_novel_max_rating` (3.5), mean contribution
  <= `not_novel_max_contribution` (2.0) and not accepted (rejected, desk-rejected or withdrawn) where
  decisions are known. Withdrawn papers stay candidates unless `include_withdrawn` is off.
- A candidate is labelled when no review opposes it (at most `max_opposing`) and strictly more than
  `majority` of ALL its reviews agree *only* (a `novel` candidate's agreeing review affirms and does
  not dispute; mirror for `not_novel`; `strict_majority` off: at least that share, and one review).
  A review with an empty signal field gives no signal and still counts among all reviews. Weak
  statements (hedged or descriptive affirmations, hedged uncertainty) are no signal unless another
  rule is asked for: `weak_affirmations` 'oppose' (they block `not_novel`, the earlier rule), 'support'
  (they count towards a `novel` majority only) or 'count' (as explicit affirmations, both ways);
  `weak_disputes` 'count' (as explicit disputes).
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import numpy as np

from judgeaudit.mine.parse import (
    DECISION_ACCEPTED,
    SIGNAL_FIELDS,
    STATUS_WITHDRAWN,
    Corpus,
    Review,
    decision_of,
    status_of,
)
from judgeaudit.mine.signals.base import AFFIRM, DISPUTE, ReviewSignals

Side = Literal["novel", "not_novel"]
SIDES: tuple[Side, ...] = ("novel", "not_novel")
OTHER_TOPICS = "other topics in machine learning (i.e., none of the above)"
"""The ICLR primary area the reference study leaves out (no meaningful same-area pairs)."""
WEAK_AFFIRMATION_RULES: tuple[str, ...] = ("ignore", "oppose", "support", "count")
WEAK_DISPUTE_RULES: tuple[str, ...] = ("ignore", "count")
EMPTY_FIELD_RULES: tuple[str, ...] = ("no-signal", "read")
DECISION_RULES: tuple[str, ...] = ("auto", "ignore")


@dataclass(frozen=True)
class Thresholds:
    """Every selection step's setting, with the reference study's values as defaults."""

    min_reviews: int = 1
    top_quantile: float = 0.9
    bottom_quantile: float = 0.1
    novel_min_rating: float | None = 6.0
    not_novel_max_rating: float | None = 3.5
    novel_min_contribution: float | None = 3.0
    not_novel_max_contribution: float | None = 2.0
    majority: float = 0.5
    max_opposing: int = 0
    include_withdrawn: bool = True
    strict_majority: bool = True
    weak_affirmations: str = "ignore"
    weak_disputes: str = "ignore"
    signal_fields: tuple[str, ...] = SIGNAL_FIELDS
    empty_fields: str = "no-signal"
    excluded_areas: tuple[str, ...] = (OTHER_TOPICS,)
    blocklist: tuple[str, ...] = ()
    decisions: str = "auto"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        out = asdict(self)
        for key in ("signal_fields", "excluded_areas", "blocklist"):
            out[key] = list(out[key])
        return out


def normalise_title(title: str) -> str:
    """A title for blocklist matching: lower case, punctuation dropped, whitespace collapsed."""
    return " ".join(re.sub(r"[^\w\s]", " ", title.lower()).split())


@dataclass(frozen=True)
class PaperScores:
    """A reviewed paper's review count, score means, status and decision (None while unknown)."""

    forum: str
    area: str
    status: str
    review_count: int
    rating_mean: float | None  # None: the venue's form has no rating
    contribution_mean: float | None
    decision: str | None = None
    title: str = ""


@dataclass(frozen=True)
class Decision:
    """The outcome for one candidate: the label kept (or None) and the evidence behind it."""

    forum: str
    side: Side
    label: Side | None
    reason: str
    affirming_reviews: int
    disputing_reviews: int
    positive_quotes: tuple[str, ...]
    negative_quotes: tuple[str, ...]


def paper_scores(corpus: Corpus, venue_id: str = "") -> dict[str, PaperScores]:
    """Scores of every submission with at least one official review, keyed by forum (sorted)."""
    out: dict[str, PaperScores] = {}
    for forum in sorted(corpus.reviews):
        reviews = corpus.reviews[forum]
        if not reviews:
            continue
        sub = corpus.submissions[forum]
        rating_mean, contribution_mean = review_means(reviews)
        out[forum] = PaperScores(
            forum=forum,
            area=sub.area,
            status=status_of(corpus, forum),
            review_count=len(reviews),
            rating_mean=rating_mean,
            contribution_mean=contribution_mean,
            decision=decision_of(corpus, forum, venue_id),
            title=sub.title,
        )
    return out


def review_means(reviews: Sequence[Review]) -> tuple[float | None, float | None]:
    """A paper's mean rating and mean contribution over its (non-empty) reviews; None when none scores it."""
    ratings = [r.rating for r in reviews if r.rating is not None]
    contributions = [r.contribution for r in reviews if r.contribution is not None]
    return (
        float(np.mean(ratings)) if ratings else None,
        float(np.mean(contributions)) if contributions else None,
    )


def carries_decisions(scores: Mapping[str, PaperScores]) -> bool:
    """True when the source knows acceptance decisions (some paper accepted or rejected, not only withdrawn)."""
    return any(s.decision in (DECISION_ACCEPTED, "rejected") for s in scores.values())


def area_cutoffs(
    scores: Mapping[str, PaperScores], th: Thresholds
) -> dict[str, tuple[float, float]]:
    """Per area: (bottom cut, top cut) of the mean rating over all reviewed submissions."""
    by_area: dict[str, list[float]] = defaultdict(list)
    for s in scores.values():
        by_area[s.area].extend([] if s.rating_mean is None else [s.rating_mean])
    return {
        area: (
            float(np.percentile(v, th.bottom_quantile * 100)) if v else math.nan,
            float(np.percentile(v, th.top_quantile * 100)) if v else math.nan,
        )
        for area, v in sorted(by_area.items())
    }


# The funnel's steps, in order: the population steps every paper passes, then each side's cuts.
POPULATION_STEPS: tuple[str, ...] = (
    "reviewed",
    "outside the excluded areas",
    "title not blocklisted",
    "enough reviews",
    "withdrawn allowed",
)
SIDE_STEPS: dict[Side, tuple[str, ...]] = {
    "novel": ("top decile", "rating floor", "contribution", "decision"),
    "not_novel": ("bottom decile", "rating ceiling", "contribution", "decision"),
}


def candidate_side(
    s: PaperScores, cuts: tuple[float, float], th: Thresholds, *, decisions: bool = False
) -> tuple[Side | None, str]:
    """Which candidate pool a paper enters, or None with the funnel step it fails (`decisions`: apply the filter)."""
    if s.area in th.excluded_areas:
        return None, "outside the excluded areas"
    if th.blocklist and normalise_title(s.title) in th.blocklist:
        return None, "title not blocklisted"
    if s.review_count < th.min_reviews:
        return None, "enough reviews"
    if not th.include_withdrawn and s.status == STATUS_WITHDRAWN:
        return None, "withdrawn allowed"
    if s.rating_mean is None:  # a form without a rating: the side is the decision's
        if decisions and s.decision == DECISION_ACCEPTED:
            return _novel_side(s, th, decisions)
        if decisions and s.decision is not None:
            return _not_novel_side(s, th, decisions)
        return None, "between the decile cuts"
    low, high = cuts
    if s.rating_mean >= high:
        return _novel_side(s, th, decisions)
    if s.rating_mean <= low:
        return _not_novel_side(s, th, decisions)
    return None, "between the decile cuts"


def _novel_side(s: PaperScores, th: Thresholds, decisions: bool) -> tuple[Side | None, str]:
    if (
        th.novel_min_rating is not None
        and s.rating_mean is not None
        and s.rating_mean < th.novel_min_rating
    ):
        return None, "novel: rating floor"
    if th.novel_min_contribution is not None and (
        s.contribution_mean is None or s.contribution_mean < th.novel_min_contribution
    ):
        return None, "novel: contribution"
    if decisions and s.decision != DECISION_ACCEPTED:
        return None, "novel: decision"
    return "novel", "candidate"


def _not_novel_side(s: PaperScores, th: Thresholds, decisions: bool) -> tuple[Side | None, str]:
    if (
        th.not_novel_max_rating is not None
        and s.rating_mean is not None
        and s.rating_mean > th.not_novel_max_rating
    ):
        return None, "not_novel: rating ceiling"
    if th.not_novel_max_contribution is not None and (
        s.contribution_mean is None or s.contribution_mean > th.not_novel_max_contribution
    ):
        return None, "not_novel: contribution"
    if decisions and (s.decision is None or s.decision == DECISION_ACCEPTED):
        return None, "not_novel: decision"
    return "not_novel", "candidate"


def review_affirms(s: ReviewSignals, th: Thresholds, *, opposing: bool = False) -> bool:
    """Whether a review counts as affirming under the rule (`opposing`: as a vote against a `not_novel` label)."""
    weak_counts = ("count", "oppose") if opposing else ("count", "support")
    return s.affirms_at_all if th.weak_affirmations in weak_counts else s.affirms


def review_disputes(s: ReviewSignals, th: Thresholds) -> bool:
    """Whether a review counts as disputing under the rule."""
    return s.disputes_at_all if th.weak_disputes == "count" else s.disputes


def majority_reachable(readable: int, review_count: int, th: Thresholds) -> bool:
    """Whether `readable` agreeing reviews (of `review_count`) could make a majority: if not, no answer can keep it."""
    if th.strict_majority:
        return readable > th.majority * review_count
    return readable >= th.majority * review_count and readable > 0


def decide(
    forum: str, side: Side, review_count: int, signals: list[ReviewSignals], th: Thresholds
) -> Decision:
    """Apply "no review opposes, more than half of all reviews agree only" to one candidate (see module doc)."""
    failed = sum(1 for s in signals if s.failed)
    if failed:
        return Decision(
            forum, side, None, f"signal extraction failed on {failed} review(s)", 0, 0, (), ()
        )
    affirms = [review_affirms(s, th) for s in signals]
    against_not_novel = [review_affirms(s, th, opposing=True) for s in signals]
    disputes = [review_disputes(s, th) for s in signals]
    if side == "novel":
        agree = sum(1 for a, d in zip(affirms, disputes, strict=True) if a and not d)
        oppose = sum(disputes)
    else:
        agree = sum(1 for a, d in zip(against_not_novel, disputes, strict=True) if d and not a)
        oppose = sum(against_not_novel)
    weak_pos = th.weak_affirmations in ("count", "support")
    pos = tuple(q for s in signals for q in s.quotes(AFFIRM, weak=weak_pos))
    neg = tuple(q for s in signals for q in s.quotes(DISPUTE, weak=th.weak_disputes == "count"))
    n_aff, n_disp = sum(affirms), sum(disputes)
    if oppose > th.max_opposing:
        reason = f"{oppose} review(s) {'dispute' if side == 'novel' else 'affirm'} originality"
        return Decision(forum, side, None, reason, n_aff, n_disp, pos, neg)
    if not majority_reachable(agree, review_count, th):
        reason = f"only {agree} of {review_count} reviews {'affirm' if side == 'novel' else 'dispute'} originality"
        return Decision(forum, side, None, reason, n_aff, n_disp, pos, neg)
    return Decision(forum, side, side, "kept", n_aff, n_disp, pos, neg)


def readable(review: Review, th: Thresholds) -> bool:
    """Whether a review is read at all: with the default rule, every signal field must hold text."""
    return th.empty_fields == "read" or review.has_fields(th.signal_fields)


UNREAD_EMPTY = "an empty signal field"
UNREACHABLE = "too few readable reviews to reach a majority"


@dataclass
class Funnel:
    """How many papers are left after each step: the population steps, then per side its cuts in order."""

    population: dict[str, int] = field(default_factory=dict)
    sides: dict[str, dict[str, int]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {
            "population": dict(self.population),
            "sides": {k: dict(v) for k, v in self.sides.items()},
        }


@dataclass
class CandidatePool:
    """Scores, area cuts, candidates (and the step each other paper stopped at), whether decisions were applied."""

    scores: dict[str, PaperScores]
    cutoffs: dict[str, tuple[float, float]]
    candidates: dict[str, Side]
    dropped: dict[str, int]
    decisions_applied: bool


@dataclass
class SelectionResult(CandidatePool):
    """The candidate pool with every candidate's decision and the funnel, for reporting."""

    decisions: dict[str, Decision]
    funnel: Funnel = field(default_factory=Funnel)
    unread_reviews: int = 0  # candidate reviews with an empty signal field (no signal)
    skipped_unreachable: int = 0  # candidates decided without reading (too few readable reviews)

    def kept(self) -> dict[str, Decision]:
        """Decisions that kept a label, keyed by forum (sorted)."""
        return {f: d for f, d in sorted(self.decisions.items()) if d.label is not None}


def find_candidates(
    scores: Mapping[str, PaperScores],
    th: Thresholds,
    *,
    decisions: bool = False,
) -> tuple[dict[str, tuple[float, float]], dict[str, Side], dict[str, int]]:
    """Area cuts, the candidate side of each qualifying forum, and counts of the step at which the others stopped."""
    cutoffs = area_cutoffs(scores, th)
    candidates: dict[str, Side] = {}
    dropped: dict[str, int] = defaultdict(int)
    for forum, s in scores.items():
        side, reason = candidate_side(s, cutoffs[s.area], th, decisions=decisions)
        if side is None:
            dropped[reason] += 1
        else:
            candidates[forum] = side
    return cutoffs, candidates, dict(sorted(dropped.items()))


def funnel_counts(
    scores: Mapping[str, PaperScores],
    dropped: Mapping[str, int],
    candidates: Mapping[str, Side],
    decisions: Mapping[str, Decision],
) -> Funnel:
    """Papers left after every step (each count is the previous one minus the papers that stopped there)."""
    funnel = Funnel()
    left = len(scores)
    funnel.population["reviewed"] = left
    for step in POPULATION_STEPS[1:]:
        left -= dropped.get(step, 0)
        funnel.population[step] = left
    funnel.population["in a decile band"] = left - dropped.get("between the decile cuts", 0)
    for side in SIDES:
        steps = SIDE_STEPS[side]
        stopped = {step: dropped.get(f"{side}: {step}", 0) for step in steps[1:]}
        n = sum(1 for s in candidates.values() if s == side) + sum(stopped.values())
        counts = {steps[0]: n}
        for step in steps[1:]:
            n -= stopped[step]
            counts[step] = n
        outcomes = [d for d in decisions.values() if d.side == side]
        n -= sum(
            1
            for d in outcomes
            if d.reason in (UNREACHABLE,) or d.reason.startswith("signal extraction failed")
        )
        counts["enough readable reviews"] = n
        n -= sum(1 for d in outcomes if d.label is None and "review(s)" in d.reason)
        counts["no review opposes"] = n
        n -= sum(1 for d in outcomes if d.label is None and d.reason.startswith("only "))
        counts["majority agrees"] = n
        funnel.sides[side] = counts
    return funnel
