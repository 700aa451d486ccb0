"""Metric novelty judges (no LLM; run with `--model none`), scored exactly like the prompted judges.

Run: `inspect eval judgeaudit/novelty_pairwise --model none -T judge=metric_ngram` (defaults: the
bundled corpus, MiniLM if installed), or `judgeaudit/novelty_metric_pairwise` /
`novelty_metric_pointwise` for every knob (`corpus`, `embedder`, `cutoff`, `neighbours`,
`fit_seed`, `fit_by`). A first MiniLM run embeds the whole corpus once (about 10-45 minutes
on 2 CPU cores) and caches it; later runs load the cache.

Two scores, both "higher = more novel", computed against prior work in a corpus (default:
the bundled ICLR 2026 submissions, the judged idea itself always excluded, optional date
cutoff), with vectors from the packaged MiniLM when the `embed` extra is installed and
TF-IDF otherwise (the embedder is named in every record):

- `metric_embedding`: 1 - cosine similarity to the single nearest prior-work document.
- `metric_ngram`: the mean of a semantic part, 1 - mean cosine to the k nearest documents,
  and a surface part, 1 - the largest character n-gram Jaccard overlap with any of those k
  documents (in the manner of the creativity-evaluation literature, which scores novelty
  as distance from a reference set in embedding space and in n-gram space).

Verdict rule (documented, fitted only on data that is not scored):
- pairwise: d = score(a) - score(b); `a` if d > tolerance, `b` if d < -tolerance, else `tie`.
  The tolerance is the candidate (0 or a quantile of |d| on the fit split) with the highest
  soft accuracy on the fit split; ties between candidates go to the smallest tolerance.
- pointwise: `novel` if score >= threshold, else `not_novel`. The threshold is the candidate
  (midpoints between sorted fit-split scores) with the highest macro-F1 on the fit split;
  ties go to the candidate nearest the median fit score.
- the fit split is a seeded half of the dataset's areas (or of its items when it has a single
  area); its items are not scored. Areas/ids, seed, sizes and the fitted value are recorded in
  the task metadata and in every call record.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from inspect_ai import Task
from inspect_ai.solver import Generate, Solver, TaskState, solver

from judgeaudit.data.contract import Idea, Item, PairItem, PointItem
from judgeaudit.data.samples import load_items, sample_item
from judgeaudit.judges.build import judge_task, locate_dataset
from judgeaudit.judges.options import TaskOptionError
from judgeaudit.judges.records import leave_records
from judgeaudit.judges.verdicts import CallRecord
from judgeaudit.retrieval.corpus import BUNDLED_CORPUS, Corpus, Exclusion, load_corpus
from judgeaudit.retrieval.embed import cosine_rows, default_embedder, normalise
from judgeaudit.retrieval.index import Cutoff, Retriever
from judgeaudit.stats import (
    DEFAULT_RESAMPLES,
    PAIRWISE,
    POINTWISE,
    pairwise_outcomes,
    pointwise_outcomes,
)
from judgeaudit.stats.defaults import DEFAULT_SEED

MetricJudge = Literal["metric_embedding", "metric_ngram"]
METRIC_JUDGES: tuple[str, ...] = ("metric_embedding", "metric_ngram")
DEFAULT_NEIGHBOURS = 5
DEFAULT_NGRAM = 5
DEFAULT_FIT_SEED = DEFAULT_SEED
FIT_BY: tuple[str, ...] = ("auto", "area", "item")
TOLERANCE_QUANTILES: tuple[float, ...] = (0.05, 0.1, 0.2, 0.3, 0.4, 0.5)
# What a metric judge compares against when the task does not say (module attributes, so a
# caller dispatching with only the common task parameters gets these).
DEFAULT_CORPUS = BUNDLED_CORPUS
DEFAULT_EMBEDDER = "auto"
METRIC_PROMPT = "none"  # metric judges have no prompt; this is their `prompt` in score metadata


def char_ngrams(text: str, n: int = DEFAULT_NGRAM) -> set[str]:
    """Character n-grams of the normalised text (words joined by single spaces)."""
    flat = normalise(text)
    if len(flat) < n:
        return {flat} if flat else set()
    return {flat[i : i + n] for i in range(len(flat) - n + 1)}


def jaccard(x: set[str], y: set[str]) -> float:
    """|x & y| / |x | y| (0 for two empty sets)."""
    union = len(x | y)
    return len(x & y) / union if union else 0.0


@dataclass(frozen=True)
class MetricScore:
    """One idea's novelty score under one metric judge, with its parts and the neighbours used."""

    judge: str
    value: float
    parts: dict[str, float]
    neighbours: list[dict[str, Any]]
    excluded_target: list[str]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record."""
        return {
            "judge": self.judge,
            "value": round(self.value, 6),
            "parts": {k: round(v, 6) for k, v in self.parts.items()},
            "neighbours": self.neighbours,
            "excluded_target": self.excluded_target,
        }


class PriorWork:
    """Nearest prior work of an idea in a corpus (dense vectors, target excluded, optional cutoff)."""

    def __init__(
        self,
        corpus: Corpus,
        embedder: str = "auto",
        cutoff: Cutoff = None,
        neighbours: int = DEFAULT_NEIGHBOURS,
        ngram: int = DEFAULT_NGRAM,
        use_cache: bool = True,
    ) -> None:
        if neighbours < 1:
            raise TaskOptionError(f"neighbours must be >= 1, got {neighbours}")
        self.corpus = corpus
        self.retriever = Retriever(corpus, "dense", default_embedder(embedder), use_cache)
        self.cutoff = cutoff
        self.k = neighbours
        self.n = ngram
        self._memo: dict[tuple[str, str, str], MetricScore] = {}

    @property
    def embedder(self) -> str:
        """Name of the embedder behind the vectors (e.g. `minilm-l6-v2@128` or `tfidf`)."""
        return self.retriever.vectors.name

    def describe(self) -> dict[str, Any]:
        """What a score depends on: corpus, its hash, embedder, k, n and cutoff."""
        return {
            "corpus": self.corpus.name,
            "corpus_documents": len(self.corpus),
            "corpus_sha256": self.corpus.content_hash,
            "embedder": self.embedder,
            "neighbours": self.k,
            "ngram": self.n,
            "cutoff": None if self.cutoff is None else str(self.cutoff),
        }

    def score(self, idea: Idea, judge: str) -> MetricScore:
        """The idea's novelty score under `judge` (memoised per idea id and text)."""
        if judge not in METRIC_JUDGES:
            raise ValueError(
                f"unknown metric judge {judge!r}: use one of {', '.join(METRIC_JUDGES)}"
            )
        key = (judge, idea.idea_id, idea.text)
        if key not in self._memo:
            self._memo[key] = self._score(idea, judge)
        return self._memo[key]

    def _score(self, idea: Idea, judge: str) -> MetricScore:
        sims = cosine_rows(
            self.retriever.vectors.matrix, self.retriever.vectors.encode([idea.text])
        )
        result = self.retriever.rank(sims, self.k, self.cutoff, Exclusion.for_idea(idea))
        if not result.hits:
            raise ValueError(
                f"idea {idea.idea_id!r}: no prior work left in corpus {self.corpus.name!r} "
                f"after the cutoff and target exclusion"
            )
        cos = [h.score for h in result.hits]
        neighbours = [{"id": h.doc.doc_id, "cosine": round(h.score, 6)} for h in result.hits]
        if judge == "metric_embedding":
            parts = {"nearest_cosine": cos[0]}
            value = 1.0 - cos[0]
        else:
            grams = char_ngrams(idea.text, self.n)
            overlaps = [jaccard(grams, char_ngrams(h.doc.text, self.n)) for h in result.hits]
            for entry, overlap in zip(neighbours, overlaps, strict=True):
                entry["ngram_jaccard"] = round(overlap, 6)
            semantic, surface = 1.0 - float(np.mean(cos)), 1.0 - max(overlaps)
            parts = {"semantic": semantic, "ngram": surface}
            value = (semantic + surface) / 2
        return MetricScore(judge, float(value), parts, neighbours, result.excluded_target)


# ---- verdict rules -------------------------------------------------------------------------


def pair_verdict(score_a: float, score_b: float, tolerance: float) -> str:
    """`a` / `b` for the clearly higher score, `tie` when |difference| <= tolerance."""
    diff = score_a - score_b
    if diff > tolerance:
        return "a"
    if diff < -tolerance:
        return "b"
    return "tie"


def point_verdict(score: float, threshold: float) -> str:
    """`novel` when score >= threshold, else `not_novel`."""
    return "novel" if score >= threshold else "not_novel"


def fit_tolerance(diffs: Sequence[float], gold: Sequence[str]) -> tuple[float, float]:
    """(tolerance, soft accuracy on the fit data): best of 0 and quantiles of |diff|, smallest on ties."""
    if not diffs:
        raise ValueError("cannot fit a tolerance on an empty fit split")
    magnitudes = np.abs(np.asarray(diffs, dtype=float))
    candidates = sorted({0.0, *(float(np.quantile(magnitudes, q)) for q in TOLERANCE_QUANTILES)})
    best: tuple[float, float] | None = None
    for tol in candidates:
        verdicts = [pair_verdict(d, 0.0, tol) for d in diffs]
        soft = float(PAIRWISE["soft_accuracy"](pairwise_outcomes(verdicts, gold)))
        if best is None or soft > best[1] + 1e-12:
            best = (tol, soft)
    assert best is not None
    return best


def fit_threshold(scores: Sequence[float], gold: Sequence[str]) -> tuple[float, float]:
    """(threshold, macro-F1 on the fit data): best midpoint cut, nearest the median on ties."""
    if not scores:
        raise ValueError("cannot fit a threshold on an empty fit split")
    values = sorted(set(float(s) for s in scores))
    cuts = (
        [values[0] - 1e-9]
        + [(x + y) / 2 for x, y in zip(values, values[1:], strict=False)]
        + [values[-1] + 1e-9]
    )
    median = float(np.median(scores))
    best: tuple[float, float] | None = None
    for cut in cuts:
        verdicts = [point_verdict(s, cut) for s in scores]
        f1 = float(POINTWISE["macro_f1"](pointwise_outcomes(verdicts, gold)))
        f1 = -1.0 if math.isnan(f1) else f1
        if (
            best is None
            or f1 > best[1] + 1e-12
            or (abs(f1 - best[1]) <= 1e-12 and abs(cut - median) < abs(best[0] - median))
        ):
            best = (cut, f1)
    assert best is not None
    return best


@dataclass(frozen=True)
class FitSplit:
    """Which items fit the rule (never scored) and which are scored."""

    by: str
    seed: int
    fit_ids: tuple[str, ...]
    scored_ids: tuple[str, ...]
    fit_areas: tuple[str, ...] = ()
    scored_areas: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record for task and call metadata (ids only for item splits)."""
        out: dict[str, Any] = {
            "by": self.by,
            "seed": self.seed,
            "n_fit": len(self.fit_ids),
            "n_scored": len(self.scored_ids),
        }
        if self.by == "area":
            out.update(fit_areas=list(self.fit_areas), scored_areas=list(self.scored_areas))
        else:
            out["fit_ids"] = list(self.fit_ids)
        return out


def split_items(items: Sequence[Item], seed: int = DEFAULT_FIT_SEED, by: str = "auto") -> FitSplit:
    """A seeded half of the areas (or of the items, with one area or `by='item'`) as the fit split."""
    if by not in FIT_BY:
        raise TaskOptionError(f"fit split must be one of {', '.join(FIT_BY)}, got {by!r}")
    if len(items) < 2:
        raise ValueError(
            f"need at least 2 items to split into fit and scored parts, got {len(items)}"
        )
    areas = sorted({i.area for i in items})
    if by == "auto":
        by = "area" if len(areas) >= 2 else "item"
    rng = random.Random(seed)
    if by == "area":
        if len(areas) < 2:
            raise ValueError("fit split by area needs at least 2 areas; use fit_by=item")
        shuffled = areas[:]
        rng.shuffle(shuffled)
        fit_areas = set(shuffled[: len(shuffled) // 2])
        fit = tuple(i.item_id for i in items if i.area in fit_areas)
        scored = tuple(i.item_id for i in items if i.area not in fit_areas)
        return FitSplit(
            "area",
            seed,
            fit,
            scored,
            tuple(sorted(fit_areas)),
            tuple(sorted(set(areas) - fit_areas)),
        )
    ids = sorted(i.item_id for i in items)
    rng.shuffle(ids)
    fit_set = set(ids[: len(ids) // 2])
    return FitSplit(
        "item",
        seed,
        tuple(i.item_id for i in items if i.item_id in fit_set),
        tuple(i.item_id for i in items if i.item_id not in fit_set),
    )


@dataclass(frozen=True)
class FittedRule:
    """A metric judge's verdict rule with its fitted parameter and provenance."""

    kind: str
    judge: str
    parameter: str  # `tolerance` or `threshold`
    value: float
    fit_objective: str
    fit_value: float
    split: FitSplit
    prior: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record."""
        return {
            "kind": self.kind,
            "judge": self.judge,
            self.parameter: self.value,
            "fit_objective": self.fit_objective,
            "fit_value": self.fit_value,
            "split": self.split.to_dict(),
            "prior_work": self.prior,
        }


def fit_rule(
    kind: str, judge: str, items: Sequence[Item], prior: PriorWork, split: FitSplit
) -> FittedRule:
    """Fit the pairwise tolerance or pointwise threshold on the split's fit items only."""
    fit_set = set(split.fit_ids)
    fit_items = [i for i in items if i.item_id in fit_set]
    if not fit_items:
        raise ValueError("the fit split is empty: nothing to fit the verdict rule on")
    if kind == "pairwise":
        pairs = [i for i in fit_items if isinstance(i, PairItem)]
        diffs = [
            prior.score(p.idea_a, judge).value - prior.score(p.idea_b, judge).value for p in pairs
        ]
        tol, soft = fit_tolerance(diffs, [p.gold for p in pairs])
        return FittedRule(
            kind, judge, "tolerance", tol, "soft_accuracy", soft, split, prior.describe()
        )
    points = [i for i in fit_items if isinstance(i, PointItem)]
    scores = [prior.score(p.idea, judge).value for p in points]
    thr, f1 = fit_threshold(scores, [p.gold for p in points])
    return FittedRule(kind, judge, "threshold", thr, "macro_f1", f1, split, prior.describe())


# ---- Inspect solver --------------------------------------------------------------------------


def judge_item(item: Item, rule: FittedRule, prior: PriorWork) -> CallRecord:
    """One metric 'call': scores, the rule's verdict, and a JSON raw record of how it was reached."""
    raw: dict[str, Any] = {
        "judge": rule.judge,
        "embedder": prior.embedder,
        rule.parameter: rule.value,
    }
    if isinstance(item, PairItem):
        sa, sb = prior.score(item.idea_a, rule.judge), prior.score(item.idea_b, rule.judge)
        verdict = pair_verdict(sa.value, sb.value, rule.value)
        raw.update(
            score_a=sa.to_dict(), score_b=sb.to_dict(), difference=round(sa.value - sb.value, 6)
        )
    else:
        s = prior.score(item.idea, rule.judge)
        verdict = point_verdict(s.value, rule.value)
        raw.update(score=s.to_dict())
    return CallRecord(
        "single", verdict, verdict, json.dumps(raw, sort_keys=True), "strict", 0, None
    )


@solver
def metric_novelty_judge(rule: FittedRule, prior: PriorWork) -> Solver:
    """Judge each sample with a fitted metric rule (no model call); records land where the scorer reads."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        item = sample_item(state.metadata, state.sample_id)
        if item.item_id in set(rule.split.fit_ids):
            raise ValueError(
                f"sample {state.sample_id!r} belongs to the fit split and must not be scored"
            )
        record = judge_item(item, rule, prior)
        leave_records(
            state, [record.to_dict()], METRIC_PROMPT, ["single"], 1, answer=record.verdict
        )
        return state

    return solve


def build_rule(
    kind: str,
    judge: str,
    items: Sequence[Item],
    *,
    corpus: str = BUNDLED_CORPUS,
    embedder: str = "auto",
    cutoff: Cutoff = None,
    neighbours: int = DEFAULT_NEIGHBOURS,
    fit_seed: int = DEFAULT_FIT_SEED,
    fit_by: str = "auto",
) -> tuple[FittedRule, PriorWork]:
    """Load the corpus, split the items, and fit the judge's verdict rule on the fit split."""
    if judge not in METRIC_JUDGES:
        raise ValueError(f"unknown metric judge {judge!r}: use one of {', '.join(METRIC_JUDGES)}")
    prior = PriorWork(load_corpus(corpus), embedder=embedder, cutoff=cutoff, neighbours=neighbours)
    split = split_items(items, fit_seed, fit_by)
    return fit_rule(kind, judge, items, prior, split), prior


# ---- Inspect tasks -----------------------------------------------------------------------------


def fitted_rule_task(
    kind: str,
    judge: str,
    dataset: str,
    rule: Any,
    prior: Any,
    *,
    idea_format: str,
    probe: str | None,
    seed: int,
    resamples: int,
) -> Task:
    """The Inspect Task scoring only the unfitted split of a set with a fitted score-to-verdict rule."""
    return judge_task(
        kind,
        judge,
        dataset,
        metric_novelty_judge(rule, prior),
        idea_format=idea_format,
        probe=probe,
        seed=seed,
        resamples=resamples,
        metadata={"metric_rule": rule.to_dict()},
        scored=set(rule.split.scored_ids),
    )


def metric_task_from_options(
    kind: str,
    judge: str,
    dataset: str,
    *,
    idea_format: str = "abstract",
    probe: str | None = None,
    seed: int = DEFAULT_FIT_SEED,
    resamples: int | None = None,
    **options: Any,
) -> Task:
    """Catalog factory for `-T judge=metric_*` (`retrieval_corpus` applies)."""
    corpus = options.get("retrieval_corpus")
    return metric_task(
        kind,
        judge,
        dataset,
        idea_format=idea_format,
        probe=probe,
        seed=seed,
        resamples=resamples,
        corpus=corpus,
    )


def metric_task(
    kind: str,
    judge: str,
    dataset: str,
    *,
    idea_format: str = "abstract",
    corpus: str | None = None,
    embedder: str | None = None,
    cutoff: str | None = None,
    neighbours: int = DEFAULT_NEIGHBOURS,
    fit_seed: int = DEFAULT_FIT_SEED,
    fit_by: str = "auto",
    probe: str | None = None,
    seed: int = DEFAULT_FIT_SEED,
    resamples: int | None = None,
) -> Task:
    """An Inspect Task judging the scored split of `dataset` with a fitted metric judge (`--model none`)."""
    if kind not in ("pairwise", "pointwise"):
        raise ValueError(f"kind must be pairwise or pointwise, got {kind!r}")
    resamples = DEFAULT_RESAMPLES if resamples is None else resamples
    located = locate_dataset(dataset)
    items = load_items(located, kind, idea_format)
    rule, prior = build_rule(
        kind,
        judge,
        items,
        corpus=corpus or DEFAULT_CORPUS,
        embedder=embedder or DEFAULT_EMBEDDER,
        cutoff=cutoff,
        neighbours=neighbours,
        fit_seed=fit_seed,
        fit_by=fit_by,
    )
    return fitted_rule_task(
        kind,
        judge,
        dataset,
        rule,
        prior,
        idea_format=idea_format,
        probe=probe,
        seed=seed,
        resamples=resamples,
    )
