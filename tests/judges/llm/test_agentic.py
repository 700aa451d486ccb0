"""Agentic judge (`-T judge=agentic`): real Inspect tool loop over a small real-format corpus.

Hosted LLMs are unreachable here, so the judge is Inspect's `mockllm/model` driven by a callable
scripted to call the `search_prior_work` tool and then answer (a stand-in for a real LLM); the
tool, retriever, loop bounds, parser, scorer and log are the real ones.
"""

from __future__ import annotations

from collections import deque
from pathlib import Path
from typing import Any

import pytest
from helpers.inspect_runs import run_scripted as run
from helpers.inspect_runs import score_meta, unit
from inspect_ai import eval
from inspect_ai.model import ChatMessageTool, GenerateConfig, ModelOutput, ModelUsage, get_model

from judgeaudit.judges.llm.agentic import MAX_SEARCHES, MAX_TURNS
from judgeaudit.judges.tasks import novelty_pairwise, novelty_pointwise

USAGE = ModelUsage(input_tokens=50, output_tokens=5, total_tokens=55)


class SearchThenAnswer:
    """mockllm callable: issues `queries` tool calls one per turn, then answers `answer`."""

    def __init__(self, queries: list[str], answer: str) -> None:
        self.queries = queries
        self.answer = answer
        self.tool_results: list[str] = []
        self.turns = 0
        self.offered_tools: list[int] = []

    def __call__(
        self, input: list[Any], tools: Any, tool_choice: Any, config: GenerateConfig
    ) -> ModelOutput:
        self.turns += 1
        self.offered_tools.append(len(tools))
        done = [m for m in input if isinstance(m, ChatMessageTool)]
        if done:
            self.tool_results.append(done[-1].text)
        if tools and len(done) < len(self.queries):
            out = ModelOutput.for_tool_call(
                "mockllm/model",
                "search_prior_work",
                {"query": self.queries[len(done)]},
                tool_call_id=f"call{len(done)}",
            )
        else:
            out = ModelOutput.from_content("mockllm/model", f"I searched.\nVerdict: {self.answer}")
        out.usage = USAGE
        return out


def test_agent_searches_then_answers_and_everything_is_recorded(
    search_set: dict[str, str], tmp_path: Path
) -> None:  # noqa: F811
    script = SearchThenAnswer(
        ["graph transformer pruning", "contrastive saliency attention heads"], "A"
    )
    log = run(
        novelty_pairwise(
            dataset=search_set["dataset"],
            judge="agentic",
            retrieval=2,
            retrieval_corpus=search_set["corpus"],
            cache=False,
        ),
        script,
        tmp_path,
    )
    assert script.turns == 3
    assert "[g" in script.tool_results[0] and "n0" not in " ".join(
        script.tool_results
    )  # target never shown
    assert "g_late" not in " ".join(script.tool_results)  # after the submission-date cutoff
    meta = score_meta(log)
    assert meta["judge"] == "agentic" and meta["verdict"] == "a" and meta["gold"] == "a"
    [call] = meta["calls"]
    assert call["raw"] == "I searched.\nVerdict: A" and call["parse"] == "strict"
    retrieved = meta["retrieved"]
    assert [q["query"] for q in retrieved["queries"]] == script.queries
    assert all(len(q["ids"]) == 2 for q in retrieved["queries"])  # hits per search = retrieval
    assert set(retrieved["ids"]["search"]) == {i for q in retrieved["queries"] for i in q["ids"]}
    assert all(i.startswith("g") and i != "g_late" for i in retrieved["ids"]["search"])
    assert (
        log.samples and log.samples[0].model_usage["mockllm/model"].input_tokens == 3 * 50
    )  # cost in the log


def test_search_budget_bounds_the_loop(search_set: dict[str, str], tmp_path: Path) -> None:  # noqa: F811
    script = SearchThenAnswer([f"speech dropout {i}" for i in range(10)], "NOT NOVEL")
    log = run(
        novelty_pointwise(
            dataset=search_set["dataset"],
            judge="agentic",
            retrieval_corpus=search_set["corpus"],
            cache=False,
        ),
        script,
        tmp_path,
    )
    meta = score_meta(log)
    assert len(meta["retrieved"]["queries"]) == MAX_SEARCHES
    assert (
        script.offered_tools[-1] == 0 and script.turns == MAX_SEARCHES + 1
    )  # final turn without tools
    assert "dup" not in meta["retrieved"]["ids"]["search"]  # the idea itself under another id
    assert meta["verdict"] == "not_novel" and meta["calls"][0]["parse"] == "strict"
    assert any(m.role == "user" and "No more searches" in m.text for m in log.samples[0].messages)  # type: ignore[index]


class RoundsScript:
    """mockllm callable for the ai_scientist loop: per idea, search `searches` times then decide.

    The decision depends on which idea the prompt shows (graph idea -> NOVEL, speech idea -> NOT NOVEL);
    `never_decide` keeps asking for searches to exercise the round limit.
    """

    def __init__(self, searches: int, never_decide: bool = False) -> None:
        self.searches = searches
        self.never_decide = never_decide
        self.seen_results: list[str] = []

    def __call__(
        self, input: list[Any], tools: Any, tool_choice: Any, config: GenerateConfig
    ) -> ModelOutput:
        start = input[0].text
        rounds_done = sum(1 for m in input if m.role == "assistant")
        if rounds_done:
            self.seen_results.append(input[-1].text)
        graph = "Kestrel" in start
        if self.never_decide or rounds_done < self.searches:
            topic = "graph transformer pruning" if graph else "recurrent dropout speech"
            text = f"Let me look.\nQuery: {topic}"
        else:
            text = "Done.\nVerdict: " + ("NOVEL" if graph else "NOT NOVEL")
        out = ModelOutput.from_content("mockllm/model", text)
        out.usage = USAGE
        return out


def test_ai_scientist_pairwise_compares_two_decisions(
    search_set: dict[str, str], tmp_path: Path
) -> None:  # noqa: F811
    script = RoundsScript(searches=2)
    log = run(
        novelty_pairwise(
            dataset=search_set["dataset"],
            judge="ai_scientist",
            retrieval=2,
            retrieval_corpus=search_set["corpus"],
            cache=False,
        ),
        script,
        tmp_path,
    )
    meta = score_meta(log)
    assert (
        meta["judge"] == "ai_scientist"
        and meta["verdict"] == "a"
        and meta["calls"][0]["parse"] == "strict"
    )
    retrieved = meta["retrieved"]
    assert [(q["side"], q["query"]) for q in retrieved["queries"]] == [
        ("a", "graph transformer pruning"),
        ("a", "graph transformer pruning"),
        ("b", "recurrent dropout speech"),
        ("b", "recurrent dropout speech"),
    ]
    assert set(retrieved["ids"]["a"]) <= {"g0", "g1", "g2", "g3"} and set(
        retrieved["ids"]["b"]
    ) <= {"s0", "s1", "s2"}
    assert "n0" not in " ".join(script.seen_results) and "[dup]" not in " ".join(
        script.seen_results
    )
    assert "Round 1 of 3" in script.seen_results[0]


def test_ai_scientist_round_limit_gives_invalid_not_a_guess(
    search_set: dict[str, str], tmp_path: Path
) -> None:  # noqa: F811
    script = RoundsScript(searches=0, never_decide=True)
    log = run(
        novelty_pointwise(
            dataset=search_set["dataset"],
            judge="ai_scientist",
            retrieval_corpus=search_set["corpus"],
            cache=False,
        ),
        script,
        tmp_path,
    )
    meta = score_meta(log)
    assert meta["verdict"] == "invalid" and meta["calls"][0]["parse"] == "failed"
    assert len(meta["retrieved"]["queries"]) == 3  # one search per round, no more
    assert "This was the last search" in script.seen_results[-1]


def test_provider_without_tools_fails_the_run_clearly(
    search_set: dict[str, str], tmp_path: Path
) -> None:  # noqa: F811
    """Stand-in for our litellm/local providers, which raise this ValueError when offered tools."""

    def no_tools(
        input: list[Any], tools: Any, tool_choice: Any, config: GenerateConfig
    ) -> ModelOutput:
        if tools:
            raise ValueError("litellm provider: tools are not supported")
        out = ModelOutput.from_content("mockllm/model", "Verdict: NOVEL")
        out.usage = USAGE
        return out

    log = eval(
        novelty_pointwise(
            dataset=search_set["dataset"],
            judge="agentic",
            retrieval_corpus=search_set["corpus"],
            cache=False,
        ),
        model=get_model("mockllm/model", custom_outputs=no_tools),
        log_dir=str(tmp_path / "logs"),
        display="none",
    )[0]
    # every sample errors with the reason (the task scores errored samples: `error`, no calls)
    assert log.status == "error" and log.samples
    for sample in log.samples:
        assert (
            sample.error is not None
            and "needs a model provider with tool calling" in sample.error.message
        )
        assert sample.scores is not None and sample.scores["novelty"].answer == "error"
        assert unit(log, sample)["error"].startswith("could not judge: no judge calls recorded")


def test_options_a_judge_cannot_honour_are_rejected(search_set: dict[str, str]) -> None:  # noqa: F811
    with pytest.raises(ValueError, match="'ai_scientist' cannot honour both_orders, prompt"):
        novelty_pairwise(
            dataset=search_set["dataset"],
            judge="ai_scientist",
            prompt="p1_no_guardrails",
            both_orders=True,
        )
    with pytest.raises(ValueError, match="'novelty_checker' cannot honour prompt"):
        novelty_pointwise(
            dataset=search_set["dataset"], judge="novelty_checker", prompt="p3_judged_novel"
        )
    with pytest.raises(ValueError, match="unknown pairwise prompt"):
        novelty_pairwise(dataset=search_set["dataset"], judge="agentic", prompt="no_such_prompt")
    task = novelty_pairwise(
        dataset=search_set["dataset"], judge="agentic", prompt="p4_which_novel", both_orders=True
    )
    assert task.metadata is not None and task.metadata["judgeaudit"]["judge"] == "agentic"


def test_agentic_judge_through_inspects_openai_provider(
    search_set: dict[str, str],
    tmp_path: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Real Inspect OpenAI-compatible provider against `tests/servers/openai_recorded.py` (hosted APIs are
    unreachable here): the tool schema goes out, the scripted tool call comes back, the results go out."""
    from servers.openai_recorded import RecordedOpenAIServer, Reply, chat_completion

    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    call = chat_completion("", "judge-model", finish_reason="tool_calls")
    call["choices"][0]["message"].update(
        content=None,
        tool_calls=[
            {
                "id": "call_1",
                "type": "function",
                "function": {
                    "name": "search_prior_work",
                    "arguments": '{"query": "graph transformer pruning"}',
                },
            }
        ],
    )
    with RecordedOpenAIServer(
        script=deque([Reply(200, call)]),
        default_content=lambda body: "Prior work covers pruning only.\nVerdict: A",
    ) as srv:
        model = get_model("openai-api/fake/judge-model", base_url=srv.url, api_key="test-key")
        log = eval(
            novelty_pairwise(
                dataset=search_set["dataset"],
                judge="agentic",
                retrieval=2,
                retrieval_corpus=search_set["corpus"],
            ),
            model=model,
            log_dir=str(tmp_path / "logs"),
            display="none",
        )[0]
        requests = [r["body"] for r in srv.requests]
    assert log.status == "success", log.error
    assert len(requests) == 2
    assert [t["function"]["name"] for t in requests[0]["tools"]] == ["search_prior_work"]
    tool_reply = next(m for m in requests[1]["messages"] if m["role"] == "tool")
    assert "[g" in str(tool_reply["content"]) and "[n0]" not in str(tool_reply["content"])
    meta = score_meta(log)
    assert (
        meta["verdict"] == "a"
        and meta["retrieved"]["queries"][0]["query"] == "graph transformer pruning"
    )
    assert (
        log.samples
        and log.samples[0].model_usage["openai-api/fake/judge-model"].input_tokens == 2 * 42
    )


def test_search_judges_refuse_probe_arms_they_cannot_apply() -> None:
    """A forced order/prompt/cue from a probe arm is an error naming the sample and judge, not ignored."""
    from inspect_ai.model import ModelName
    from inspect_ai.solver import TaskState

    from judgeaudit.judges.llm.retrieval import ItemSearchContext

    state = TaskState(
        ModelName("mockllm/model"), "p1|order_ba", 0, "x", [], metadata={"orders": ["ba"]}
    )
    with pytest.raises(
        ValueError,
        match="sample 'p1\\|order_ba': the ai_scientist judge .* cannot apply the probe's orders",
    ):
        ItemSearchContext(state, "ai_scientist", 1, "unused", "bm25")


def test_max_searches_and_max_turns_bound_the_agentic_loop(
    search_set: dict[str, str], tmp_path: Path
) -> None:  # noqa: F811
    """-T max_searches / -T max_turns replace the defaults, bound the loop and are recorded in settings."""
    script = SearchThenAnswer([f"graph pruning {i}" for i in range(10)], "A")
    task = novelty_pairwise(
        dataset=search_set["dataset"],
        judge="agentic",
        retrieval_corpus=search_set["corpus"],
        cache=False,
        max_searches=2,
    )
    log = run(task, script, tmp_path / "searches")
    assert len(score_meta(log)["retrieved"]["queries"]) == 2 and script.turns == 3
    assert log.eval.metadata is not None
    assert log.eval.metadata["judgeaudit"]["settings"]["max_searches"] == 2
    assert log.eval.metadata["judgeaudit"]["settings"]["max_turns"] == MAX_TURNS

    script = SearchThenAnswer([f"graph pruning {i}" for i in range(10)], "A")
    task = novelty_pairwise(
        dataset=search_set["dataset"],
        judge="agentic",
        retrieval_corpus=search_set["corpus"],
        cache=False,
        max_searches=6,
        max_turns=3,
    )
    log = run(task, script, tmp_path / "turns")
    meta = score_meta(log)
    assert (
        len(meta["retrieved"]["queries"]) == 3 and script.turns == 4
    )  # 3 turns with the tool, then the final one
    assert script.offered_tools == [1, 1, 1, 0] and meta["verdict"] == "a"
    assert (meta["retrieved"]["max_searches"], meta["retrieved"]["max_turns"]) == (6, 3)
    assert log.eval.metadata is not None
    settings = log.eval.metadata["judgeaudit"]["settings"]
    assert (settings["max_searches"], settings["max_turns"]) == (6, 3)


def test_ai_scientist_rounds_follow_max_searches(
    search_set: dict[str, str], tmp_path: Path
) -> None:  # noqa: F811
    script = RoundsScript(searches=0, never_decide=True)
    log = run(
        novelty_pointwise(
            dataset=search_set["dataset"],
            judge="ai_scientist",
            retrieval_corpus=search_set["corpus"],
            cache=False,
            max_searches=1,
        ),
        script,
        tmp_path,
    )
    meta = score_meta(log)
    assert len(meta["retrieved"]["queries"]) == 1 and meta["retrieved"]["rounds"] == 1
    assert "Round 1 of 1" in script.seen_results[0] and meta["verdict"] == "invalid"
    assert log.eval.metadata is not None
    settings = log.eval.metadata["judgeaudit"]["settings"]
    assert (settings["rounds"], settings["max_searches"]) == (1, 1)


def test_loop_budgets_are_validated(search_set: dict[str, str]) -> None:  # noqa: F811
    with pytest.raises(
        ValueError,
        match=r"judge 'agentic': -T max_searches must be >= 1 \(0 = the judge's default 4\), got -1",
    ):
        novelty_pairwise(dataset=search_set["dataset"], judge="agentic", max_searches=-1)
    with pytest.raises(ValueError, match=r"judge 'agentic': -T max_turns must be >= 1 .*got -2"):
        novelty_pointwise(dataset=search_set["dataset"], judge="agentic", max_turns=-2)
    with pytest.raises(
        ValueError,
        match=r"judge 'ai_scientist': -T max_searches must be >= 1 \(0 = the judge's default 3\)",
    ):
        novelty_pointwise(dataset=search_set["dataset"], judge="ai_scientist", max_searches=-3)
    with pytest.raises(ValueError, match="'ai_scientist' cannot honour max_turns"):
        novelty_pairwise(dataset=search_set["dataset"], judge="ai_scientist", max_turns=2)
    with pytest.raises(ValueError, match="'novelty_checker' cannot honour max_searches"):
        novelty_pairwise(dataset=search_set["dataset"], judge="novelty_checker", max_searches=2)
    with pytest.raises(ValueError, match="whole number"):
        novelty_pairwise(dataset=search_set["dataset"], judge="agentic", max_turns="3")  # type: ignore[arg-type]
