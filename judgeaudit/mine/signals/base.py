"""Novelty signals per review: the definition, and the records every extractor returns.

The definition (the reference study's, in our words): an *affirmation* says
in so many words that the contribution is new relative to prior work (does the sentence say this
did not exist before?); a *dispute* is a statement whose main claim judges the contribution itself
as not novel (incremental, derivative, already known, done before). Not signals, either way:
generic praise, descriptions of what the method does ("extends", "applies", "proposes a new
framework for ..."), missing citations, criticism of the experiments or of small gains, hedged
uncertainty ("unclear whether this is new"). Meaning decides, not the field; quotes are verbatim.

One interface, `SignalExtractor.extract(review) -> ReviewSignals`; the extractors are the offline cue
extractor (`cues`, the default), the learned n-gram extractor (`stance`) and the LLM extractor
(`llm_extractor`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from judgeaudit.mine.parse import Review

Polarity = Literal["affirm", "dispute"]
AFFIRM: Polarity = "affirm"
DISPUTE: Polarity = "dispute"


@dataclass(frozen=True)
class Signal:
    """One statement about originality, quoted verbatim from a review field.

    `weak` marks what the reference's definition does not count as a signal: a hedged or merely
    descriptive affirmation ("relatively novel", "proposes a new framework for X"), or hedged
    uncertainty about originality ("it is unclear what is new"). The selection ignores weak
    statements unless an earlier rule is asked for (`--weak-affirmations`, `--weak-disputes`)."""

    polarity: Polarity
    quote: str
    field: str
    weak: bool = False


@dataclass(frozen=True)
class ReviewSignals:
    """The signals of one review, how many proposed quotes were dropped as not verbatim, and any failure."""

    review_id: str
    signals: tuple[Signal, ...] = ()
    dropped_quotes: int = 0
    failed: str | None = None
    unread: str | None = (
        None  # why the review was not read (it gives no signal), e.g. an empty signal field
    )

    @property
    def affirms(self) -> bool:
        """The review contains at least one explicit (not hedged, not merely descriptive) affirmation."""
        return any(s.polarity == AFFIRM and not s.weak for s in self.signals)

    @property
    def affirms_at_all(self) -> bool:
        """The review contains any affirmation, weak ones included ("relatively novel", "a new benchmark")."""
        return any(s.polarity == AFFIRM for s in self.signals)

    @property
    def disputes(self) -> bool:
        """The review contains at least one explicit dispute (hedged uncertainty is not one)."""
        return any(s.polarity == DISPUTE and not s.weak for s in self.signals)

    @property
    def disputes_at_all(self) -> bool:
        """The review contains any dispute, hedged uncertainty included ("it is unclear what is new")."""
        return any(s.polarity == DISPUTE for s in self.signals)

    def quotes(self, polarity: Polarity, *, weak: bool = False) -> list[str]:
        """Quotes of one polarity, in review order (explicit ones; with `weak`, weak ones too)."""
        return [s.quote for s in self.signals if s.polarity == polarity and (weak or not s.weak)]


class SignalExtractor(Protocol):
    """Anything that turns a review into novelty signals."""

    name: str

    def extract(self, review: Review) -> ReviewSignals:
        """Signals of one review."""
        ...
