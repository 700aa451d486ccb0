"""Literature-grounded novelty checker (`-T judge=novelty_checker`): retrieve, rerank, judge with cited evidence.

1. Retrieve: BM25 top-`CANDIDATES` per idea from the offline corpus (item's own ideas excluded,
   submission-date cutoff as for the other retrieval judges).
2. Rerank: the candidates re-scored by TF-IDF cosine (words and bigrams, fitted on the
   candidates and the idea) against the idea; the top `-T retrieval=n` (default 5) are kept.
3. Judge: one prompt (`prompts/judge/novelty_checker/`) showing the kept papers per idea, asking
   for the verdict with the supporting papers cited as `[id]`; `k` calls per presented order as
   for the prompted judge, verdicts parsed with `judgeaudit.judges.parse`. The ideas and the
   related-work block are fenced (`judgeaudit.fence`, rule stated from
   `prompts/judge/fence.txt`) and the answer instruction is the protocol's
   (`judgeaudit.protocol.answer_instruction`), so an output that echoes an idea is not read.
Citations are checked against the ids shown for the item: per call, the valid and invalid
(not shown) ids and whether the call cited nothing valid (`uncited`); totals in
`Score.metadata["retrieved"]["citations"]`. Citations are counted, never used to change a verdict.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from inspect_ai import Task
from inspect_ai.model import get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import collect

from judgeaudit.data.samples import unit_of
from judgeaudit.fence import FENCE_RULE_PROMPT, fenced_prompt
from judgeaudit.judges.build import judge_task
from judgeaudit.judges.llm.agentic import DEFAULT_HITS
from judgeaudit.judges.llm.prompted import judge_call
from judgeaudit.judges.llm.retrieval import (
    RETRIEVED_KEY,
    ItemSearchContext,
    check_method,
    iso_datetime,
    render_block,
)
from judgeaudit.judges.options import TaskOptionError
from judgeaudit.judges.prompts import default_orders
from judgeaudit.judges.records import leave_records
from judgeaudit.judges.verdicts import DEFAULT_SPLIT_RULE, Order
from judgeaudit.protocol import answer_instruction
from judgeaudit.providers.guard import guarded
from judgeaudit.resources import read_prompt
from judgeaudit.retrieval import BUNDLED_CORPUS, Hit
from judgeaudit.retrieval.embed import TfidfEmbedder, cosine_rows
from judgeaudit.stats import DEFAULT_RESAMPLES, DEFAULT_SEED

CANDIDATES = 20
PROMPT_NAME = "novelty_checker"
RERANK_METHOD = "bm25+tfidf_rerank"
FENCED: tuple[str, ...] = (
    "idea",
    "idea_a",
    "idea_b",
    "related_work",
)  # texts from outside the prompt
_BRACKETS = re.compile(r"\[([^\[\]\n]{1,300})\]")


def rerank(idea_text: str, hits: Sequence[Hit], keep: int) -> list[Hit]:
    """Candidates re-scored by TF-IDF cosine to the idea (ties keep the first-stage order); top `keep`."""
    if not hits:
        return []
    embedder = TfidfEmbedder(min_df=1)
    texts = [h.doc.text for h in hits]
    embedder.fit([*texts, idea_text])
    if not embedder.vocab:
        return list(hits[:keep])
    sims = cosine_rows(embedder.encode(texts), embedder.encode([idea_text]))
    order = sorted(range(len(hits)), key=lambda i: (-sims[i], i))[:keep]
    return [
        Hit(hits[i].doc, float(sims[i]), rank, RERANK_METHOD)
        for rank, i in enumerate(order, start=1)
    ]


def check_citations(raw: str, shown: Iterable[str]) -> dict[str, Any]:
    """Ids cited as `[id]` / `[id1, id2]` in a reply (bracketed text with spaces is not a citation), split into valid (shown to the model) and invalid; `uncited` if none valid."""
    allowed = set(shown)
    tokens = (part.strip() for group in _BRACKETS.findall(raw) for part in re.split(r"[,;]", group))
    cited = list(dict.fromkeys(t for t in tokens if t and not any(ch.isspace() for ch in t)))
    valid = [c for c in cited if c in allowed]
    return {
        "cited": cited,
        "valid": valid,
        "invalid": [c for c in cited if c not in allowed],
        "uncited": not valid,
    }


def render_prompt(kind: str, meta: dict[str, Any], hits: dict[str, list[Hit]], order: Order) -> str:
    """The checker prompt of one presented order (ideas and their evidence swapped for `ba`): the
    ideas and the related-work block fenced (`judgeaudit.fence`), the protocol's answer instruction."""
    text = read_prompt(f"judge/novelty_checker/{kind}.txt").strip()
    item = meta["item"]
    values = {"related_work": render_block(hits, order), "area": unit_of(meta)["area"]}
    if kind == "pointwise":
        values["idea"] = item["idea"]["text"]
    else:
        first, second = item["idea_a"]["text"], item["idea_b"]["text"]
        values["idea_a"], values["idea_b"] = (second, first) if order == "ba" else (first, second)
    values["answer_instruction"] = answer_instruction(kind)
    return fenced_prompt(text, values, FENCED, read_prompt(FENCE_RULE_PROMPT).strip())


@solver
def novelty_checker_judge(
    kind: str,
    k: int = 1,
    both_orders: bool = False,
    seed: int | None = None,
    cache: bool = True,
    corpus: str = BUNDLED_CORPUS,
    method: str = "bm25",
    hits: int = DEFAULT_HITS,
    candidates: int = CANDIDATES,
) -> Solver:
    """Retrieve, rerank, then k cited-evidence judge calls per presented order."""
    if k < 1 or hits < 1 or candidates < hits:
        raise TaskOptionError(
            f"need k >= 1, hits >= 1 and candidates >= hits, got {k}, {hits}, {candidates}"
        )
    checked = check_method(method)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        ctx = ItemSearchContext(state, "novelty_checker", seed, corpus, checked)
        base_seed, retriever, sides = ctx.base_seed, ctx.retriever, ctx.sides
        exclude, cutoff = ctx.exclude, ctx.cutoff
        kept: dict[str, list[Hit]] = {}
        queries = []
        for side, idea in sides.items():
            result = retriever.search(idea.text, k=candidates, cutoff=cutoff, exclude=exclude)
            kept[side] = rerank(idea.text, result.hits, hits)
            queries.append(
                {
                    "side": side,
                    "query": None,
                    "ids": [h.doc.doc_id for h in kept[side]],
                    "candidates": [h.doc.doc_id for h in result.hits],
                    "excluded_target": result.excluded_target,
                    "after_cutoff": result.after_cutoff,
                }
            )
        shown = {h.doc.doc_id for side_hits in kept.values() for h in side_hits}
        orders = default_orders(kind, both_orders)
        model = guarded(get_model())
        jobs = [
            judge_call(
                model,
                kind,
                order,
                i,
                render_prompt(kind, state.metadata, kept, order),
                base_seed,
                cache,
            )
            for order in orders
            for i in range(k)
        ]
        results = [await jobs[0]] if len(jobs) == 1 else await collect(*jobs)
        per_call = [
            {"order": r.order, "call_index": r.call_index, **check_citations(r.raw, shown)}
            for r, _ in results
        ]
        state.metadata[RETRIEVED_KEY] = {
            "corpus": retriever.corpus.name,
            "method": f"{retriever.description}+tfidf_rerank",
            "k": hits,
            "candidates": candidates,
            "cutoff": iso_datetime(cutoff),
            "ids": {side: [h.doc.doc_id for h in side_hits] for side, side_hits in kept.items()},
            "queries": queries,
            "citations": {
                "calls": per_call,
                "uncited_calls": sum(c["uncited"] for c in per_call),
                "invalid_citations": sum(len(c["invalid"]) for c in per_call),
            },
        }
        first = results[0][1]
        if first is not None:
            state.output = first
        leave_records(
            state,
            [record.to_dict() for record, _ in results],
            PROMPT_NAME,
            orders,
            k,
            answer=first.completion if first is not None else "",
        )
        return state

    return solve


def novelty_checker_task_from_options(
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
    """Catalog factory for `-T judge=novelty_checker` (own prompt; `retrieval` = papers kept per idea)."""
    hits = int(options.get("retrieval") or DEFAULT_HITS)
    corpus = options.get("retrieval_corpus") or BUNDLED_CORPUS
    solver_ = novelty_checker_judge(
        kind,
        k=options.get("k", 1),
        both_orders=options.get("both_orders", False),
        seed=seed,
        cache=options.get("cache", True),
        corpus=corpus,
        hits=hits,
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
            "settings": {"corpus": corpus, "hits": hits, "candidates": CANDIDATES},
        },
    )
