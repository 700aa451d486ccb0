"""Retrieval-augmented prompted judge (`-T retrieval=<k>`): top-k prior work per idea placed before the ideas.

For every idea of an item the offline retriever (`judgeaudit.retrieval`, BM25 unless another
method is asked for) returns the k most similar abstracts of the corpus, dated strictly
before the item's submission date when known (the earliest corpus date of any of the item's
own ideas; no cutoff otherwise), never any of the item's own ideas (the target, and in a pair
the other idea too). The hits are rendered into the `{related_work}` placeholder of the judge
prompt (block wording: `prompts/judge/retrieval/related_work.txt`), once per presented order
so the block follows the A/B labels, and the retrieved ids land in `Score.metadata["retrieved"]`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from inspect_ai.solver import Generate, Solver, TaskState, solver

from judgeaudit.data.contract import Idea, PairItem, PointItem
from judgeaudit.data.validate import parse_item
from judgeaudit.judges.options import TaskOptionError
from judgeaudit.resources import read_prompt
from judgeaudit.retrieval import BUNDLED_CORPUS, Exclusion, Hit, Retriever, get_retriever
from judgeaudit.retrieval.index import METHODS, Method

RETRIEVED_KEY = "retrieved"  # TaskState.metadata key, copied into Score.metadata by the scorer
RELATED_WORK_KEY = "related_work"  # TaskState.metadata: {order: rendered block} read by render_call
BLOCK_PROMPT = "judge/retrieval/related_work.txt"
_MARKER = re.compile(r"^=== ([a-z_]+) ===$")
_WHO = {"a": "Idea A", "b": "Idea B", "idea": "the idea"}


@lru_cache(maxsize=8)
def prompt_sections(relative: str) -> dict[str, str]:
    """Sections (`=== name ===` markers) of a prompt file under prompts/; errors name the file."""
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for number, line in enumerate(read_prompt(relative).splitlines(), start=1):
        match = _MARKER.match(line)
        if match:
            if match.group(1) in sections:
                raise ValueError(
                    f"prompts/{relative}:{number}: section {match.group(1)!r} appears twice"
                )
            current = sections.setdefault(match.group(1), [])
        elif current is None:
            if line.strip():
                raise ValueError(
                    f"prompts/{relative}:{number}: text before the first section marker"
                )
        else:
            current.append(line)
    return {key: "\n".join(lines).strip() for key, lines in sections.items()}


def item_sides(meta: Mapping[str, Any]) -> dict[str, Idea]:
    """The ideas of a sample's contract item by side (`a`/`b`, or `idea`); a clear error on a bad item."""
    item, problems = parse_item(meta["item"], meta["kind"])
    if item is None or problems:
        raise ValueError(f"sample {meta.get('item_id')!r}: invalid contract item: {problems}")
    if isinstance(item, PairItem):
        return {"a": item.idea_a, "b": item.idea_b}
    assert isinstance(item, PointItem)
    return {"idea": item.idea}


def submission_cutoff(retriever: Retriever, ideas: Sequence[Idea]) -> int | None:
    """Earliest corpus date (ms) of any of the ideas themselves (by id, forum or source id), else None."""
    dates = retriever.corpus.dates_by_id
    found = [
        dates[key]
        for idea in ideas
        for key in (idea.idea_id, idea.provenance.forum, idea.provenance.source_id)
        if key and key in dates
    ]
    return min(found) if found else None


def iso_datetime(ms: int | None) -> str | None:
    """Epoch milliseconds as an ISO UTC datetime (None stays None)."""
    return None if ms is None else datetime.fromtimestamp(ms / 1000, UTC).isoformat()


def retrieve_for_sides(
    retriever: Retriever, sides: Mapping[str, Idea], k: int
) -> tuple[dict[str, list[Hit]], dict[str, Any]]:
    """Top-k hits per side (query = the idea text) and the `retrieved` record for the score metadata."""
    if k < 1:
        raise TaskOptionError(f"retrieval k must be >= 1, got {k}")
    ideas = list(sides.values())
    exclude = Exclusion.for_ideas(ideas)
    cutoff = submission_cutoff(retriever, ideas)
    hits: dict[str, list[Hit]] = {}
    queries = []
    for side, idea in sides.items():
        result = retriever.search(idea.text, k=k, cutoff=cutoff, exclude=exclude)
        hits[side] = result.hits
        queries.append(
            {
                "side": side,
                "query": None,
                "ids": [h.doc.doc_id for h in result.hits],
                "excluded_target": result.excluded_target,
                "after_cutoff": result.after_cutoff,
            }
        )
    record = {
        "corpus": retriever.corpus.name,
        "method": retriever.description,
        "k": k,
        "cutoff": iso_datetime(cutoff),
        "ids": {side: [h.doc.doc_id for h in side_hits] for side, side_hits in hits.items()},
        "queries": queries,
    }
    return hits, record


def render_entries(hits: Sequence[Hit]) -> str:
    """The retrieved documents as prompt entries (`[id] title` then the abstract)."""
    entry = prompt_sections(BLOCK_PROMPT)["entry"]
    return "\n\n".join(
        entry.format(id=h.doc.doc_id, title=h.doc.title.strip(), abstract=h.doc.abstract.strip())
        for h in hits
    )


def render_block(hits: Mapping[str, Sequence[Hit]], order: str) -> str:
    """The related-work block of one presented order (sides relabelled as the model sees them)."""
    sections = prompt_sections(BLOCK_PROMPT)
    if order == "single":
        shown = [("idea", "idea")]
    else:
        first, second = ("a", "b") if order == "ab" else ("b", "a")
        shown = [(first, "a"), (second, "b")]
    parts = []
    for side, label in shown:
        who = _WHO[label]
        side_hits = hits.get(side, [])
        if side_hits:
            parts.append(sections["header"].format(who=who) + "\n\n" + render_entries(side_hits))
        else:
            parts.append(sections["none"].format(who=who))
    parts.append(sections["footer"])
    return "\n\n".join(parts)


def check_method(method: str) -> Method:
    """A retrieval method name, validated."""
    if method not in METHODS:
        raise TaskOptionError(
            f"unknown retrieval method {method!r}: use one of {', '.join(METHODS)}"
        )
    return method  # type: ignore[return-value]


class ItemSearchContext:
    """What a search-based judge needs for one sample: seed, retriever, sides, exclusion and cutoff."""

    def __init__(self, state: TaskState, judge: str, seed: int | None, corpus: str, method: Method):
        unsupported = [key for key in ("orders", "prompt", "cue") if state.metadata.get(key)]
        if unsupported:
            raise ValueError(
                f"sample {state.sample_id!r}: the {judge} judge uses its own prompt and "
                f"presentation; it cannot apply the probe's {', '.join(unsupported)}"
            )
        arm_seed = state.metadata.get("seed")
        self.base_seed: int | None = arm_seed if arm_seed is not None else seed
        self.retriever = get_retriever(corpus, method)
        self.sides = item_sides(state.metadata)
        ideas = list(self.sides.values())
        self.exclude = Exclusion.for_ideas(ideas)
        self.cutoff = submission_cutoff(self.retriever, ideas)


def related_work(
    meta: Mapping[str, Any], k: int, corpus: str = BUNDLED_CORPUS, method: Method = "bm25"
) -> tuple[dict[str, str], dict[str, Any]]:
    """(the rendered prior-work block per presentation order, the `retrieved` record) of a sample's
    metadata: the top-k hits per idea."""
    hits, record = retrieve_for_sides(get_retriever(corpus, method), item_sides(meta), k)
    orders = ("single",) if meta["kind"] == "pointwise" else ("ab", "ba")
    return {order: render_block(hits, order) for order in orders}, record


@solver
def retrieve_prior_work(k: int, corpus: str = BUNDLED_CORPUS, method: str = "bm25") -> Solver:
    """Retrieve top-k prior work per idea and leave the rendered blocks for the prompted judge."""
    if k < 1:
        raise TaskOptionError(f"retrieval must be >= 1 to retrieve, got {k}")
    checked = check_method(method)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        blocks, record = related_work(state.metadata, k, corpus, checked)
        state.metadata[RELATED_WORK_KEY] = blocks
        state.metadata[RETRIEVED_KEY] = record
        return state

    return solve
