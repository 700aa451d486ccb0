"""The score-based gold-label variant of a venue with a direct originality score, and its agreement with
the text-based labels on the same candidates.

Both runs share the candidate pool (deciles, rating and novelty cuts, decisions), so each candidate
ends with one outcome per run: `novel`, `not_novel`, or `none` (not labelled). Agreement is Cohen's
kappa over those three outcomes (`judgeaudit.stats.agreement`), with its bootstrap interval (seed and
resample count recorded), and the cross-table of outcomes.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

from judgeaudit.mine.parse import Corpus
from judgeaudit.mine.pipeline import select_labels
from judgeaudit.mine.select import SelectionResult, Thresholds
from judgeaudit.mine.signals.scores import ScoreExtractor, score_thresholds
from judgeaudit.mine.venues.profile import VenueProfile
from judgeaudit.stats.agreement import cohen_kappa_interval
from judgeaudit.stats.defaults import DEFAULT_RESAMPLES, DEFAULT_SEED

OUTCOMES: tuple[str, ...] = ("novel", "not_novel", "none")


def score_extractor(th: Thresholds, profile: VenueProfile) -> ScoreExtractor:
    """The extractor reading each review's originality score against the novelty cuts (venue scale)."""
    assert profile.novelty is not None
    high = th.novel_min_contribution
    low = th.not_novel_max_contribution
    scale = profile.novelty.scale
    return ScoreExtractor(
        high=scale[1] if high is None else high,
        low=scale[0] if low is None else low,
        score=profile.novelty.label,
    )


def score_selection(
    corpus: Corpus, th: Thresholds, profile: VenueProfile, venue_id: str
) -> SelectionResult:
    """The selection with score-based signals on the same candidates."""
    selection, _ = select_labels(
        corpus, score_extractor(th, profile), score_thresholds(th), venue_id=venue_id
    )
    return selection


def label_agreement(
    signals: SelectionResult,
    scores: SelectionResult,
    *,
    seed: int = DEFAULT_SEED,
    resamples: int = DEFAULT_RESAMPLES,
) -> dict[str, Any]:
    """Outcomes of both runs on their shared candidates: counts, the cross-table and Cohen's kappa."""
    forums = sorted(set(signals.candidates) & set(scores.candidates))
    a: list[str] = [signals.decisions[f].label or "none" for f in forums]
    b: list[str] = [scores.decisions[f].label or "none" for f in forums]
    table = Counter(zip(a, b, strict=True))
    kappa: dict[str, Any] | None = None
    if len(forums) >= 2:
        interval = cohen_kappa_interval(a, b, OUTCOMES, resamples=resamples, seed=seed)
        kappa = None if math.isnan(interval.estimate) else interval.to_dict()
    return {
        "candidates": len(forums),
        "same_outcome": sum(n for (x, y), n in table.items() if x == y),
        "table": {f"{x} / {y}": table[(x, y)] for x in OUTCOMES for y in OUTCOMES},
        "cohen_kappa": kappa,
        "statistic": "Cohen's kappa over the outcomes novel / not_novel / none",
    }
