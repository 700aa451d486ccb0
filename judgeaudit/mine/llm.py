"""The one cached model client of the mining steps: answer cache, model construction, retries, recorded errors.

Every answer is stored on disk (`AnswerCache`) under a SHA-256 of (model, prompt, the options
that change the answer), so a re-run with the same inputs makes no call, costs nothing, and an
interrupted run resumes where it stopped. Two ways in, one cache:

- `CachedModel` (`mine generate`, `mine plan`): Inspect's model API (`get_model`), so
  `local/gemma-3-270m`, `litellm/...`, `openai/...` and `mockllm/model` all work. A batch of
  `Request`s runs concurrently; an answer that fails its request's check is retried with a new
  seed a bounded number of times, and a model error fails that one request with its cause
  (`MODEL_ERROR`), never the whole run. `failure_counts` summarises the outcomes.
- `CachedLLM` (the LLM signal extractor `llm_signals` and the LLM sanitiser): one JSON-object
  completion at temperature 0, either through litellm (`api="litellm"`; `--api-base` reaches an
  OpenAI-compatible server; transient provider errors retried with tenacity) or through
  Inspect's model API (`api="inspect"`: any Inspect model name, e.g. `local/gemma-3-270m`;
  Inspect retries what its provider calls transient; an optional JSON schema constrains the
  answer where the provider supports it). An unusable answer is an `LLMResponseError` the caller
  counts, of kind `UNPARSABLE` (the reply does not follow the format) or `MODEL_ERROR` (the call
  failed). Token counts of answered calls are kept (`input_tokens`, `output_tokens`). Every stored
  answer carries its provenance (`model`, `prompt_sha256`, `date`); with `replay`, no call is ever
  made and a request without a stored answer fails with kind `NOT_CACHED`, so a set built from a
  cache is rebuilt byte for byte without a model (`answer_record` is the record `mine answers` writes).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tenacity import retry, retry_if_exception, stop_after_attempt, wait_exponential

from judgeaudit.files import atomic_write_text

if TYPE_CHECKING:
    from inspect_ai.model import GenerateConfig

MODEL_ERROR = "model error"
"""Failure reason of a request whose model call raised (followed by the cause in parentheses)."""

UNPARSABLE = "unparsable"
"""Failure reason of an answer that does not follow the format the prompt asks for."""

NOT_CACHED = "no cached answer"
"""Failure reason of a request a replay (no model calls) found no answer for in the cache."""

LLM_APIS = ("litellm", "inspect")
"""The two ways `CachedLLM` reaches a model."""


class LLMResponseError(ValueError):
    """The model's answer is not the JSON object the prompt asks for (`kind` UNPARSABLE) or the call failed (MODEL_ERROR)."""

    def __init__(self, message: str, kind: str = UNPARSABLE) -> None:
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True)
class AnswerCache:
    """Answers on disk under `<dir>/<key[:2]>/<key>.json`, keyed by a content hash of the request."""

    directory: Path

    @staticmethod
    def key(payload: dict[str, Any]) -> str:
        """SHA-256 of the request payload (model, prompt, options) as canonical JSON."""
        blob = json.dumps(payload, sort_keys=True, default=str)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def _path(self, key: str) -> Path:
        return Path(self.directory) / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored record of `key`, or None when it was never answered."""
        path = self._path(key)
        if not path.is_file():
            return None
        return dict(json.loads(path.read_text(encoding="utf-8")))

    def put(self, key: str, record: dict[str, Any]) -> None:
        """Store `record` under `key` atomically."""
        atomic_write_text(self._path(key), json.dumps(record, ensure_ascii=False) + "\n")


# --------------------------------------------------------------------------- Inspect models, batches


Validator = Callable[[str], tuple[str | None, str]]
"""Checks a raw answer: (reason it is bad or None, cleaned text)."""


@dataclass(frozen=True)
class Request:
    """One prompt to answer, its key in the results, and the check its answer must pass."""

    key: str
    prompt: str
    validate: Validator


@dataclass
class Outcome:
    """The accepted text of a request (None if every attempt failed) and why attempts failed."""

    text: str | None
    attempts: int
    failures: list[str] = field(default_factory=list)


def generate_config(
    max_tokens: int | None, temperature: float, seed: int, response_schema: dict[str, Any] | None
) -> GenerateConfig:
    """Inspect's GenerateConfig of one mining call; a JSON schema, when given, constrains the answer."""
    from inspect_ai.model import GenerateConfig, ResponseSchema
    from inspect_ai.util import JSONSchema

    schema = (
        None
        if response_schema is None
        else ResponseSchema(name="answer", json_schema=JSONSchema.model_validate(response_schema))
    )
    return GenerateConfig(
        max_tokens=max_tokens, temperature=temperature, seed=seed, response_schema=schema
    )


@dataclass
class CachedModel:
    """An Inspect model behind the answer cache, retried with new seeds on bad answers; model errors fail one request."""

    model: str
    cache_dir: Path
    max_tokens: int = 256
    temperature: float = 0.7
    seed: int = 0
    attempts: int = 3
    max_connections: int = 4
    model_args: dict[str, Any] = field(default_factory=dict)
    response_schema: dict[str, Any] | None = None
    calls: int = 0
    cache_hits: int = 0

    def _key(self, prompt: str, seed: int) -> str:
        payload = {
            "model": self.model,
            "prompt": prompt,
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
            "seed": seed,
        }
        if self.response_schema is not None:
            payload["response_schema"] = self.response_schema
        return AnswerCache.key(payload)

    async def _answer(self, api: Any, prompt: str, seed: int, limit: asyncio.Semaphore) -> str:
        cache = AnswerCache(Path(self.cache_dir))
        key = self._key(prompt, seed)
        stored = cache.get(key)
        if stored is not None:
            self.cache_hits += 1
            return str(stored["completion"])
        async with limit:
            config = generate_config(self.max_tokens, self.temperature, seed, self.response_schema)
            output = await api.generate(prompt, config=config)
        self.calls += 1
        if output.error:
            raise RuntimeError(f"{self.model}: {output.error}")
        completion = output.completion or ""
        cache.put(key, {"model": self.model, "seed": seed, "completion": completion})
        return completion

    async def _one(self, api: Any, request: Request, limit: asyncio.Semaphore) -> Outcome:
        failures: list[str] = []
        try:
            for attempt in range(self.attempts):
                raw = await self._answer(api, request.prompt, self.seed + attempt, limit)
                reason, text = request.validate(raw)
                if reason is None:
                    return Outcome(text, attempt + 1, failures)
                failures.append(reason)
        except (
            Exception
        ) as exc:  # a provider/model error: this request fails with its cause, the others go on
            cause = " ".join(str(exc).split()) or type(exc).__name__
            return Outcome(None, 0, [f"{MODEL_ERROR} ({cause[:200]})"])
        return Outcome(None, self.attempts, failures)

    def run(
        self, requests: list[Request], *, progress: bool = True, desc: str = "generating"
    ) -> dict[str, Outcome]:
        """Answer every request (cached answers first); returns outcomes by request key."""
        from inspect_ai.model import get_model
        from tqdm import tqdm

        async def main() -> dict[str, Outcome]:
            api = get_model(self.model, memoize=False, **self.model_args)
            limit = asyncio.Semaphore(max(1, self.max_connections))
            bar = tqdm(total=len(requests), desc=desc, disable=not progress, unit="idea")
            results: dict[str, Outcome] = {}

            async def task(req: Request) -> None:
                results[req.key] = await self._one(api, req, limit)
                bar.update(1)

            try:
                await asyncio.gather(*(task(r) for r in requests))
            finally:
                bar.close()
            return results

        return asyncio.run(main())


def failure_counts(outcomes: dict[str, Outcome]) -> dict[str, Any]:
    """Counts of attempts that failed by reason, retried requests, and requests that never succeeded."""
    reasons = Counter(r for o in outcomes.values() for r in o.failures)
    return {
        "requested": len(outcomes),
        "succeeded": sum(1 for o in outcomes.values() if o.text is not None),
        "failed": sum(1 for o in outcomes.values() if o.text is None),
        "retried": sum(1 for o in outcomes.values() if o.failures),
        "bad_attempts_by_reason": {k: reasons[k] for k in sorted(reasons)},
    }


# --------------------------------------------------------------------------- litellm, one JSON answer


def _transient(exc: BaseException) -> bool:
    name = type(exc).__name__
    return name in {
        "RateLimitError",
        "APIConnectionError",
        "Timeout",
        "InternalServerError",
        "ServiceUnavailableError",
        "APIError",
    }


def prompt_sha256(prompt: str) -> str:
    """SHA-256 of a rendered prompt (UTF-8), the prompt hash an answer's provenance names."""
    return hashlib.sha256(prompt.encode("utf-8")).hexdigest()


def answer_record(model: str, response: str, prompt: str, date: str) -> dict[str, Any]:
    """The cache record of one `CachedLLM` answer, with its provenance (model, prompt hash, date)."""
    return {
        "model": model,
        "response": response,
        "prompt_sha256": prompt_sha256(prompt),
        "date": date,
    }


@dataclass
class CachedLLM:
    """A model called with temperature 0 for one JSON object, behind the answer cache (litellm or Inspect)."""

    model: str
    cache_dir: Path
    completion_kwargs: dict[str, Any] = field(default_factory=dict)
    api: str = "litellm"
    model_args: dict[str, Any] = field(default_factory=dict)
    max_tokens: int | None = None
    response_schema: dict[str, Any] | None = None
    replay: bool = False
    calls: int = 0
    cache_hits: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    served: Counter[tuple[str, str]] = field(
        default_factory=Counter
    )  # (answering model, date) of answers used
    _inspect_model: Any = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.api not in LLM_APIS:
            raise ValueError(
                f"CachedLLM api must be one of {', '.join(LLM_APIS)} (got {self.api!r})"
            )

    def key(self, prompt: str) -> str:
        """Content hash of one request (model, prompt, options that change the answer)."""
        opts = {
            k: v
            for k, v in sorted(self.completion_kwargs.items())
            if k not in {"api_key", "api_base", "timeout"}
        }
        if self.api == "litellm":
            return AnswerCache.key({"model": self.model, "prompt": prompt, "options": opts})
        plain = {
            k: v
            for k, v in sorted(
                self.model_args.items()
            )  # a callable (mockllm's script) cannot be keyed
            if isinstance(v, str | int | float | bool) or v is None
        }
        return AnswerCache.key(
            {
                "api": "inspect",
                "model": self.model,
                "prompt": prompt,
                "options": opts,
                "model_args": plain,
                "max_tokens": self.max_tokens,
                "response_schema": self.response_schema,
            }
        )

    def connect(self) -> None:
        """Build the Inspect model now (an unknown provider or model fails here, not on the first call)."""
        if self.api == "inspect" and self._inspect_model is None and not self.replay:
            from inspect_ai.model import get_model

            self._inspect_model = get_model(self.model, memoize=False, **self.model_args)

    def complete_json(self, prompt: str) -> dict[str, Any]:
        """The model's JSON object answer to `prompt` (from the cache when present)."""
        cache = AnswerCache(Path(self.cache_dir))
        key = self.key(prompt)
        stored = cache.get(key)
        if stored is not None:
            self.cache_hits += 1
            text = str(stored["response"])
            self.served[
                (str(stored.get("model", self.model)), str(stored.get("date", "unknown"))[:10])
            ] += 1
        elif self.replay:
            raise LLMResponseError(
                f"{NOT_CACHED} for this prompt (key {key[:12]}) in {self.cache_dir}",
                kind=NOT_CACHED,
            )
        else:
            text = self._call(prompt) if self.api == "litellm" else self._call_inspect(prompt)
            self.calls += 1
            date = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
            cache.put(key, answer_record(self.model, text, prompt, date))
            self.served[(self.model, date[:10])] += 1
        return parse_json_object(text)

    @retry(
        retry=retry_if_exception(_transient),
        stop=stop_after_attempt(5),
        wait=wait_exponential(multiplier=1, max=30),
        reraise=True,
    )
    def _call(self, prompt: str) -> str:
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        import litellm

        response = litellm.completion(
            model=self.model,
            messages=[{"role": "user", "content": prompt}],
            temperature=0,
            response_format={"type": "json_object"},
            **self.completion_kwargs,
        )
        usage = getattr(response, "usage", None)
        self.input_tokens += int(getattr(usage, "prompt_tokens", 0) or 0)
        self.output_tokens += int(getattr(usage, "completion_tokens", 0) or 0)
        content = response.choices[0].message.content  # type: ignore[union-attr]
        if not isinstance(content, str) or not content.strip():
            raise LLMResponseError(f"{self.model} returned an empty answer")
        return content

    def _call_inspect(self, prompt: str) -> str:
        """One answer through Inspect's `Model.generate` (its provider's own retries apply)."""
        self.connect()
        config = generate_config(self.max_tokens, 0.0, 0, self.response_schema)
        try:
            output = asyncio.run(self._inspect_model.generate(prompt, config=config))
        except (
            Exception
        ) as exc:  # the call itself failed (after Inspect's retries): counted, never a stance
            cause = " ".join(str(exc).split()) or type(exc).__name__
            raise LLMResponseError(
                f"{MODEL_ERROR} ({self.model}: {cause[:200]})", kind=MODEL_ERROR
            ) from exc
        if output.usage is not None:
            self.input_tokens += output.usage.input_tokens
            self.output_tokens += output.usage.output_tokens
        if output.error:
            raise LLMResponseError(
                f"{MODEL_ERROR} ({self.model}: {' '.join(str(output.error).split())[:200]})",
                kind=MODEL_ERROR,
            )
        return (
            output.completion or ""
        )  # an empty or malformed answer is cached too and fails parsing (UNPARSABLE)


def parse_json_object(text: str) -> dict[str, Any]:
    """The JSON object in a model answer (tolerating a ```json fence); LLMResponseError otherwise."""
    body = text.strip()
    if body.startswith("```"):
        body = body.strip("`")
        if body.lower().startswith("json"):
            body = body[4:]
    start, end = body.find("{"), body.rfind("}")
    if start < 0 or end <= start:
        raise LLMResponseError(f"no JSON object in the model answer: {text[:120]!r}")
    try:
        value = json.loads(body[start : end + 1])
    except json.JSONDecodeError as exc:
        raise LLMResponseError(
            f"invalid JSON in the model answer ({exc.msg}): {text[:120]!r}"
        ) from exc
    if not isinstance(value, dict):
        raise LLMResponseError("the model answer is not a JSON object")
    return value
