"""Per-item cost of the retrieval judges' prior-work step on the bundled corpus (no LLM involved).

For every pair of a bundled set: the retrieval-augmented judge's step (BM25 top-k per idea with
cutoff and exclusion, related-work block rendered for both orders) and the novelty checker's
step (BM25 top-20 candidates per idea, TF-IDF rerank to k). Reports index load/build time and
the median / p95 milliseconds per item of each step.

    python tests/benchmarks/bench_judge_retrieval.py [--dataset iclr2026/human_only] [--k 5] [--items 162]
"""

from __future__ import annotations

import argparse
import statistics
import time

from judgeaudit.data.samples import item_to_sample, load_items
from judgeaudit.judges.llm.novelty_checker import CANDIDATES, rerank
from judgeaudit.judges.llm.retrieval import (
    item_sides,
    render_block,
    retrieve_for_sides,
    submission_cutoff,
)
from judgeaudit.retrieval import Exclusion, get_retriever


def _summary(name: str, times: list[float]) -> str:
    ms = sorted(t * 1000 for t in times)
    p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))]
    return f"{name}: median {statistics.median(ms):.1f} ms/item, p95 {p95:.1f} ms/item over {len(ms)} items"


def main() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataset", default="iclr2026/human_only")
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--items", type=int, default=162)
    args = parser.parse_args()
    start = time.perf_counter()
    retriever = get_retriever()
    retriever.bm25  # noqa: B018  (load or build the index now, timed separately)
    print(
        f"corpus {retriever.corpus.name}: {len(retriever.corpus)} docs; index ready in {time.perf_counter() - start:.1f} s"
    )
    items = load_items(args.dataset, "pairwise")[: args.items]
    metas = [item_to_sample(item).metadata or {} for item in items]
    rag, checker = [], []
    for meta in metas:
        t0 = time.perf_counter()
        hits, _ = retrieve_for_sides(retriever, item_sides(meta), args.k)
        for order in ("ab", "ba"):
            render_block(hits, order)
        rag.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        sides = item_sides(meta)
        ideas = list(sides.values())
        exclude, cutoff = Exclusion.for_ideas(ideas), submission_cutoff(retriever, ideas)
        for idea in ideas:
            result = retriever.search(idea.text, k=CANDIDATES, cutoff=cutoff, exclude=exclude)
            rerank(idea.text, result.hits, args.k)
        checker.append(time.perf_counter() - t0)
    print(_summary(f"retrieval judge step (k={args.k}, 2 ideas, 2 orders)", rag))
    print(_summary(f"novelty checker step ({CANDIDATES} candidates -> {args.k}, 2 ideas)", checker))


if __name__ == "__main__":
    main()
