"""The mining pipeline: raw cache -> records -> scores and candidates -> signals -> labels -> ideas."""

from __future__ import annotations

import multiprocessing
import signal
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from judgeaudit.data.contract import Evidence, Idea, Provenance
from judgeaudit.errors import UserError
from judgeaudit.mine.openreview.shards import iter_notes
from judgeaudit.mine.parse import Corpus, Review, as_of_text, default_profile, parse_notes
from judgeaudit.mine.sanitise.claims import evaluation_claims
from judgeaudit.mine.sanitise.sanitisers import RuleSanitiser, Sanitiser
from judgeaudit.mine.select import (
    SIDES,
    UNREACHABLE,
    UNREAD_EMPTY,
    CandidatePool,
    Decision,
    SelectionResult,
    Thresholds,
    carries_decisions,
    decide,
    find_candidates,
    funnel_counts,
    majority_reachable,
    paper_scores,
    readable,
    review_affirms,
    review_disputes,
)
from judgeaudit.mine.signals.base import ReviewSignals, SignalExtractor
from judgeaudit.mine.summary import RunSummary
from judgeaudit.mine.venues.form import check_form, other_venue
from judgeaudit.mine.venues.profile import VenueProfile


@dataclass
class MineResult:
    """Everything a run produced: ideas, the selection behind them, stage counts and skips."""

    ideas: list[Idea]
    selection: SelectionResult
    summary: RunSummary
    corpus: Corpus
    stages: list[tuple[str, int]] = field(default_factory=list)
    by_area: dict[str, dict[str, int]] = field(default_factory=dict)
    sanitised_changed: int = 0
    sanitise_errors: int = 0
    dropped_quotes: int = 0
    claims_before: int = 0  # kept abstracts in which the evaluation-claim detector finds something, before sanitising
    claims_after: int = 0  # ... and after (such ideas are skipped, counted: 0 for a clean set)
    sanitise_reasons: dict[str, int] = field(default_factory=dict)
    sanitise_skipped: dict[str, int] = field(
        default_factory=dict
    )  # per side: labelled ideas whose abstract kept a claim
    seconds: dict[str, float] = field(
        default_factory=dict
    )  # wall time per step (for benchmarks; never written to a set)
    reviews_as_of: int | None = (
        None  # ms: reviews were read as they stood then (None: latest versions)
    )
    signals: dict[str, list[ReviewSignals]] = field(
        default_factory=dict
    )  # per candidate read: its reviews' signals

    @property
    def reviews_as_of_text(self) -> str | None:
        """The time reviews were read as of, as canonical UTC text (None: latest versions)."""
        return None if self.reviews_as_of is None else as_of_text(self.reviews_as_of)


def load_corpus(
    cache_dir: str | Path,
    summary: RunSummary,
    *,
    progress: bool = False,
    reviews_as_of: int | None = None,
    profile: VenueProfile | None = None,
) -> Corpus:
    """Parse a raw cache into a Corpus by the venue's form (skips counted in `summary`; reviews as they stood at
    `reviews_as_of` ms, if given); FormMismatch (one line) when the notes are not in the profile's form."""
    from tqdm import tqdm

    notes = tqdm(
        iter_notes(cache_dir, summary), desc="read raw cache", unit=" notes", disable=not progress
    )
    corpus = parse_notes(notes, summary, reviews_as_of=reviews_as_of, profile=profile)
    check_form(corpus.form, profile or default_profile())
    return corpus


# Worker state for forked extraction processes (set before the pool forks, read in children).
_WORK: tuple[Corpus, SignalExtractor, Thresholds] | None = None


def review_signals(review: Review, extractor: SignalExtractor, th: Thresholds) -> ReviewSignals:
    """One review's signals, or none (marked unread) when the rule does not read it (an empty signal field)."""
    if not readable(review, th):
        return ReviewSignals(review.review_id, unread=UNREAD_EMPTY)
    return extractor.extract(review)


def _extract_forums(forums: list[str]) -> dict[str, list[ReviewSignals]]:
    assert _WORK is not None
    corpus, extractor, th = _WORK
    return {
        f: [review_signals(r, extractor, th) for r in corpus.reviews.get(f, [])] for f in forums
    }


def _ignore_interrupt() -> None:
    """Worker initializer: Ctrl-C (SIGINT to the whole process group) is the parent's to handle."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def extract_signals(
    corpus: Corpus,
    forums: list[str],
    extractor: SignalExtractor,
    th: Thresholds,
    *,
    workers: int = 1,
    progress: bool = False,
) -> dict[str, list[ReviewSignals]]:
    """Signals of every review of `forums`; offline extraction may fan out over forked workers.

    Workers ignore SIGINT; on Ctrl-C the parent cancels the chunks not yet started and re-raises
    KeyboardInterrupt (the CLI prints one line and exits 130), so no worker prints a traceback.
    """
    global _WORK
    from tqdm import tqdm

    out: dict[str, list[ReviewSignals]] = {}
    bar = tqdm(total=len(forums), desc="novelty signals", unit="paper", disable=not progress)
    chunk = 50
    chunks = [forums[i : i + chunk] for i in range(0, len(forums), chunk)]
    _WORK = (corpus, extractor, th)
    try:
        if workers > 1 and len(chunks) > 1 and "fork" in multiprocessing.get_all_start_methods():
            with ProcessPoolExecutor(
                max_workers=workers,
                mp_context=multiprocessing.get_context("fork"),
                initializer=_ignore_interrupt,
            ) as pool:
                try:
                    for part in pool.map(_extract_forums, chunks):
                        out.update(part)
                        bar.update(len(part))
                except KeyboardInterrupt:
                    pool.shutdown(wait=False, cancel_futures=True)
                    raise
        else:
            for c in chunks:
                out.update(_extract_forums(c))
                bar.update(len(c))
    finally:
        _WORK = None
        bar.close()
    return {f: out[f] for f in forums}


def reachable_forums(corpus: Corpus, forums: list[str], th: Thresholds) -> tuple[list[str], int]:
    """The candidates whose readable reviews could make a majority (the others cannot be labelled whatever
    the signals, so their reviews are never read), and how many of the candidates' reviews are unread."""
    out: list[str] = []
    unread = 0
    for forum in forums:
        reviews = corpus.reviews[forum]
        n = sum(1 for r in reviews if readable(r, th))
        unread += len(reviews) - n
        if majority_reachable(n, len(reviews), th):
            out.append(forum)
    return out, unread


def candidate_pool(corpus: Corpus, th: Thresholds, venue_id: str = "") -> CandidatePool:
    """Scores and candidates of a corpus; the decision filter is applied when the source carries decisions."""
    scores = paper_scores(corpus, venue_id)
    applied = th.decisions == "auto" and carries_decisions(scores)
    if scores and not applied and all(s.rating_mean is None for s in scores.values()):
        raise UserError(
            "the reviews carry no rating (the venue's form has none) and the source no acceptance "
            "decisions (or --decisions ignore), so no paper can be ranked or given a side; mine it "
            "once its decisions are public"
        )
    cutoffs, candidates, dropped = find_candidates(scores, th, decisions=applied)
    return CandidatePool(scores, cutoffs, candidates, dropped, applied)


def select_labels(
    corpus: Corpus,
    extractor: SignalExtractor,
    th: Thresholds,
    *,
    venue_id: str = "",
    workers: int = 1,
    progress: bool = False,
) -> tuple[SelectionResult, dict[str, list[ReviewSignals]]]:
    """Scores, candidates (the decision filter applied when the source carries decisions), and the signal rule
    applied to every candidate whose readable reviews could make a majority (the others are decided unread)."""
    pool = candidate_pool(corpus, th, venue_id)
    scores, candidates = pool.scores, pool.candidates
    forums = sorted(candidates)
    reachable, unread = reachable_forums(corpus, forums, th)
    signals = extract_signals(corpus, reachable, extractor, th, workers=workers, progress=progress)
    decisions: dict[str, Decision] = {}
    for f in forums:
        if f in signals:
            decisions[f] = decide(f, candidates[f], scores[f].review_count, signals[f], th)
        else:
            decisions[f] = Decision(f, candidates[f], None, UNREACHABLE, 0, 0, (), ())
    result = SelectionResult(
        scores,
        pool.cutoffs,
        candidates,
        pool.dropped,
        pool.decisions_applied,
        decisions,
        funnel=funnel_counts(scores, pool.dropped, candidates, decisions),
        unread_reviews=unread,
        skipped_unreachable=len(forums) - len(reachable),
    )
    return result, signals


def build_idea(
    corpus: Corpus, selection: SelectionResult, forum: str, text: str, dataset: str
) -> Idea:
    """The contract Idea of one kept forum."""
    sub = corpus.submissions[forum]
    s = selection.scores[forum]
    d = selection.decisions[forum]
    assert d.label is not None
    return Idea(
        idea_id=forum,
        text=text,
        format="abstract",
        source="human",
        area=sub.area,
        label=d.label,
        generator=None,
        title=sub.title or None,
        evidence=Evidence(
            rating_mean=None if s.rating_mean is None else round(s.rating_mean, 4),
            contribution_mean=None
            if s.contribution_mean is None
            else round(s.contribution_mean, 4),
            review_count=s.review_count,
            positive_signals=d.positive_quotes,
            negative_signals=d.negative_quotes,
        ),
        original_text=sub.abstract,
        provenance=Provenance(dataset=dataset, source_id=forum, forum=forum),
    )


def mine(
    cache_dir: str | Path,
    *,
    venue_id: str,
    extractor: SignalExtractor,
    sanitiser: Sanitiser,
    thresholds: Thresholds,
    workers: int = 1,
    progress: bool = False,
    log: Callable[[str], None] | None = None,
    reviews_as_of: int | None = None,
    corpus: Corpus | None = None,
    profile: VenueProfile | None = None,
) -> MineResult:
    """Run every mining stage over a raw cache and return the labelled, sanitised ideas (before pairing).

    `corpus`: the cache already parsed (as of `reviews_as_of`), for a caller that mines one corpus several times.
    `profile`: the venue's form the cache is read by (None: ICLR 2026's); `thresholds` are on its scales."""
    from tqdm import tqdm

    say = log or (lambda _msg: None)
    summary = RunSummary()
    clock = [time.perf_counter()]
    seconds: dict[str, float] = {}

    def lap(step: str) -> None:
        now = time.perf_counter()
        seconds[step] = round(now - clock[0], 2)
        clock[0] = now

    if corpus is None:
        say(f"reading raw cache {cache_dir}")
        corpus = load_corpus(
            cache_dir, summary, progress=progress, reviews_as_of=reviews_as_of, profile=profile
        )
        warning = other_venue(corpus.form, profile or default_profile())
        if warning:
            say(f"warning: {warning}")
    lap("read and parse the raw cache")
    n_reviews = sum(len(v) for v in corpus.reviews.values())
    say(f"parsed {len(corpus.submissions)} submissions and {n_reviews} official reviews")
    selection, signals = select_labels(
        corpus, extractor, thresholds, venue_id=venue_id, workers=workers, progress=progress
    )
    lap("scores, candidates and their reviews' signals")
    kept = selection.kept()
    dataset = f"openreview:{venue_id}"
    ideas: list[Idea] = []
    changed = errors = before = after = 0
    reasons: Counter[str] = Counter()
    claim_skips: Counter[str] = Counter()
    for forum in tqdm(sorted(kept), desc="sanitise abstracts", unit="idea", disable=not progress):
        result = sanitiser.sanitise(corpus.submissions[forum].abstract)
        before += int(bool(evaluation_claims(result.original)))
        left = evaluation_claims(result.text)
        if (
            left and sanitiser.name != RuleSanitiser.name
        ):  # e.g. a lenient LLM: the rule pass goes over its text
            again = RuleSanitiser().sanitise(result.text)
            result = replace(
                result,
                text=again.text,
                removed=result.removed + again.removed,
                rewritten=result.rewritten + again.rewritten,
            )
            reasons[f"rule pass after {sanitiser.name} left a claim"] += 1
            left = evaluation_claims(result.text)
        after += int(bool(left))
        changed += int(result.changed)
        reasons.update(reason for _, reason in result.removed)
        reasons["rewritten in place"] += len(result.rewritten)
        # lines=0: these notes were parsed (and counted) already; the skip is of an idea, not of a note
        if result.error:
            errors += 1
            summary.skip(
                "sanitise",
                f"LLM sanitiser answer unusable, rule pass used ({result.error[:60]})",
                forum,
                lines=0,
            )
        if (
            left
        ):  # never a judged text that states its own evaluation (e.g. an abstract of results only)
            summary.skip(
                "sanitise", "evaluation claims left after sanitising: idea not kept", forum, lines=0
            )
            claim_skips[str(kept[forum].label)] += 1
            continue
        ideas.append(build_idea(corpus, selection, forum, result.text, dataset))
    lap("sanitise and build the kept ideas")
    scores = selection.scores
    lab = Counter(i.label for i in ideas)
    stages = [
        ("submissions parsed", len(corpus.submissions)),
        ("official reviews parsed", n_reviews),
    ]
    stages += [(f"papers: {step}", n) for step, n in selection.funnel.population.items()]
    for side in SIDES:
        stages += [(f"{side}: {step}", n) for step, n in selection.funnel.sides[side].items()]
        stages.append((f"{side}: labelled (abstract free of evaluation claims)", lab[side]))
    by_area: dict[str, dict[str, int]] = {}
    for area in sorted(selection.cutoffs):
        by_area[area] = {
            "reviewed": 0,
            "candidates_novel": 0,
            "candidates_not_novel": 0,
            "novel": 0,
            "not_novel": 0,
        }
    for s in scores.values():
        by_area[s.area]["reviewed"] += 1
    for forum, side in selection.candidates.items():
        by_area[scores[forum].area][f"candidates_{side}"] += 1
    for idea in ideas:
        by_area[idea.area][idea.label] += 1
    return MineResult(
        ideas=ideas,
        selection=selection,
        summary=summary,
        corpus=corpus,
        stages=stages,
        by_area=by_area,
        sanitised_changed=changed,
        sanitise_errors=errors,
        claims_before=before,
        claims_after=after,
        sanitise_reasons=dict(sorted(reasons.items())),
        seconds=seconds,
        sanitise_skipped={side: claim_skips[side] for side in SIDES},
        dropped_quotes=int(getattr(extractor, "dropped_total", 0)),
        reviews_as_of=reviews_as_of,
        signals=signals,
    )


def stage_dict(result: MineResult) -> dict[str, Any]:
    """Stage counts as a JSON-ready mapping."""
    return {name: n for name, n in result.stages}


def compare_extractors(
    this: SelectionResult,
    this_signals: dict[str, list[ReviewSignals]],
    other: SelectionResult,
    other_signals: dict[str, list[ReviewSignals]],
    th: Thresholds,
) -> dict[str, Any]:
    """Two extractors' runs on the same candidates and rule: labelled ideas per side (each, both, Jaccard), and
    over the reviews both read (neither failed nor unread), how often they agree on affirming and on disputing."""
    labels: dict[str, Any] = {}
    for side in SIDES:
        a = {f for f, d in this.kept().items() if d.label == side}
        b = {f for f, d in other.kept().items() if d.label == side}
        union = a | b
        labels[side] = {
            "this": len(a),
            "offline": len(b),
            "both": len(a & b),
            "jaccard": round(len(a & b) / len(union), 4) if union else None,
        }
    reviews = same_affirms = same_disputes = 0
    for forum in sorted(set(this_signals) & set(other_signals)):
        for x, y in zip(this_signals[forum], other_signals[forum], strict=True):
            if x.failed or y.failed or x.unread or y.unread:
                continue
            reviews += 1
            same_affirms += review_affirms(x, th) == review_affirms(y, th)
            same_disputes += review_disputes(x, th) == review_disputes(y, th)
    return {
        "labels": labels,
        "reviews": {
            "reviews": reviews,
            "same_affirms": same_affirms,
            "same_disputes": same_disputes,
        },
    }
