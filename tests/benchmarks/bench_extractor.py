"""Grouped cross-validation of the novelty-signal extractors and selection rules on the reference dev split.

    python tests/benchmarks/bench_extractor.py [--snapshot DIR] [--dev FILE] [--write-model] [--write DIR]

Deals the dev ideas into 5 folds by paper (stratified by label, fixed seed; `judgeaudit.mine.crossval`)
and, on the same folds, compares the cue extractor (`offline`: nothing to fit, only the selection
choices are picked on the training folds; its cue lists were written while reading this split,
so its figures are in-sample) with the learned n-gram stance model (`ngram`: weights, C,
thresholds and selection choices all fitted on the training folds). Prints the comparison
table and the ablation (each selection choice changed alone) as Markdown, and stores them as
JSON (`--write DIR` -> DIR/crossval.json, rendered into the dataset card by `judgeaudit mine`).
`--write-model` refits the stance model on the whole dev split with the same procedure and
writes judgeaudit/mine/models/ngram.json. Needs scikit-learn; reads /work/shared (never at run time).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from judgeaudit.files import atomic_write_text
from judgeaudit.mine import crossval as cv
from judgeaudit.mine.calibrate import load_dev
from judgeaudit.mine.pipeline import load_corpus
from judgeaudit.mine.stance import model_path
from judgeaudit.mine.summary import RunSummary

SNAPSHOT = Path("/work/shared/data/openreview/ICLR.cc-2026-Conference")
DEV = Path("/work/shared/data/reference-study/human_only_dev.jsonl")
COMMAND = "python tests/benchmarks/bench_extractor.py --write datasets/iclr2026/human_only"


def _iv(d: dict[str, Any]) -> str:
    return f"{d['estimate']:.2f} [{d['low']:.2f}, {d['high']:.2f}]"


def _pr(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.2f}"


def table(rows: dict[str, dict[str, Any]]) -> str:
    """The comparison table in Markdown."""
    out = ["| extractor | affirm P | affirm R | dispute P | dispute R | novel kept | novel Jaccard (est.) | "
           "not_novel kept | not_novel Jaccard (est.) | swapped | kept novel / not_novel (snapshot, est.) |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, r in rows.items():
        n, nn = r["novel"], r["not_novel"]
        out.append(f"| {name} | {_pr(r['affirm']['precision'])} | {_pr(r['affirm']['recall'])} | "
                   f"{_pr(r['dispute']['precision'])} | {_pr(r['dispute']['recall'])} | "
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


def main() -> int:
    """Cross-validate, print, optionally write the JSON and the refitted model."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--snapshot", type=Path, default=SNAPSHOT)
    ap.add_argument("--dev", type=Path, default=DEV)
    ap.add_argument("--write", type=Path, default=None, help="directory to store crossval.json in")
    ap.add_argument("--write-model", action="store_true", help="refit on the whole dev split and write models/ngram.json")
    ap.add_argument("--resamples", type=int, default=10_000)
    args = ap.parse_args()
    start = time.time()

    def log(msg: str) -> None:
        print(f"[{time.time() - start:6.1f}s] {msg}", file=sys.stderr, flush=True)

    corpus = load_corpus(args.snapshot, RunSummary())
    dev = load_dev(args.dev)
    dev_papers, outside = cv.build_papers(dev, corpus)
    log(f"{len(dev_papers)} dev ideas, {len(outside)} other candidates")
    res = cv.crossvalidate(dev_papers, outside, corpus, log=log)
    rows = {"offline (cue; reference rule, in-sample)": cv.summarise(res["in_sample_cue"], dev_papers, resamples=args.resamples, seed=cv.SEED)}
    names = {"offline": "offline (cue; rule by CV)", "ngram": "ngram (learned; all by CV)"}
    for name, r in res["results"].items():
        rows[names[name]] = cv.summarise(r, dev_papers, resamples=args.resamples, seed=cv.SEED)
    abl = {ext: {name: cv.summarise(r, dev_papers, resamples=args.resamples, seed=cv.SEED) for name, r in variants.items()}
           for ext, variants in res["ablation"].items()}
    record: dict[str, Any] = {
        "command": COMMAND, "folds": res["folds"], "seed": res["seed"], "reference_share": cv.REFERENCE_SHARE,
        "rows": rows, "ablation": abl,
        "rules_per_fold": {name: [r.to_dict() for r in fr.rules] for name, fr in res["results"].items()},
        "cue_rule_whole_dev": res["cue_rule"].to_dict(),
        "table_markdown": table(rows), "ablation_markdown": ablation_table(abl),
    }
    if args.write_model:
        fitted, _ = cv.fit_procedure(dev_papers, outside, corpus, cv.class_sizes(dev_papers), name="ngram", log=log)
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
        atomic_write_text(args.write / "crossval.json", json.dumps(record, indent=2, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
