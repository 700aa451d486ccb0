"""Score-based signals: a review's direct originality score read as its affirmation or dispute.

The gold-label variant of a venue whose form scores originality directly (NeurIPS 2025): a review
affirms when its originality score is at or above the novelty floor (the study's 3.0 on 1-4, mapped
to the venue's scale) and disputes when it is at or below the ceiling (2.0 on 1-4); a review without
the score gives no signal. The selection rule is otherwise the study's (no review opposes, a
majority of all reviews agree), so the variant's labels and the text-based ones are comparable on
the same candidates.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from judgeaudit.mine.parse import Review
from judgeaudit.mine.select import Thresholds
from judgeaudit.mine.signals.base import AFFIRM, DISPUTE, ReviewSignals, Signal


def score_thresholds(th: Thresholds) -> Thresholds:
    """The rule for the score-based variant: every review is read (a score needs no text)."""
    return replace(th, empty_fields="read")


@dataclass
class ScoreExtractor:
    """Signals from a review's novelty-related score (`Review.contribution`) against two cuts."""

    high: float
    low: float
    score: str = "originality"
    name: str = field(init=False)

    def __post_init__(self) -> None:
        self.name = f"scores:{self.score}"

    def extract(self, review: Review) -> ReviewSignals:
        """An affirmation (score >= high), a dispute (score <= low), or no signal."""
        score = review.contribution
        if score is None:
            return ReviewSignals(review.review_id)
        quote = f"{self.score} {score:g}"
        if score >= self.high:
            return ReviewSignals(review.review_id, (Signal(AFFIRM, quote, self.score),))
        if score <= self.low:
            return ReviewSignals(review.review_id, (Signal(DISPUTE, quote, self.score),))
        return ReviewSignals(review.review_id)
