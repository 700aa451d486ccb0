"""The surface-perturbation ratio of the score judges (metric_*, distance_*, concept_*): edits, scoring, card reading.

For each idea the check applies meaning-preserving edits (the probes' `rename_acronym` and
`whitespace_markdown`, plus one added comment-like sentence of our own) and measures the
shift |score(edit) - score(idea)| the judge assigns. The *typical difference* is the median
|score(x) - score(y)| over seeded pairs of different ideas of the same area. The reported
ratio is median shift / typical difference: a judge that reads meaning keeps it well below 1;
near or above 1 means formatting moves its score as much as a different idea does.
Edits that do not apply to an idea (no acronym to rename) are counted as skipped, never hidden.
The ratio and its bootstrap interval over ideas are `judgeaudit.stats.surface_ratio` (defined
there once); this module makes the edits, scores them and reads the result for the audit card.

On the card (`surface_ratio_reading`): for a judge with a numeric score per idea
(`score_judges()`, one row per family in `scorer_families()`), the audit scores every distinct
idea of the audited items (both sides of a pair; the fit and the scored split alike, since the
ratio is a property of the score, not of the fitted verdict rule) with the same prior-work scorer
the judge task uses (the corpus of `-T retrieval_corpus`, else the default of
`judgeaudit.judges.score.metric`, and its default embedder; checked against the corpus hash and
embedder the judge task recorded in its log). LLM judges have no score per idea: `not_applicable`
(the surface probe, verdict flips under meaning-preserving edits, covers them).

Run: `python -m judgeaudit.audit.surface_ratio --judge distance_nn --embedder tfidf --out sanity.json`
(default ideas: the bundled Human-Only pointwise items).
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from judgeaudit.arms.edits import rename_acronym, whitespace_markdown
from judgeaudit.audit.readings import Figure, Reading
from judgeaudit.data.contract import Idea, Item, item_ideas
from judgeaudit.data.samples import load_items
from judgeaudit.files import atomic_open
from judgeaudit.judges.kinds import JUDGES, score_judges
from judgeaudit.judges.score.metric import (
    DEFAULT_CORPUS,
    DEFAULT_EMBEDDER,
)
from judgeaudit.retrieval.corpus import BUNDLED_CORPUS, load_corpus
from judgeaudit.stats import DEFAULT_RESAMPLES, SurfaceRatio
from judgeaudit.stats.defaults import DEFAULT_SEED
from judgeaudit.stats.surface_ratio import surface_ratio

EDITS: tuple[str, ...] = ("rename_acronym", "formatting", "comment")
# Comment-like asides with no technical content (our own wording).
COMMENTS: tuple[str, ...] = (
    "(Note: the notation follows the conventions of the main text.)",
    "(Remark: section numbers refer to the full submission.)",
    "(Comment: minor typos were corrected in this version.)",
)
MAX_PAIRS = 2000


class Scorer(Protocol):
    """Anything that scores an idea under a judge name (PriorWork, DistancePrior)."""

    def score(self, idea: Idea, judge: str) -> Any:
        """A record with a float `value` (higher = more novel)."""

    @property
    def embedder(self) -> str:
        """Name of the embedder behind the scores."""


def edit_text(edit: str, text: str, rng: random.Random) -> str | None:
    """The edited text, or None when the edit does not apply (e.g. no acronym to rename)."""
    if edit == "rename_acronym":
        new, old, _ = rename_acronym(text, rng)
        return None if old is None else new
    if edit == "formatting":
        return whitespace_markdown(text)
    if edit == "comment":
        return text.rstrip() + " " + rng.choice(COMMENTS)
    raise ValueError(f"unknown surface edit {edit!r}: use one of {', '.join(EDITS)}")


@dataclass(frozen=True)
class SanityResult:
    """Per-edit shifts, the typical same-area difference, and their ratios for one judge."""

    judge: str
    embedder: str
    n_ideas: int
    n_area_pairs: int
    typical_difference: float
    edits: dict[str, dict[str, float]]
    ratio: float
    interval: SurfaceRatio  # the pooled ratio with its bootstrap interval over ideas

    @property
    def skipped(self) -> int:
        """Edits that did not apply to an idea, over all edits."""
        return int(sum(e["skipped"] for e in self.edits.values()))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record."""
        return {
            "judge": self.judge,
            "embedder": self.embedder,
            "n_ideas": self.n_ideas,
            "n_area_pairs": self.n_area_pairs,
            "typical_difference": self.typical_difference,
            "edits": self.edits,
            "ratio": self.ratio,
            "skipped": self.skipped,
            "ratio_interval": self.interval.to_dict(),
        }


def area_pairs(
    ideas: Sequence[Idea], seed: int = DEFAULT_SEED, limit: int = MAX_PAIRS
) -> list[tuple[int, int]]:
    """Seeded sample (at most `limit`) of index pairs of different ideas in the same area."""
    by_area: dict[str, list[int]] = {}
    for i, idea in enumerate(ideas):
        by_area.setdefault(idea.area, []).append(i)
    pairs = [
        p
        for idx in by_area.values()
        for p in itertools.combinations(idx, 2)
        if ideas[p[0]].text != ideas[p[1]].text
    ]
    if len(pairs) > limit:
        pairs = random.Random(seed).sample(pairs, limit)
    return sorted(pairs)


def surface_sanity(
    scorer: Scorer,
    judge: str,
    ideas: Sequence[Idea],
    seed: int = DEFAULT_SEED,
    progress: Callable[[int], None] | None = None,
    resamples: int = DEFAULT_RESAMPLES,
) -> SanityResult:
    """Median score shift under each surface edit, as a ratio to the typical same-area difference."""
    if len(ideas) < 2:
        raise ValueError(f"the sanity check needs at least 2 ideas, got {len(ideas)}")
    base = [float(scorer.score(idea, judge).value) for idea in ideas]
    pairs = area_pairs(ideas, seed)
    if not pairs:
        raise ValueError("the sanity check needs two different ideas of one area; none found")
    rng = random.Random(seed)
    edits: dict[str, dict[str, float]] = {}
    all_who: list[int] = []
    all_shifts: list[float] = []
    for edit in EDITS:
        who: list[int] = []
        shifts: list[float] = []
        skipped = 0
        for n, (idea, value) in enumerate(zip(ideas, base, strict=True)):
            text = edit_text(edit, idea.text, rng)
            if text is None or text == idea.text:
                skipped += 1
                continue
            edited = replace(idea, text=text, original_text=idea.original_text or idea.text)
            who.append(n)
            shifts.append(abs(float(scorer.score(edited, judge).value) - value))
            if progress is not None:
                progress(n)
        per_edit = surface_ratio(base, who, shifts, pairs, resamples, seed)
        edits[edit] = {
            "n": float(len(shifts)),
            "skipped": float(skipped),
            "median_shift": per_edit.median_shift,
            "ratio": per_edit.estimate,
            "low": per_edit.low,
            "high": per_edit.high,
        }
        all_who.extend(who)
        all_shifts.extend(shifts)
    overall = surface_ratio(base, all_who, all_shifts, pairs, resamples, seed)
    return SanityResult(
        judge,
        scorer.embedder,
        len(ideas),
        len(pairs),
        overall.typical_difference,
        edits,
        overall.estimate,
        overall,
    )


def render_markdown(results: Sequence[SanityResult]) -> str:
    """A small Markdown table: one row per judge, ratio overall and per edit."""
    head = "| judge | embedder | typical diff | ratio [95% CI] | " + " | ".join(EDITS) + " |"
    rows = [head, "|" + "---|" * (4 + len(EDITS))]
    for r in results:
        per = " | ".join(f"{r.edits[e]['ratio']:.3f} (n={int(r.edits[e]['n'])})" for e in EDITS)
        ci = f"{r.ratio:.3f} [{r.interval.low:.3f}, {r.interval.high:.3f}]"
        rows.append(f"| {r.judge} | {r.embedder} | {r.typical_difference:.4f} | {ci} | {per} |")
    return "\n".join(rows)


def scorer_families() -> list[tuple[tuple[str, ...], Callable[..., Scorer]]]:
    """(judge names, prior-work class) of every judge with a numeric score per idea, one row per
    class, in the order of `judgeaudit.judges.kinds` (a judge kind declared there with a `prior`
    is picked up by this check's CLI and by `judgeaudit audit`)."""
    families: dict[type, list[str]] = {}
    for name in score_judges():
        prior = JUDGES[name].prior
        assert prior is not None
        families.setdefault(prior, []).append(name)
    return [(tuple(names), cls) for cls, names in families.items()]


def scorer_class(judge: str) -> Callable[..., Scorer]:
    """The prior-work class that scores ideas for `judge`; a clear error for other judges."""
    for names, cls in scorer_families():
        if judge in names:
            return cls
    raise ValueError(
        f"judge {judge!r} is not a metric judge: use one of {', '.join(score_judges())}"
    )


def scorer_for(judge: str, corpus: str, embedder: str) -> Scorer:
    """The prior-work scorer behind a metric, distance or concept judge."""
    return scorer_class(judge)(load_corpus(corpus), embedder=embedder)


RATIO = "surface_ratio"
FIGURE = "ratio"
LABEL = "median score shift under surface edits / median score difference of two ideas of one area"
LLM_NOTE = (
    "does not apply: this judge gives no numeric score per idea (an LLM verdict); the surface probe "
    "measures its verdict flips under meaning-preserving edits instead"
)


def audited_ideas(items: Sequence[Item]) -> list[Idea]:
    """Distinct ideas (by id and text) of the items, in item order."""
    seen: set[tuple[str, str]] = set()
    out: list[Idea] = []
    for item in items:
        for idea in item_ideas(item):
            key = (idea.idea_id, idea.text)
            if key not in seen:
                seen.add(key)
                out.append(idea)
    return out


def judge_prior_work(logs: Sequence[Any]) -> dict[str, Any] | None:
    """What the judge task scored against (`metric_rule.prior_work` of its task metadata), if recorded."""
    for log in logs:
        meta = (getattr(log.eval, "metadata", None) or {}).get("judgeaudit") or {}
        prior = (meta.get("metric_rule") or {}).get("prior_work")
        if prior:
            return dict(prior)
    return None


def _mismatch(scorer: Any, judge_prior: Mapping[str, Any] | None) -> str | None:
    """Why the ratio's scorer is not the judge's (corpus hash or embedder differ), or None."""
    if judge_prior is None or not hasattr(scorer, "describe"):
        return None
    mine = scorer.describe()
    differ = [
        k
        for k in ("corpus_sha256", "embedder")
        if k in judge_prior and judge_prior[k] != mine.get(k)
    ]
    if not differ:
        return None
    return (
        "not computed: the judge task scored with "
        + ", ".join(f"{k} {judge_prior[k]!r}" for k in differ)
        + ", the ratio's scorer with "
        + ", ".join(f"{k} {mine.get(k)!r}" for k in differ)
    )


def _not_run(note: str, n_ideas: int) -> tuple[Reading, dict[str, Any]]:
    return Reading(RATIO, "not_run", 0, note=note), {
        "applies": True,
        "note": note,
        "n_ideas": n_ideas,
    }


def surface_ratio_reading(
    judge: str,
    items: Sequence[Item],
    resamples: int,
    seed: int,
    options: Mapping[str, Any] | None = None,
    judge_prior: Mapping[str, Any] | None = None,
) -> tuple[Reading, dict[str, Any]]:
    """(reading for the gates, detail record for the card) of `judge` (task `options`) on the audited items' ideas.

    `judge_prior` is what the judge task recorded it scored against (`judge_prior_work`); a
    scorer that differs from it is reported instead of a ratio of some other score.
    """
    options = dict(options or {})
    if judge not in score_judges():
        return Reading(RATIO, "not_applicable", 0, note=LLM_NOTE), {
            "applies": False,
            "note": LLM_NOTE,
        }

    ideas = audited_ideas(items)
    if options.get("concepts", "keyphrase") != "keyphrase":
        return _not_run(
            f"not computed for -T concepts={options['concepts']}: that extractor's scores need model "
            "calls; the ratio is computed for keyphrase concepts only",
            len(ideas),
        )
    corpus = str(options.get("retrieval_corpus") or DEFAULT_CORPUS)
    try:
        scorer = scorer_for(judge, corpus, DEFAULT_EMBEDDER)
        mismatch = _mismatch(scorer, judge_prior)
        if mismatch:
            return _not_run(mismatch, len(ideas))
        result = surface_sanity(scorer, judge, ideas, seed, resamples=resamples)
    except ValueError as exc:
        return _not_run(f"not computed on these items: {exc}", len(ideas))
    detail = {
        "applies": True,
        "judge": judge,
        "corpus": corpus,
        "embedder": result.embedder,
        "ideas": "every distinct idea of the audited items, fit and scored split alike",
        "n_ideas": result.n_ideas,
        "n_area_pairs": result.n_area_pairs,
        "edits_list": list(EDITS),
        "edits_applied": int(sum(e["n"] for e in result.edits.values())),
        "edits_skipped": result.skipped,
        "typical_difference": result.typical_difference,
        "median_shift": result.interval.median_shift,
        "ratio": result.interval.to_dict(),
        "edits": result.edits,
    }
    figure = Figure(FIGURE, LABEL, result.interval)
    return Reading(RATIO, "ok", result.n_ideas, {FIGURE: figure}), detail


def main(argv: Sequence[str] | None = None) -> int:
    """CLI: sanity ratios of metric judges on a dataset's pointwise ideas (JSON + Markdown)."""
    parser = argparse.ArgumentParser(
        prog="python -m judgeaudit.audit.surface_ratio", description=main.__doc__
    )
    parser.add_argument(
        "--judge", action="append", required=True, help="metric or distance judge (repeatable)"
    )
    parser.add_argument("--dataset", default="iclr2026/human_only")
    parser.add_argument("--corpus", default=BUNDLED_CORPUS)
    parser.add_argument("--embedder", default="auto", choices=("auto", "minilm", "tfidf"))
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument(
        "--resamples",
        type=int,
        default=DEFAULT_RESAMPLES,
        help="bootstrap resamples of the interval",
    )
    parser.add_argument("--out", help="write the results as JSON here")
    args = parser.parse_args(argv)
    ideas = [item.idea for item in load_items(args.dataset, "pointwise")]  # type: ignore[union-attr]
    scorers: dict[Any, Scorer] = {}
    results = []
    for judge in args.judge:
        family = scorer_class(judge)  # judges of one family share one scorer (and its memo)
        if family not in scorers:
            scorers[family] = scorer_for(judge, args.corpus, args.embedder)
        results.append(
            surface_sanity(scorers[family], judge, ideas, args.seed, resamples=args.resamples)
        )
    print(render_markdown(results))
    if args.out:
        with atomic_open(args.out, "w") as fh:
            json.dump(
                {
                    "dataset": args.dataset,
                    "corpus": args.corpus,
                    "seed": args.seed,
                    "resamples": args.resamples,
                    "results": [r.to_dict() for r in results],
                },
                fh,
                indent=2,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
