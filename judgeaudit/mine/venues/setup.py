"""A mining run in a venue's own terms: its profile, its cuts on its scales, its gold-label source, and
what the manifest and the dataset card record about them. (`venues.gold`, which loads the statistics
stack, is imported only for a form with a direct originality score.)"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from judgeaudit.errors import UserError
from judgeaudit.mine.parse import Corpus
from judgeaudit.mine.pipeline import select_labels
from judgeaudit.mine.select import SelectionResult, Thresholds
from judgeaudit.mine.signals.base import SignalExtractor
from judgeaudit.mine.signals.scores import score_thresholds
from judgeaudit.mine.venues.cuts import cuts_record, venue_thresholds
from judgeaudit.mine.venues.profile import VenueProfile, profile_for


@dataclass(frozen=True)
class VenueRun:
    """The venue's profile, the rule on the study's scales and on the venue's, and the gold-label source."""

    profile: VenueProfile
    study: Thresholds
    thresholds: Thresholds
    gold_labels: str = "signals"

    @property
    def from_scores(self) -> bool:
        """Whether the set's labels come from the direct originality score."""
        return self.gold_labels == "scores"


def venue_run(
    venue: str, profile_path: str | None, study: Thresholds, gold_labels: str = "signals"
) -> VenueRun:
    """The run's venue settings; UserError (one line) for an unusable profile or a variant the form lacks."""
    profile = profile_for(venue, profile_path)
    if gold_labels == "scores" and not profile.has_originality:
        raise UserError(
            f"--gold-labels scores: the form of {profile.name} (profile {profile.source}) has no direct "
            "originality score (a novelty score of kind: originality)"
        )
    thresholds = venue_thresholds(study, profile)
    if gold_labels == "scores":
        thresholds = score_thresholds(thresholds)
    return VenueRun(profile, study, thresholds, gold_labels)


def run_extractor(run: VenueRun, text_extractor: SignalExtractor) -> SignalExtractor:
    """The extractor whose signals make the set's labels: the text one, or the originality score."""
    if run.from_scores:
        from judgeaudit.mine.venues.gold import score_extractor

        return score_extractor(run.thresholds, run.profile)
    return text_extractor


def venue_record(
    run: VenueRun,
    corpus: Corpus,
    selection: SelectionResult,
    text_extractor: SignalExtractor,
    venue_id: str,
) -> dict[str, Any]:
    """What the manifest and card say about the venue: profile, mapped cuts, form tally, gold labels, agreement."""
    record: dict[str, Any] = {
        "venue": venue_id,
        "profile": run.profile.to_dict(),
        "cuts": cuts_record(run.study, run.profile),
        "form_check": corpus.form.to_dict(),
        "gold_labels": run.gold_labels,
        "originality_agreement": None,
    }
    if run.profile.has_originality:
        from judgeaudit.mine.venues.gold import label_agreement, score_selection

        if run.from_scores:
            text, _ = select_labels(
                corpus,
                text_extractor,
                venue_thresholds(run.study, run.profile),
                venue_id=venue_id,
            )
            record["originality_agreement"] = label_agreement(text, selection)
        else:
            scores = score_selection(corpus, run.thresholds, run.profile, venue_id)
            record["originality_agreement"] = label_agreement(selection, scores)
    return record
