"""The one cached model client of the mining steps (`judgeaudit.mine.llm`).

`CachedModel` runs through Inspect's real model API with `mockllm/model` and a scripted callable
(hosted models are unreachable here); `CachedLLM` through litellm's real completion path with its
`mock_response` option. Both keep their answers in the same on-disk cache (`AnswerCache`).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from inspect_ai.model import ModelOutput, ModelUsage

from judgeaudit.mine.llm import (
    MODEL_ERROR,
    AnswerCache,
    CachedLLM,
    CachedModel,
    Request,
    failure_counts,
)


def _scripted(answers: dict[str, str], calls: list[str]) -> Any:
    def answer(messages: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        prompt = messages[-1].text
        calls.append(prompt)
        if answers[prompt] == "RAISE":
            raise RuntimeError("upstream 503: overloaded")
        out = ModelOutput.from_content(model="mockllm", content=answers[prompt])
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out

    return answer


def _accept_long(raw: str) -> tuple[str | None, str]:
    return (None if len(raw.split()) >= 3 else "too short"), raw.strip()


def test_a_model_error_fails_only_its_request_and_answers_are_cached(tmp_path: Path) -> None:
    answers = {"good": "a fine long answer", "short": "no", "broken": "RAISE"}
    calls: list[str] = []
    model = CachedModel(
        model="mockllm/model",
        cache_dir=tmp_path / "c",
        attempts=2,
        model_args={"custom_outputs": _scripted(answers, calls)},
    )
    requests = [Request(k, k, _accept_long) for k in answers]
    outcomes = model.run(requests, progress=False)
    assert outcomes["good"].text == "a fine long answer" and outcomes["good"].attempts == 1
    assert outcomes["short"].text is None and outcomes["short"].failures == [
        "too short",
        "too short",
    ]
    assert outcomes["broken"].text is None
    assert outcomes["broken"].failures == [f"{MODEL_ERROR} (upstream 503: overloaded)"]
    counts = failure_counts(outcomes)
    assert (counts["requested"], counts["succeeded"], counts["failed"]) == (3, 1, 2)
    assert model.calls == 3  # good once, short twice (two seeds); the raising call is not an answer
    again = CachedModel(
        model="mockllm/model",
        cache_dir=tmp_path / "c",
        attempts=2,
        model_args={"custom_outputs": _scripted(answers, calls)},
    )
    before = len(calls)
    assert again.run(requests[:2], progress=False)["good"].text == "a fine long answer"
    assert len(calls) == before and again.cache_hits == 3 and again.calls == 0


def test_the_litellm_json_client_uses_the_same_cache(tmp_path: Path) -> None:
    llm = CachedLLM("openai/gpt-4o-mini", tmp_path / "c", {"mock_response": '{"disputes": []}'})
    assert llm.complete_json("review text") == {"disputes": []}
    stored = AnswerCache(tmp_path / "c").get(llm.key("review text"))
    assert (
        stored is not None and stored.pop("date")[:2] == "20"
    )  # the provenance of the answer: model, prompt hash, date
    assert stored == {
        "model": "openai/gpt-4o-mini",
        "response": '{"disputes": []}',
        "prompt_sha256": hashlib.sha256(b"review text").hexdigest(),
    }
    again = CachedLLM("openai/gpt-4o-mini", tmp_path / "c", {"mock_response": '{"disputes": []}'})
    assert again.complete_json("review text") == {"disputes": []} and (
        again.calls,
        again.cache_hits,
    ) == (0, 1)
    # where the server is does not change the answer: the same key with or without an --api-base
    served = CachedLLM("openai/gpt-4o-mini", tmp_path / "c", {"api_base": "http://127.0.0.1:1/v1"})
    assert served.key("x") == CachedLLM("openai/gpt-4o-mini", tmp_path / "c").key("x")


def test_cache_keys_are_content_hashes() -> None:
    assert AnswerCache.key({"a": 1, "b": "x"}) == AnswerCache.key({"b": "x", "a": 1})
    assert AnswerCache.key({"a": 1}) != AnswerCache.key({"a": 2})
