"""The LLM novelty-signal extractor: litellm, prompt `prompts/mining/novelty_signals.txt`, JSON output.

Every quote the model returns is checked to occur verbatim in the review (up to whitespace and
markup); a quote that does not is dropped and counted. The model marks hedged or merely
descriptive affirmations `weak`, with the same meaning as the offline extractor's (they block a
not_novel label but do not count towards a novel majority). With `prefilter` (default) a review in
which the offline extractor's cue pre-filter finds no candidate sentence is not sent at all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judgeaudit.mine.llm import CachedLLM, LLMResponseError
from judgeaudit.mine.parse import SIGNAL_FIELDS, Review
from judgeaudit.mine.sentences import normalise
from judgeaudit.mine.signals import (
    AFFIRM,
    DISPUTE,
    OfflineExtractor,
    Polarity,
    ReviewSignals,
    Signal,
)
from judgeaudit.resources import read_prompt

PROMPT = "mining/novelty_signals.txt"


def render_review(review: Review, fields: tuple[str, ...] = SIGNAL_FIELDS) -> str:
    """The review text the model sees: each signal field under its name."""
    return "\n\n".join(f"## {name}\n{text}" for name, text in review.signal_text(fields))


@dataclass
class LLMExtractor:
    """Signals from a litellm model, quotes verified against the review, responses cached on disk."""

    model: str
    cache_dir: Path
    prefilter: bool = True
    completion_kwargs: dict[str, Any] = field(default_factory=dict)
    fields: tuple[str, ...] = SIGNAL_FIELDS
    dropped_total: int = 0
    failures: int = 0

    def __post_init__(self) -> None:
        self.llm = CachedLLM(self.model, Path(self.cache_dir), dict(self.completion_kwargs))
        self.template = read_prompt(PROMPT)
        self._offline = OfflineExtractor(fields=self.fields)

    @property
    def name(self) -> str:
        """Extractor id as recorded in the manifest."""
        return f"litellm/{self.model}"

    def extract(self, review: Review) -> ReviewSignals:
        """Signals of one review; a failed call marks the review `failed` instead of 'no signals'."""
        if self.prefilter and not self._offline.candidates(review):
            return ReviewSignals(review.review_id)
        prompt = self.template.replace("{review}", render_review(review, self.fields))
        try:
            answer = self.llm.complete_json(prompt)
            proposed = _proposed(answer)
        except LLMResponseError as exc:
            self.failures += 1
            return ReviewSignals(review.review_id, failed=str(exc))
        texts = review.signal_text(self.fields)
        signals: list[Signal] = []
        dropped = 0
        for polarity, quote, weak in proposed:
            where = next((name for name, text in texts if normalise(quote) and normalise(quote) in normalise(text)), None)
            if where is None:
                dropped += 1
                continue
            signals.append(Signal(polarity, quote.strip(), where, weak=weak and polarity == AFFIRM))
        self.dropped_total += dropped
        return ReviewSignals(review.review_id, tuple(signals), dropped_quotes=dropped)


def _proposed(answer: dict[str, Any]) -> list[tuple[Polarity, str, bool]]:
    items = answer.get("signals")
    if not isinstance(items, list):
        raise LLMResponseError("answer has no 'signals' list")
    out: list[tuple[Polarity, str, bool]] = []
    for item in items:
        if not isinstance(item, dict):
            raise LLMResponseError("a 'signals' entry is not an object")
        polarity, quote, weak = item.get("polarity"), item.get("quote"), item.get("weak", False)
        if polarity not in (AFFIRM, DISPUTE) or not isinstance(quote, str) or not quote.strip() or not isinstance(weak, bool):
            raise LLMResponseError(f"bad signal entry {item!r}: needs polarity affirm|dispute, a quote and weak true|false")
        out.append((AFFIRM if polarity == AFFIRM else DISPUTE, quote, weak))
    return out
