"""Tool calling through `local/gemma-3-270m` (real llama.cpp model, `tool_text/1` protocol, real grammar).

The agentic judge runs for real on the small corpus of `test_judge_retrieval`: whatever the
model chooses, the transcript must show it, either a parsed call that Inspect executed (its
result in a tool message, its query in `Score.metadata["retrieved"]`) or a final answer.
"""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path

import pytest
from helpers.inspect_runs import unit
from helpers.session_caches import CACHE_ENV, SESSION_CACHES
from inspect_ai import eval
from inspect_ai.log import read_eval_log
from inspect_ai.model import (
    ChatMessageAssistant,
    ChatMessageTool,
    ChatMessageUser,
    GenerateConfig,
    get_model,
)
from inspect_ai.tool import ToolFunction, ToolInfo, ToolParams
from inspect_ai.util import JSONSchema

from judgeaudit.judges.tasks import novelty_pairwise
from judgeaudit.providers.gguf import gemma_gguf
from judgeaudit.providers.tool_text import TOOL_PROTOCOL

pytestmark = [
    pytest.mark.local_llm,
    pytest.mark.skipif(
        importlib.util.find_spec("xllamacpp") is None,
        reason="xllamacpp (the llama.cpp library) is not installed (pip install 'judgeaudit[local]')",
    ),
]

SEARCH = ToolInfo(
    name="search_prior_work",
    description="Search earlier research papers.",
    parameters=ToolParams(
        properties={"query": JSONSchema(type="string", description="keywords")}, required=["query"]
    ),
)


def test_forced_tool_choice_yields_a_well_formed_call() -> None:
    """Tool choice naming the tool + a grammar: the base model's reply is one parsed ToolCall."""
    model = get_model("local/gemma-3-270m", memoize=False, grammar="pairwise")
    prompt = [
        ChatMessageUser(
            content="Find earlier papers on pruning attention heads of graph transformers."
        )
    ]
    output = asyncio.run(
        model.generate(
            prompt,
            tools=[SEARCH],
            tool_choice=ToolFunction(name="search_prior_work"),
            config=GenerateConfig(seed=1, temperature=0.8, max_tokens=300),
        )
    )
    [call] = output.message.tool_calls or []
    assert call.function == "search_prior_work" and call.parse_error is None
    assert isinstance(call.arguments["query"], str) and output.stop_reason == "tool_calls"
    local = output.metadata["local"]  # type: ignore[index]
    assert local["grammar"] == f"{TOOL_PROTOCOL}:call" and local["tool_protocol"] == TOOL_PROTOCOL
    assert local["prompt_format"] == f"transcript/1+{TOOL_PROTOCOL}"
    assert f"tools={TOOL_PROTOCOL}" in str(
        model.api.base_url
    )  # the protocol is part of the cache key


def test_one_agentic_call_through_the_local_model(
    search_set: dict[str, str], tmp_path: Path
) -> None:  # noqa: F811
    """One agentic run (one search at most) under `-M grammar=auto`: a call Inspect executed, or an answer."""
    # search_set points JUDGEAUDIT_CACHE at tmp_path (for its index): the model is the process's own
    # Gemma file by path, not a second copy assembled under tmp_path and loaded again
    gemma = gemma_gguf(SESSION_CACHES / CACHE_ENV["JUDGEAUDIT_CACHE"] / "models")
    task = novelty_pairwise(
        dataset=search_set["dataset"],
        judge="agentic",
        retrieval=2,
        retrieval_corpus=search_set["corpus"],
        cache=False,
        max_searches=1,
        max_turns=1,
        resamples=100,
    )
    log = eval(
        task,
        model=f"local/{gemma}",
        model_args={"grammar": "auto", "prefix_cache": True},
        log_dir=str(tmp_path),
        display="none",
        max_connections=1,
        seed=5,
        temperature=0.7,
    )[0]
    log = read_eval_log(log.location)
    assert log.status == "success", log.error
    [sample] = log.samples or []
    messages = sample.messages
    assert [m.role for m in messages[:2]] == ["system", "user"]
    replies = [m for m in messages if isinstance(m, ChatMessageAssistant)]
    calls = [c for m in replies for c in (m.tool_calls or [])]
    meta = unit(log, sample)
    assert meta is not None
    if calls:  # the model searched: Inspect ran the call and the result is in the transcript
        [call] = calls
        [result] = [m for m in messages if isinstance(m, ChatMessageTool)]
        assert result.tool_call_id == call.id
        if call.parse_error is None:
            [query] = meta["retrieved"]["queries"]
            assert query["query"] == call.arguments["query"].strip()
            # results come back fenced (`judgeaudit.fence.fence_in`); a query the retriever cannot use is told back
            assert result.error is None and (
                result.text.startswith("<<< begin text-")
                or result.text.startswith("No earlier")
                or result.text.startswith("Error: the query is empty")
                or result.text.startswith("Error: query has no searchable words")
            )
            assert all(f"[{i}]" in result.text for i in query["ids"])
        else:
            assert result.error is not None and meta["retrieved"]["queries"] == []
        assert len(replies) == 2  # then the final turn, without tools
    else:
        assert len(replies) == 1 and meta["retrieved"]["queries"] == []
    [record] = meta["calls"]
    assert (
        record["parse"] == "strict" and record["raw"] == replies[-1].text
    )  # the grammar's verdict line
    events = [e for e in sample.events if e.event == "model"]
    assert events[0].output.metadata["local"]["tool_protocol"] == TOOL_PROTOCOL  # type: ignore[index]
    assert events[0].output.metadata["local"]["grammar"] == f"{TOOL_PROTOCOL}:auto:pairwise"  # type: ignore[index]
