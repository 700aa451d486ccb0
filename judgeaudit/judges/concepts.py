"""Concept-based novelty judge (`-T judge=concept_set`, no LLM: `--model none`).

Concepts are an idea's key technical phrases, extracted offline: the `CONCEPTS` words and
word bigrams of highest TF-IDF weight (corpus-fitted IDF, `retrieval.embed.TfidfEmbedder`),
no word in two concepts (a bigram wins a tie with a unigram). The reference set is the idea's nearest
`neighbours` prior-work documents (the distance judges' reference set and vectors); novelty
is the share of the idea's concepts absent from the union of the references' concept lists
(set difference). The concept lists of the idea and of every reference are kept in the call
record (`raw.score.concepts`, `raw.score.neighbours[*].concepts`). Verdict rules and fit split:
those of `metric_judges`. An LLM concept extractor and fuzzy membership over concept
embeddings are not implemented.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from inspect_ai import Task

from judgeaudit.data.contract import Idea
from judgeaudit.judges.distance_judges import DistancePrior, distance_task_from_options
from judgeaudit.judges.metric_judges import MetricScore
from judgeaudit.retrieval.embed import TfidfEmbedder
from judgeaudit.retrieval.index import Retriever

CONCEPT_JUDGES: tuple[str, ...] = ("concept_set",)
CONCEPTS = 10


def extract_concepts(text: str, tfidf: TfidfEmbedder, n: int = CONCEPTS) -> list[str]:
    """Up to `n` key phrases of `text`: highest-weight TF-IDF terms (bigrams first on ties), no word in two."""
    counts = Counter(t for t in TfidfEmbedder._terms(text) if t in tfidf.vocab)
    weights = {t: c * float(tfidf.idf[tfidf.vocab[t]]) for t, c in counts.items()}
    ranked = sorted(weights, key=lambda t: (-weights[t], -len(t.split()), t))
    chosen: list[str] = []
    covered: set[str] = set()
    for term in ranked:
        if len(chosen) >= n:
            break
        words = term.split()
        if any(w in covered for w in words):  # concepts share no word: no near-duplicates
            continue
        chosen.append(term)
        covered.update(words)
    return chosen


@dataclass(frozen=True)
class ConceptScore(MetricScore):
    """A metric score that also carries the idea's concept list."""

    concepts: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record with the concept list."""
        return {**super().to_dict(), "concepts": self.concepts}


class ConceptPrior(DistancePrior):
    """Reference concepts from the nearest prior work; novelty = share of the idea's concepts not among them."""

    @property
    def tfidf(self) -> TfidfEmbedder:
        """The corpus-fitted TF-IDF model the concepts are weighted with (cached with the corpus)."""
        if not hasattr(self, "_tfidf"):
            scorer = Retriever(self.corpus, "dense", TfidfEmbedder(), self.retriever.use_cache).vectors
            self._tfidf: TfidfEmbedder = scorer.embedder  # type: ignore[assignment]
        return self._tfidf

    def describe(self) -> dict[str, Any]:
        """As the distance judges, plus the concept extractor."""
        return {**super().describe(), "concepts": f"tfidf-keyphrases@{CONCEPTS}"}

    def score(self, idea: Idea, judge: str) -> MetricScore:
        """The idea's concept novelty (memoised per idea id and text)."""
        if judge not in CONCEPT_JUDGES:
            raise ValueError(f"unknown concept judge {judge!r}: use one of {', '.join(CONCEPT_JUDGES)}")
        key = (judge, idea.idea_id, idea.text)
        if key not in self._memo:
            self._memo[key] = self._concepts(idea, judge)
        return self._memo[key]

    def _concepts(self, idea: Idea, judge: str) -> ConceptScore:
        near = self._distance(idea, "distance_nn")
        concepts = extract_concepts(idea.text, self.tfidf)
        if not concepts:
            raise ValueError(f"idea {idea.idea_id!r}: no concept could be extracted (no known terms in its text)")
        reference: set[str] = set()
        neighbours = []
        for entry in near.neighbours:
            ref = extract_concepts(self.corpus.documents[self._ids[entry["id"]]].text, self.tfidf)
            reference.update(ref)
            neighbours.append({**entry, "concepts": ref})
        absent = [c for c in concepts if c not in reference]
        value = len(absent) / len(concepts)
        parts = {"absent": float(len(absent)), "concepts": float(len(concepts))}
        return ConceptScore(judge, value, parts, neighbours, near.excluded_target, concepts)


def concept_task_from_options(kind: str, judge: str, dataset: str, **options: Any) -> Task:
    """Catalog factory for `-T judge=concept_set` (the distance judges' task with concept scores)."""
    return distance_task_from_options(kind, judge, dataset, prior_cls=ConceptPrior, **options)
