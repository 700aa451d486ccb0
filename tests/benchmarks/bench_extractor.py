"""Grouped cross-validation of the novelty-signal extractors and selection rules on the reference dev split.

    python tests/benchmarks/bench_extractor.py [--snapshot DIR] [--dev FILE] [--write-model] [--write DIR]
        [--embed --embed-cache FILE.npz] [--outside-sample FRACTION] [--reviews-as-of TIME|latest]
    python tests/benchmarks/bench_extractor.py --llm MODEL [--llm-papers N] [--llm-model-arg KEY=VALUE ...]
        [--llm-cache DIR] [--write DIR]

Deals the dev ideas into 5 folds by paper (stratified by label, fixed seed; `judgeaudit.mine.crossval`)
and, on the same folds, compares the cue extractor (`offline`: nothing to fit, only the selection
choices are picked on the training folds; its cue lists were written while reading this split,
so its figures are in-sample) with the learned n-gram stance model (`ngram`: weights, C,
thresholds and selection choices all fitted on the training folds). Prints the comparison
table and the ablation (each selection choice changed alone) as Markdown, and stores them as
JSON (`--write DIR` -> DIR/crossval.json, rendered into the dataset card by `judgeaudit mine`).
`--write-model` refits the stance model on the whole dev split with the same procedure and
writes judgeaudit/mine/models/ngram.json. Needs scikit-learn; reads /work/shared (never at run time).

Reviews are read as they stood at `--reviews-as-of` (default: the bundled set's time, the reference
study's crawl as the dev split's published score means place it; `latest` reads each review's latest
version). With a time, the cue extractor is also cross-validated on the latest versions, as one more
row of the ablation; another row reads its signals without the questions field (the reference's
passages all come from strengths and weaknesses).

`--embed` adds the MiniLM-embedding stance model (`embed`: prefiltered sentences embedded once,
cached in `--embed-cache`, logistic regressions, C, thresholds and selection fitted on the
training folds). Embedding is slow on 2 cores (~30 sentences/s under load), so `--outside-sample`
scores only a stratified sample of the non-dev candidates, each standing for side size / sample
size candidates in the kept-set estimates; every row of the table then uses that same sample.

`--llm MODEL` (an Inspect model name such as local/gemma-3-270m, or litellm/<model>) runs only
the LLM extractor's comparison (`judgeaudit.mine.crossval_llm`): every review of a stratified
subset of `--llm-papers` dev papers, through the miner's own LLM extractor (cue pre-filter on,
answers cached in `--llm-cache`, so a re-run is free), next to the cue extractor on the same
papers and folds; nothing is fitted for either except the selection choices, per fold on the
subset's training papers. It measures the cost (calls, tokens, wall time, unparsable answers)
and, with `--write DIR`, stores the result as `llm_subset` in DIR/crossval.json, leaving the
other rows as they are (a later full run keeps it).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from judgeaudit.mine.stance_embed import MAX_SEQ_LENGTH, VectorCache, prefilter

from judgeaudit.files import atomic_write_text
from judgeaudit.mine import crossval as cv
from judgeaudit.mine import crossval_llm as cvl
from judgeaudit.mine.calibrate import load_dev
from judgeaudit.mine.llm_signals import LLMExtractor
from judgeaudit.mine.parse import SIGNAL_FIELDS, as_of_ms, as_of_text
from judgeaudit.mine.pipeline import load_corpus
from judgeaudit.mine.stance import model_path
from judgeaudit.mine.summary import RunSummary
from judgeaudit.retrieval.embed import MiniLMEmbedder

SNAPSHOT = Path("/work/shared/data/openreview/ICLR.cc-2026-Conference")
DEV = Path("/work/shared/data/reference-study/human_only_dev.jsonl")
COMMAND = "python tests/benchmarks/bench_extractor.py --write datasets/iclr2026/human_only"
BUNDLED = Path(__file__).resolve().parents[2] / "datasets" / "iclr2026" / "human_only" / "manifest.json"
REVIEWS_AS_OF = json.loads(BUNDLED.read_text(encoding="utf-8"))["mining"]["reviews_as_of"] or "latest"  # the bundled set's


def _iv(d: dict[str, Any]) -> str:
    return f"{d['estimate']:.2f} [{d['low']:.2f}, {d['high']:.2f}]"


def _pr(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.2f}"


def _passages(r: dict[str, Any]) -> str:
    return (f"{_pr(r['affirm']['precision'])} | {_pr(r['affirm']['recall'])} | "
            f"{_pr(r['dispute']['precision'])} | {_pr(r['dispute']['recall'])}")


def table(rows: dict[str, dict[str, Any]]) -> str:
    """The comparison table in Markdown."""
    out = ["| extractor | affirm P | affirm R | dispute P | dispute R | novel kept | novel Jaccard (est.) | "
           "not_novel kept | not_novel Jaccard (est.) | swapped | kept novel / not_novel (snapshot, est.) |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, r in rows.items():
        n, nn = r["novel"], r["not_novel"]
        out.append(f"| {name} | {_passages(r)} | "
                   f"{n['kept_same']}/{n['dev_ideas']} = {_iv(n['kept_rate'])} | {_iv(n['jaccard'])} | "
                   f"{nn['kept_same']}/{nn['dev_ideas']} = {_iv(nn['kept_rate'])} | {_iv(nn['jaccard'])} | "
                   f"{n['swapped_in'] + nn['swapped_in']} | {n['kept_total_estimate']:.0f} / {nn['kept_total_estimate']:.0f} |")
    return "\n".join(out)


def ablation_table(rows: dict[str, dict[str, dict[str, Any]]]) -> str:
    """The ablation in Markdown: each choice changed alone, cross-validated."""
    out = ["| extractor | change | novel kept rate | novel Jaccard (est.) | not_novel kept rate | not_novel Jaccard (est.) |",
           "|---|---|---|---|---|---|"]
    for ext, variants in rows.items():
        for name, r in variants.items():
            out.append(f"| {ext} | {name} | {_iv(r['novel']['kept_rate'])} | {_iv(r['novel']['jaccard'])} | "
                       f"{_iv(r['not_novel']['kept_rate'])} | {_iv(r['not_novel']['jaccard'])} |")
    return "\n".join(out)


def _vectors(path: Path, papers: list[cv.Paper], log: Any) -> VectorCache:
    """MiniLM vectors of every prefiltered review sentence of `papers`, from `path` or computed and stored there."""
    texts = sorted({s for p in papers for r in p.reviews for s in r if prefilter(s)})
    if path.is_file():
        with np.load(path, allow_pickle=False) as z:
            cache = VectorCache([str(t) for t in z["texts"]], z["vectors"])
        if all(t in cache.index for t in texts):
            log(f"{len(texts)} sentence vectors from {path}")
            return cache
    log(f"embedding {len(texts)} prefiltered sentences (MiniLM, 2 cores: minutes)")
    vectors = MiniLMEmbedder(batch_size=128, max_seq_length=MAX_SEQ_LENGTH).encode(texts)
    np.savez(path, texts=np.asarray(texts, dtype=str), vectors=vectors)
    return VectorCache(texts, vectors)


def subset_table(rows: dict[str, dict[str, Any]]) -> str:
    """The subset comparison in Markdown (no Jaccard: the other candidates are not read)."""
    out = ["| extractor | affirm P | affirm R | dispute P | dispute R | novel kept | not_novel kept | swapped |",
           "|---|---|---|---|---|---|---|---|"]
    for name, r in rows.items():
        n, nn = r["novel"], r["not_novel"]
        out.append(f"| {name} | {_passages(r)} | {n['kept_same']}/{n['dev_ideas']} = {_iv(n['kept_rate'])} | "
                   f"{nn['kept_same']}/{nn['dev_ideas']} = {_iv(nn['kept_rate'])} | {n['swapped_in'] + nn['swapped_in']} |")
    return "\n".join(out)


def _model_arg(text: str) -> tuple[str, Any]:
    """KEY=VALUE with true/false/integers read as such."""
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"--llm-model-arg {text!r}: expected KEY=VALUE")
    lowered = value.lower()
    parsed: Any = True if lowered == "true" else False if lowered == "false" else int(value) if value.isdigit() else value
    return key, parsed


def llm_record(args: argparse.Namespace, corpus: Any, dev_papers: list[cv.Paper], log: Any) -> dict[str, Any]:
    """The LLM extractor and the cue extractor on a stratified subset of the dev papers, with the LLM's cost."""
    subset = cvl.llm_subset(dev_papers, args.llm_papers)
    reviews = sum(len(p.reviews) for p in subset)
    log(f"LLM subset: {len(subset)} dev papers ({sum(p.label == 'novel' for p in subset)} novel), {reviews} reviews")
    model_args = dict(args.llm_model_arg)
    extractor = LLMExtractor.from_spec(args.llm, args.llm_cache, model_args=model_args)
    start = time.time()
    extractor.connect()
    loaded = time.time() - start
    signals = []
    for i, p in enumerate(subset):
        signals.append([extractor.extract(r) for r in corpus.reviews[p.forum or ""]])
        log(f"  {i + 1}/{len(subset)} papers; {extractor.cost()}")
    wall = time.time() - start
    res = cvl.crossvalidate_subset(subset, cv.cue_scores(subset), signals)
    label = f"{len(subset)} dev papers"
    names = {"offline": f"offline (cue; rule by CV on the subset; {label})",
             "llm": f"{extractor.name} (LLM; rule by CV on the subset; {label})"}
    rows = {names[k]: cvl.summarise_subset(r, subset, resamples=args.resamples, seed=cv.SEED) for k, r in res.items()}
    extra = "".join(f" --llm-model-arg {k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in model_args.items())
    cost = {**extractor.cost(), "wall_seconds": round(wall, 1), "model_load_seconds": round(loaded, 1),
            "seconds_per_review_sent": round(wall / extractor.sent, 1) if extractor.sent else None,
            "load_average_at_end": [round(x, 2) for x in os.getloadavg()]}
    return {"command": f"python tests/benchmarks/bench_extractor.py --llm {args.llm} --llm-papers {args.llm_papers}"
                       f"{extra} --write datasets/iclr2026/human_only",
            "model": extractor.name, "papers": len(subset), "reviews": reviews,
            "papers_by_label": {c: sum(1 for p in subset if p.label == c) for c in cv.CLASSES},
            "rows": rows, "rules_per_fold": {names[k]: [r.to_dict() for r in v.rules] for k, v in res.items()},
            "cost": cost, "table_markdown": subset_table(rows)}


def _write_llm_record(directory: Path, record: dict[str, Any]) -> None:
    """Store `record` as `llm_subset` in DIR/crossval.json, keeping whatever else the file holds."""
    path = directory / "crossval.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = {}
    data = data if isinstance(data, dict) else {}
    data["llm_subset"] = record
    directory.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def _keep_llm_record(path: Path, record: dict[str, Any]) -> None:
    """A full run keeps the stored LLM subset comparison (it is recomputed only by `--llm`)."""
    try:
        old = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    if isinstance(old, dict) and isinstance(old.get("llm_subset"), dict):
        record["llm_subset"] = old["llm_subset"]


def _keep_full_record(path: Path, record: dict[str, Any]) -> None:
    """A sampled run keeps the stored run over all candidates (if any) as `full_outside`; the cue rule stays its."""
    try:
        old = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    full = old if old.get("outside_sample", 1.0) >= 1.0 else old.get("full_outside")
    if not isinstance(full, dict):
        return
    record["full_outside"] = {k: full[k] for k in ("command", "rows", "ablation", "rules_per_fold", "cue_rule_whole_dev",
                                                   "table_markdown", "ablation_markdown", "ngram_model_rule") if k in full}
    record["cue_rule_whole_dev_sampled"] = record["cue_rule_whole_dev"]
    record["cue_rule_whole_dev"] = full["cue_rule_whole_dev"]


def _cue_row(args: argparse.Namespace, dev: list[dict[str, Any]], weight: np.ndarray | None, corpus: Any,
             fields: tuple[str, ...] = SIGNAL_FIELDS) -> dict[str, Any]:
    """The cue extractor, rule by CV, on `corpus` with signals read from `fields` (same folds, same outside sample)."""
    dev_papers, outside = cv.build_papers(dev, corpus, fields)
    if weight is not None:
        outside, weight = cv.sample_outside(outside, args.outside_sample)
    res = cv.crossvalidate(dev_papers, outside, corpus, learners=[], outside_weight=weight)
    return cv.summarise(res["results"]["offline"], dev_papers, resamples=args.resamples, seed=cv.SEED)


def main() -> int:
    """Cross-validate, print, optionally write the JSON and the refitted model."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--snapshot", type=Path, default=SNAPSHOT)
    ap.add_argument("--dev", type=Path, default=DEV)
    ap.add_argument("--write", type=Path, default=None, help="directory to store crossval.json in")
    ap.add_argument("--write-model", action="store_true", help="refit on the whole dev split and write models/ngram.json")
    ap.add_argument("--resamples", type=int, default=10_000)
    ap.add_argument("--reviews-as-of", default=REVIEWS_AS_OF, metavar="TIME",
                    help=f"read reviews as they stood at TIME, or 'latest' (default: {REVIEWS_AS_OF}, the bundled set's)")
    ap.add_argument("--embed", action="store_true", help="also cross-validate the MiniLM-embedding stance model")
    ap.add_argument("--embed-cache", type=Path, default=Path("/tmp/judgeaudit-embed-cache.npz"),
                    help="sentence vectors (computed when missing)")
    ap.add_argument("--outside-sample", type=float, default=1.0,
                    help="fraction of the non-dev candidates scored (stratified by side; default all)")
    ap.add_argument("--hybrid", action="store_true",
                    help="also cross-validate the hybrid model (cue candidates re-scored over n-grams + cue hits)")
    ap.add_argument("--llm", default=None, metavar="MODEL",
                    help="run only the LLM extractor's subset comparison with this model (e.g. local/gemma-3-270m)")
    ap.add_argument("--llm-papers", type=int, default=12, help="dev papers in the LLM subset (default: 12)")
    ap.add_argument("--llm-model-arg", type=_model_arg, action="append", default=[], metavar="KEY=VALUE",
                    help="Inspect model arg for --llm (e.g. prefix_cache=true), repeatable")
    ap.add_argument("--llm-cache", type=Path, default=Path(".cache/judgeaudit/mining-llm/signals"),
                    help="answer cache of --llm (default: the miner's, .cache/judgeaudit/mining-llm/signals)")
    args = ap.parse_args()
    start = time.time()

    def log(msg: str) -> None:
        print(f"[{time.time() - start:6.1f}s] {msg}", file=sys.stderr, flush=True)

    as_of = None if args.reviews_as_of == "latest" else as_of_ms(args.reviews_as_of)
    corpus = load_corpus(args.snapshot, RunSummary(), reviews_as_of=as_of)
    dev = load_dev(args.dev)
    dev_papers, outside = cv.build_papers(dev, corpus)
    log(f"{len(dev_papers)} dev ideas, {len(outside)} other candidates")
    if args.llm:
        llm = llm_record(args, corpus, dev_papers, log)
        print(llm["table_markdown"])
        print(f"\ncost: {llm['cost']}")
        if args.write:
            _write_llm_record(args.write, llm)
        return 0
    weight = None
    if args.outside_sample < 1.0:
        outside, weight = cv.sample_outside(outside, args.outside_sample)
        log(f"scoring a stratified sample of {len(outside)} of them")
    learners = [cv.ngram_learner()]
    if args.embed:
        learners.append(cv.embed_learner(_vectors(args.embed_cache, [*dev_papers, *outside], log)))
    if args.hybrid:
        learners.append(cv.hybrid_learner())
    res = cv.crossvalidate(dev_papers, outside, corpus, learners=learners, outside_weight=weight, log=log)
    rows = {"offline (cue; reference rule, in-sample)": cv.summarise(res["in_sample_cue"], dev_papers, resamples=args.resamples, seed=cv.SEED)}
    names = {"offline": "offline (cue; rule by CV)", "ngram": "ngram (learned; all by CV)",
             "embed": "embed (MiniLM + LR; all by CV)", "hybrid": "hybrid (cue candidates + n-grams; all by CV)"}
    for name, r in res["results"].items():
        rows[names[name]] = cv.summarise(r, dev_papers, resamples=args.resamples, seed=cv.SEED)
    abl = {ext: {name: cv.summarise(r, dev_papers, resamples=args.resamples, seed=cv.SEED) for name, r in variants.items()}
           for ext, variants in res["ablation"].items()}
    if as_of is not None:
        log("cue extractor on the latest review versions")
        abl["offline"][f"reviews: as of {as_of_text(as_of)} <-> latest versions"] = _cue_row(
            args, dev, weight, load_corpus(args.snapshot, RunSummary()))
    log("cue extractor without the questions field")
    abl["offline"]["signal fields: with <-> without questions"] = _cue_row(
        args, dev, weight, corpus, tuple(f for f in SIGNAL_FIELDS if f != "questions"))
    record: dict[str, Any] = {
        "command": COMMAND + (" --embed" if args.embed else "") + (" --hybrid" if args.hybrid else "")
        + (f" --outside-sample {args.outside_sample:g}" if weight is not None else "")
        + (f" --reviews-as-of {args.reviews_as_of}" if args.reviews_as_of != REVIEWS_AS_OF else ""),
        "reviews_as_of": as_of_text(as_of) if as_of is not None else None,
        "outside_candidates_scored": len(outside), "outside_sample": args.outside_sample, "folds": res["folds"], "seed": res["seed"], "reference_share": cv.REFERENCE_SHARE,
        "rows": rows, "ablation": abl,
        "rules_per_fold": {name: [r.to_dict() for r in fr.rules] for name, fr in res["results"].items()},
        "cue_rule_whole_dev": res["cue_rule"].to_dict(),
        "table_markdown": table(rows), "ablation_markdown": ablation_table(abl),
    }
    if args.write_model:
        fitted, _ = cv.fit_procedure(dev_papers, outside, corpus, cv.class_sizes(dev_papers), learner=learners[0],
                                     log=log, outside_weight=weight)
        fitted.model.training.update({"C_chosen_by_inner_cv": fitted.c, "inner_objective": round(fitted.inner_objective, 4),
                                      "procedure": "judgeaudit.mine.crossval.fit_procedure on the whole dev split"})
        atomic_write_text(model_path("ngram"), json.dumps(fitted.model.to_json(), ensure_ascii=False) + "\n")
        record["ngram_model_rule"] = fitted.rule.to_dict()
        log(f"wrote {model_path('ngram')} (rule {fitted.rule})")
    print(record["table_markdown"])
    print()
    print(record["ablation_markdown"])
    print(f"\ncue rule chosen on the whole dev split: {res['cue_rule']}")
    log("done")
    if args.write:
        args.write.mkdir(parents=True, exist_ok=True)
        if weight is not None:
            _keep_full_record(args.write / "crossval.json", record)
        _keep_llm_record(args.write / "crossval.json", record)
        atomic_write_text(args.write / "crossval.json", json.dumps(record, indent=2, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
