"""Gold-label selection as in DESIGN.md ("Gold labels"), every threshold an option.

Population and cuts (documented in the dataset card):
- Scores use each paper's official reviews (latest version of each review). The rating/contribution
  mean is the plain mean over reviews that carry the score.
- Per ICLR primary area, the decile cuts are computed over ALL submissions of the area with at
  least one official review (withdrawn and desk-rejected papers included, and papers with fewer
  than `min_reviews` reviews included), with numpy's default linear-interpolation percentile.
  Top decile: mean rating >= the area's `top_quantile` percentile (inclusive, so papers tied at
  the cut are all in). Bottom decile: mean rating <= the `bottom_quantile` percentile.
- `novel` candidates: >= min_reviews reviews, top decile, mean contribution >= novel_min_contribution.
  `not_novel` candidates: >= min_reviews reviews, bottom decile, mean contribution <= not_novel_max_contribution.
- A `novel` candidate is kept when strictly more than `majority` of its reviews affirm originality
  (`strict_majority`; otherwise at least that share, and at least one review) and at most
  `max_opposing` (default 0) reviews dispute it; mirror rule for `not_novel`, where any
  affirmation, weak ones included, opposes when `weak_opposes` (otherwise explicit ones only).
- Withdrawn papers are kept by default: they were reviewed, and the reference study's labels
  include them (about a quarter of its dev `not_novel` ideas are withdrawn submissions).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

import numpy as np

from judgeaudit.mine.parse import STATUS_WITHDRAWN, Corpus, Review, status_of
from judgeaudit.mine.signals import AFFIRM, DISPUTE, ReviewSignals

Side = Literal["novel", "not_novel"]


@dataclass(frozen=True)
class Thresholds:
    """Every selection threshold, with the reference study's defaults."""

    min_reviews: int = 3
    top_quantile: float = 0.9
    bottom_quantile: float = 0.1
    novel_min_contribution: float = 3.0
    not_novel_max_contribution: float = 2.0
    majority: float = 0.5
    max_opposing: int = 0
    include_withdrawn: bool = True
    strict_majority: bool = True
    weak_opposes: bool = True

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return asdict(self)


@dataclass(frozen=True)
class PaperScores:
    """A reviewed paper's review count and score means."""

    forum: str
    area: str
    status: str
    review_count: int
    rating_mean: float
    contribution_mean: float | None


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


def paper_scores(corpus: Corpus) -> dict[str, PaperScores]:
    """Scores of every submission with at least one official review, keyed by forum (sorted)."""
    out: dict[str, PaperScores] = {}
    for forum in sorted(corpus.reviews):
        reviews = corpus.reviews[forum]
        if not reviews:
            continue
        sub = corpus.submissions[forum]
        rating_mean, contribution_mean = review_means(reviews)
        out[forum] = PaperScores(forum=forum, area=sub.area, status=status_of(corpus, forum), review_count=len(reviews),
                                 rating_mean=rating_mean, contribution_mean=contribution_mean)
    return out


def review_means(reviews: Sequence[Review]) -> tuple[float, float | None]:
    """A paper's mean rating and mean contribution over its (non-empty) reviews; None when none scores contribution."""
    contributions = [r.contribution for r in reviews if r.contribution is not None]
    return float(np.mean([r.rating for r in reviews])), float(np.mean(contributions)) if contributions else None


def area_cutoffs(scores: Mapping[str, PaperScores], th: Thresholds) -> dict[str, tuple[float, float]]:
    """Per area: (bottom cut, top cut) of the mean rating over all reviewed submissions."""
    by_area: dict[str, list[float]] = defaultdict(list)
    for s in scores.values():
        by_area[s.area].append(s.rating_mean)
    return {area: (float(np.percentile(v, th.bottom_quantile * 100)), float(np.percentile(v, th.top_quantile * 100)))
            for area, v in sorted(by_area.items())}


def candidate_side(s: PaperScores, cuts: tuple[float, float], th: Thresholds) -> tuple[Side | None, str]:
    """Which candidate pool a paper enters, or None with the first rule it fails."""
    if s.review_count < th.min_reviews:
        return None, f"fewer than {th.min_reviews} official reviews"
    if not th.include_withdrawn and s.status == STATUS_WITHDRAWN:
        return None, "withdrawn (excluded by option)"
    low, high = cuts
    if s.rating_mean >= high:
        if s.contribution_mean is None:
            return None, "top decile but no contribution scores"
        if s.contribution_mean >= th.novel_min_contribution:
            return "novel", "candidate"
        return None, "top decile but contribution below threshold"
    if s.rating_mean <= low:
        if s.contribution_mean is None:
            return None, "bottom decile but no contribution scores"
        if s.contribution_mean <= th.not_novel_max_contribution:
            return "not_novel", "candidate"
        return None, "bottom decile but contribution above threshold"
    return None, "mean rating between the decile cuts"


def decide(forum: str, side: Side, review_count: int, signals: list[ReviewSignals], th: Thresholds) -> Decision:
    """Apply "majority of reviewers agree, at most max_opposing oppose" to one candidate."""
    failed = sum(1 for s in signals if s.failed)
    if failed:
        return Decision(forum, side, None, f"signal extraction failed on {failed} review(s)", 0, 0, (), ())
    # Explicit affirmations count towards a novel majority; any affirmation (hedged or merely
    # descriptive ones included) opposes a not_novel label. Both choices err towards exclusion.
    affirming = sum(1 for s in signals if s.affirms)
    disputing = sum(1 for s in signals if s.disputes)
    any_affirm = sum(1 for s in signals if s.affirms_at_all) if th.weak_opposes else affirming
    agree, oppose = (affirming, disputing) if side == "novel" else (disputing, any_affirm)
    pos = tuple(q for s in signals for q in s.quotes(AFFIRM))
    neg = tuple(q for s in signals for q in s.quotes(DISPUTE))
    if oppose > th.max_opposing:
        reason = f"{oppose} review(s) {'dispute' if side == 'novel' else 'affirm'} originality"
        return Decision(forum, side, None, reason, affirming, disputing, pos, neg)
    short = agree <= th.majority * review_count if th.strict_majority else (agree < th.majority * review_count or agree == 0)
    if short:
        reason = f"only {agree} of {review_count} reviews {'affirm' if side == 'novel' else 'dispute'} originality"
        return Decision(forum, side, None, reason, affirming, disputing, pos, neg)
    return Decision(forum, side, side, "kept", affirming, disputing, pos, neg)


@dataclass
class SelectionResult:
    """Scores, cuts, candidate pools, decisions and the reasons papers fell out, for reporting."""

    scores: dict[str, PaperScores]
    cutoffs: dict[str, tuple[float, float]]
    candidates: dict[str, Side]
    decisions: dict[str, Decision]
    dropped: dict[str, int]

    def kept(self) -> dict[str, Decision]:
        """Decisions that kept a label, keyed by forum (sorted)."""
        return {f: d for f, d in sorted(self.decisions.items()) if d.label is not None}


def find_candidates(scores: Mapping[str, PaperScores], th: Thresholds) -> tuple[dict[str, tuple[float, float]], dict[str, Side], dict[str, int]]:
    """Area cuts, the candidate side of each qualifying forum, and counts of why others were not candidates."""
    cutoffs = area_cutoffs(scores, th)
    candidates: dict[str, Side] = {}
    dropped: dict[str, int] = defaultdict(int)
    for forum, s in scores.items():
        side, reason = candidate_side(s, cutoffs[s.area], th)
        if side is None:
            dropped[reason] += 1
        else:
            candidates[forum] = side
    return cutoffs, candidates, dict(sorted(dropped.items()))
