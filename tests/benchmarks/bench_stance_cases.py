"""The extractors on the independently labelled stance cases (tests/fixtures/stance_cases/), per half.

    python tests/benchmarks/bench_stance_cases.py [--cases DIR] [--half tune|heldout|both] [--resamples N] [--json FILE]
        [--dev human_only_dev.jsonl]

Runs the cue extractor (`offline`) and the packaged n-gram stance model (`ngram`) on every
labelled review and prints, per half (`tune`: for tuning the cue lists; `heldout`: the honest
figures), the review-level, passage-level and paper-level tables of `judgeaudit.mine.stance_cases`
(bootstrap over papers, seed and resamples printed), and what the selection rule does with each
paper read with the annotators' stances (`stance_cases.annotator_outcome`). With `--dev`, those
outcomes are split by whether the reference's dev split holds the paper with its candidate side
(for `--cases tests/fixtures/kept_not_novel_cases`: how a careful reading treats the kept ideas the
reference also kept, and the others). Reads only the committed fixture (and the `--dev` file).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path

from judgeaudit.mine import stance_cases as sc
from judgeaudit.mine.calibrate import load_dev
from judgeaudit.mine.signals import OfflineExtractor, SignalExtractor
from judgeaudit.mine.stance import LearnedExtractor, load_model
from judgeaudit.stats.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED

CASES = Path(__file__).resolve().parents[1] / "fixtures" / "stance_cases"


def outcomes(papers: list[sc.CasePaper], dev: Path | None) -> dict[str, dict[str, int]]:
    """Outcome counts of the annotators' reading: all papers, and (with a dev file) split by dev membership."""
    out = {"all": dict(Counter(sc.annotator_outcome(p) for p in papers))}
    if dev is not None:
        labels = {r["forum"]: r["label"] for r in load_dev(dev) if isinstance(r.get("forum"), str)}
        for group, inside in (("in the dev split with this label", True), ("not in the dev split", False)):
            part = [p for p in papers if (labels.get(p.forum) == p.side) == inside]
            out[group] = dict(Counter(sc.annotator_outcome(p) for p in part))
    return out


def main(argv: list[str] | None = None) -> int:
    """Print the stance-cases tables."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=Path, default=CASES)
    ap.add_argument("--half", choices=(*sc.HALVES, "both"), default="both")
    ap.add_argument("--resamples", type=int, default=DEFAULT_RESAMPLES)
    ap.add_argument("--json", type=Path, default=None, help="also write the figures as JSON here")
    ap.add_argument("--dev", type=Path, default=None, help="reference dev labels: split the outcomes by dev membership")
    args = ap.parse_args(argv)
    try:
        papers = sc.load_cases(args.cases)
    except sc.CasesError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    problems = sc.integrity_problems(papers)
    if problems:
        print(f"error: {args.cases}: {len(problems)} integrity problem(s), first: {problems[0]}", file=sys.stderr)
        return 2
    extractors: dict[str, SignalExtractor] = {"offline": OfflineExtractor(), "ngram": LearnedExtractor(load_model("ngram"))}
    start = time.time()
    result = sc.measure(papers, extractors, resamples=args.resamples, seed=DEFAULT_SEED)
    wall = time.time() - start
    halves = sc.HALVES if args.half == "both" else (args.half,)
    for half in halves:
        rows = result["halves"][half]
        first = next(iter(rows.values()))
        print(f"\n## {half}: {first['papers']} papers, {first['reviews']} reviews "
              f"(bootstrap over papers, seed {result['seed']}, {result['resamples']} resamples)\n")
        print(sc.table(rows))
    second = args.cases / sc.SECOND_ANNOTATOR
    if second.is_dir():
        agreement = sc.annotator_agreement(papers, second)
        result["annotator_agreement"] = agreement
        print("\n## two annotators on the same reviews (second_annotator/)\n")
        print("| flag | reviews | agreement | Cohen's kappa |\n|---|---|---|---|")
        for flag, row in agreement.items():
            print(f"| {flag} | {row['reviews']:.0f} | {row['agreement']:.3f} | {row['kappa']:.3f} |")
    result["annotator_outcomes"] = outcomes(papers, args.dev)
    print("\n## the selection rule on the annotators' stances\n")
    print(sc.counts_table("papers", sc.OUTCOMES, result["annotator_outcomes"]))
    print(f"\n{wall:.1f} s wall, load {os.getloadavg()[0]:.2f}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
