"""The cost estimate: prices from litellm's bundled map (batch prices, half price, local, unknown), tokens
of the rendered prompts, identical calls counted once under caching, the chars/4 fallback."""

from __future__ import annotations

import pytest

from judgeaudit.providers.litellm_api import import_litellm
from judgeaudit.study.cells import CELL_TASKS
from judgeaudit.study.estimate import (
    Call,
    estimate,
    estimate_lines,
    litellm_model,
    model_price,
    planned_calls,
)
from judgeaudit.study.protocol import Cell


def test_prices_come_from_litellms_map_at_the_batch_price_when_batched() -> None:
    info = import_litellm().get_model_info("openai/gpt-4o-mini")
    standard, batch = (
        model_price("openai/gpt-4o-mini", False),
        model_price("openai/gpt-4o-mini", True),
    )
    assert standard is not None and batch is not None
    assert (standard.input, standard.output) == (
        info["input_cost_per_token"],
        info["output_cost_per_token"],
    )
    assert (batch.input, batch.output) == (
        info["input_cost_per_token_batches"],
        info["output_cost_per_token_batches"],
    )
    # a model the map prices without batch prices: half its standard price, said so
    together = "together/meta-llama/Llama-3.3-70B-Instruct-Turbo"
    assert litellm_model(together) == "together_ai/meta-llama/Llama-3.3-70B-Instruct-Turbo"
    full, half = model_price(together, False), model_price(together, True)
    assert full is not None and half is not None and half.input == full.input / 2
    assert "half price" in half.source
    assert model_price("planted/accurate", True) == model_price("local/gemma-3-270m", False)
    assert model_price("planted/accurate", True).input == 0.0  # type: ignore[union-attr]
    assert model_price("nosuch/model", False) is None
    assert litellm_model("litellm/anthropic/claude-sonnet-4-5") == "anthropic/claude-sonnet-4-5"


def test_tokens_times_prices_with_identical_calls_counted_once() -> None:
    calls = [
        Call("Which idea is more novel? A or B.", 0),
        Call("Which idea is more novel? A or B.", 0),
    ]
    calls.append(Call("Which idea is more novel? A or B.", 1))
    cached, uncached = (
        estimate(calls, ["openai/gpt-4o-mini"], batch=True, cache=c, output_tokens=10)[0]
        for c in (True, False)
    )
    assert (cached.calls, uncached.calls) == (2, 3)
    assert uncached.input_tokens * 2 == cached.input_tokens * 3 > 0
    assert cached.output_tokens == 20
    price = cached.price
    assert price is not None
    assert cached.cost == pytest.approx(cached.input_tokens * price.input + 20 * price.output)
    unknown = estimate(calls, ["nosuch/model"], batch=False)[0]
    assert unknown.cost is None
    text = "\n".join(estimate_lines([cached, unknown], batch=True))
    assert "batch prices" in text and "| nosuch/model | 2 |" in text and "unknown" in text


def test_without_a_tokenizer_four_characters_are_a_token(monkeypatch: pytest.MonkeyPatch) -> None:
    """litellm's bundled tokenizers load offline here; a machine where none loads is simulated."""
    litellm = import_litellm()

    def no_tokenizer(**_: object) -> int:
        raise OSError("no tokenizer")

    monkeypatch.setattr(litellm, "token_counter", no_tokenizer)
    (e,) = estimate([Call("x" * 9, 0)], ["openai/gpt-4o-mini"], batch=False, output_tokens=0)
    assert (e.input_tokens, e.counted_with) == (3, "4 chars/token")


def test_planned_calls_are_the_prompts_the_cells_send(search_set: dict[str, str]) -> None:
    data = search_set["dataset"]  # one pair, and a small corpus to retrieve from
    cells = [Cell("pairwise", "reference", data), Cell("pairwise", "retrieval", data)]
    options = {"k": 2, "both_orders": True, "retrieval_corpus": search_set["corpus"]}
    calls = planned_calls(cells, options, limit=None)
    assert len(calls) == 2 * 2 * 2  # two cells x two orders x k = 2
    reference = CELL_TASKS["study_pairwise_reference"](dataset=data, k=2, both_orders=True)
    first = next(iter(reference.dataset))
    assert calls[0].prompt == first.input and [c.call_index for c in calls[:4]] == [0, 1, 0, 1]
    assert calls[2].prompt != calls[0].prompt  # the other order
    assert "Pruning graph transformers" in calls[4].prompt  # retrieval adds the prior work
    assert "Pruning graph transformers" not in calls[0].prompt
