"""Semantic-distance novelty judges (no LLM; `--model none`), scored like the metric judges.

Run: `inspect eval judgeaudit/novelty_pairwise --model none -T judge=distance_nn` (likewise
`distance_centroid`, `distance_mean`, `distance_graph`, and `novelty_pointwise`). Vectors come
from the packaged MiniLM when the `embed` extra is installed, TF-IDF otherwise; the embedder is
named in every call record and in the task metadata (`metric_rule.prior_work.embedder`).

All four scores are "higher = more novel" and are computed against the reference set = every
corpus document left after the date cutoff and the exclusion of the judged idea itself:

- `distance_nn`: 1 - cosine to the nearest reference document.
- `distance_centroid`: 1 - cosine to the (re-normalised) centroid of the reference set.
- `distance_mean`: 1 - mean cosine to all reference documents.
- `distance_graph`: the cost of inserting the idea into the similarity graph whose edges join
  items with cosine >= tau (tau: a high quantile, `GRAPH_QUANTILE`, of the cosines between
  seeded random corpus pairs, so it adapts to the embedder). With edge weight w = sum of the
  cosines >= tau the idea would need, the cost is 1 / (1 + w) (fewer, weaker edges = more
  novel, at most 1); an idea that needs no edge is scored 1 + (tau - nearest cosine), so
  isolated ideas rank above connected ones, farther ones higher.

Target exclusion for the global scores: documents with the idea's ids or normalised title,
plus any document `Retriever.rank` excludes among the nearest `neighbours` (the identical text).
Verdict rules, the fit split and their provenance are those of `metric_judges` (fitted only on
the unscored split).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from inspect_ai import Task

from judgeaudit.data.contract import Idea
from judgeaudit.data.samples import load_items
from judgeaudit.judges.build import locate_dataset
from judgeaudit.judges.score.metric import (
    DEFAULT_CORPUS,
    DEFAULT_EMBEDDER,
    DEFAULT_FIT_SEED,
    DEFAULT_NEIGHBOURS,
    MetricScore,
    PriorWork,
    fit_rule,
    fitted_rule_task,
    split_items,
)
from judgeaudit.retrieval.corpus import Corpus, Exclusion, load_corpus, normalise, to_millis
from judgeaudit.retrieval.embed import Embedder, cosine_rows
from judgeaudit.retrieval.index import Cutoff, Retriever
from judgeaudit.stats.defaults import DEFAULT_RESAMPLES, DEFAULT_SEED

DISTANCE_JUDGES: tuple[str, ...] = (
    "distance_nn",
    "distance_centroid",
    "distance_mean",
    "distance_graph",
)
GRAPH_QUANTILE = 0.99
GRAPH_SAMPLE_PAIRS = 20000
GRAPH_SEED = DEFAULT_SEED


class DistancePrior(PriorWork):
    """Reference set for the distance judges: the corpus minus the judged idea (optional cutoff)."""

    def __init__(
        self,
        corpus: Corpus,
        embedder: str = "auto",
        cutoff: Cutoff = None,
        neighbours: int = DEFAULT_NEIGHBOURS,
        use_cache: bool = True,
        tau: float | None = None,
        vectors: Embedder | None = None,
    ) -> None:
        super().__init__(
            corpus, embedder=embedder, cutoff=cutoff, neighbours=neighbours, use_cache=use_cache
        )
        if (
            vectors is not None
        ):  # an explicit embedder object (e.g. fixed vectors) instead of a name
            self.retriever = Retriever(corpus, "dense", vectors, use_cache)
        self._ids = {d.doc_id: i for i, d in enumerate(corpus.documents)}
        self._titles: dict[str, list[int]] = {}
        for i, d in enumerate(corpus.documents):
            if d.title:
                self._titles.setdefault(normalise(d.title), []).append(i)
        cdates = np.array([d.cdate for d in corpus.documents], dtype=np.int64)
        self._allowed = (
            np.ones(len(corpus), dtype=bool) if cutoff is None else cdates < to_millis(cutoff)
        )
        if not self._allowed.any():
            raise ValueError(f"corpus {corpus.name!r}: no document dated before cutoff {cutoff}")
        self._tau = tau

    @property
    def tau(self) -> float:
        """Edge threshold of the similarity graph (computed once from seeded random corpus pairs)."""
        if self._tau is None:
            matrix = self.retriever.vectors.matrix
            n = matrix.shape[0]
            if n < 2:
                raise ValueError("the graph threshold needs a corpus of at least 2 documents")
            rng = np.random.default_rng(GRAPH_SEED)
            i = rng.integers(0, n, GRAPH_SAMPLE_PAIRS)
            j = (i + rng.integers(1, n, GRAPH_SAMPLE_PAIRS)) % n
            rows_i, rows_j = matrix[i], matrix[j]
            prod = (
                rows_i.multiply(rows_j).sum(axis=1)
                if hasattr(rows_i, "multiply")
                else (rows_i * rows_j).sum(axis=1)
            )
            self._tau = float(
                np.quantile(np.asarray(prod, dtype=np.float64).ravel(), GRAPH_QUANTILE)
            )
        return self._tau

    def describe(self) -> dict[str, Any]:
        """What a score depends on (as `PriorWork.describe`, plus the graph threshold)."""
        out = super().describe()
        out.update(graph_tau=round(self.tau, 6), graph_quantile=GRAPH_QUANTILE)
        return out

    def similarities(self, text: str) -> tuple[np.ndarray, Any]:
        """(cosine of `text` to every corpus document, the text's vector)."""
        query = self.retriever.vectors.encode([text])
        return cosine_rows(self.retriever.vectors.matrix, query), query

    def reference_mask(self, idea: Idea, sims: np.ndarray) -> tuple[np.ndarray, list[str]]:
        """(boolean mask of the reference set, excluded target ids) for one idea."""
        mask = self._allowed.copy()
        exclusion = Exclusion.for_idea(idea)
        hidden = {self._ids[i] for i in exclusion.ids if i in self._ids}
        for title in exclusion.titles:
            hidden.update(self._titles.get(title, []))
        near = self.retriever.rank(sims, self.k, self.cutoff, exclusion)
        hidden.update(self._ids[d] for d in near.excluded_target)
        if hidden:
            mask[sorted(hidden)] = False
        if not mask.any():
            raise ValueError(
                f"idea {idea.idea_id!r}: no prior work left in corpus {self.corpus.name!r} "
                "after the cutoff and target exclusion"
            )
        return mask, sorted(self.corpus.documents[i].doc_id for i in hidden)

    def score(self, idea: Idea, judge: str) -> MetricScore:
        """The idea's novelty score under a distance judge (memoised per idea id and text)."""
        if judge not in DISTANCE_JUDGES:
            raise ValueError(
                f"unknown distance judge {judge!r}: use one of {', '.join(DISTANCE_JUDGES)}"
            )
        key = (judge, idea.idea_id, idea.text)
        if key not in self._memo:
            self._memo[key] = self._distance(idea, judge)
        return self._memo[key]

    def _distance(self, idea: Idea, judge: str) -> MetricScore:
        sims, query = self.similarities(idea.text)
        mask, excluded = self.reference_mask(idea, sims)
        ref = np.where(mask, sims, -np.inf)
        top = np.argsort(-ref, kind="stable")[: self.k]
        neighbours = [
            {"id": self.corpus.documents[int(i)].doc_id, "cosine": round(float(sims[i]), 6)}
            for i in top
        ]
        nearest = float(sims[top[0]])
        parts: dict[str, float] = {"nearest_cosine": nearest, "reference_size": float(mask.sum())}
        if judge == "distance_nn":
            value = 1.0 - nearest
        elif judge == "distance_mean":
            mean = float(sims[mask].mean())
            parts["mean_cosine"] = mean
            value = 1.0 - mean
        elif judge == "distance_centroid":
            centroid = self._centroid(mask)
            cos = float(cosine_rows(centroid, query)[0]) if centroid is not None else 0.0
            parts["centroid_cosine"] = cos
            value = 1.0 - cos
        else:
            tau = self.tau
            edges = sims[mask & (sims >= tau)]
            weight = float(edges.sum())
            parts.update(tau=tau, edges=float(len(edges)), edge_weight=weight)
            value = 1.0 / (1.0 + weight) if len(edges) else 1.0 + (tau - nearest)
        return MetricScore(judge, float(value), parts, neighbours, excluded)

    def _centroid(self, mask: np.ndarray) -> np.ndarray | None:
        matrix = self.retriever.vectors.matrix
        total = np.asarray(matrix.T @ mask.astype(np.float64)).ravel()
        norm = float(np.linalg.norm(total))
        return None if norm == 0 else (total / norm)[None, :]


def build_distance_rule(
    kind: str,
    judge: str,
    items: list[Any],
    *,
    corpus: str = DEFAULT_CORPUS,
    embedder: str = DEFAULT_EMBEDDER,
    cutoff: Cutoff = None,
    neighbours: int = DEFAULT_NEIGHBOURS,
    fit_seed: int = DEFAULT_FIT_SEED,
    fit_by: str = "auto",
    prior_cls: type[DistancePrior] | None = None,
) -> tuple[Any, DistancePrior]:
    """Load the corpus, split the items, and fit the verdict rule (metric_judges' rules) on the fit split."""
    if prior_cls is None and judge not in DISTANCE_JUDGES:
        raise ValueError(
            f"unknown distance judge {judge!r}: use one of {', '.join(DISTANCE_JUDGES)}"
        )
    prior = (prior_cls or DistancePrior)(
        load_corpus(corpus), embedder=embedder, cutoff=cutoff, neighbours=neighbours
    )
    split = split_items(items, fit_seed, fit_by)
    return fit_rule(kind, judge, items, prior, split), prior


def distance_task(
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
    prior_cls: type[DistancePrior] | None = None,
) -> Task:
    """An Inspect Task judging the scored split of `dataset` with a fitted distance judge (`--model none`)."""
    if kind not in ("pairwise", "pointwise"):
        raise ValueError(f"kind must be pairwise or pointwise, got {kind!r}")
    resamples = DEFAULT_RESAMPLES if resamples is None else resamples
    located = locate_dataset(dataset)
    items = load_items(located, kind, idea_format)
    rule, prior = build_distance_rule(
        kind,
        judge,
        items,
        corpus=corpus or DEFAULT_CORPUS,
        embedder=embedder or DEFAULT_EMBEDDER,
        cutoff=cutoff,
        neighbours=neighbours,
        fit_seed=fit_seed,
        fit_by=fit_by,
        prior_cls=prior_cls,
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


def distance_task_from_options(
    kind: str,
    judge: str,
    dataset: str,
    *,
    idea_format: str = "abstract",
    probe: str | None = None,
    seed: int = DEFAULT_FIT_SEED,
    resamples: int | None = None,
    prior_cls: type[DistancePrior] | None = None,
    **options: Any,
) -> Task:
    """Catalog factory for `-T judge=distance_*` (`retrieval_corpus` applies)."""
    corpus = options.get("retrieval_corpus")
    return distance_task(
        kind,
        judge,
        dataset,
        idea_format=idea_format,
        probe=probe,
        seed=seed,
        resamples=resamples,
        prior_cls=prior_cls,
        corpus=corpus,
    )
