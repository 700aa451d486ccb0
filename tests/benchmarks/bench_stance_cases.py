"""The extractors on the independently labelled stance cases (tests/fixtures/stance_cases/), per half.

    python tests/benchmarks/bench_stance_cases.py [--cases DIR] [--half tune|heldout|both] [--resamples N] [--json FILE]
        [--dev human_only_dev.jsonl] [--write SET_DIR]

Runs the cue extractor (`offline`) and the packaged n-gram stance model (`ngram`) on every
labelled review and prints, per half (`tune`: for tuning the cue lists; `heldout`: the honest
figures), the review-level, passage-level and paper-level tables of `judgeaudit.mine.study.stance_cases`
(bootstrap over papers, seed and resamples printed), and what the selection rule does with each
paper read with the annotators' stances (`stance_cases.annotator_outcome`). With `--dev`, those
outcomes are split by whether the reference's dev split holds the paper with its candidate side
(for `--cases tests/fixtures/kept_not_novel_cases`: how a careful reading treats the kept ideas the
reference also kept, and the others). Reads only the committed fixture (and the `--dev` file).

Everything is measured under the bundled (reference's) selection rule, `select.Thresholds()`: a review is
read in its strengths and weaknesses only, and weak statements are no signal. The annotators labelled under
the earlier brief (affirms / weak affirmation / disputes, every review field), so their stances are read the
same way: quotes outside the signal fields are left out, weak affirmations are no signal.

`--write SET_DIR` stores the table as a study record in SET_DIR/studies.json (key `stance_cases` for the
default cases, the held-out half; `kept_not_novel_cases` for that fixture, the outcome counts), which the
dataset card renders (`judgeaudit.mine.study.records`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from judgeaudit.mine.signals.base import SignalExtractor
from judgeaudit.mine.signals.cues import OfflineExtractor
from judgeaudit.mine.signals.stance import LearnedExtractor, load_model
from judgeaudit.mine.study import stance_cases as sc
from judgeaudit.mine.study.calibrate import load_dev
from judgeaudit.mine.study.records import measured_with, write_study
from judgeaudit.stats.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED

CASES = Path(__file__).resolve().parents[1] / "fixtures" / "stance_cases"


def outcomes(papers: list[sc.CasePaper], dev: Path | None) -> dict[str, dict[str, int]]:
    """Outcome counts of the annotators' reading: all papers, and (with a dev file) split by dev membership."""
    out = {"all": {o: n for o, n in Counter(sc.annotator_outcome(p) for p in papers).items()}}
    if dev is not None:
        labels = {r["forum"]: r["label"] for r in load_dev(dev) if isinstance(r.get("forum"), str)}
        for group, inside in (
            ("in the dev split with this label", True),
            ("not in the dev split", False),
        ):
            part = [p for p in papers if (labels.get(p.forum) == p.side) == inside]
            out[group] = dict(Counter(sc.annotator_outcome(p) for p in part))
    return out


def main(argv: list[str] | None = None) -> int:
    """Print the stance-cases tables."""
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--cases", type=Path, default=CASES)
    ap.add_argument("--half", choices=(*sc.HALVES, "both"), default="both")
    ap.add_argument("--resamples", type=int, default=DEFAULT_RESAMPLES)
    ap.add_argument("--json", type=Path, default=None, help="also write the figures as JSON here")
    ap.add_argument(
        "--dev",
        type=Path,
        default=None,
        help="reference dev labels: split the outcomes by dev membership",
    )
    ap.add_argument(
        "--write",
        type=Path,
        default=None,
        metavar="SET_DIR",
        help="store the table in SET_DIR/studies.json",
    )
    args = ap.parse_args(argv)
    try:
        papers = sc.load_cases(args.cases)
    except sc.CasesError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    problems = sc.integrity_problems(papers)
    if problems:
        print(
            f"error: {args.cases}: {len(problems)} integrity problem(s), first: {problems[0]}",
            file=sys.stderr,
        )
        return 2
    extractors: dict[str, SignalExtractor] = {
        "offline": OfflineExtractor(),
        "ngram": LearnedExtractor(load_model("ngram")),
    }
    start = time.time()
    result = sc.measure(papers, extractors, resamples=args.resamples, seed=DEFAULT_SEED)
    wall = time.time() - start
    halves = sc.HALVES if args.half == "both" else (args.half,)
    for half in halves:
        rows = result["halves"][half]
        first = next(iter(rows.values()))
        print(
            f"\n## {half}: {first['papers']} papers, {first['reviews']} reviews "
            f"(bootstrap over papers, seed {result['seed']}, {result['resamples']} resamples)\n"
        )
        print(sc.table(rows))
    second = args.cases / sc.SECOND_ANNOTATOR
    if second.is_dir():
        agreement = sc.annotator_agreement(papers, second)
        result["annotator_agreement"] = agreement
        print("\n## two annotators on the same reviews (second_annotator/)\n")
        print("| flag | reviews | agreement | Cohen's kappa |\n|---|---|---|---|")
        for flag, row in agreement.items():
            print(
                f"| {flag} | {row['reviews']:.0f} | {row['agreement']:.3f} | {row['kappa']:.3f} |"
            )
    result["annotator_outcomes"] = outcomes(papers, args.dev)
    print("\n## the selection rule on the annotators' stances\n")
    print(sc.counts_table("papers", sc.OUTCOMES, result["annotator_outcomes"]))
    print(f"\n{wall:.1f} s wall, load {os.getloadavg()[0]:.2f}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    if args.write:
        key, record = study_record(args, papers, result)
        write_study(args.write, key, record)
        print(f"wrote the {key} record to {args.write}/studies.json")
    return 0


STANCE_TEXT = """\
60 candidate papers of the snapshot (30 per side, none in the dev split, picked in SHA-256 order), every
official review (236) labelled by independent annotators who saw only a labelling brief (affirms / weak
affirmation / disputes, with verbatim quotes; `tests/fixtures/stance_cases/`). The papers are split by
SHA-256 of the forum id into a `tune` half and a `heldout` half; below is the held-out half ({papers}
papers, {reviews} reviews), under this set's rule: the annotators' stances and the extractors' are both
read in the reviews' strengths and weaknesses only, a review with an empty one gives no signal, and
weak statements are no signal. The brief predates the reference's definition (it did not set hedged
uncertainty or descriptions apart), so the annotators' `disputes` may hold statements this rule does not
count. Review level: precision/recall of the flags (`affirms` explicit, `affirms_at_all` explicit or
weak, `disputes`); quotes: the extracted quotes against the annotators'; papers: the rule applied once
with the extractor's stances and once with the annotators'. 95% percentile bootstrap intervals over
papers ({resamples} resamples, seed {seed}). A second annotator relabelled batch 1 (117 reviews): Cohen's
kappa 0.955 on explicit affirmations, 0.936 on disputes."""

KEPT_TEXT = """\
40 `not_novel` ideas an earlier version of this miner kept (30 outside the dev split, 10 inside it, each in
SHA-256 order; `tests/fixtures/kept_not_novel_cases/`), every review (155) labelled by two more annotators
under the same brief. What this set's rule does with each paper read with the annotators' stances (signal
fields only, weak affirmations no signal):"""


def study_record(
    args: argparse.Namespace, papers: list[sc.CasePaper], result: dict[str, Any]
) -> tuple[str, dict[str, Any]]:
    """The studies.json record of this run: the held-out table (stance cases) or the outcome counts (other cases)."""
    command = "python tests/benchmarks/bench_stance_cases.py" + (
        "" if args.cases == CASES else f" --cases {args.cases}"
    )
    if args.cases == CASES:
        rows = result["halves"]["heldout"]
        first = next(iter(rows.values()))
        text = STANCE_TEXT.format(
            papers=first["papers"],
            reviews=first["reviews"],
            resamples=result["resamples"],
            seed=result["seed"],
        )
        return "stance_cases", {
            "title": "The extractors on independently labelled reviews (stance cases)",
            "text": text,
            "table_markdown": sc.table(rows),
            "command": command + " --half heldout",
            "measured_with": measured_with(),
        }
    outcomes = result["annotator_outcomes"]
    return "kept_not_novel_cases", {
        "title": "Earlier kept not_novel ideas, read by annotators",
        "text": KEPT_TEXT,
        "table_markdown": sc.counts_table("papers", sc.OUTCOMES, outcomes),
        "outcomes": outcomes["all"],
        "command": command,
        "measured_with": measured_with(),
    }


if __name__ == "__main__":
    sys.exit(main())
