"""How close a careful reading of the reviews comes to the reference's labels (`judgeaudit.mine.study.reading_ceiling`).

    python tests/benchmarks/bench_reading_ceiling.py --dev <reference-study>/human_only_dev.jsonl
        [--cases tests/fixtures/reading_cases] [--sample-cases tests/fixtures/stance_cases ...]
        [--census-cases tests/fixtures/kept_not_novel_cases ...] [--snapshot DIR] [--resamples N] [--json FILE]
        [--write SET_DIR]
    python tests/benchmarks/bench_reading_ceiling.py --dev <reference-study>/human_only_dev.jsonl \
        --reference-rule [--write SET_DIR]

`--reference-rule` reads the reading under the reference's signal definition instead
(tests/fixtures/reading_cases_reference_rule: the dev papers and 30 random candidates of this rule per
side, annotated under the definition of issue 27, soft affirmations recorded apart; no further sample or
census) and stores its record as `reading_ceiling_reference_rule`.

Reads the annotated papers of `--cases` (the dev split's papers and random candidates outside it)
and of each `--sample-cases` directory (random candidates outside the dev split only), the papers
outside the dev split of each `--census-cases` directory (left out of the random draw of
`--cases`, so counted as a census), the dev
labels (`--dev`: which papers are the reference's, and its quotes) and the snapshot (`--snapshot`, read as
of the bundled set's time: the candidates of the bundled rule, `select.Thresholds()`). The cases were drawn
from the candidates of an earlier rule; the candidates of this rule are (up to a few papers with fewer than
three reviews) a part of those, so the sample and the census are kept where they are still candidates (a
random sample of this rule's candidates), and a dev paper that is no longer a candidate is never kept.
Prints, per labeller (the annotators' reading under the bundled rule and under earlier variants; the cue
extractor `offline` and the n-gram model `ngram` on the same papers, whose dev figures are in-sample: both
were fitted on the dev split) and class: dev ideas kept, the random sample's kept share, the estimated class
size and the estimated kept-set Jaccard with the reference (bootstrap over papers, seed and resamples
printed); then how the annotators' reading treats the dev ideas, and their review stances against the
reference's quotes. The annotators labelled under an earlier brief (affirms / weak affirmation / disputes);
their stances are read as the rule reads a review (strengths and weaknesses only, weak affirmations no
signal), but their disputes may hold hedged doubts the reference's definition does not count.
`--write SET_DIR` stores the table as the `reading_ceiling` study record in SET_DIR/studies.json.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from data_paths import SNAPSHOT

from judgeaudit.mine.parse import as_of_ms
from judgeaudit.mine.pipeline import candidate_pool, load_corpus
from judgeaudit.mine.select import Thresholds
from judgeaudit.mine.signals.cues import OfflineExtractor
from judgeaudit.mine.signals.stance import LearnedExtractor, load_model
from judgeaudit.mine.study import reading_ceiling as rc
from judgeaudit.mine.study import stance_cases as sc
from judgeaudit.mine.study.calibrate import REFERENCE_SIZES, load_dev
from judgeaudit.mine.study.records import measured_with, write_study
from judgeaudit.mine.summary import RunSummary
from judgeaudit.stats.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
REVIEWS_AS_OF = "2025-11-13T08:00:00Z"  # the bundled set's: when the reference read the reviews


def population(candidates: dict[str, str], dev_rows: list[dict]) -> rc.Population:
    """Dev ideas per class (every row of the dev file; the class's share of the reference's published size) and
    the bundled rule's candidates outside the dev split."""
    ideas = Counter(str(r["label"]) for r in dev_rows)
    dev_forums = {r["forum"] for r in dev_rows if isinstance(r.get("forum"), str)}
    outside = {
        c: sum(1 for f, side in candidates.items() if side == c and f not in dev_forums)
        for c in sc.CLASSES
    }
    shares = {c: ideas[c] / REFERENCE_SIZES[c] for c in sc.CLASSES}
    return rc.Population({c: ideas[c] for c in sc.CLASSES}, outside, shares)


def still_candidates(labeller: rc.Labeller, candidates: dict[str, str]) -> rc.Labeller:
    """A labeller that keeps no paper the bundled rule does not make a candidate of its side."""
    return lambda p: labeller(p) if candidates.get(p.forum) == p.side else None


def load(directory: Path) -> list[sc.CasePaper]:
    """The cases of a directory, refusing one with integrity problems."""
    papers = sc.load_cases(directory)
    problems = sc.integrity_problems(papers)
    if problems:
        raise sc.CasesError(
            f"{directory}: {len(problems)} integrity problem(s), first: {problems[0]}"
        )
    return papers


def main(argv: list[str] | None = None) -> int:
    """Print the reading-ceiling tables."""
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--dev", type=Path, required=True, help="the reference's dev labels (human_only_dev.jsonl)"
    )
    ap.add_argument(
        "--cases",
        type=Path,
        default=None,
        help="(default: tests/fixtures/reading_cases, or with "
        "--reference-rule tests/fixtures/reading_cases_reference_rule)",
    )
    ap.add_argument(
        "--sample-cases",
        type=Path,
        nargs="*",
        default=None,
        help="(default: tests/fixtures/stance_cases; none with --reference-rule)",
    )
    ap.add_argument(
        "--census-cases",
        type=Path,
        nargs="*",
        default=None,
        help="(default: tests/fixtures/kept_not_novel_cases; none with --reference-rule)",
    )
    ap.add_argument(
        "--reference-rule",
        action="store_true",
        help="the reading under the reference's signal definition (its fixture, record and text)",
    )
    ap.add_argument("--snapshot", type=Path, default=SNAPSHOT)
    ap.add_argument(
        "--reviews-as-of",
        default=REVIEWS_AS_OF,
        help=f"(default: {REVIEWS_AS_OF}, the bundled set's)",
    )
    ap.add_argument(
        "--write",
        type=Path,
        default=None,
        metavar="SET_DIR",
        help="store the table in SET_DIR/studies.json",
    )
    ap.add_argument("--resamples", type=int, default=DEFAULT_RESAMPLES)
    ap.add_argument("--json", type=Path, default=None, help="also write the figures as JSON here")
    args = ap.parse_args(argv)
    study = REFERENCE_RULE if args.reference_rule else EARLIER_BRIEF
    args.cases = args.cases or study.cases
    args.sample_cases = study.sample_cases if args.sample_cases is None else args.sample_cases
    args.census_cases = study.census_cases if args.census_cases is None else args.census_cases
    try:
        dev_rows = load_dev(args.dev)
        dev_labels = {
            r["forum"]: str(r["label"]) for r in dev_rows if isinstance(r.get("forum"), str)
        }
        dev, sample = rc.split_papers(load(args.cases), dev_labels)
        for directory in args.sample_cases:
            extra_dev, extra = rc.split_papers(load(directory), dev_labels)
            if extra_dev:
                raise sc.CasesError(
                    f"{directory}: holds {len(extra_dev)} dev paper(s); a sample must lie outside the dev split"
                )
            sample += extra
        census = [
            p
            for directory in args.census_cases
            for p in rc.split_papers(load(directory), dev_labels)[1]
        ]
        corpus = load_corpus(
            args.snapshot, RunSummary(), reviews_as_of=as_of_ms(args.reviews_as_of)
        )
        candidates: dict[str, str] = dict(candidate_pool(corpus, Thresholds()).candidates)
        pop = population(candidates, dev_rows)
    except (sc.CasesError, ValueError, OSError, KeyError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    drawn = len(sample), len(census)
    sample = [p for p in sample if candidates.get(p.forum) == p.side]
    census = [p for p in census if candidates.get(p.forum) == p.side]
    earlier = {
        "weak affirmations block not_novel (earlier rule)": Thresholds(weak_affirmations="oppose"),
        "at least half agree": Thresholds(strict_majority=False),
    }
    labellers = {
        "annotators": rc.annotator_labeller(),
        **{f"annotators, {name}": rc.annotator_labeller(th) for name, th in earlier.items()},
        "annotators, weak affirmations count as explicit": rc.annotator_labeller(
            weak_affirms_count=True
        ),
        "offline (dev in-sample)": rc.extractor_labeller(OfflineExtractor()),
        "ngram (dev in-sample)": rc.extractor_labeller(LearnedExtractor(load_model("ngram"))),
    }
    labellers = {
        name: still_candidates(labeller, candidates) for name, labeller in labellers.items()
    }
    start = time.time()
    result = rc.measure(
        dev, sample, labellers, pop, census=census, resamples=args.resamples, seed=DEFAULT_SEED
    )
    wall = time.time() - start
    print(
        f"\n(of the {drawn[0]} sampled and {drawn[1]} census papers, {len(sample)} and {len(census)} are candidates now)"
    )
    print(
        f"\n## {len(dev)} dev papers, {len(sample)} sampled candidates outside the dev split, {len(census)} census papers "
        f"(bootstrap over papers, seed {result['seed']}, {result['resamples']} resamples; "
        f"candidates outside the dev split: {dict(pop.candidates_outside)}; dev ideas: {dict(pop.reference_ideas)})\n"
    )
    print(rc.table(result))
    outcomes = {
        side: dict(Counter(sc.annotator_outcome(p) for p in dev if p.side == side))
        for side in sc.CLASSES
    }
    result["dev_outcomes"] = outcomes
    print("\n## the bundled rule on the annotators' stances, dev papers\n")
    print(sc.counts_table("class", sc.OUTCOMES, outcomes))
    quotes = {
        r["forum"]: r["positive_signals"] if r["label"] == "novel" else r["negative_signals"]
        for r in dev_rows
        if isinstance(r.get("forum"), str)
    }
    reviews = rc.review_agreement(dev, quotes)
    result["review_agreement"] = reviews
    print("\n## dev reviews: a reference quote of the label's stance vs the annotators' stance\n")
    print(sc.counts_table("class", rc.REVIEW_CELLS, reviews))
    print(f"\n{wall:.1f} s wall, load {os.getloadavg()[0]:.2f}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    if args.write:
        fixture = {
            side: {
                o: sum(
                    1 for p in load(args.cases) if p.side == side and sc.annotator_outcome(p) == o
                )
                for o in sc.OUTCOMES
            }
            for side in sc.CLASSES
        }
        text = study.text.format(
            dev=len(dev),
            sample=len(sample),
            census=len(census),
            drawn=drawn[0],
            resamples=result["resamples"],
            seed=result["seed"],
            outcomes=sc.counts_table("class", sc.OUTCOMES, outcomes),
        )
        write_study(
            args.write,
            study.key,
            {
                "title": study.title,
                "text": text,
                "table_markdown": rc.table(result),
                "outcomes": fixture,
                "measured_with": measured_with(),
                "command": study.command,
            },
        )
        print(f"wrote the {study.key} record to {args.write}/studies.json")
    return 0


TEXT = """\
Every paper of the reference's dev split found in the snapshot and 60 random candidates outside it (30 per
side, drawn under an earlier rule), with every review labelled by seven annotators who were not told which
papers were the reference's (`tests/fixtures/reading_cases/`), plus the stance cases as a further random
sample and the earlier kept `not_novel` cases outside the dev split as a census. Kept where they are still
candidates of this rule: {dev} dev papers, {sample} sampled papers of {drawn}, {census} census papers. The
annotators' stances are read as this rule reads a review (strengths and weaknesses only, weak affirmations
no signal); they labelled under an earlier brief, so their disputes may hold hedged doubts the reference's
definition does not count. The reading's recall of the reference's dev ideas and its kept share of the random
candidates give its class size and its kept-set Jaccard with the reference's published class
(`stats.label_agreement.sampled_jaccard_metric`; 95% percentile bootstrap over papers, {resamples} resamples,
seed {seed}). The cue and n-gram rows are in-sample on the dev papers (both were written or fitted on them).

Dev papers, by what the rule does with the annotators' stances:

{outcomes}"""

REFERENCE_RULE_TEXT = """\
Every paper of the reference's dev split found in the snapshot and 30 random candidates of this rule per
side outside it, with every review's strengths and weaknesses (as of 2025-11-13T08:00:00Z) read by seven
independent annotator agents briefed only with the reference's signal definition (issue 27: an
affirmation says in so many words that the contribution is new; a dispute judges the contribution itself
not novel; descriptions, missing citations, criticism of experiments and hedged uncertainty are no signal),
with "soft" affirmations ("somewhat novel") recorded apart, and not told which papers were the
reference's (`tests/fixtures/reading_cases_reference_rule/`). Per paper, this rule on their stances: no
review opposing, and more than half of all its reviews carrying the label's stance only ({dev} dev papers,
{sample} sampled papers of {drawn}). Row *annotators*: soft affirmations are no signal (the reference's
definition); *weak affirmations count as explicit*: soft affirmations count as affirmations both ways. The
reading's recall of the reference's dev ideas and its kept share of the random candidates give its class
size and its kept-set Jaccard with the reference's published class
(`stats.label_agreement.sampled_jaccard_metric`; 95% percentile bootstrap over papers, {resamples}
resamples, seed {seed}). The cue and n-gram rows are in-sample on the dev papers (both were written or
fitted on them).

Dev papers, by what the rule does with the annotators' stances (soft affirmations no signal):

{outcomes}"""


@dataclass(frozen=True)
class Study:
    """One reading study: its cases, its sample and census directories, the record it writes and its text."""

    key: str
    title: str
    cases: Path
    sample_cases: list[Path]
    census_cases: list[Path]
    text: str
    command: str


_COMMAND = (
    "python tests/benchmarks/bench_reading_ceiling.py --dev <reference-study>/human_only_dev.jsonl"
)
EARLIER_BRIEF = Study(
    "reading_ceiling",
    "How close a careful reading comes to the reference (annotators, reading cases)",
    FIXTURES / "reading_cases",
    [FIXTURES / "stance_cases"],
    [FIXTURES / "kept_not_novel_cases"],
    TEXT,
    _COMMAND,
)
REFERENCE_RULE = Study(
    "reading_ceiling_reference_rule",
    "Annotators' reading under the reference's signal definition (reading cases, reference rule)",
    FIXTURES / "reading_cases_reference_rule",
    [],
    [],
    REFERENCE_RULE_TEXT,
    _COMMAND + " --reference-rule",
)


if __name__ == "__main__":
    sys.exit(main())
