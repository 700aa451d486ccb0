"""Score-based signals: a review's originality score against the novelty cuts."""

from __future__ import annotations

from judgeaudit.mine.parse import Review
from judgeaudit.mine.select import Thresholds
from judgeaudit.mine.signals.scores import ScoreExtractor, score_thresholds


def review(score: float | None) -> Review:
    return Review("r", "f", 4.0, score, (), 0)


def test_a_review_affirms_at_or_above_the_floor_and_disputes_at_or_below_the_ceiling() -> None:
    ex = ScoreExtractor(high=3.0, low=2.0)
    assert ex.name == "scores:originality"
    assert ex.extract(review(3.0)).affirms and not ex.extract(review(3.0)).disputes
    assert ex.extract(review(4.0)).affirms
    assert ex.extract(review(2.0)).disputes and ex.extract(review(1.0)).disputes
    assert not ex.extract(review(2.5)).signals and not ex.extract(review(None)).signals
    assert ex.extract(review(4.0)).quotes("affirm") == ["originality 4"]


def test_the_score_rule_reads_every_review() -> None:
    assert score_thresholds(Thresholds()).empty_fields == "read"
