"""Agentic novelty judge (`-T judge=agentic`): the model searches prior work through a tool, then decides.

Per presented order and call, the model gets the prompted judge's task text (`-T prompt=...`)
and a system message (`prompts/judge/agentic/system.txt`) offering the Inspect tool
`search_prior_work(query)` over the offline retriever (BM25 over the bundled ICLR 2026
corpus unless `-T retrieval_corpus=...`; `-T retrieval=n` sets hits per search, default 5;
documents dated strictly before the item's submission date when known; the item's own ideas
never returned). The loop is bounded by two task options (0 = the default here):
`-T max_searches=n` (default `MAX_SEARCHES`; further calls are answered "budget used up"
without searching; calls with unreadable arguments are answered with an error by Inspect and
are not searches) and `-T max_turns=n` (default `MAX_TURNS`: model turns with the tool
offered). When either is spent the model is asked once more, without tools, for its verdict
(`prompts/judge/agentic/final.txt`, ending in the protocol's answer instruction). Both are
recorded in the task metadata `settings`. Search results come back fenced with the boundary
the task prompt states (`judgeaudit.fence.fence_in`), and the answer is parsed without
the lines that repeat the task, a tool result or a fenced text.
The reply that calls no tool is the answer, parsed with `judgeaudit.judges.parse` into the
usual call record; every query and the ids it returned land in `Score.metadata["retrieved"]`.

Providers: any Inspect provider with tool calling; our `litellm/<model>` maps the tool to
OpenAI-style `tools`, and `local/<model>` (a base model) uses our text protocol `tool_text/1`
(`judgeaudit.providers.tool_text`; `-M grammar=auto` keeps its replies to one well-formed
call or the verdict line).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from inspect_ai import Task
from inspect_ai.model import (
    CachePolicy,
    ChatMessage,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
    GenerateConfig,
    Model,
    ModelOutput,
    execute_tools,
    get_model,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import Tool, tool
from inspect_ai.util import LimitExceededError

from judgeaudit.fence import fence_in, fill, prompt_boundary
from judgeaudit.judges.build import judge_task
from judgeaudit.judges.llm.prompted import call_seed, record_from_output
from judgeaudit.judges.llm.retrieval import (
    RETRIEVED_KEY,
    check_method,
    iso_datetime,
    item_sides,
    submission_cutoff,
)
from judgeaudit.judges.options import TaskOptionError
from judgeaudit.judges.prompts import load_template, plan_calls, render_call
from judgeaudit.judges.records import error_text, leave_records
from judgeaudit.judges.verdicts import DEFAULT_SPLIT_RULE, CallRecord, Order, failed_call
from judgeaudit.protocol import answer_instruction
from judgeaudit.providers.guard import guarded
from judgeaudit.providers.replies import unsupported
from judgeaudit.resources import read_prompt
from judgeaudit.retrieval import BUNDLED_CORPUS, Exclusion, Retriever, get_retriever
from judgeaudit.stats import DEFAULT_RESAMPLES, DEFAULT_SEED

MAX_SEARCHES = 4
MAX_TURNS = 8
DEFAULT_HITS = 5
ABSTRACT_CHARS = 700  # abstracts in tool results are cut here to bound the conversation


@dataclass
class PriorWorkSearch:
    """The search behind the tool for one agent run: target excluded, cutoff applied, budget counted."""

    retriever: Retriever
    exclude: Exclusion
    cutoff: int | None
    hits: int
    max_searches: int
    label: dict[str, Any] = field(
        default_factory=dict
    )  # order / call_index recorded with each query
    queries: list[dict[str, Any]] = field(default_factory=list)
    boundary: str | None = (
        None  # the fence boundary the conversation states; results are fenced with it
    )

    @property
    def used(self) -> int:
        """Searches run so far (empty queries and over-budget calls are not searches)."""
        return sum(1 for q in self.queries if q.get("error") is None)

    def run(self, query: str) -> str:
        """Search and format the results for the model; refusals are recorded and explained."""
        query = (query or "").strip()
        over_budget = self.used >= self.max_searches
        record: dict[str, Any] = {
            "side": "search",
            **self.label,
            "query": query,
            "ids": [],
            "error": None,
        }
        self.queries.append(record)
        if not query:
            record["error"] = "empty query"
            return "Error: the query is empty; give a few keywords."
        if over_budget:
            record["error"] = "budget used up"
            return f"Search budget used up ({self.max_searches} searches); give your verdict now."
        try:
            result = self.retriever.search(
                query, k=self.hits, cutoff=self.cutoff, exclude=self.exclude
            )
        except (
            ValueError
        ) as exc:  # e.g. a query of punctuation only: the model's mistake, told back to it
            record["error"] = str(exc)
            return f"Error: {exc}; give a few keywords."
        record.update(
            ids=[h.doc.doc_id for h in result.hits],
            excluded_target=result.excluded_target,
            after_cutoff=result.after_cutoff,
        )
        if not result.hits:
            return "No earlier papers found for this query."
        return fence_in(
            "\n\n".join(
                f"[{h.doc.doc_id}] {h.doc.title.strip()} ({h.doc.date.date().isoformat()})\n"
                f"{_cut(h.doc.abstract.strip())}"
                for h in result.hits
            ),
            self.boundary,
        )


def _cut(text: str) -> str:
    return text if len(text) <= ABSTRACT_CHARS else text[:ABSTRACT_CHARS].rstrip() + " ..."


@tool
def search_prior_work(searcher: PriorWorkSearch) -> Tool:
    """The literature-search tool offered to the agentic judge."""

    async def execute(query: str) -> str:
        """Search a collection of earlier research papers and return the closest matches.

        Args:
            query: A few keywords naming the problem and/or the method to look for.

        Returns:
            The closest earlier papers, each as [id] title (date) followed by its abstract.
        """
        return searcher.run(query)

    return execute


async def run_agent(
    model: Model,
    messages: list[ChatMessage],
    searcher: PriorWorkSearch,
    config: GenerateConfig,
    cache: CachePolicy | bool,
    max_turns: int = MAX_TURNS,
    kind: str = "pairwise",
) -> ModelOutput:
    """Let the model search until it replies without a tool call (bounded); returns the final output."""
    tools = [search_prior_work(searcher)]
    for _ in range(max_turns):
        if searcher.used >= searcher.max_searches:
            break
        output = await model.generate(messages, tools=tools, config=config, cache=cache)
        messages.append(output.message)
        if not output.message.tool_calls:
            return output
        result = await execute_tools(messages, tools)
        messages.extend(result.messages)
    final = fill(
        read_prompt("judge/agentic/final.txt").strip(),
        {"answer_instruction": answer_instruction(kind)},
    )
    messages.append(ChatMessageUser(content=final))
    output = await model.generate(messages, tools=[], config=config, cache=cache)
    messages.append(output.message)
    return output


@solver
def agentic_judge(
    kind: str,
    prompt: str = "reference",
    k: int = 1,
    both_orders: bool = False,
    seed: int | None = None,
    cache: bool = True,
    corpus: str = BUNDLED_CORPUS,
    method: str = "bm25",
    hits: int = DEFAULT_HITS,
    max_searches: int = MAX_SEARCHES,
    max_turns: int = MAX_TURNS,
) -> Solver:
    """k agent runs per presented order, each searching prior work and ending in a parsed verdict."""
    if k < 1 or hits < 1 or max_searches < 1 or max_turns < 1:
        raise ValueError(
            f"k, hits, max_searches and max_turns must be >= 1, got {k}, {hits}, {max_searches}, "
            f"{max_turns}"
        )
    load_template(kind, prompt)
    checked = check_method(method)
    system = (
        read_prompt("judge/agentic/system.txt").strip().replace("{max_searches}", str(max_searches))
    )

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        name, orders = plan_calls(kind, state.metadata, prompt, both_orders)
        arm_seed = state.metadata.get("seed")
        base_seed = arm_seed if arm_seed is not None else seed
        retriever = get_retriever(corpus, checked)
        ideas = list(item_sides(state.metadata).values())
        exclude, cutoff = Exclusion.for_ideas(ideas), submission_cutoff(retriever, ideas)
        model = guarded(get_model())
        calls: list[CallRecord] = []
        queries: list[dict[str, Any]] = []
        first: tuple[list[ChatMessage], ModelOutput | None] | None = None
        for order in orders:
            text = render_call(kind, name, state.metadata, order)
            for call_index in range(k):
                searcher = PriorWorkSearch(
                    retriever,
                    exclude,
                    cutoff,
                    hits,
                    max_searches,
                    label={"order": order, "call_index": call_index},
                    boundary=prompt_boundary(text),
                )
                messages: list[ChatMessage] = [
                    ChatMessageSystem(content=system),
                    ChatMessageUser(content=text),
                ]
                record, output = await _one_run(
                    model, kind, order, call_index, messages, searcher, base_seed, cache, max_turns
                )
                calls.append(record)
                queries.extend(searcher.queries)
                first = first or (messages, output)
        seen = list(dict.fromkeys(i for q in queries for i in q["ids"]))
        state.metadata[RETRIEVED_KEY] = {
            "corpus": retriever.corpus.name,
            "method": retriever.description,
            "k": hits,
            "cutoff": iso_datetime(cutoff),
            "ids": {"search": seen},
            "queries": queries,
            "max_searches": max_searches,
            "max_turns": max_turns,
        }
        if first is not None:
            state.messages = first[0]
            if first[1] is not None:
                state.output = first[1]
        leave_records(state, [c.to_dict() for c in calls], name, orders, k)
        return state

    return solve


async def _one_run(
    model: Model,
    kind: str,
    order: Order,
    call_index: int,
    messages: list[ChatMessage],
    searcher: PriorWorkSearch,
    seed: int | None,
    cache: bool,
    max_turns: int = MAX_TURNS,
) -> tuple[CallRecord, ModelOutput | None]:
    """One agent run as a call record; a failed run becomes an `error` record with its cause."""
    config = (
        GenerateConfig(seed=call_seed(seed, call_index)) if seed is not None else GenerateConfig()
    )
    scopes = {
        "judgeaudit_call": str(call_index),
        "judgeaudit_seed": str(seed),
        "judgeaudit_judge": "agentic",
    }
    policy: CachePolicy | bool = CachePolicy(scopes=scopes) if cache else False
    try:
        output = await run_agent(model, messages, searcher, config, policy, max_turns, kind)
    except LimitExceededError:
        raise
    except Exception as exc:  # a failed run is recorded (the sample errors after all runs); no tool support ends it
        if _no_tool_support(exc):
            raise RuntimeError(
                f"the agentic judge needs a model provider with tool calling; {model.name} has none "
                f"({error_text(exc, model)}); use an Inspect provider with tools, or "
                "-T judge=ai_scientist / novelty_checker (text only)"
            ) from exc
        return failed_call(order, call_index, error_text(exc, model)), None
    return record_from_output(kind, order, call_index, output, prompt=shown_text(messages)), output


def shown_text(messages: list[ChatMessage]) -> str:
    """What the model was shown (the task, tool results, the final request; the task states the
    fence rule first): the parser does not read reply lines repeating it or a fenced text."""
    return "\n\n".join(m.text for m in messages if isinstance(m, ChatMessageUser | ChatMessageTool))


def _no_tool_support(exc: BaseException) -> bool:
    """True for a provider's refusal of tool calling (our litellm and local providers raise ValueError)."""
    text = str(exc).lower()
    return unsupported(exc) and "tool" in text and "not supported" in text


def loop_budget(judge: str, options: dict[str, Any], name: str, default: int) -> int:
    """A loop-budget task option (`max_searches` / `max_turns`): absent or 0 = `default`, else >= 1."""
    value = options.get(name) or 0
    if not isinstance(value, int) or isinstance(value, bool):
        raise TaskOptionError(f"judge {judge!r}: -T {name} must be a whole number, got {value!r}")
    if value < 0:
        raise TaskOptionError(
            f"judge {judge!r}: -T {name} must be >= 1 (0 = the judge's default {default}), got {value}"
        )
    return value or default


def agentic_task_from_options(
    kind: str,
    judge: str,
    dataset: str,
    *,
    idea_format: str = "abstract",
    probe: str | None = None,
    seed: int = DEFAULT_SEED,
    resamples: int = DEFAULT_RESAMPLES,
    **options: Any,
) -> Task:
    """Catalog factory for `-T judge=agentic` (`retrieval` = hits per search; 0 = default for all options)."""
    hits = int(options.get("retrieval") or DEFAULT_HITS)
    max_searches = loop_budget(judge, options, "max_searches", MAX_SEARCHES)
    max_turns = loop_budget(judge, options, "max_turns", MAX_TURNS)
    corpus = options.get("retrieval_corpus") or BUNDLED_CORPUS
    prompt = options.get("prompt", "reference")
    solver_ = agentic_judge(
        kind,
        prompt=prompt,
        k=options.get("k", 1),
        both_orders=options.get("both_orders", False),
        seed=seed,
        cache=options.get("cache", True),
        corpus=corpus,
        hits=hits,
        max_searches=max_searches,
        max_turns=max_turns,
    )
    settings = {
        "corpus": corpus,
        "hits": hits,
        "max_searches": max_searches,
        "max_turns": max_turns,
    }
    return judge_task(
        kind,
        judge,
        dataset,
        solver_,
        idea_format=idea_format,
        probe=probe,
        seed=seed,
        resamples=resamples,
        split_rule=options.get("split_rule") or DEFAULT_SPLIT_RULE,
        metadata={"prompt": prompt, "settings": settings},
    )
