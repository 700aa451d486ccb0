"""Judge-written search queries: prompt rendering, parsing, and a real Inspect model call (mockllm, scripted)."""

from __future__ import annotations

import asyncio

from inspect_ai.model import ChatMessageUser, GenerateConfig, ModelOutput, ModelUsage, get_model

from judgeaudit.resources import read_prompt
from judgeaudit.retrieval.queries import parse_queries, render_query_prompt, write_queries

IDEA = "We route tokens {between} experts with a learned {n} sparse gate and prune idle experts online."


def scripted(reply: str, seen: list[str]):
    """A mockllm callable: records the prompt it got, replies with `reply` (usage set, no tiktoken)."""

    def output(messages: list, *_: object) -> ModelOutput:
        seen.append(
            messages[-1].text if isinstance(messages[-1], ChatMessageUser) else str(messages[-1])
        )
        out = ModelOutput.from_content("mockllm/model", reply)
        out.usage = ModelUsage(input_tokens=50, output_tokens=20, total_tokens=70)
        return out

    return output


def test_prompt_is_ours_and_filled_without_touching_braces_in_the_idea() -> None:
    template = read_prompt("retrieval/query.txt")
    assert "{idea}" in template and "{n}" in template
    text = render_query_prompt(IDEA, 4)
    assert IDEA in text and "exactly 4 different queries" in text and "{idea}" not in text


def test_parse_strips_markers_dedupes_and_caps() -> None:
    raw = (
        'Here are the queries:\n1. sparse mixture of experts routing\n- "expert pruning during training"\n'
        "Query 3: sparse mixture of experts routing\n\n* learned gating networks\n5) dynamic expert capacity"
    )
    kept, dropped = parse_queries(raw, 3)
    assert kept == [
        "sparse mixture of experts routing",
        "expert pruning during training",
        "learned gating networks",
    ]
    assert "Here are the queries:" in dropped and "5) dynamic expert capacity" in dropped


def test_write_queries_through_a_real_inspect_model() -> None:
    seen: list[str] = []
    model = get_model(
        "mockllm/model",
        custom_outputs=scripted("1. sparse expert routing\n2. online expert pruning", seen),
    )
    result = asyncio.run(write_queries(IDEA, model, n=2, config=GenerateConfig(temperature=0.0)))
    assert result.parse == "ok" and result.queries == [
        "sparse expert routing",
        "online expert pruning",
    ]
    assert result.usage is not None and result.usage.total_tokens == 70
    assert IDEA in seen[0]


def test_unusable_reply_is_reported_not_invented() -> None:
    model = get_model("mockllm/model", custom_outputs=scripted("Queries:\n\n---", []))
    result = asyncio.run(write_queries(IDEA, model, n=3))
    assert result.parse == "failed" and result.queries == [] and result.raw == "Queries:\n\n---"
