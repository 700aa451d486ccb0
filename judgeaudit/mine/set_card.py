"""The dataset card of a mined Human-Only set: every rule, the funnel, the pairing and the measurements.

Rendered from the run (`MineResult`), the pairing report, the manifest's mining record and the
measurement records kept beside the set (calibration, cross-validation, studies); nothing here
measures anything. A study record says under which rule (`thresholds`) and offline-extractor
version it was measured, and the card marks one measured under another as such.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from judgeaudit.data.card import write_card
from judgeaudit.data.labelled import LABELLED_NAME
from judgeaudit.mine.pairing import PairingReport
from judgeaudit.mine.parse import LATER_REVIEW_VERSION
from judgeaudit.mine.parse import STAGE as PARSE_STAGE
from judgeaudit.mine.pipeline import MineResult
from judgeaudit.mine.select import SIDE_STEPS, SIDES
from judgeaudit.mine.signals.cues import offline_fingerprint
from judgeaudit.mine.venues.card import cut_value, venue_text

PRETTY_NAME = "{venue} Human-Only novelty pairs"
# The selection's defaults and the extractor figures come from the reference study's data release.
RELEASE_CREDIT = (
    "The selection follows the reference study, and the extractor figures above are measured on "
    "its development labels, from its data release novelty-judge-bench "
    "(`noystl/novelty-judge-bench`, CC BY 4.0): credit it when you reuse them."
)
REFERENCE_SIZE = {"novel": 154, "not_novel_distinct": 145, "pairs": 154, "areas": 20}
"""The reference study's published Human-Only set: 154 pairs over 20 areas, 154 novel and 145 distinct not_novel."""


def _fmt(x: Any) -> str:
    return "n/a" if x is None else (f"{x:.3f}" if isinstance(x, float) else str(x))


def _n(mining: Mapping[str, Any], key: str) -> str:
    """A cut as the selection applied it (on the venue's scale; see *Venue and review form*)."""
    return cut_value(mining.get("venue"), key, mining["thresholds"].get(key))


def venue_name(mining: Mapping[str, Any]) -> str:
    """The venue's name from its profile ('ICLR 2026' for a set mined before venue profiles)."""
    venue = mining.get("venue")
    return str(venue["profile"]["name"]) if venue else "ICLR 2026"


def labels_text(mining: Mapping[str, Any], result: MineResult) -> str:
    """The rule, step by step, with this build's settings."""
    th = mining["thresholds"]
    fields = " and ".join(th["signal_fields"])
    empty = (
        "a review with any of them empty gives no signal (it still counts among all reviews)"
        if th["empty_fields"] == "no-signal"
        else "a review with an empty field is read for what it holds"
    )
    weak_aff = {
        "ignore": "no signal at all",
        "oppose": "no support for `novel`, but they block a `not_novel` label (the earlier rule)",
        "support": "counted towards a `novel` majority, but no signal against `not_novel`",
        "count": "counted as explicit affirmations",
    }[th["weak_affirmations"]]
    weak_disp = {"ignore": "no signal", "count": "counted as disputes (the earlier rule)"}[
        th["weak_disputes"]
    ]
    majority = f"{'more than' if th['strict_majority'] else 'at least'} {th['majority']:.0%}"
    excluded = ", ".join(f'"{a}"' for a in th["excluded_areas"]) or "none"
    decisions = (
        "applied: the source carries decisions (venue fields or Decision notes)"
        if mining["decisions_applied"]
        else (
            "not applied: the source carries no acceptance decisions (the snapshot predates them); "
            "withdrawn papers are known and stay candidates"
        )
        if th["decisions"] == "auto"
        else "not applied (`--decisions ignore`)"
    )
    return f"""\
The reference study's selection, step by step (each step is a `judgeaudit mine` option whose default is
the study's value; `judgeaudit mine --help`):

1. **Reviews read.** {_versions_text(result)}. Signals are read from the review fields {fields} only;
   {empty}. A paper's mean rating and mean contribution are plain means over all its reviews.
2. **Population.** Per area (see *Venue and review form*), over every submission with at least one official review
   (withdrawn and desk-rejected papers included). Excluded area(s): {excluded}. Title blocklist:
   {len(th["blocklist"])} title(s). At least {th["min_reviews"]} official review(s).
3. **Rating deciles.** numpy's linear-interpolation percentile of the area's mean ratings; top decile:
   mean rating >= the {th["top_quantile"]:.0%} percentile, bottom decile: <= the {th["bottom_quantile"]:.0%}
   percentile (inclusive: ties at a cut are in).
4. **Candidates.** `novel`: top decile, mean rating >= {_n(mining, "novel_min_rating")}, mean contribution >=
   {_n(mining, "novel_min_contribution")}, accepted where decisions are known. `not_novel`: bottom decile,
   mean rating <= {_n(mining, "not_novel_max_rating")}, mean contribution <= {_n(mining, "not_novel_max_contribution")},
   not accepted (rejected, desk-rejected or withdrawn) where decisions are known. Decision filter: {decisions}.
5. **Signals.** An *affirmation* says in so many words that the contribution is new relative to prior
   work; a *dispute* is a statement whose main claim judges the contribution itself as not novel
   (incremental, derivative, already known, done before). Not signals: generic praise, descriptions
   of what the method does ("extends", "applies", "proposes a new framework for ..."), missing
   citations, criticism of the experiments or of small gains, hedged uncertainty ("unclear whether
   this is new"). Hedged or descriptive affirmations are {weak_aff}; hedged uncertainty is {weak_disp}.
   Extractor: `{mining["extractor"]}` (see *Extractor*).
6. **Labels.** A `novel` candidate is labelled when no more than {th["max_opposing"]} of its reviews dispute
   and {majority} of ALL its reviews carry affirmations only; a `not_novel` candidate when no more than
   {th["max_opposing"]} affirm and {majority} of all its reviews carry disputes only. A candidate
   whose readable reviews cannot make that majority is decided without reading (its reviews cannot
   change the outcome). Abstracts are then stripped of evaluation claims; an idea whose abstract still
   holds one is not labelled (counted, see *Funnel*).
7. **Pairs.** See *Pairing and the point set*.
"""


def _versions_text(result: MineResult) -> str:
    """Which version of each official review the scores and signals come from."""
    if result.reviews_as_of is None:
        return "Review scores and texts are the latest version of each official review"
    skipped = result.summary.skips[(PARSE_STAGE, LATER_REVIEW_VERSION)]
    return (
        f"Review scores and texts are each official review as it stood at {result.reviews_as_of_text} "
        f"(`--reviews-as-of`): {skipped} review versions written later are skipped, so a review edited later "
        "counts in its earlier version and one first posted later is left out"
    )


STEP_LABELS = {
    "top decile": "in the area's top / bottom decile",
    "bottom decile": "in the area's top / bottom decile",
    "rating floor": "rating >= floor / <= ceiling",
    "rating ceiling": "rating >= floor / <= ceiling",
    "contribution": "contribution cut",
    "decision": "decision filter (candidates)",
    "enough readable reviews": "enough readable reviews for a majority",
    "no review opposes": "no review opposes",
    "majority agrees": "more than half of all reviews agree only",
}


def funnel_text(mining: Mapping[str, Any], report: PairingReport) -> str:
    """The papers left after every step, per side, with the pairing's counts at the end."""
    stages = mining["stages"]
    funnel = mining["funnel"]
    rows = [
        f"| submissions parsed | {stages['submissions parsed']} | |",
        f"| official reviews parsed | {stages['official reviews parsed']} | |",
    ]
    rows += [f"| {step} | {n} | |" for step, n in funnel["population"].items()]
    rows.append("| | **novel** | **not_novel** |")
    for k in range(len(SIDE_STEPS["novel"]) + 3):
        cells = []
        label = ""
        for side in SIDES:
            step, n = list(funnel["sides"][side].items())[k]
            label = STEP_LABELS.get(step, step)
            cells.append(str(n))
        rows.append(f"| {label} | {' | '.join(cells)} |")
    lab = mining["labelled"]
    skipped = mining["sanitise_skipped"]
    rows.append(
        f"| abstract free of evaluation claims: **labelled** (`{LABELLED_NAME}`) | {lab['novel']} | {lab['not_novel']} |"
    )
    dropped = {side: sum(c.get(side, 0) for c in report.dropped_areas.values()) for side in SIDES}
    rows.append(
        f"| in an area with both classes | {lab['novel'] - dropped['novel']} | {lab['not_novel'] - dropped['not_novel']} |"
    )
    distinct = sum(report.distinct_not_novel_by_area.values())
    pairs = sum(report.pairs_by_area.values())
    rows.append(f"| drawn by a pair: **point set** | {pairs} | {distinct} |")
    return f"""\
Papers left after each step (each count is the previous one minus the papers that stopped at that step;
a paper enters one side's column at the decile step). Labelled ideas not kept for an evaluation claim in
the abstract: {skipped["novel"]} `novel`, {skipped["not_novel"]} `not_novel`. Candidate reviews with an empty
signal field (no signal): {mining["candidate_reviews_unread"]}; candidates decided unread: {mining["candidates_decided_unread"]}.
Pairs: {pairs} over {len(report.pairs_by_area)} areas, {distinct} distinct `not_novel` ideas ({pairs - distinct} draws reuse
one). The reference study's set: {REFERENCE_SIZE["pairs"]} pairs over {REFERENCE_SIZE["areas"]} areas,
{REFERENCE_SIZE["novel"]} `novel` and {REFERENCE_SIZE["not_novel_distinct"]} distinct `not_novel` ideas.

| step | count | |
|---|---|---|
{chr(10).join(rows)}
"""


def area_text(
    result: MineResult, report: PairingReport, excluded: tuple[str, ...] | list[str]
) -> str:
    """Per area: reviewed papers, candidates and labelled ideas per side, pairs and distinct not_novel partners."""
    rows = []
    for area, c in result.by_area.items():
        note = "excluded area" if area in excluded else ""
        if area in report.dropped_areas:
            note = "dropped: lacks a class"
        rows.append(
            f"| {area} | {c['reviewed']} | {c['candidates_novel']} | {c['candidates_not_novel']} | {c['novel']} | "
            f"{c['not_novel']} | {report.pairs_by_area.get(area, 0)} | {report.distinct_not_novel_by_area.get(area, 0)} "
            f"| {note} |"
        )
    return (
        "| area | reviewed | novel candidates | not_novel candidates | labelled novel | labelled not_novel | pairs "
        "| distinct not_novel in pairs | note |\n|---|---|---|---|---|---|---|---|---|\n"
        + "\n".join(rows)
        + "\n"
    )


def _per_area(counts: Mapping[str, int]) -> str:
    """'area (n), ...' or 'none'."""
    return ", ".join(f"{area} ({n})" for area, n in counts.items()) or "none"


def pairing_text(mining: Mapping[str, Any], report: PairingReport) -> str:
    """How the pairs and the point set were drawn from the labelled pool."""
    point_set = (
        "the ideas of the pairs, each once (the reference's): a labelled `not_novel` idea no pair drew is "
        f"not in it, but it is in `{LABELLED_NAME}`"
        if mining["point_set"] == "pairs"
        else "every labelled idea (`--point-set labelled`), a larger set than the reference's"
    )
    positions = (
        "drawn at random per pair"
        if mining["positions"] == "random"
        else "balanced over the whole set (exactly half at a, `--positions balanced`)"
    )
    dropped = (
        ", ".join(
            f"{a} ({c['novel']} novel, {c['not_novel']} not_novel)"
            for a, c in report.dropped_areas.items()
        )
        or "none"
    )
    return f"""\
Per area, from the labelled ideas: an area lacking either class is dropped whole (here: {dropped});
every `novel` idea is in exactly one pair; its `not_novel` partner is drawn at random without replacement
from the area's `not_novel` ideas, which are drawn again (reused) only once the area has run out
(draws that reuse an idea: {_per_area(report.reused_not_novel_by_area)}). The novel idea's position (a/b) is
{positions}: {report.novel_at_a} at a, {report.novel_at_b} at b. One seeded generator makes every draw:
seed **{mining["seed"]}** (the reference did not seed its draw). The point set (`pointwise.jsonl`) is
{point_set}.
"""


LABELLED_TEXT = f"""\
`{LABELLED_NAME}` holds every labelled idea before pairing, one JSON object per line (by label, area, id):
`idea_id`, `title`, `area`, `label`, `evidence` (as in the ideas above: mean rating and contribution,
review count, the quotes behind the label), `paired` (whether a pair drew it) and `pairs` (how many
pairs hold it; more than 1 for a `not_novel` idea reused because its area ran out). The pair and point
sets are drawn from it; `judgeaudit validate` checks that they agree with it.
"""


def extractor_text(mining: Mapping[str, Any]) -> str:
    """Which extractor built the set, and (for an LLM) its answers' provenance and agreement with the offline one."""
    name = mining["extractor"]
    record = mining.get("extractor_record") or {}
    if name == "offline":
        return (
            "This set is built by the offline cue extractor (`offline`, no model): cue lists for the definition "
            "above, with negation, hedge, scope and contrast handling; hedged or descriptive affirmations and "
            "hedged uncertainty are marked weak, which the rule above reads as no signal. Its cue lists were "
            "written while reading the development split, so its dev figures below are in-sample.\n"
        )
    lines = [f"This set is built by the extractor `{name}`."]
    prov = record.get("provenance")
    if prov:
        lines.append(
            f"Its answers come from the answer cache (replayed without a model: `--llm-replay`): "
            f"{prov.get('answers')} answers; models {prov.get('models')}; prompt {prov.get('prompt')} "
            f"(sha256 `{prov.get('prompt_sha256')}`); answered {prov.get('dates')}."
        )
    agree = record.get("agreement_with_offline")
    if agree:
        rows = [
            f"| {side} | {a['this']} | {a['offline']} | {a['both']} | {_fmt(a['jaccard'])} |"
            for side, a in agree["labels"].items()
        ]
        rv = agree["reviews"]
        lines.append(f"""
Agreement with the offline extractor on the same candidates and rule (labelled ideas per side; reviews
read by both: {rv["reviews"]}, same affirmation flag on {rv["same_affirms"]}, same dispute flag on
{rv["same_disputes"]}):

| label | this extractor | offline | both | Jaccard |
|---|---|---|---|---|
{chr(10).join(rows)}
""")
    return "\n".join(lines) + "\n"


def calibration_text(calibration: Mapping[str, Any] | None) -> str:
    """The extractor measured against the reference's dev split (`--dev`), or why it is absent."""
    if not calibration:
        return "Not measured for this extractor version (run `judgeaudit mine ... --dev PATH`).\n"
    pq = calibration.get("passages", {})
    la = calibration.get("labels", {})
    rows = [
        f"| {pol} | {_fmt(q.get('precision'))} | {_fmt(q.get('recall'))} | {_fmt(q.get('f1'))} | {q.get('extracted')} | "
        f"{q.get('reference')} |"
        for pol in ("affirm", "dispute")
        for q in [pq.get(pol, {})]
    ]
    lrows = [
        f"| {lab} | {q.get('with_forum')} | {q.get('candidates')} | {q.get('kept_same_label')} | {q.get('swapped')} | "
        f"{_fmt(q.get('recall'))} |"
        for lab in ("novel", "not_novel")
        for q in [la.get(lab, {})]
    ]
    m = calibration.get("dev_score_means") or {}
    means = (
        ""
        if not m
        else (
            f"Review scores: for {m.get('same_means')} of the {m.get('reviewed')} dev ideas with reviews "
            "here, the mean rating and mean contribution over the reviews read equal the means the "
            "reference published (to its two decimals).\n\n"
        )
    )
    return f"""\
Measured on the development third of the reference study's published Human-Only labels
(`human_only_dev.jsonl`, {pq.get("ideas_measured")} ideas found in the snapshot; the other two thirds are held
out). Matching rule: an extracted quote matches a reference passage when, after normalising case, markup
and whitespace, one contains the other or they share >= 80% of the shorter one's words. The reference
lists only the passages on each idea's own label side, so an opposite-polarity quote on a dev idea
counts as a false positive.

| signal | precision | recall | F1 | extracted | reference passages |
|---|---|---|---|---|---|
{chr(10).join(rows)}

Dev ideas in the labelled pool with the reference's label (before pairing):

| dev label | dev ideas in snapshot | our candidates | labelled with same label | swapped label | recall |
|---|---|---|---|---|---|
{chr(10).join(lrows)}

{means}Reproduce: `{calibration.get("command", "judgeaudit mine ... --dev PATH")}`.
"""


def _stale(record: Mapping[str, Any], mining: Mapping[str, Any]) -> str:
    """A warning when a measurement was made under another rule or offline-extractor version, else ''."""
    measured = record.get("measured_with") or {}
    other = []
    if measured.get("thresholds") not in (None, mining["thresholds"]):
        other.append("another selection rule")
    if measured.get("offline_fingerprint") not in (None, offline_fingerprint()):
        other.append("another version of the offline extractor")
    if not other:
        return ""
    return f"\n**Measured under {' and '.join(other)} than this build's**: recompute with the command below.\n"


def crossval_text(crossval: Mapping[str, Any] | None, mining: Mapping[str, Any]) -> str:
    """The grouped cross-validation record (bench_extractor.py --write), or how to make it."""
    if crossval is None:
        return "Not computed for this set (run `python tests/benchmarks/bench_extractor.py --write <set dir>`, then mine).\n"
    return f"""{crossval.get("text", "")}{_stale(crossval, mining)}

{crossval.get("table_markdown", "")}

{crossval.get("ablation_markdown", "")}

Recompute: `{crossval.get("command")}`.
"""


STUDY_ORDER = (
    "previous_set",
    "reading_ceiling_reference_rule",
    "reading_ceiling",
    "stance_cases",
    "kept_not_novel_cases",
)
"""The order the card shows the known study records in (others follow, by key)."""


def studies_text(studies: Mapping[str, Any] | None, mining: Mapping[str, Any]) -> str:
    """Every study record kept beside the set (the previous set, independent annotators), in `STUDY_ORDER`."""
    if not studies:
        return "None stored beside this set.\n"
    parts = []
    for key in sorted(
        studies, key=lambda k: (STUDY_ORDER.index(k) if k in STUDY_ORDER else len(STUDY_ORDER), k)
    ):
        record = studies[key]
        parts.append(
            f"### {record.get('title', key)}\n\n{record.get('text', '')}{_stale(record, mining)}\n\n"
            f"{record.get('table_markdown', '')}\n\nRecompute: `{record.get('command')}`.\n"
        )
    return "\n".join(parts)


def sanitising_text(result: MineResult) -> str:
    """What the abstract sanitiser removed, and what the claim detector still finds."""
    reasons = "\n".join(f"| {k} | {v} |" for k, v in result.sanitise_reasons.items())
    return f"""\
The evaluation-claim detector (`judgeaudit.mine.sanitise.claims`, tested on its own labelled cases) finds
results, benchmark numbers, comparisons with baselines or the state of the art, claims of
state-of-the-art, "experiments show" and evaluation-setup sentences, and release notes. Labelled
abstracts with at least one such sentence: **{result.claims_before}** before sanitising,
**{result.claims_after}** after (an idea whose abstract still holds one is not labelled, and counted).
A claim sentence is cut before its claim clause when the rest is a claim-free statement, otherwise
removed; a descriptive "state-of-the-art X" becomes "leading X"; a sentence that followed a removed one
loses a dangling connective, and a sentence that only announces or refers back to removed results goes
too. On independent labelled sentences (tests/fixtures/claim_cases), on the half never looked at while
tuning, the detector finds claims with precision 0.89 and recall 0.76 and keeps background with recall
0.92: about one claim in four, worded in a way the rules have not met, can still be in an abstract.

| sentences | count |
|---|---|
{reasons}
"""


ORDER_TEXT = """\
`pointwise.jsonl` alternates `novel` and `not_novel` items (as far as the counts allow; the
larger class's rest comes last), each class ordered by area, then id; `pairwise.jsonl`
alternates gold `a` and `b`, each ordered by area. So a run over the first N items (`--limit N`)
sees both classes in turn. The order is deterministic (same ideas and seed, same bytes).
"""

LIMITATIONS = """\
Labels reflect reviewers' opinions before the venue's decisions (when the decision filter is not
applied), not ground truth about the papers; reviews edited after the time they are read as of can
change scores and therefore deciles. Whether a sentence affirms or disputes originality is the
extractor's reading: its measured errors are above. The reference study's extractor was one pass of
a frontier model, so an extractor that follows the stated definition can still part from the
reference's labels where that model did not follow it.
"""


def write_set_card(
    set_dir: Path,
    result: MineResult,
    report: PairingReport,
    *,
    mining: Mapping[str, Any],
    source: Mapping[str, Any],
    command: str,
    calibration: Mapping[str, Any] | None,
    crossval: Mapping[str, Any] | None,
    studies: Mapping[str, Any] | None,
) -> Path:
    """Write the set's README.md (after its data files and manifest)."""
    lab = mining["labelled"]
    pairs = sum(report.pairs_by_area.values())
    distinct = sum(report.distinct_not_novel_by_area.values())
    summary = (
        f"Human-Only gold labels mined from the public {venue_name(mining)} OpenReview reviews with the reference study's "
        f"selection: {lab['novel']} `novel` and {lab['not_novel']} `not_novel` labelled ideas (`{LABELLED_NAME}`), "
        f"{pairs} same-area pairs ({pairs} `novel` and {distinct} distinct `not_novel` ideas, the point set), "
        "abstracts with evaluation information removed. See *Labels* and *Funnel* below."
    )
    sections = {
        "Labels": labels_text(mining, result),
        "Venue and review form": venue_text(mining.get("venue")),
        "Funnel": funnel_text(mining, report),
        "Counts by area": area_text(result, report, mining["thresholds"]["excluded_areas"]),
        "Pairing and the point set": pairing_text(mining, report),
        "The labelled pool": LABELLED_TEXT,
        "Extractor": extractor_text(mining),
        "Extractor quality on the development split": calibration_text(calibration),
        "Extractor cross-validation": crossval_text(crossval, mining),
        "Studies": studies_text(studies, mining),
        "Abstract sanitising": sanitising_text(result),
        "File order": ORDER_TEXT,
        "Source and licence": f"""\
Source: OpenReview `{source.get("venue")}` (snapshot `{source.get("path")}`, sha256 `{source.get("sha256")}`).
Reviews and abstracts are public on OpenReview under CC BY 4.0; attribute OpenReview and
{venue_name(mining).split()[0]} when redistributing. Build command: `{command}`.
{RELEASE_CREDIT}
""",
        "Limitations": LIMITATIONS,
    }
    return write_card(
        set_dir,
        pretty_name=PRETTY_NAME.format(venue=venue_name(mining)),
        summary=summary,
        sections=sections,
    )
