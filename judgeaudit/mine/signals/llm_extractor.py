"""The LLM novelty-signal extractor: prompt `prompts/mining/novelty_signals.txt`, one review per call.

The model sees one review's signal fields (by default strengths and weaknesses, each under its
name) and answers with one JSON object: `{"affirmations": [quotes], "disputes": [quotes]}`, under the
signal definition of `judgeaudit.mine.signals.cues` (written in our words in the prompt). It is reached
through the one cached client (`judgeaudit.mine.llm.CachedLLM`): a `litellm/<model>` spec through
litellm, any other Inspect model name (`local/gemma-3-270m`, `openai/...`, `mockllm/model`) through
Inspect's model API, with `SIGNALS_SCHEMA` as the response schema (the local llama.cpp provider turns
it into a grammar). Every answer is cached under the hash of (model, rendered prompt, options) with
its provenance (model, prompt hash, date); with `replay` the extractor makes no call at all and reads
only the cache (`judgeaudit mine --llm-replay`), so a set built from an LLM pass is rebuilt offline.

A reply that does not follow the format is a failure of kind `unparsable`, a failed call one of kind
`model error`, a replay without a stored answer one of kind `no cached answer`: each marks the review
`failed` (its paper cannot be labelled) and is counted in `failures_by_reason`, never read as "no
signal". Every quote is checked to occur verbatim in the review (up to whitespace and markup); a quote
that does not is dropped and counted. The model's answer has no weak statements: it lists only what
the definition counts (so `--weak-affirmations` and `--weak-disputes` change nothing for it).

Pre-filter (part of this extractor's definition, on by default, the same in a live run, a replay and
an exported LLM pass): a review none of whose sentences uses originality or prior-work vocabulary (the
offline extractor's cue pre-filter, `OfflineExtractor.candidates`) is not sent and gives no signal.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judgeaudit.mine.llm import UNPARSABLE, CachedLLM, LLMResponseError
from judgeaudit.mine.parse import SIGNAL_FIELDS, Review
from judgeaudit.mine.signals.base import AFFIRM, DISPUTE, Polarity, ReviewSignals, Signal
from judgeaudit.mine.signals.cues import OfflineExtractor
from judgeaudit.mine.signals.sentences import normalise
from judgeaudit.resources import read_prompt

PROMPT = "mining/novelty_signals.txt"
ANSWER_KEYS: tuple[tuple[str, Polarity], ...] = (("affirmations", AFFIRM), ("disputes", DISPUTE))


def render_review(review: Review, fields: tuple[str, ...] = SIGNAL_FIELDS) -> str:
    """The review text the model sees: each signal field under its name."""
    return "\n\n".join(f"## {name}\n{text}" for name, text in review.signal_text(fields))


def render_prompt(template: str, review: Review, fields: tuple[str, ...] = SIGNAL_FIELDS) -> str:
    """The exact prompt of one review (the template with the review in place)."""
    return template.replace("{review}", render_review(review, fields))


SIGNALS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {key: {"type": "array", "items": {"type": "string"}} for key, _ in ANSWER_KEYS},
    "required": [key for key, _ in ANSWER_KEYS],
    "additionalProperties": False,
}
"""The answer format of `prompts/mining/novelty_signals.txt` as a JSON schema (sent to Inspect models)."""

LITELLM_PREFIX = "litellm/"
INSPECT_MAX_TOKENS = 512
"""Answer budget of an Inspect model (a reply cut at the budget is usually unparsable, and counted)."""


def parse_spec(spec: str) -> tuple[str, str]:
    """(api, model) of an extractor spec: 'litellm/<model>' -> litellm, any other name -> an Inspect model."""
    if spec.startswith(LITELLM_PREFIX):
        return "litellm", spec[len(LITELLM_PREFIX) :]
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
    replay: bool = False
    dropped_total: int = 0
    failures: int = 0
    sent: int = 0
    skipped_by_prefilter: int = 0
    failures_by_reason: Counter[str] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        inspect = self.api == "inspect"
        self.llm = CachedLLM(
            self.model,
            Path(self.cache_dir),
            dict(self.completion_kwargs),
            api=self.api,
            model_args=dict(self.model_args),
            max_tokens=self.max_tokens if inspect else None,
            response_schema=SIGNALS_SCHEMA if inspect else None,
            replay=self.replay,
        )
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
        """Build the model now, so an unknown Inspect provider or model fails before any mining work (not in a replay)."""
        self.llm.connect()

    def sends(self, review: Review) -> bool:
        """Whether the review goes to the model (the pre-filter passes it); if not, it gives no signal."""
        return not self.prefilter or bool(self._offline.candidates(review))

    def prompt(self, review: Review) -> str:
        """The exact prompt of one review."""
        return render_prompt(self.template, review, self.fields)

    def cache_key(self, review: Review) -> str:
        """The id under which the answer for this review is cached."""
        return self.llm.key(self.prompt(review))

    def extract(self, review: Review) -> ReviewSignals:
        """Signals of one review; a failed call, unparsable answer or missing replay answer marks the review `failed`."""
        if not self.sends(review):
            self.skipped_by_prefilter += 1
            return ReviewSignals(review.review_id)
        self.sent += 1
        try:
            proposed = parse_answer(self.llm.complete_json(self.prompt(review)))
        except LLMResponseError as exc:
            self.failures += 1
            self.failures_by_reason[exc.kind] += 1
            return ReviewSignals(review.review_id, failed=f"{exc.kind}: {exc}")
        texts = review.signal_text(self.fields)
        signals: list[Signal] = []
        dropped = 0
        for polarity, quote in proposed:
            where = next(
                (
                    name
                    for name, text in texts
                    if normalise(quote) and normalise(quote) in normalise(text)
                ),
                None,
            )
            if where is None:
                dropped += 1
                continue
            signals.append(Signal(polarity, quote.strip(), where))
        self.dropped_total += dropped
        return ReviewSignals(review.review_id, tuple(signals), dropped_quotes=dropped)

    def provenance(self) -> dict[str, Any]:
        """Where the answers used came from: how many, the answering models, their dates, the prompt template's hash."""
        served = self.llm.served
        dates = sorted({d for _, d in served})
        return {
            "answers": sum(served.values()),
            "models": sorted({m for m, _ in served}),
            "dates": f"{dates[0]} to {dates[-1]}" if dates else "none",
            "prompt": PROMPT,
            "prompt_sha256": hashlib.sha256(self.template.encode("utf-8")).hexdigest(),
        }

    def cost(self) -> dict[str, Any]:
        """Reviews sent and skipped, model calls and cache hits, tokens, failures by kind, quotes dropped."""
        return {
            "reviews_sent": self.sent,
            "reviews_skipped_by_prefilter": self.skipped_by_prefilter,
            "calls": self.llm.calls,
            "cache_hits": self.llm.cache_hits,
            "input_tokens": self.llm.input_tokens,
            "output_tokens": self.llm.output_tokens,
            "failed_reviews": self.failures,
            "failures_by_reason": dict(sorted(self.failures_by_reason.items())),
            "unparsable_rate": round(self.failures_by_reason.get(UNPARSABLE, 0) / self.sent, 4)
            if self.sent
            else None,
            "quotes_dropped_not_verbatim": self.dropped_total,
        }


def parse_answer(answer: dict[str, Any]) -> list[tuple[Polarity, str]]:
    """(polarity, quote) of every statement in an answer; LLMResponseError (unparsable) unless it follows the format."""
    out: list[tuple[Polarity, str]] = []
    for key, polarity in ANSWER_KEYS:
        items = answer.get(key)
        if not isinstance(items, list):
            raise LLMResponseError(f"answer has no {key!r} list")
        for item in items:
            if not isinstance(item, str) or not item.strip():
                raise LLMResponseError(f"a {key!r} entry is not a non-empty string: {item!r}")
            out.append((polarity, item))
    return out
