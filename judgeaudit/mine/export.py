"""Write a mined Human-Only set: pairwise/pointwise JSONL (atomic), manifest and dataset card."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from judgeaudit.data.card import write_card
from judgeaudit.data.jsonl import write_items
from judgeaudit.data.manifest import write_manifest
from judgeaudit.files import atomic_write_text
from judgeaudit.mine.pairing import PairingReport, make_pairs, make_points
from judgeaudit.mine.parse import LATER_REVIEW_VERSION, as_of_text
from judgeaudit.mine.parse import STAGE as PARSE_STAGE
from judgeaudit.mine.pipeline import MineResult, stage_dict
from judgeaudit.mine.select import Thresholds
from judgeaudit.mine.signals import offline_fingerprint
from judgeaudit.mine.staging import staged_dir

SET_NAME = "human_only"
CALIBRATION_NAME = "calibration.json"
CROSSVAL_NAME = "crossval.json"  # written by tests/benchmarks/bench_extractor.py --write <set dir>

# The stance cases (tests/fixtures/stance_cases/), held-out half, measured by hand (the fixture is not
# shipped with the package): `python tests/benchmarks/bench_stance_cases.py`, branch s4-x12 at commit 61c19df
# (cue lists as on main 69d253e), load ~1.6 on 2 shared cores.
STANCE_CASES_OFFLINE_FINGERPRINT = "41dc20402769c5c11bda197a1cdbcb86b9d21e888c03a0f803cf3dbb5ad49e1f"
STANCE_CASES_COMMAND = "python tests/benchmarks/bench_stance_cases.py --half heldout"
KEPT_CASES_COMMAND = ("python tests/benchmarks/bench_stance_cases.py --cases tests/fixtures/kept_not_novel_cases "
                      "--dev ../shared/data/reference-study/human_only_dev.jsonl")
# What the selection rule does with the 40 kept not_novel cases read with the annotators' stances
# (`stance_cases.annotator_outcome`; tests/mine/test_stance_cases.py recomputes it from the fixture).
KEPT_CASES_OUTCOMES = {"kept": 22, "blocked by weak affirmations only": 11,
                       "blocked by an explicit stance against it": 5, "too few reviews agree": 2}
# The reading ceiling (tests/fixtures/reading_cases/ with the stance cases as a further random sample and the
# kept not_novel cases as a census), measured by hand (it needs the dev file): READING_CEILING_COMMAND at 10,000
# resamples, seed 20260. READING_CASES_OUTCOMES (no dev file needed) is recomputed by tests/mine/test_reading_ceiling.py.
READING_CEILING_COMMAND = ("python tests/benchmarks/bench_reading_ceiling.py "
                           "--dev ../shared/data/reference-study/human_only_dev.jsonl")
READING_CASES_OUTCOMES = {
    "novel": {"kept": 29, "blocked by weak affirmations only": 0, "blocked by an explicit stance against it": 21,
              "too few reviews agree": 27},
    "not_novel": {"kept": 24, "blocked by weak affirmations only": 22, "blocked by an explicit stance against it": 13,
                  "too few reviews agree": 17},
}
READING_CEILING = """\
| reading of the annotators' stances | class | dev kept | recall | sample kept | census kept | class size (est.) | reference size (est.) | Jaccard (est.) |
|---|---|---|---|---|---|---|---|---|
| bundled rule | novel | 28/47 | 0.60 | 5/60 | - | 123 [53, 209] | 159 | 0.51 [0.29, 0.67] |
| bundled rule | not_novel | 22/46 | 0.48 | 4/60 | 14/30 | 174 [66, 320] | 138 | 0.27 [0.15, 0.51] |
| weak affirmations do not oppose | novel | 28/47 | 0.60 | 5/60 | - | 123 [53, 209] | 159 | 0.51 [0.29, 0.67] |
| weak affirmations do not oppose | not_novel | 40/46 | 0.87 | 11/60 | 24/30 | 444 [253, 664] | 138 | 0.26 [0.17, 0.45] |
| weak affirmations count as explicit | novel | 40/47 | 0.85 | 9/60 | - | 209 [118, 313] | 159 | 0.58 [0.38, 0.85] |
| weak affirmations count as explicit | not_novel | 22/46 | 0.48 | 4/60 | 14/30 | 174 [66, 320] | 138 | 0.27 [0.15, 0.51] |
| at least half agree | novel | 33/47 | 0.70 | 13/60 | - | 274 [164, 391] | 159 | 0.35 [0.23, 0.56] |
| at least half agree | not_novel | 23/46 | 0.50 | 7/60 | 14/30 | 279 [119, 463] | 138 | 0.20 [0.11, 0.39] |
"""
STANCE_CASES_HELDOUT = """\
| extractor | affirms P | affirms R | affirms_at_all P | affirms_at_all R | disputes P | disputes R |
|---|---|---|---|---|---|---|
| offline | 0.68 [0.53, 0.83] | 0.85 [0.75, 0.96] | 0.85 [0.75, 0.95] | 0.73 [0.64, 0.82] | 0.84 [0.67, 0.96] | 0.81 [0.67, 0.94] |
| ngram | 0.67 [0.52, 0.82] | 0.85 [0.71, 0.97] | 0.81 [0.68, 0.93] | 0.71 [0.56, 0.84] | 0.77 [0.62, 0.89] | 0.88 [0.74, 1.00] |

| extractor | affirm quotes P | affirm quotes R | dispute quotes P | dispute quotes R |
|---|---|---|---|---|
| offline | 0.78 [0.67, 0.88] | 0.66 [0.58, 0.75] | 0.74 [0.59, 0.88] | 0.59 [0.45, 0.75] |
| ngram | 0.71 [0.57, 0.84] | 0.63 [0.50, 0.74] | 0.61 [0.44, 0.77] | 0.47 [0.31, 0.65] |

| extractor | novel kept (extractor / labels / both) | novel Jaccard | not_novel kept (extractor / labels / both) | not_novel Jaccard | swapped | same decision |
|---|---|---|---|---|---|---|
| offline | 1 / 2 / 1 | 0.50 [0.00, 1.00] | 0 / 1 / 0 | 0.00 [0.00, 0.00] | 0 | 28/30 |
| ngram | 2 / 2 / 2 | 1.00 [1.00, 1.00] | 1 / 1 / 0 | 0.00 [0.00, 0.00] | 0 | 28/30 |
"""


def write_calibration(set_dir: Path, calibration: dict[str, Any]) -> Path:
    """Store measured extractor quality beside the set (atomic)."""
    path = Path(set_dir) / CALIBRATION_NAME
    atomic_write_text(path, json.dumps(calibration, indent=2, ensure_ascii=False) + "\n")
    return path


def read_calibration(set_dir: Path, extractor: str, fingerprint: str | None) -> dict[str, Any] | None:
    """The stored calibration if it was measured for this extractor and source version, else None."""
    path = Path(set_dir) / CALIBRATION_NAME
    if not path.is_file():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("extractor") != extractor or data.get("extractor_fingerprint") != fingerprint:
        return None
    return dict(data)


def export_set(result: MineResult, out_dir: Path, *, seed: int, thresholds: Thresholds, source: dict[str, Any],
               command: str, extractor: str, sanitiser: str, calibration: dict[str, Any] | None,
               store_calibration: bool = False) -> tuple[Path, PairingReport]:
    """Write `<out_dir>/human_only/` as a whole (staged, then swapped in) and return its path and the pairing report.

    With `store_calibration`, `calibration` is written as `calibration.json` inside the new set;
    otherwise an existing `calibration.json` of the old set is carried over.
    """
    final = Path(out_dir) / SET_NAME
    old_calibration = final / CALIBRATION_NAME
    crossval = read_crossval(final)
    with staged_dir(final) as set_dir:
        if store_calibration and calibration is not None:
            write_calibration(set_dir, calibration)
        elif old_calibration.is_file():
            shutil.copy2(old_calibration, set_dir / CALIBRATION_NAME)
        if crossval is not None:
            shutil.copy2(final / CROSSVAL_NAME, set_dir / CROSSVAL_NAME)
        report = _write_set(result, set_dir, seed=seed, thresholds=thresholds, source=source, command=command,
                            extractor=extractor, sanitiser=sanitiser, calibration=calibration, crossval=crossval)
    return final, report


def read_crossval(set_dir: Path) -> dict[str, Any] | None:
    """The set's stored cross-validation record (from bench_extractor.py), or None if absent or unreadable."""
    path = Path(set_dir) / CROSSVAL_NAME
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and "table_markdown" in data else None


def _write_set(result: MineResult, set_dir: Path, *, seed: int, thresholds: Thresholds, source: dict[str, Any],
               command: str, extractor: str, sanitiser: str, calibration: dict[str, Any] | None,
               crossval: dict[str, Any] | None) -> PairingReport:
    pairs, report = make_pairs(result.ideas, seed)
    points = make_points(result.ideas)
    write_items(set_dir / "pairwise.jsonl", pairs)
    write_items(set_dir / "pointwise.jsonl", points)
    mining: dict[str, Any] = {
        "seed": seed,
        "thresholds": thresholds.to_dict(),
        "reviews_as_of": as_of_text(result.reviews_as_of) if result.reviews_as_of is not None else None,
        "extractor": extractor,
        "sanitiser": sanitiser,
        "stages": stage_dict(result),
        "by_area": result.by_area,
        "area_cutoffs": {a: {"bottom": round(lo, 4), "top": round(hi, 4)} for a, (lo, hi) in result.selection.cutoffs.items()},
        "not_candidates": result.selection.dropped,
        "candidate_outcomes": _outcomes(result),
        "pairing": {
            "pairs_by_area": report.pairs_by_area,
            "reused_not_novel_by_area": report.reused_not_novel_by_area,
            "unpaired_novel_by_area": report.unpaired_novel_by_area,
            "unused_not_novel_by_area": report.unused_not_novel_by_area,
            "novel_at_a": report.novel_at_a, "novel_at_b": report.novel_at_b,
        },
        "sanitised_abstracts_changed": result.sanitised_changed,
        "evaluation_claims": {"abstracts_with_a_claim_before": result.claims_before,
                              "abstracts_with_a_claim_after": result.claims_after,
                              "sentences_by_reason": result.sanitise_reasons},
        "quotes_dropped_not_verbatim": result.dropped_quotes,
        "skips": result.summary.to_dict(),
        "calibration": calibration or "not measured for this extractor version (run with --dev PATH)",
    }
    write_manifest(set_dir, source=source, command=command, extra={"mining": mining}, name=SET_NAME)
    write_card(set_dir, pretty_name="ICLR 2026 Human-Only novelty pairs", summary=_summary(result, report),
               sections=_sections(result, thresholds, extractor, sanitiser, calibration, source, command, seed, crossval))
    return report


def _outcomes(result: MineResult) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for d in result.selection.decisions.values():
        reason = d.reason
        if reason.startswith("only "):
            reason = "not a majority of reviews agree"
        elif "review(s)" in reason and ("dispute" in reason or "affirm" in reason):
            reason = "an opposing review"
        side = out.setdefault(d.side, {})
        side[reason] = side.get(reason, 0) + 1
    return {k: dict(sorted(v.items())) for k, v in sorted(out.items())}


def _summary(result: MineResult, report: PairingReport) -> str:
    n = sum(1 for i in result.ideas if i.label == "novel")
    nn = len(result.ideas) - n
    return (f"Human-Only gold labels mined from the public ICLR 2026 OpenReview reviews: {n} `novel` and "
            f"{nn} `not_novel` ideas (abstracts with evaluation information removed), "
            f"{sum(report.pairs_by_area.values())} same-area pairs and {len(result.ideas)} pointwise items. "
            "Labels follow the reference study's rule (rating deciles, contribution scores, and explicit "
            "reviewer statements about originality); see *Labels* below.")


def _score_means_text(calibration: dict[str, Any]) -> str:
    """One paragraph: whether the reviews read give the dev ideas the means the reference published."""
    m = calibration.get("dev_score_means")
    if not isinstance(m, dict):
        return ""
    return (f"Review scores: for {m.get('same_means')} of the {m.get('reviewed')} dev ideas with reviews here, the mean "
            "rating and mean contribution over the reviews read equal the means the reference published (to its two "
            "decimals), a check that the miner reads the reviews the reference read (`python "
            "tests/benchmarks/bench_reviews_as_of.py` finds the `--reviews-as-of` times at which every published mean "
            "is reproduced).\n\n")


def _reference_text(calibration: dict[str, Any]) -> str:
    est = calibration.get("reference_estimate")
    if not isinstance(est, dict):
        return ""
    rows = []
    for lab in ("novel", "not_novel"):
        q = est.get(lab, {})
        rows.append(f"| {lab} | ~{q.get('reference_total_estimate')} | {q.get('ours')} | ~{q.get('overlap_estimate')} | ~{_fmt(q.get('precision_vs_reference_estimate'))} |")
    return ("Size against the reference study (its full set is about three times the dev third; the overlap is "
            "extrapolated from the dev recall, so these are estimates, not measurements):\n\n"
            "| label | reference (est.) | this set | overlap (est.) | share of this set in the reference (est.) |\n"
            "|---|---|---|---|---|\n" + "\n".join(rows) + "\n")


_OFFLINE_LIMITATIONS = """\
The offline extractor is a rule-based cue matcher: it misses implicit statements and some
explicit ones, and can misread irony or unusual phrasing; its figures above are the measured
error rates. The `novel` side comes out close to the reference study's size, the `not_novel`
side larger (see *Extractor quality*). For the bundled ICLR 2026 set we read 40 randomly drawn
decisive dispute quotes (reviews whose dispute rests on a single sentence) of kept `not_novel`
ideas: 38 were genuine statements that the work lacks novelty, so the excess is not mainly
extractor noise; the reference's frontier-model extractor appears to count fewer reviews as
disputing (or more as affirming) on bottom-decile papers. The cue lists were written while
reading the dev third, so the dev figures above are optimistic; the held-out two thirds give
the unbiased check. Hedged ("somewhat novel") and merely descriptive ("a new benchmark") affirmations do not
count towards a `novel` majority but do block a `not_novel` label. Labels reflect reviewers'
opinions before the ICLR 2026 decisions, not ground truth about the papers; reviews edited
after the time they are read as of can change scores and therefore deciles.
"""

_LLM_LIMITATIONS = """\
Signals come from an LLM extractor; every quote it returned was checked to occur verbatim in
the review (quotes that did not were dropped and counted in the manifest), but whether a quote
really affirms or disputes originality, and whether an affirmation is only hedged or
descriptive ("weak": blocks a not_novel label, does not count towards a novel majority), is the
model's judgement. Labels reflect
reviewers' opinions before the decisions, not ground truth about the papers.
"""


def _limitations(extractor: str) -> str:
    return _OFFLINE_LIMITATIONS if extractor == "offline" else _LLM_LIMITATIONS


def _fmt(x: Any) -> str:
    return "n/a" if x is None else (f"{x:.3f}" if isinstance(x, float) else str(x))


def _crossval_text(crossval: dict[str, Any] | None, extractor: str) -> str:
    if crossval is None:
        return "Not computed for this set (run `python tests/benchmarks/bench_extractor.py --write <set dir>`, then mine)."
    sample = crossval.get("outside_sample", 1.0)
    sampled = "" if sample >= 1.0 else f"""
The other candidates' reviews (for the size of our kept sets) are scored on a stratified
{sample:.0%} sample ({crossval.get('outside_candidates_scored')} papers, each standing for its side's
size over the sample's), the same sample for every row: embedding every candidate sentence on
2 cores takes too long. Kept-set sizes and Jaccards are estimates on that sample."""
    full = crossval.get("full_outside")
    full_text = "" if not isinstance(full, dict) else f"""
The same cross-validation with every other candidate scored (no sample; cue and n-gram only;
`{full.get('command')}`):

{full.get('table_markdown', '')}

{full.get('ablation_markdown', '')}
"""
    return f"""\
Grouped {crossval.get('folds')}-fold cross-validation on the development third of the reference study's
labels (folds by paper, stratified by label, seed {crossval.get('seed')}; every extractor on the same folds).
Whatever an extractor learns or tunes (the stance model's weights and regularisation, its thresholds,
and the selection choices below) is fitted on the training folds only. Passage precision/recall
per stance are against the study's quotes (matching rule above); *kept* is the share of the dev
ideas the miner keeps with the study's label, with a 95% percentile bootstrap interval over ideas
(10,000 resamples, seed 20260); the Jaccard of our kept set with the study's is an estimate (the
dev third is a random third of the study's set, our own class size counts the whole snapshot;
`judgeaudit.stats.label_agreement`). The cue extractor's cue lists were written while reading
this split, so its rows are in-sample and optimistic: on the held-out two thirds, measured
outside the project, the same extractor kept 51 of 101 `novel` and 37 of 99 `not_novel` ideas.
Rows: the cue extractor (`offline`), the word n-gram model (`ngram`) and MiniLM sentence
embeddings under logistic regression (`embed`: sentences without originality or prior-work
vocabulary are not embedded and score 0; `judgeaudit.mine.stance_embed`).{sampled}

{crossval.get('table_markdown', '')}

Selection choices, each changed alone from the rule chosen per fold (cross-validated):

{crossval.get('ablation_markdown', '')}
{full_text}
Rule chosen on the whole dev split for the cue extractor{' (all candidates scored)' if full else ''}:
`{crossval.get('cue_rule_whole_dev')}`.
This set is built by `{extractor}`{' (the extractor the table favours)' if extractor == 'offline' else ''}. Neither learned
extractor reaches the cue extractor: trained on about 175 affirming and 275 disputing sentences of
93 papers, they find the study's passages less precisely and keep far fewer of its ideas. The
n-gram model ships as the measured alternative (`--extractor ngram`, plain JSON weights in
`judgeaudit/mine/models/ngram.json`); the embedding model is not shipped: it loses to both, and
embedding the candidates' prefiltered sentences (about 77,000) takes far longer than the 5-minute
budget on this 2-core machine (about 30 sentences/s measured under load).
{_llm_subset_text(crossval.get('llm_subset'))}
Recompute: `{crossval.get('command')}`.
"""


def _stance_cases_text(extractor: str) -> str:
    """The held-out stance-cases table (hand-measured), with a warning when the cue lists changed since."""
    changed = "" if offline_fingerprint() == STANCE_CASES_OFFLINE_FINGERPRINT else """
**The cue lists changed since these figures were measured** (the offline fingerprint differs):
recompute them with the command below before relying on them.
"""
    return f"""\
Measured outside the reference study: 60 candidate papers of the snapshot (30 per side, none in the
dev split, picked in SHA-256 order), every official review (236) labelled by independent annotators
who saw only the labelling brief (affirms / weak affirmation / disputes, with verbatim quotes;
`tests/fixtures/stance_cases/`, labels under the brief, reviews CC BY 4.0 from OpenReview). The
papers are split by SHA-256 of the forum id into a `tune` half and a `heldout` half; below is the
held-out half (30 papers, 119 reviews). Review level: precision/recall of the review flags
(`affirms` explicit, `affirms_at_all` explicit or weak, `disputes`) against the annotators'; quotes:
the extracted quotes against the annotators' (matching rule above); papers: the bundled selection
rule applied once with the extractor's stances and once with the annotators' (kept counts, Jaccard
of the kept sets per class, swapped labels, papers with the same decision). 95% percentile
bootstrap intervals over papers (10,000 resamples, seed 20260). A second annotator relabelled batch 1
(117 reviews) without seeing the first labels: Cohen's kappa 0.955 on explicit affirmations, 0.926 on
any affirmation, 0.936 on disputes, so the labels are a steadier yardstick than the extractor's
figures below. Few papers are kept by either side
(the rule needs a strict majority of reviews), so the paper-level figures rest on a handful of papers.
This set is built by `{extractor}`.
{changed}
{STANCE_CASES_HELDOUT}

Recompute: `{STANCE_CASES_COMMAND}` (without `--half`: the `tune` half too).

{_kept_cases_text()}
{_reading_ceiling_text()}"""


def _reading_ceiling_text() -> str:
    """How close a careful reading comes to the reference's labels (hand-measured; fixture counts tested)."""
    o = READING_CASES_OUTCOMES
    papers = sum(sum(v.values()) for v in o.values())
    return f"""\
**How close a careful reading comes to the reference (`judgeaudit.mine.reading_ceiling`).** Every
paper of the reference's dev split found here (93) and 60 random candidates outside it (30 per side),
{papers} papers and 587 reviews in all, were labelled under the same brief by seven more annotators, one
batch of about 22 papers each, who were not told which papers were the reference's
(`tests/fixtures/reading_cases/`; reviews as of the reference's crawl). With the stance cases as a
further random sample and the 30 kept `not_novel` cases outside the dev split as a census, the
reading's recall of the reference's dev ideas and its kept share of the random candidates give its
class size and its kept-set Jaccard with the reference (`stats.label_agreement.sampled_jaccard_metric`;
95% percentile bootstrap over papers, 10,000 resamples, seed 20260). An extractor that reads the
review text under the reference's stated definitions aims at this reading, so its agreement is their
practical ceiling:

{READING_CEILING}
On the dev papers the bundled rule on the annotators' stances loses 19 `novel` ideas (13 short of an
explicit majority, 6 to a dispute) and 24 `not_novel` ones (18 to weak affirmations alone, 6 short of a
disputing majority). So the reference counted hedged praise towards a `novel` majority, and saw no
affirmation at all in 18 `not_novel` papers where the annotators saw a weak one; but no reading of the
text gets both its members and its size: letting weak affirmations through keeps 87% of the
reference's `not_novel` ideas in a class about three times its size. Two annotators who read the same
10 papers reached the same outcome on 7 (one opposing review flips a paper). The random sample, if
anything, under-represents kept `not_novel` papers (it puts the cue extractor's class at 128
[56, 238] against its true 246), which would make the reading's class larger and its Jaccard lower.
The `not_novel` interval lies below 0.6 under every variant: a kept-set Jaccard of 0.6 for that class
is out of reach of any text reading; the reference's own extractor (one pass of a frontier model)
decides the rest.
Recompute: `{READING_CEILING_COMMAND}` (it also prints the cue and n-gram extractors on the same
papers, whose dev figures are in-sample).
"""


def _kept_cases_text() -> str:
    """What a careful reading makes of the miner's own kept not_novel ideas (hand-measured, tested)."""
    o = KEPT_CASES_OUTCOMES
    return f"""\
**Our kept `not_novel` ideas, read carefully.** 40 of the `not_novel` ideas this miner kept (on the
latest review versions, before `--reviews-as-of`; 30 outside the dev split and 10 inside it, each in
SHA-256 order; `tests/fixtures/kept_not_novel_cases/`) had every review (155) labelled under the same
brief by two more annotators, one batch each, who were not told that the papers had been kept. The
bundled rule applied to their stances keeps {o['kept']} of the {sum(o.values())}: 8 of the 10 that the reference also
kept, and 14 of the 30 outside the dev split. The other {sum(o.values()) - o['kept']} are blocked by weak affirmations
only ({o['blocked by weak affirmations only']}: "relatively underexplored", "less commonly seen", "the novelty
here is mainly ..."), by an explicit affirmation ({o['blocked by an explicit stance against it']}) or by too
few disputes ({o['too few reviews agree']}). So the cue extractor misses hedged praise that the rule counts
against `not_novel`. But by the dev recall about three quarters of our kept `not_novel` ideas outside
the dev split are not in the reference's set, while the careful reading keeps about half of them: it
keeps roughly a third of the papers the reference left out. A reading closer to the annotators' would
shrink the class, not bring it to the reference's size or membership. Recompute: `{KEPT_CASES_COMMAND}`.
"""


def _llm_subset_text(llm: Any) -> str:
    """The LLM extractor's subset comparison (bench_extractor.py --llm), or why it is absent."""
    if not isinstance(llm, dict):
        return ("The LLM extractor path (`--extractor litellm/<model>` or any Inspect model name) is not in the "
                "table for this set (run `python tests/benchmarks/bench_extractor.py --llm MODEL --write <set dir>`).")
    cost = llm.get("cost") or {}
    kinds = ", ".join(f"{n} {k}" for k, n in (cost.get("failures_by_reason") or {}).items()) or "none"
    rate = cost.get("unparsable_rate")
    weak = "" if "gemma-3-270m" not in str(llm.get("model")) else """ The Gemma 3 270M base model
is a weak stand-in for the study's frontier-model extractor: the answer schema (a llama.cpp
grammar) makes its replies parse, but it copies the template's placeholder instead of quoting the
review, and such a quote is dropped, so this row measures the path and its cost, not what a
capable model would find."""
    return f"""
The LLM extractor (`--extractor {llm.get('model')}`, the miner's own path: prompt
`prompts/mining/novelty_signals.txt`, the cue pre-filter, quotes kept only when verbatim) costs
seconds per review here, so it reads every review of a stratified subset of {llm.get('papers')} dev papers
({llm.get('reviews')} reviews; per label in SHA-256 order, dealt over the same outer folds), and the
cue extractor is scored on the same papers and folds. Nothing is fitted for either except the
selection choices, picked per fold on the subset's training papers by ideas kept with their
label minus ideas swapped (the LLM does not read the other candidates, so the size of its kept
set, and a Jaccard, is unknown; this objective favours lenient rules). A review whose answer is
unparsable or whose call failed is counted and its paper is not kept, never read as "no signal".

{llm.get('table_markdown', '')}

Measured cost (cold answer cache, shared 2-core machine, load average {cost.get('load_average_at_end')} at
the end): {cost.get('reviews_sent')} reviews sent ({cost.get('reviews_skipped_by_prefilter')} skipped by the cue pre-filter),
{cost.get('calls')} calls, {cost.get('input_tokens')} input and {cost.get('output_tokens')} output tokens,
{cost.get('wall_seconds')} s wall ({cost.get('seconds_per_review_sent')} s per review, model load
{cost.get('model_load_seconds')} s); failed reviews: {cost.get('failed_reviews')} ({kinds}; unparsable rate
{rate}); quotes dropped as not verbatim: {cost.get('quotes_dropped_not_verbatim')}.{weak} Recompute: `{llm.get('command')}`.
"""


def _sanitising_text(result: MineResult) -> str:
    reasons = "\n".join(f"| {k} | {v} |" for k, v in result.sanitise_reasons.items())
    return f"""\
The evaluation-claim detector (`judgeaudit.mine.claims`, tested on its own labelled cases) finds
results, benchmark numbers, comparisons with baselines or the state of the art, claims of
state-of-the-art, "experiments show" and evaluation-setup sentences, and release notes. Kept
abstracts with at least one such sentence: **{result.claims_before}** before sanitising,
**{result.claims_after}** after (an idea whose abstract still holds one is not kept, and counted in
the run summary). A claim sentence is cut before its claim clause when the rest is a
claim-free statement, otherwise removed; a descriptive "state-of-the-art X" becomes "leading X";
a sentence that followed a removed one loses a dangling connective ("Second, ...", "Moreover,
..."), and a sentence that only announces or refers back to removed results goes too.
"0 after" is the detector's own reading. On independent labelled sentences (written by an author
who had not read the detector, most of them verbatim from ICLR 2026 abstracts; tests/fixtures/claim_cases),
on the half never looked at while tuning, it finds claims with precision 0.89 and recall 0.76 and keeps
background with recall 0.92: about one claim in four, worded in a way the rules have not met, can
still be in a bundled abstract.

| sentences | count |
|---|---|
{reasons}
"""


_ORDER_TEXT = """\
`pointwise.jsonl` alternates `novel` and `not_novel` items (as far as the counts allow; the
larger class's rest comes last), each class ordered by area, then id; `pairwise.jsonl`
alternates gold `a` and `b`, each ordered by area. So a run over the first N items (`--limit N`)
sees both classes in turn. The order is deterministic (same ideas and seed, same bytes).
"""


def _versions_text(result: MineResult) -> str:
    """Which version of each official review the scores and signals come from."""
    if result.reviews_as_of is None:
        return "review scores and texts are the latest version of each official review"
    skipped = result.summary.skips[(PARSE_STAGE, LATER_REVIEW_VERSION)]
    return (f"review scores and texts are each official review as it stood at {as_of_text(result.reviews_as_of)} "
            f"(`--reviews-as-of`): {skipped} review versions written later are skipped, so a review edited later counts "
            "in its earlier version and one first posted later is left out")


def _sections(result: MineResult, th: Thresholds, extractor: str, sanitiser: str,
              calibration: dict[str, Any] | None, source: dict[str, Any], command: str, seed: int,
              crossval: dict[str, Any] | None = None) -> dict[str, str]:
    stages = "\n".join(f"| {name} | {n} |" for name, n in result.stages)
    areas = "\n".join(
        f"| {a} | {c['reviewed']} | {c['candidates_novel']} | {c['candidates_not_novel']} | {c['novel']} | {c['not_novel']} |"
        for a, c in result.by_area.items())
    labels = f"""\
Per ICLR primary area, over every submission with at least one official review (withdrawn and
desk-rejected papers included when they were reviewed, as in the reference study, whose labels
include withdrawn submissions; `--exclude-withdrawn` leaves withdrawn papers out of the candidates):

- {_versions_text(result)}; a paper's mean rating and mean
  contribution are plain means over its reviews;
- decile cuts per area use numpy's linear-interpolation percentile over all reviewed submissions
  of the area; top decile means mean rating >= the {th.top_quantile:.0%} percentile, bottom decile
  means mean rating <= the {th.bottom_quantile:.0%} percentile (inclusive: ties at a cut are in);
- `novel` candidates: >= {th.min_reviews} official reviews, top decile, mean contribution >= {th.novel_min_contribution};
  `not_novel` candidates: >= {th.min_reviews} official reviews, bottom decile, mean contribution <= {th.not_novel_max_contribution};
- a review *affirms* originality when it holds an explicit statement that the work is novel,
  original or first; it *disputes* it when it says the work lacks novelty, is incremental or was
  done before. A `novel` candidate is kept when {'more than' if th.strict_majority else 'at least'} {th.majority:.0%} of its reviews affirm and
  at most {th.max_opposing} disputes; the mirror rule keeps `not_novel` candidates, where
  {'any affirmation, hedged or merely descriptive ones included, opposes' if th.weak_opposes else 'only explicit affirmations oppose'}
  (these choices are the ones the grouped cross-validation picks, see *Extractor cross-validation*).

Signals come from the review fields strengths, weaknesses and questions (the summary field
restates the authors' own claims). Extractor: `{extractor}`. Abstract sanitiser: `{sanitiser}`
(sentences reporting results, benchmark numbers, state-of-the-art claims, "experiments show"
statements and code release notes are removed; the original abstract is kept in `original_text`).
Pairs join one `novel` and one `not_novel` idea of the same area; every novel idea is used once,
not_novel ideas are reused only in areas with fewer not_novel than novel ideas; the novel idea's
position (a/b) is balanced by a shuffle seeded with {seed}.
"""
    if calibration:
        pq = calibration.get("passages", {})
        la = calibration.get("labels", {})
        rows = []
        for pol in ("affirm", "dispute"):
            q = pq.get(pol, {})
            rows.append(f"| {pol} | {_fmt(q.get('precision'))} | {_fmt(q.get('recall'))} | {_fmt(q.get('f1'))} | {q.get('extracted')} | {q.get('reference')} |")
        lrows = []
        for lab in ("novel", "not_novel"):
            q = la.get(lab, {})
            lrows.append(f"| {lab} | {q.get('with_forum')} | {q.get('candidates')} | {q.get('kept_same_label')} | {q.get('swapped')} | {_fmt(q.get('recall'))} |")
        quality = f"""\
Measured on the development third of the reference study's published Human-Only labels
(`human_only_dev.jsonl`, {pq.get('ideas_measured')} ideas found in the snapshot; the other two thirds are held out).
Matching rule: an extracted quote matches a reference passage when, after normalising case,
markup and whitespace, one contains the other or they share >= 80% of the shorter one's words.
The reference lists only the passages on each idea's own label side, so any opposite-polarity
quote on a dev idea counts as a false positive; precision is measured against a reference
that may not be exhaustive.

| signal | precision | recall | F1 | extracted | reference passages |
|---|---|---|---|---|---|
{chr(10).join(rows)}

Agreement of the mined labels with the dev labels:

| dev label | dev ideas in snapshot | our candidates | kept with same label | swapped label | recall |
|---|---|---|---|---|---|
{chr(10).join(lrows)}

{_score_means_text(calibration)}{_reference_text(calibration)}
Reproduce: `{calibration.get('command', 'python tests/benchmarks/bench_extractor.py')}`
(or `python tests/benchmarks/bench_extractor.py`).
"""
    else:
        quality = "Not measured for this extractor version (run `judgeaudit mine ... --dev PATH`)."
    return {
        "Labels": labels,
        "Counts by stage": "| stage | count |\n|---|---|\n" + stages,
        "Counts by area": "| area | reviewed | novel candidates | not_novel candidates | novel | not_novel |\n|---|---|---|---|---|---|\n" + areas,
        "Extractor quality": quality,
        "Extractor cross-validation": _crossval_text(crossval, extractor),
        "The extractor on independent labelled reviews": _stance_cases_text(extractor),
        "Abstract sanitising": _sanitising_text(result),
        "File order": _ORDER_TEXT,
        "Source and licence": f"""\
Source: OpenReview `{source.get('venue')}` (snapshot `{source.get('path')}`, sha256 `{source.get('sha256')}`).
Reviews and abstracts are public on OpenReview under CC BY 4.0; attribute OpenReview and ICLR
when redistributing. Build command: `{command}`.
""",
        "Limitations": _limitations(extractor),
    }
