"""How close a careful reading of the reviews comes to the reference's labels (`judgeaudit.mine.reading_ceiling`).

    python tests/benchmarks/bench_reading_ceiling.py --dev ../shared/data/reference-study/human_only_dev.jsonl
        [--cases tests/fixtures/reading_cases] [--sample-cases tests/fixtures/stance_cases ...]
        [--census-cases tests/fixtures/kept_not_novel_cases ...] [--dataset datasets/iclr2026/human_only] [--resamples N] [--json FILE]

Reads the annotated papers of `--cases` (the dev split's papers and random candidates outside it)
and of each `--sample-cases` directory (random candidates outside the dev split only), the papers
outside the dev split of each `--census-cases` directory (left out of the random draw of
`--cases`, so counted as a census), the dev
labels (`--dev`: which papers are the reference's, and its quotes) and the bundled set's manifest and
calibration (candidate counts per side; dev ideas among them). Prints, per labeller (the annotators'
reading under the bundled rule and under its variants; the cue extractor `offline` and the n-gram
model `ngram` on the same papers, whose dev figures are in-sample: both were fitted on the dev
split) and class: dev ideas kept, the random sample's kept share, the estimated class size and the
estimated kept-set Jaccard with the reference (bootstrap over papers, seed and resamples printed);
then how the annotators' reading treats the dev ideas, and their review stances against the
reference's quotes.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path

from judgeaudit.mine import reading_ceiling as rc
from judgeaudit.mine import stance_cases as sc
from judgeaudit.mine.calibrate import load_dev
from judgeaudit.mine.select import Thresholds
from judgeaudit.mine.signals import OfflineExtractor
from judgeaudit.mine.stance import LearnedExtractor, load_model
from judgeaudit.stats.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"


def population(dataset: Path, dev_rows: list[dict]) -> rc.Population:
    """Dev ideas per class (every row of the dev file) and the bundled run's candidates outside the dev split."""
    by_area = json.loads((dataset / "manifest.json").read_text(encoding="utf-8"))["mining"]["by_area"]
    labels = json.loads((dataset / "calibration.json").read_text(encoding="utf-8"))["labels"]
    ideas = Counter(str(r["label"]) for r in dev_rows)
    outside = {c: sum(int(a[f"candidates_{c}"]) for a in by_area.values()) - int(labels[c]["candidates"])
               for c in sc.CLASSES}
    return rc.Population({c: ideas[c] for c in sc.CLASSES}, outside)


def load(directory: Path) -> list[sc.CasePaper]:
    """The cases of a directory, refusing one with integrity problems."""
    papers = sc.load_cases(directory)
    problems = sc.integrity_problems(papers)
    if problems:
        raise sc.CasesError(f"{directory}: {len(problems)} integrity problem(s), first: {problems[0]}")
    return papers


def main(argv: list[str] | None = None) -> int:
    """Print the reading-ceiling tables."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dev", type=Path, required=True, help="the reference's dev labels (human_only_dev.jsonl)")
    ap.add_argument("--cases", type=Path, default=FIXTURES / "reading_cases")
    ap.add_argument("--sample-cases", type=Path, nargs="*", default=[FIXTURES / "stance_cases"])
    ap.add_argument("--census-cases", type=Path, nargs="*", default=[FIXTURES / "kept_not_novel_cases"])
    ap.add_argument("--dataset", type=Path, default=ROOT / "datasets" / "iclr2026" / "human_only")
    ap.add_argument("--resamples", type=int, default=DEFAULT_RESAMPLES)
    ap.add_argument("--json", type=Path, default=None, help="also write the figures as JSON here")
    args = ap.parse_args(argv)
    try:
        dev_rows = load_dev(args.dev)
        dev_labels = {r["forum"]: str(r["label"]) for r in dev_rows if isinstance(r.get("forum"), str)}
        dev, sample = rc.split_papers(load(args.cases), dev_labels)
        for directory in args.sample_cases:
            extra_dev, extra = rc.split_papers(load(directory), dev_labels)
            if extra_dev:
                raise sc.CasesError(f"{directory}: holds {len(extra_dev)} dev paper(s); a sample must lie outside the dev split")
            sample += extra
        census = [p for directory in args.census_cases for p in rc.split_papers(load(directory), dev_labels)[1]]
        pop = population(args.dataset, dev_rows)
    except (sc.CasesError, ValueError, OSError, KeyError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    weak_off = Thresholds(weak_opposes=False)
    labellers = {"annotators": rc.annotator_labeller(),
                 "annotators, weak affirmations do not oppose": rc.annotator_labeller(weak_off),
                 "annotators, weak affirmations count as explicit": rc.annotator_labeller(weak_affirms_count=True),
                 "annotators, at least half agree": rc.annotator_labeller(Thresholds(strict_majority=False)),
                 "offline (dev in-sample)": rc.extractor_labeller(OfflineExtractor()),
                 "ngram (dev in-sample)": rc.extractor_labeller(LearnedExtractor(load_model("ngram")))}
    start = time.time()
    result = rc.measure(dev, sample, labellers, pop, census=census, resamples=args.resamples, seed=DEFAULT_SEED)
    wall = time.time() - start
    print(f"\n## {len(dev)} dev papers, {len(sample)} sampled candidates outside the dev split, {len(census)} census papers "
          f"(bootstrap over papers, seed {result['seed']}, {result['resamples']} resamples; "
          f"candidates outside the dev split: {dict(pop.candidates_outside)}; dev ideas: {dict(pop.reference_ideas)})\n")
    print(rc.table(result))
    outcomes = {side: dict(Counter(sc.annotator_outcome(p) for p in dev if p.side == side)) for side in sc.CLASSES}
    result["dev_outcomes"] = outcomes
    print("\n## the bundled rule on the annotators' stances, dev papers\n")
    print(sc.counts_table("class", sc.OUTCOMES, outcomes))
    quotes = {r["forum"]: r["positive_signals"] if r["label"] == "novel" else r["negative_signals"]
              for r in dev_rows if isinstance(r.get("forum"), str)}
    reviews = rc.review_agreement(dev, quotes)
    result["review_agreement"] = reviews
    print("\n## dev reviews: a reference quote of the label's stance vs the annotators' stance\n")
    print(sc.counts_table("class", rc.REVIEW_CELLS, reviews))
    print(f"\n{wall:.1f} s wall, load {os.getloadavg()[0]:.2f}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
