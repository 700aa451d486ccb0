"""One cached, retried JSON completion through litellm: the shared plumbing of the LLM mining steps.

Responses are stored on disk under a SHA-256 of (model, prompt text, completion options), so a
re-run with the same inputs makes no call and costs nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tenacity import retry, retry_if_exception, stop_after_attempt, wait_exponential

from judgeaudit.files import atomic_write_text


class LLMResponseError(ValueError):
    """The model's answer is not the JSON object the prompt asks for."""


def _transient(exc: BaseException) -> bool:
    name = type(exc).__name__
    return name in {"RateLimitError", "APIConnectionError", "Timeout", "InternalServerError",
                    "ServiceUnavailableError", "APIError"}


@dataclass
class CachedLLM:
    """A litellm model called with temperature 0 and JSON output, cached by content hash."""

    model: str
    cache_dir: Path
    completion_kwargs: dict[str, Any] = field(default_factory=dict)
    calls: int = 0
    cache_hits: int = 0

    def key(self, prompt: str) -> str:
        """Content hash of one request (model, prompt, options that change the answer)."""
        opts = {k: v for k, v in sorted(self.completion_kwargs.items()) if k not in {"api_key", "timeout"}}
        blob = json.dumps({"model": self.model, "prompt": prompt, "options": opts}, sort_keys=True, default=str)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def _path(self, key: str) -> Path:
        return Path(self.cache_dir) / key[:2] / f"{key}.json"

    def complete_json(self, prompt: str) -> dict[str, Any]:
        """The model's JSON object answer to `prompt` (from the cache when present)."""
        key = self.key(prompt)
        path = self._path(key)
        if path.is_file():
            self.cache_hits += 1
            text = json.loads(path.read_text(encoding="utf-8"))["response"]
        else:
            text = self._call(prompt)
            self.calls += 1
            atomic_write_text(path, json.dumps({"model": self.model, "response": text}, ensure_ascii=False) + "\n")
        return parse_json_object(text)

    @retry(retry=retry_if_exception(_transient), stop=stop_after_attempt(5),
           wait=wait_exponential(multiplier=1, max=30), reraise=True)
    def _call(self, prompt: str) -> str:
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        import litellm

        response = litellm.completion(
            model=self.model, messages=[{"role": "user", "content": prompt}], temperature=0,
            response_format={"type": "json_object"}, **self.completion_kwargs)
        content = response.choices[0].message.content  # type: ignore[union-attr]
        if not isinstance(content, str) or not content.strip():
            raise LLMResponseError(f"{self.model} returned an empty answer")
        return content


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
        value = json.loads(body[start:end + 1])
    except json.JSONDecodeError as exc:
        raise LLMResponseError(f"invalid JSON in the model answer ({exc.msg}): {text[:120]!r}") from exc
    if not isinstance(value, dict):
        raise LLMResponseError("the model answer is not a JSON object")
    return value
