"""The LLM novelty-signal extractor: prompt `prompts/mining/novelty_signals.txt`, one JSON object per review.

The model is reached through the one cached client (`judgeaudit.mine.llm.CachedLLM`): a
`litellm/<model>` spec through litellm, any other Inspect model name (`local/gemma-3-270m`,
`openai/...`, `mockllm/model`) through Inspect's model API, with `SIGNALS_SCHEMA` as the
response schema (the local llama.cpp provider turns it into a grammar). A reply that does not
follow the format is a failure of kind `unparsable`, a failed call one of kind `model error`:
both mark the review `failed` (its paper cannot be kept) and are counted in `failures_by_reason`,
never read as "no signal".

Every quote the model returns is checked to occur verbatim in the review (up to whitespace and
markup); a quote that does not is dropped and counted. The model marks hedged or merely
descriptive affirmations `weak`, with the same meaning as the offline extractor's (they block a
not_novel label but do not count towards a novel majority). With `prefilter` (default) a review in
which the offline extractor's cue pre-filter finds no candidate sentence is not sent at all.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judgeaudit.mine.llm import UNPARSABLE, CachedLLM, LLMResponseError
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


SIGNALS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"signals": {"type": "array", "items": {
        "type": "object",
        "properties": {"polarity": {"type": "string", "enum": ["affirm", "dispute"]},
                       "weak": {"type": "boolean"}, "quote": {"type": "string"}},
        "required": ["polarity", "weak", "quote"], "additionalProperties": False}}},
    "required": ["signals"], "additionalProperties": False,
}
"""The answer format of `prompts/mining/novelty_signals.txt` as a JSON schema (sent to Inspect models)."""

LITELLM_PREFIX = "litellm/"
INSPECT_MAX_TOKENS = 256
"""Answer budget of an Inspect model (a reply cut at the budget is usually unparsable, and counted)."""


def parse_spec(spec: str) -> tuple[str, str]:
    """(api, model) of an extractor spec: 'litellm/<model>' -> litellm, any other name -> an Inspect model."""
    if spec.startswith(LITELLM_PREFIX):
        return "litellm", spec[len(LITELLM_PREFIX):]
    return "inspect", spec


@dataclass
class LLMExtractor:
    """Signals from a model (litellm or Inspect), quotes verified against the review, answers cached on disk."""

    model: str
    cache_dir: Path
    prefilter: bool = True
    completion_kwargs: dict[str, Any] = field(default_factory=dict)
    fields: tuple[str, ...] = SIGNAL_FIELDS
    api: str = "litellm"
    model_args: dict[str, Any] = field(default_factory=dict)
    max_tokens: int = INSPECT_MAX_TOKENS
    dropped_total: int = 0
    failures: int = 0
    sent: int = 0
    skipped_by_prefilter: int = 0
    failures_by_reason: Counter[str] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        inspect = self.api == "inspect"
        self.llm = CachedLLM(self.model, Path(self.cache_dir), dict(self.completion_kwargs), api=self.api,
                             model_args=dict(self.model_args), max_tokens=self.max_tokens if inspect else None,
                             response_schema=SIGNALS_SCHEMA if inspect else None)
        self.template = read_prompt(PROMPT)
        self._offline = OfflineExtractor(fields=self.fields)

    @classmethod
    def from_spec(cls, spec: str, cache_dir: Path, **kwargs: Any) -> LLMExtractor:
        """The extractor of an `--extractor` spec ('litellm/<model>' or an Inspect model name)."""
        api, model = parse_spec(spec)
        return cls(model, cache_dir, api=api, **kwargs)

    @property
    def name(self) -> str:
        """Extractor id as recorded in the manifest."""
        return f"{LITELLM_PREFIX}{self.model}" if self.api == "litellm" else self.model

    def connect(self) -> None:
        """Build the model now, so an unknown Inspect provider or model fails before any mining work."""
        self.llm.connect()

    def extract(self, review: Review) -> ReviewSignals:
        """Signals of one review; a failed call or unparsable answer marks the review `failed` instead of 'no signals'."""
        if self.prefilter and not self._offline.candidates(review):
            self.skipped_by_prefilter += 1
            return ReviewSignals(review.review_id)
        prompt = self.template.replace("{review}", render_review(review, self.fields))
        self.sent += 1
        try:
            answer = self.llm.complete_json(prompt)
            proposed = _proposed(answer)
        except LLMResponseError as exc:
            self.failures += 1
            self.failures_by_reason[exc.kind] += 1
            return ReviewSignals(review.review_id, failed=f"{exc.kind}: {exc}")
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

    def cost(self) -> dict[str, Any]:
        """Reviews sent and skipped, model calls and cache hits, tokens, failures by kind, quotes dropped."""
        return {"reviews_sent": self.sent, "reviews_skipped_by_prefilter": self.skipped_by_prefilter,
                "calls": self.llm.calls, "cache_hits": self.llm.cache_hits,
                "input_tokens": self.llm.input_tokens, "output_tokens": self.llm.output_tokens,
                "failed_reviews": self.failures, "failures_by_reason": dict(sorted(self.failures_by_reason.items())),
                "unparsable_rate": round(self.failures_by_reason.get(UNPARSABLE, 0) / self.sent, 4) if self.sent else None,
                "quotes_dropped_not_verbatim": self.dropped_total}


def _proposed(answer: dict[str, Any]) -> list[tuple[Polarity, str, bool]]:
    items = answer.get("signals")
    if not isinstance(items, list):
        raise LLMResponseError("answer has no 'signals' list")
    out: list[tuple[Polarity, str, bool]] = []
    for item in items:
        if not isinstance(item, dict):
            raise LLMResponseError("a 'signals' entry is not an object")
        polarity, quote, weak = item.get("polarity"), item.get("quote"), item.get("weak")
        if polarity == DISPUTE and weak is None:
            weak = False  # `weak` only qualifies affirmations; a dispute without it is read as it is
        # An affirmation without `weak` is not read as explicit (nor as weak): the entry is unparsable.
        if polarity not in (AFFIRM, DISPUTE) or not isinstance(quote, str) or not quote.strip() or not isinstance(weak, bool):
            raise LLMResponseError(f"bad signal entry {item!r}: needs polarity affirm|dispute, a quote and weak true|false")
        out.append((AFFIRM if polarity == AFFIRM else DISPUTE, quote, weak))
    return out
