"""Tool calling through the `litellm/<model>` provider, up to a full agentic judge run.

Hosted APIs are unreachable here, so the OpenAI endpoint is `tests/servers/openai_recorded.py`
(a stdlib server on 127.0.0.1 answering in OpenAI's JSON shape, scripted to call the tool until
the request carries a tool result): a test double for the remote endpoint only. litellm, its
price map, Inspect's tool loop, the retriever over the bundled corpus, the parser and the
scorer are the real ones.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers.inspect_runs import unit
from inspect_ai import eval
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.model import ChatMessageAssistant, ChatMessageTool, ChatMessageUser
from inspect_ai.tool import ToolCall, ToolCallError, ToolFunction, ToolInfo, ToolParams
from inspect_ai.util import JSONSchema
from servers.openai_recorded import (
    RecordedOpenAIServer,
    Reply,
    chat_completion,
    tool_call_completion,
)

from judgeaudit.judges.tasks import novelty_pairwise
from judgeaudit.providers.litellm_api import (
    messages_to_litellm,
    tool_call_from_litellm,
    tool_choice_to_litellm,
    tools_to_litellm,
)

MODEL = "gpt-4o-mini"
SEARCH = ToolInfo(
    name="search_prior_work",
    description="Search earlier papers.",
    parameters=ToolParams(
        properties={"query": JSONSchema(type="string", description="keywords")}, required=["query"]
    ),
)


def _expected_cost(prompt: int, completion: int) -> float:
    """Cost straight from litellm's bundled price map entry (independent of the provider code)."""
    import litellm

    entry = litellm.model_cost[MODEL]
    return float(
        prompt * entry["input_cost_per_token"] + completion * entry["output_cost_per_token"]
    )


class _Fn:
    def __init__(self, name: str | None, arguments: str | None) -> None:
        self.name, self.arguments = name, arguments


class _Call:
    def __init__(self, name: str | None, arguments: str | None, id: str | None = "c1") -> None:
        self.id, self.function = id, _Fn(name, arguments)


def test_tool_definitions_and_choice_are_mapped() -> None:
    [tool] = tools_to_litellm([SEARCH])
    assert tool == {
        "type": "function",
        "function": {
            "name": "search_prior_work",
            "description": "Search earlier papers.",
            "parameters": {
                "type": "object",
                "properties": {"query": {"type": "string", "description": "keywords"}},
                "required": ["query"],
                "additionalProperties": False,
            },
        },
    }
    assert [tool_choice_to_litellm(c) for c in ("auto", "none", "any")] == [
        "auto",
        "none",
        "required",
    ]
    assert tool_choice_to_litellm(ToolFunction(name="search_prior_work")) == {
        "type": "function",
        "function": {"name": "search_prior_work"},
    }


def test_tool_messages_are_mapped_with_ids_names_and_errors() -> None:
    call = ToolCall(id="call_7", function="search_prior_work", arguments={"query": "graph pruning"})
    messages = [
        ChatMessageUser(content="Which idea?"),
        ChatMessageAssistant(content="", tool_calls=[call]),
        ChatMessageTool(
            content="[g1] Pruning", tool_call_id="call_7", function="search_prior_work"
        ),
        ChatMessageTool(
            content="",
            tool_call_id="call_8",
            function="search_prior_work",
            error=ToolCallError("parsing", "bad arguments"),
        ),
    ]
    out = messages_to_litellm(messages)
    assert out[1] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_7",
                "type": "function",
                "function": {
                    "name": "search_prior_work",
                    "arguments": '{"query": "graph pruning"}',
                },
            }
        ],
    }
    assert out[2] == {
        "role": "tool",
        "tool_call_id": "call_7",
        "name": "search_prior_work",
        "content": "[g1] Pruning",
    }
    assert out[3]["content"] == "Error: bad arguments"


def test_response_tool_calls_parse_or_carry_a_parse_error() -> None:
    good = tool_call_from_litellm(_Call("search_prior_work", '{"query": "x"}'), 0)
    assert (good.id, good.function, good.arguments, good.parse_error) == (
        "c1",
        "search_prior_work",
        {"query": "x"},
        None,
    )
    broken = tool_call_from_litellm(_Call("search_prior_work", '{"query": "x', id=None), 3)
    assert broken.id == "call_3" and broken.arguments == {}
    assert (
        broken.parse_error
        and "not valid JSON" in broken.parse_error
        and '{"query": "x' in broken.parse_error
    )
    listed = tool_call_from_litellm(_Call("search_prior_work", '["x"]'), 0)
    assert listed.parse_error and "must be a JSON object" in listed.parse_error
    nameless = tool_call_from_litellm(_Call(None, "{}"), 0)
    assert nameless.parse_error and "names no function" in nameless.parse_error
    assert tool_call_from_litellm(_Call("search_prior_work", ""), 0).arguments == {}


def _keywords(body: dict[str, Any]) -> str:
    """A query made from the task text the judge was sent: its first five distinct long words."""
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    words = list(dict.fromkeys(w.lower() for w in re.findall(r"[A-Za-z]{8,}", user)))
    return " ".join(words[:5])


def _search_then_answer(
    arguments: Callable[[dict[str, Any]], str],
) -> Callable[[dict[str, Any]], Reply]:
    """Server behaviour: call search_prior_work while no tool result was sent, then answer."""

    def reply(body: dict[str, Any]) -> Reply:
        if body.get("tools") and not any(m["role"] == "tool" for m in body["messages"]):
            return Reply(
                200, tool_call_completion([("search_prior_work", arguments(body))], body["model"])
            )
        return Reply(
            200,
            chat_completion("The search shows related work for B only.\nVerdict: A", body["model"]),
        )

    return reply


def _eval(task: Any, srv: RecordedOpenAIServer, tmp_path: Path, **kwargs: Any) -> EvalLog:
    log = eval(
        task,
        model=f"litellm/openai/{MODEL}",
        model_args={"api_base": srv.url, "api_key": "sk-test-123"},
        log_dir=str(tmp_path / "logs"),
        display="none",
        retry_on_error=0,
        **kwargs,
    )[0]
    assert log.status == "success", log.error
    assert log.location
    return read_eval_log(log.location)


def test_agentic_judge_on_bundled_items_searches_for_real(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two bundled Human-Only pairs, bundled corpus: one real search each, parsed verdicts, cost recorded."""
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    reply = _search_then_answer(lambda body: json.dumps({"query": _keywords(body)}))
    with RecordedOpenAIServer(reply_for=reply) as srv:
        log = _eval(
            novelty_pairwise(judge="agentic", retrieval=3, cache=False, resamples=100),
            srv,
            tmp_path,
            limit=2,
            max_connections=1,
        )
        requests = [r["body"] for r in srv.requests]
    assert len(requests) == 4  # per item: the tool call, then the answer
    first, second = requests[0], requests[1]
    assert [t["function"]["name"] for t in first["tools"]] == ["search_prior_work"]
    assert first["tools"][0]["function"]["parameters"]["required"] == ["query"]
    assert first["tool_choice"] == "auto"
    [assistant] = [m for m in second["messages"] if m["role"] == "assistant"]
    assert assistant["tool_calls"][0]["function"]["name"] == "search_prior_work"
    [tool_msg] = [m for m in second["messages"] if m["role"] == "tool"]
    assert tool_msg["tool_call_id"] == "call_0" and tool_msg["name"] == "search_prior_work"
    assert log.samples and len(log.samples) == 2
    for sample in log.samples:
        meta = unit(log, sample)
        assert meta is not None and meta["judge"] == "agentic"
        [query] = meta["retrieved"]["queries"]
        assert len(query["ids"]) == 3 and query["error"] is None
        assert meta["retrieved"]["ids"]["search"] == query["ids"]
        assert [c["parse"] for c in meta["calls"]] == ["strict"] and meta["verdict"] == "a"
    shown = re.findall(r"^\[([^\]]+)\] ", tool_msg["content"], re.M)
    # the tool message of the second request belongs to whichever sample reached its second call first
    assert shown in [
        s.scores["novelty"].metadata["retrieved"]["queries"][0]["ids"] for s in log.samples
    ]  # type: ignore[index]
    usage = log.stats.model_usage[f"litellm/openai/{MODEL}"]
    assert (usage.input_tokens, usage.output_tokens) == (4 * 42, 4 * 7)
    assert usage.total_cost == pytest.approx(4 * _expected_cost(42, 7))


def test_unparseable_arguments_reach_the_model_as_a_tool_error(
    search_set: dict[str, str], tmp_path: Path
) -> None:  # noqa: F811
    """Broken JSON arguments are not dropped: Inspect answers the call with an error and no search is run."""
    reply = _search_then_answer(lambda body: '{"query": "graph pruning')
    with RecordedOpenAIServer(reply_for=reply) as srv:
        log = _eval(
            novelty_pairwise(
                dataset=search_set["dataset"],
                judge="agentic",
                retrieval_corpus=search_set["corpus"],
                cache=False,
                resamples=100,
            ),
            srv,
            tmp_path,
        )
        requests = [r["body"] for r in srv.requests]
    assert len(requests) == 2
    [tool_msg] = [m for m in requests[1]["messages"] if m["role"] == "tool"]
    assert tool_msg["content"].startswith("Error: ") and "not valid JSON" in tool_msg["content"]
    meta = unit(log, log.samples[0])  # type: ignore[index]
    assert meta is not None and meta["retrieved"]["queries"] == []  # the tool never ran
    assert meta["verdict"] == "a"
