"""AI-Scientist-style search-and-decide loop (`-T judge=ai_scientist`), our own implementation of the idea.

Per idea, a fixed number of rounds (`ROUNDS`, or `-T max_searches=n`; recorded as `rounds` and
`max_searches` in the task metadata `settings`): each round the model either asks for one search
(final line `Query: <keywords>`) and sees the top hits of the offline retriever, or decides
(the protocol's final line `Verdict: NOVEL|NOT NOVEL`, `judgeaudit.protocol.answer_instruction`).
The idea and every round's search results are fenced with the conversation's boundary, the
rule stated in the first message (`judgeaudit.fence`), and the decision is parsed
without the lines that repeat what the model was shown. When the rounds are used up it is asked to decide;
a reply that is still not a verdict is `invalid` (never coerced). Prompts: `prompts/judge/ai_scientist/`.
Pointwise natively; pairwise judges both ideas separately and compares the decisions
(novel vs not novel -> that idea; equal decisions -> `tie`; an invalid side -> `invalid`).
Searches exclude the item's own ideas and apply the submission-date cutoff as the other
retrieval judges do; `-T retrieval=n` sets hits per search (default 5). Every query and the
ids it returned land in `Score.metadata["retrieved"]` (with `side` and `call_index`).
"""

from __future__ import annotations

import re
from typing import Any

from inspect_ai import Task
from inspect_ai.model import (
    CachePolicy,
    ChatMessage,
    ChatMessageUser,
    GenerateConfig,
    Model,
    ModelOutput,
    get_model,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import LimitExceededError

from judgeaudit.data.samples import unit_of
from judgeaudit.fence import FENCE_RULE_PROMPT, fenced_prompt, fill, prompt_boundary
from judgeaudit.judges.build import judge_task
from judgeaudit.judges.llm.agentic import DEFAULT_HITS, PriorWorkSearch, loop_budget
from judgeaudit.judges.llm.prompted import call_seed, record_from_output
from judgeaudit.judges.llm.retrieval import (
    RETRIEVED_KEY,
    ItemSearchContext,
    check_method,
    iso_datetime,
)
from judgeaudit.judges.options import TaskOptionError
from judgeaudit.judges.records import error_text, leave_records
from judgeaudit.judges.verdicts import DEFAULT_SPLIT_RULE, CallRecord, failed_call
from judgeaudit.protocol import ERROR, answer_instruction
from judgeaudit.providers.guard import guarded
from judgeaudit.resources import read_prompt
from judgeaudit.retrieval import BUNDLED_CORPUS
from judgeaudit.stats import DEFAULT_RESAMPLES, DEFAULT_SEED

ROUNDS = 3
PROMPT_NAME = "ai_scientist"
_QUERY = re.compile(r"^\s*\**query\**\s*:\s*(.+?)\s*$", re.IGNORECASE)
_PARSE_RANK = {"strict": 0, "wrapped": 1, "failed": 2, "error": 3}


def final_query(raw: str) -> str | None:
    """The query of a reply whose last non-empty line is `Query: ...`, else None."""
    lines = [line for line in raw.splitlines() if line.strip()]
    match = _QUERY.match(lines[-1]) if lines else None
    return match.group(1).strip().strip("\"'") or None if match else None


def _prompt(relative: str) -> str:
    return read_prompt(f"judge/ai_scientist/{relative}").strip()


def start_prompt(idea_text: str, area: str, rounds: int) -> str:
    """The first message: the task, the fence rule, the fenced idea and the two reply forms."""
    values = {
        "rounds": str(rounds),
        "area": area,
        "idea": idea_text,
        "answer_instruction": answer_instruction("pointwise"),
    }
    return fenced_prompt(
        _prompt("start.txt"), values, ("idea",), read_prompt(FENCE_RULE_PROMPT).strip()
    )


def results_prompt(round_no: int, rounds: int, query: str, results: str, last: bool) -> str:
    """A round's results message (the results already fenced by the search), and the last-round request."""
    text = fill(
        _prompt("results.txt"),
        {"round": str(round_no), "rounds": str(rounds), "query": query, "results": results},
    )
    return (
        text
        + "\n\n"
        + fill(_prompt("last.txt"), {"answer_instruction": answer_instruction("pointwise")})
        if last
        else text
    )


def conversation_prompt(messages: list[ChatMessage]) -> str:
    """What the model was shown (every user message, the first stating the fence rule): the parser
    does not read a reply's lines that repeat it or a fenced idea or search result."""
    return "\n\n".join(m.text for m in messages if isinstance(m, ChatMessageUser))


async def decide_idea(
    model: Model,
    idea_text: str,
    area: str,
    searcher: PriorWorkSearch,
    rounds: int,
    config: GenerateConfig,
    cache: CachePolicy | bool,
) -> tuple[ModelOutput, list[ChatMessage]]:
    """Run the rounds for one idea; returns the output holding the decision (or the last reply)."""
    start = start_prompt(idea_text, area, rounds)
    searcher.boundary = prompt_boundary(start)
    messages: list[ChatMessage] = [ChatMessageUser(content=start)]
    for round_no in range(1, rounds + 2):
        output = await model.generate(messages, config=config, cache=cache)
        messages.append(output.message)
        query = final_query(output.completion)
        if output.error or query is None or round_no > rounds:
            return output, messages
        text = results_prompt(round_no, rounds, query, searcher.run(query), last=round_no == rounds)
        messages.append(ChatMessageUser(content=text))
    raise AssertionError("unreachable: the last round always returns")  # pragma: no cover


def combine(records: dict[str, CallRecord], call_index: int) -> CallRecord:
    """A pairwise call record from the two ideas' pointwise decisions (equal decisions are a tie;
    a failed side fails the call, else an invalid side makes it invalid)."""
    a, b = records["a"].verdict, records["b"].verdict
    if ERROR in (a, b):
        verdict = ERROR
    elif "invalid" in (a, b):
        verdict = "invalid"
    elif a == b:
        verdict = "tie"
    else:
        verdict = "a" if a == "novel" else "b"
    parse = max((r.parse for r in records.values()), key=_PARSE_RANK.__getitem__)
    raw = f"Idea A:\n{records['a'].raw}\n\nIdea B:\n{records['b'].raw}"
    errors = [f"{side}: {r.error}" for side, r in records.items() if r.error]
    reasons = [f"{side}: {r.reason}" for side, r in records.items() if r.reason]
    return CallRecord(
        "ab",
        verdict,
        verdict,
        raw,
        parse,
        call_index,
        "; ".join(errors) or None,
        "; ".join(reasons) or None,
    )


@solver
def ai_scientist_judge(
    kind: str,
    k: int = 1,
    seed: int | None = None,
    cache: bool = True,
    corpus: str = BUNDLED_CORPUS,
    method: str = "bm25",
    hits: int = DEFAULT_HITS,
    rounds: int = ROUNDS,
) -> Solver:
    """k search-and-decide runs per item (pairwise: per idea, then compared)."""
    if k < 1 or hits < 1 or rounds < 1:
        raise TaskOptionError(f"k, hits and rounds must be >= 1, got {k}, {hits}, {rounds}")
    checked = check_method(method)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        ctx = ItemSearchContext(state, "ai_scientist", seed, corpus, checked)
        base_seed, retriever, sides = ctx.base_seed, ctx.retriever, ctx.sides
        exclude, cutoff = ctx.exclude, ctx.cutoff
        model = guarded(get_model())
        calls: list[CallRecord] = []
        queries: list[dict[str, Any]] = []
        transcript: list[ChatMessage] = []
        for call_index in range(k):
            config = (
                GenerateConfig(seed=call_seed(base_seed, call_index))
                if base_seed is not None
                else GenerateConfig()
            )
            records: dict[str, CallRecord] = {}
            for side, idea in sides.items():
                scopes = {
                    "judgeaudit_call": str(call_index),
                    "judgeaudit_seed": str(base_seed),
                    "judgeaudit_judge": PROMPT_NAME,
                    "judgeaudit_side": side,
                }
                policy: CachePolicy | bool = CachePolicy(scopes=scopes) if cache else False
                searcher = PriorWorkSearch(
                    retriever,
                    exclude,
                    cutoff,
                    hits,
                    rounds,
                    label={"side": side, "call_index": call_index},
                )
                try:
                    output, messages = await decide_idea(
                        model,
                        idea.text,
                        idea.area or unit_of(state.metadata)["area"],
                        searcher,
                        rounds,
                        config,
                        policy,
                    )
                except LimitExceededError:
                    raise
                except (
                    Exception
                ) as exc:  # recorded; the sample errors once all its calls are recorded
                    records[side] = failed_call("single", call_index, error_text(exc, model))
                else:
                    records[side] = record_from_output(
                        "pointwise",
                        "single",
                        call_index,
                        output,
                        prompt=conversation_prompt(messages),
                    )
                    transcript = transcript or messages
                queries.extend(searcher.queries)
            calls.append(records["idea"] if kind == "pointwise" else combine(records, call_index))
        seen = {
            side: list(dict.fromkeys(i for q in queries if q["side"] == side for i in q["ids"]))
            for side in sides
        }
        state.metadata[RETRIEVED_KEY] = {
            "corpus": retriever.corpus.name,
            "method": retriever.description,
            "k": hits,
            "cutoff": iso_datetime(cutoff),
            "ids": seen,
            "queries": queries,
            "rounds": rounds,
        }
        orders = ["single"] if kind == "pointwise" else ["ab"]
        if transcript:
            state.messages = transcript
        leave_records(state, [c.to_dict() for c in calls], PROMPT_NAME, orders, k)
        return state

    return solve


def ai_scientist_task_from_options(
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
    """Catalog factory for `-T judge=ai_scientist` (own prompts; `retrieval` = hits per search,
    `max_searches` = rounds; 0 = default)."""
    hits = int(options.get("retrieval") or DEFAULT_HITS)
    rounds = loop_budget(judge, options, "max_searches", ROUNDS)
    corpus = options.get("retrieval_corpus") or BUNDLED_CORPUS
    solver_ = ai_scientist_judge(
        kind,
        k=options.get("k", 1),
        seed=seed,
        cache=options.get("cache", True),
        corpus=corpus,
        hits=hits,
        rounds=rounds,
    )
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
        metadata={
            "prompt": PROMPT_NAME,
            "settings": {"corpus": corpus, "hits": hits, "rounds": rounds, "max_searches": rounds},
        },
    )
