"""The LLM signal extractor through `litellm` at a local OpenAI-compatible server (llama.cpp's own (xllamacpp), serving
the Gemma 3 270M GGUF; hosted models are unreachable here): the prompt goes over real HTTP."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from judgeaudit.mine.llm import prompt_sha256
from judgeaudit.mine.parse import Review
from judgeaudit.mine.signals.llm_extractor import LLMExtractor


@pytest.mark.local_llm
@pytest.mark.slow
@pytest.mark.skipif(
    importlib.util.find_spec("xllamacpp") is None,
    reason="needs xllamacpp, the llama.cpp library with its server (pip install 'judgeaudit[local]')",
)
def test_the_extractor_reads_a_review_through_a_local_openai_compatible_server(
    tmp_path: Path,
) -> None:
    """`litellm/openai/...` with `--api-base` at llama.cpp's own (xllamacpp) server (the Gemma GGUF): the extractor's
    prompt goes over real HTTP, its answer is verified signals or a counted failure, and it is cached with its
    provenance, so a replay of the same review makes no call."""
    from servers.llama_server import llama_server

    review = Review(
        "R1",
        "F1",
        6.0,
        3.0,
        (("strengths", "The idea is novel."), ("weaknesses", "Limited novelty.")),
        0,
    )
    with llama_server(tmp_path, n_ctx=2048) as url:
        ex = LLMExtractor.from_spec(
            "litellm/openai/gpt-4o-mini",
            tmp_path / "cache",
            completion_kwargs={
                "api_base": url,
                "api_key": "sk-local-not-checked",
                "max_tokens": 64,
            },
        )
        sig = ex.extract(review)
    cost = ex.cost()
    assert cost["calls"] == 1 and cost["input_tokens"] > 300  # the whole prompt went to the server
    text = " ".join(t for _, t in review.texts)
    assert all(s.quote in text for s in sig.signals)
    assert (sig.failed is None) != (sum(ex.failures_by_reason.values()) == 1)
    record = json.loads(next((tmp_path / "cache").rglob("*.json")).read_text())
    assert record["model"] == "openai/gpt-4o-mini" and record["prompt_sha256"] == prompt_sha256(
        ex.prompt(review)
    )
    replay = LLMExtractor.from_spec(
        "litellm/openai/gpt-4o-mini",
        tmp_path / "cache",
        replay=True,
        completion_kwargs={"max_tokens": 64},
    )
    assert replay.extract(review) == sig and replay.llm.calls == 0
