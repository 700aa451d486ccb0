"""Retrieval latency on the offline corpus, and metric-judge accuracy on the bundled Human-Only pairs.

Run: python tests/benchmarks/bench_retrieval.py [--queries 50] [--methods bm25,dense,hybrid]
     [--embedder auto] [--resamples 10000] [--out results.json]        (not collected by pytest)

Part 1 times one search per query (top-10, target excluded) on the full bundled ICLR 2026
corpus for each method, after the index is built or loaded from the disk cache (build/load
times are reported separately). Queries are the titles of seeded-random corpus papers; the
same loop also reports how often the paper's own abstract would have been rank 1 without the
exclusion (a sanity check that the index finds what it should).

Part 2 (when `datasets/iclr2026/human_only/pairwise.jsonl` exists) fits each metric judge's
rule on its fit split and reports strict/soft accuracy and tie rate on the scored split, each
with a percentile bootstrap interval from `judgeaudit.stats`.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from typing import Any

from judgeaudit.data.contract import PairItem, PointItem
from judgeaudit.data.samples import load_items
from judgeaudit.files import atomic_write_text
from judgeaudit.judges.score.metric import (
    METRIC_JUDGES,
    PriorWork,
    fit_rule,
    judge_item,
    split_items,
)
from judgeaudit.resources import datasets_root
from judgeaudit.retrieval.corpus import Exclusion, load_corpus
from judgeaudit.retrieval.embed import default_embedder, embed_available
from judgeaudit.retrieval.index import Retriever
from judgeaudit.stats import (
    PAIRWISE,
    POINTWISE,
    bootstrap_metric,
    pairwise_outcomes,
    pointwise_outcomes,
)


def bench_latency(
    n_queries: int, methods: list[str], embedder: str, seed: int = 7
) -> dict[str, Any]:
    """Per-query latency (ms) of each method over titles of seeded-random corpus papers."""
    corpus = load_corpus()
    rng = random.Random(seed)
    targets = rng.sample(list(corpus.documents), n_queries)
    shared = Retriever(
        corpus, "bm25", default_embedder(embedder) if any(m != "bm25" for m in methods) else None
    )
    out: dict[str, Any] = {"corpus_documents": len(corpus), "queries": n_queries, "k": 10}
    t0 = time.perf_counter()
    shared.bm25  # noqa: B018 - build or load
    out["bm25_build_or_load_s"] = round(time.perf_counter() - t0, 3)
    if any(m != "bm25" for m in methods):
        t0 = time.perf_counter()
        shared.vectors  # noqa: B018
        out["vectors_build_or_load_s"] = round(time.perf_counter() - t0, 3)
        out["embedder"] = shared.vectors.name
    for method in methods:
        retriever = shared.with_method(method)  # type: ignore[arg-type]
        retriever.search("warm up query about graphs", k=10)
        times, own_first = [], 0
        for doc in targets:
            t0 = time.perf_counter()
            scores = retriever.scores(doc.title)
            result = retriever.rank(scores, 10, None, Exclusion(ids=frozenset({doc.doc_id})))
            times.append((time.perf_counter() - t0) * 1000)
            assert doc.doc_id not in [h.doc.doc_id for h in result.hits]
            own_first += int(corpus.documents[int(scores.argmax())].doc_id == doc.doc_id)
        times.sort()
        out[method] = {
            "description": retriever.description,
            "median_ms": round(statistics.median(times), 2),
            "p90_ms": round(times[int(0.9 * (len(times) - 1))], 2),
            "mean_ms": round(statistics.fmean(times), 2),
            "own_paper_rank1_from_title": round(own_first / len(targets), 3),
        }
        print(f"{method:<7} {out[method]}", flush=True)
    return out


def bench_accuracy(embedder: str, resamples: int) -> dict[str, Any] | None:
    """Accuracy with bootstrap intervals of each metric judge on the bundled Human-Only pairs."""
    path = datasets_root() / "iclr2026" / "human_only" / "pairwise.jsonl"
    if not path.is_file():
        print(f"no bundled Human-Only pairs at {path}: accuracy part skipped", flush=True)
        return None
    items = [i for i in load_items(str(path.parent), "pairwise") if isinstance(i, PairItem)]
    prior = PriorWork(load_corpus(), embedder=embedder)
    split = split_items(items)
    out: dict[str, Any] = {
        "items": len(items),
        "split": split.to_dict(),
        "embedder": prior.embedder,
    }
    scored = [i for i in items if i.item_id in set(split.scored_ids)]
    for judge in METRIC_JUDGES:
        t0 = time.perf_counter()
        rule = fit_rule("pairwise", judge, items, prior, split)
        verdicts = [judge_item(item, rule, prior).verdict for item in scored]
        outcomes = pairwise_outcomes(verdicts, [i.gold for i in scored])
        row: dict[str, Any] = {
            "tolerance": rule.value,
            "fit_soft_accuracy": rule.fit_value,
            "n_scored": len(scored),
            "seconds": round(time.perf_counter() - t0, 2),
        }
        for name in ("strict_accuracy", "soft_accuracy", "tie_rate"):
            row[name] = bootstrap_metric(outcomes, PAIRWISE[name], resamples=resamples).to_dict()
        out[judge] = row
        out[judge]["pointwise"] = _pointwise(judge, prior, resamples)
        print(
            f"{judge:<17} strict {row['strict_accuracy']['estimate']:.3f} "
            f"[{row['strict_accuracy']['low']:.3f}, {row['strict_accuracy']['high']:.3f}] "
            f"tie rate {row['tie_rate']['estimate']:.3f} tol {rule.value:.4f} (n={len(scored)})",
            flush=True,
        )
    return out


def _pointwise(judge: str, prior: PriorWork, resamples: int) -> dict[str, Any] | None:
    """Macro-F1 with interval of one metric judge on the bundled Human-Only pointwise items."""
    path = datasets_root() / "iclr2026" / "human_only" / "pointwise.jsonl"
    if not path.is_file():
        return None
    items = [i for i in load_items(str(path.parent), "pointwise") if isinstance(i, PointItem)]
    split = split_items(items)
    rule = fit_rule("pointwise", judge, items, prior, split)
    scored = [i for i in items if i.item_id in set(split.scored_ids)]
    verdicts = [judge_item(item, rule, prior).verdict for item in scored]
    outcomes = pointwise_outcomes(verdicts, [i.gold for i in scored])
    return {
        "threshold": rule.value,
        "fit_macro_f1": rule.fit_value,
        "n_scored": len(scored),
        "macro_f1": bootstrap_metric(
            outcomes, POINTWISE["macro_f1"], resamples=resamples
        ).to_dict(),
    }


def main(argv: list[str] | None = None) -> int:
    """Run both parts and print (and optionally save) the figures as JSON."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--methods", default="bm25,dense,hybrid")
    parser.add_argument("--embedder", default="auto", help="auto | minilm | tfidf")
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--skip-accuracy", action="store_true")
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    methods = [m for m in args.methods.split(",") if m]
    results: dict[str, Any] = {"embed_extra": embed_available()}
    results["latency"] = bench_latency(args.queries, methods, args.embedder)
    if not args.skip_accuracy:
        results["accuracy"] = bench_accuracy(args.embedder, args.resamples)
    text = json.dumps(results, indent=2)
    print(text)
    if args.out:
        atomic_write_text(args.out, text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
