"""Concept-based novelty judges `concept_set` and `concept_fuzzy` (`-T judge=concept_set|concept_fuzzy`).

Concepts are an idea's key technical phrases. Two extractors (`-T concepts=...`):

- `keyphrase` (default, no LLM: `--model none`): the `CONCEPTS` words and word bigrams of
  highest TF-IDF weight (corpus-fitted IDF, `retrieval.embed.TfidfEmbedder`), no word in two
  concepts (a bigram wins a tie with a unigram).
- `llm` (a real model, e.g. `--model local/gemma-3-270m -M grammar=auto`): our prompt
  `prompts/judge/concepts/extract.txt`, strictly parsed; see `judgeaudit.judges.llm.concepts`
  for the parser, the caching and the fixed verdict rule of that mode.

The reference set of an idea is its nearest `neighbours` prior-work documents (the distance
judges' reference set and vectors: MiniLM with the `embed` extra, else TF-IDF); the reference
concepts R are the union of those documents' concept lists (same extractor as the idea).
With C the idea's concepts (all strings normalised by `normalise_concept`):

- `concept_set`: novelty = |C \\ R| / |C|, the share of the idea's concepts absent from R
  (`judgeaudit.stats.absent_share`).
- `concept_fuzzy`: S[i, j] = cosine between the embeddings of concept c_i and reference
  concept r_j (the prior's embedder: MiniLM, or the corpus-fitted TF-IDF fallback, named in
  every record), with S[i, j] = 1 when the two strings are identical; membership
  m_i = clip(max_j S[i, j], 0, 1) (0 when R is empty); novelty = 1 - mean_i m_i
  (`judgeaudit.stats.fuzzy_memberships` / `fuzzy_novelty`).

Kept in the call record: the idea's concepts (`raw.score*.concepts`), every reference's list
(`raw.score*.neighbours[*].concepts`) and, for `concept_fuzzy`, each concept's membership and
its best-matching reference concept (`raw.score*.memberships`). Offline verdict rules and fit
split: those of `metric_judges` (fitted only on the split that is never scored).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from inspect_ai import Task
from scipy import sparse

from judgeaudit.data.contract import Idea
from judgeaudit.judges.score.distance import DistancePrior, distance_task_from_options
from judgeaudit.judges.score.metric import MetricScore
from judgeaudit.retrieval.embed import TfidfEmbedder
from judgeaudit.retrieval.index import Retriever
from judgeaudit.stats import absent_share, fuzzy_memberships, fuzzy_novelty

CONCEPT_JUDGES: tuple[str, ...] = ("concept_set", "concept_fuzzy")
EXTRACTORS: tuple[str, ...] = ("keyphrase", "llm")
CONCEPTS = 10
_NON_WORD = re.compile(r"[^\w+#.\-/]+", re.UNICODE)


def normalise_concept(text: str) -> str:
    """Lower-cased concept with punctuation (other than + # . - /) turned into single spaces."""
    return " ".join(_NON_WORD.sub(" ", text.lower()).split()).strip(" .-/")


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
    """A metric score that also carries the idea's concept list (and fuzzy memberships)."""

    concepts: list[str] = field(default_factory=list)
    memberships: list[dict[str, Any]] | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record with the concept list (and memberships for `concept_fuzzy`)."""
        out = {**super().to_dict(), "concepts": self.concepts}
        if self.memberships is not None:
            out["memberships"] = self.memberships
        return out


class ConceptPrior(DistancePrior):
    """Reference concepts from the nearest prior work; novelty by set difference or fuzzy membership."""

    @property
    def tfidf(self) -> TfidfEmbedder:
        """The corpus-fitted TF-IDF model the keyphrases are weighted with (cached with the corpus)."""
        if not hasattr(self, "_tfidf"):
            scorer = Retriever(
                self.corpus, "dense", TfidfEmbedder(), self.retriever.use_cache
            ).vectors
            self._tfidf: TfidfEmbedder = scorer.embedder  # type: ignore[assignment]
        return self._tfidf

    def describe(self) -> dict[str, Any]:
        """As the distance judges, plus the concept extractor and the concept embedder."""
        return {
            **super().describe(),
            "concepts": f"tfidf-keyphrases@{CONCEPTS}",
            "concept_embedder": self.embedder,
        }

    def score(self, idea: Idea, judge: str) -> MetricScore:
        """The idea's concept novelty (memoised per idea id and text)."""
        check_judge(judge)
        key = (judge, idea.idea_id, idea.text)
        if key not in self._memo:
            self._memo[key] = self._concepts(idea, judge)
        return self._memo[key]

    def reference_documents(self, idea: Idea) -> MetricScore:
        """The idea's nearest prior work (ids, cosines, excluded target): its concept reference set."""
        return self._distance(idea, "distance_nn")

    def document_text(self, doc_id: str) -> str:
        """Text (title and abstract) of a corpus document by id."""
        return self.corpus.documents[self._ids[doc_id]].text

    def keyphrases(self, text: str) -> list[str]:
        """The offline extractor's concepts of `text` (normalised)."""
        return list(dict.fromkeys(normalise_concept(c) for c in extract_concepts(text, self.tfidf)))

    def _doc_keyphrases(self, doc_id: str) -> list[str]:
        memo: dict[str, list[str]] = self.__dict__.setdefault("_doc_concepts", {})
        if doc_id not in memo:
            memo[doc_id] = self.keyphrases(self.document_text(doc_id))
        return memo[doc_id]

    def _concepts(self, idea: Idea, judge: str) -> ConceptScore:
        near = self.reference_documents(idea)
        concepts = self.keyphrases(idea.text)
        if not concepts:
            raise ValueError(
                f"idea {idea.idea_id!r}: no concept could be extracted (no known terms in its text)"
            )
        lists = [self._doc_keyphrases(entry["id"]) for entry in near.neighbours]
        neighbours = [
            {**entry, "concepts": ref} for entry, ref in zip(near.neighbours, lists, strict=True)
        ]
        return self.concept_score(judge, concepts, lists, neighbours, near.excluded_target)

    # ---- the two novelty formulas over given concept lists ----------------------------------

    def concept_vectors(self, concepts: Sequence[str]) -> Any:
        """Unit-norm embeddings of concept strings with the prior's embedder (rows memoised per string;
        a scipy sparse matrix for TF-IDF, else a numpy array)."""
        memo: dict[str, Any] = self.__dict__.setdefault("_concept_vectors", {})
        missing = [c for c in dict.fromkeys(concepts) if c not in memo]
        if missing:
            encoded = self.retriever.vectors.encode(missing)
            rows = (
                sparse.csr_matrix(encoded)
                if sparse.issparse(encoded)
                else np.asarray(encoded, dtype=np.float64)
            )
            for i, c in enumerate(missing):
                memo[c] = rows[i : i + 1] if sparse.issparse(rows) else rows[i][None, :]
        picked = [memo[c] for c in concepts]
        return (
            sparse.vstack(picked, format="csr")
            if picked and sparse.issparse(picked[0])
            else np.vstack(picked)
        )

    def similarity(self, concepts: Sequence[str], reference: Sequence[str]) -> np.ndarray:
        """S[i, j]: cosine of idea concept i and reference concept j; 1 for identical strings."""
        if not reference:
            return np.zeros((len(concepts), 0))
        product = self.concept_vectors(concepts) @ self.concept_vectors(reference).T
        sims = np.asarray(
            product.toarray() if sparse.issparse(product) else product, dtype=np.float64
        )
        same = np.array([[c == r for r in reference] for c in concepts], dtype=bool)
        return np.where(same, 1.0, sims)

    def concept_score(
        self,
        judge: str,
        concepts: list[str],
        reference_lists: Sequence[Sequence[str]],
        neighbours: list[dict[str, Any]],
        excluded: list[str],
    ) -> ConceptScore:
        """The concept judge's score of an idea's concepts against its references' concept lists."""
        check_judge(judge)
        reference = list(dict.fromkeys(c for ref in reference_lists for c in ref))
        parts: dict[str, float] = {
            "concepts": float(len(concepts)),
            "reference_concepts": float(len(reference)),
        }
        if judge == "concept_set":
            value = absent_share(concepts, set(reference))
            parts["absent"] = float(sum(c not in set(reference) for c in concepts))
            return ConceptScore(judge, value, parts, neighbours, excluded, concepts)
        sims = self.similarity(concepts, reference)
        members = fuzzy_memberships(sims)
        best = sims.argmax(axis=1) if reference else np.zeros(len(concepts), dtype=int)
        memberships = [
            {
                "concept": c,
                "membership": round(float(m), 6),
                "match": reference[int(b)] if reference else None,
            }
            for c, m, b in zip(concepts, members, best, strict=True)
        ]
        parts["mean_membership"] = float(members.mean())
        return ConceptScore(
            judge, fuzzy_novelty(sims), parts, neighbours, excluded, concepts, memberships
        )


def check_judge(judge: str) -> None:
    """A clear error for a judge name that is not a concept judge."""
    if judge not in CONCEPT_JUDGES:
        raise ValueError(f"unknown concept judge {judge!r}: use one of {', '.join(CONCEPT_JUDGES)}")


def concept_task_from_options(kind: str, judge: str, dataset: str, **options: Any) -> Task:
    """Catalog factory of the concept judges with the offline keyphrase extractor (`-T concepts=keyphrase`)."""
    check_judge(judge)
    return distance_task_from_options(kind, judge, dataset, prior_cls=ConceptPrior, **options)
