"""Local retrieval over a Corpus: BM25 (rank-bm25), dense vectors (MiniLM or TF-IDF), and hybrid (RRF).

Indexes are built once per corpus and cached on disk under `cache_dir()` keyed by the
corpus content hash and the method, so repeated runs only pay for loading. A search
returns the top-k documents dated strictly before an optional cutoff, never the judged
idea itself (`Exclusion`), with the number of excluded candidates reported.
"""

from __future__ import annotations

import hashlib
import os
import pickle
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any, Literal

import numpy as np
from rank_bm25 import BM25Okapi
from scipy import sparse

from judgeaudit.data.contract import Idea
from judgeaudit.files import atomic_open
from judgeaudit.retrieval.corpus import Corpus, Document, Exclusion, load_corpus, to_millis
from judgeaudit.retrieval.corpus_vectors import shipped_vectors
from judgeaudit.retrieval.embed import Embedder, cosine_rows, default_embedder, tokenize

Method = Literal["bm25", "dense", "hybrid"]
METHODS: tuple[str, ...] = ("bm25", "dense", "hybrid")
RRF_K = 60  # reciprocal rank fusion constant (the usual choice in the RRF literature)
CACHE_VERSION = 2
Cutoff = str | date | datetime | int | None


def cache_dir() -> Path:
    """Where built indexes are cached: $JUDGEAUDIT_CACHE/retrieval, else ~/.cache/judgeaudit/retrieval."""
    root = os.environ.get("JUDGEAUDIT_CACHE") or os.path.join(
        os.path.expanduser("~"), ".cache", "judgeaudit"
    )
    return Path(root) / "retrieval"


@dataclass(frozen=True)
class Hit:
    """One retrieved document with its score and 1-based rank under the method used."""

    doc: Document
    score: float
    rank: int
    method: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record (for logs and score metadata)."""
        return {
            "id": self.doc.doc_id,
            "title": self.doc.title,
            "date": self.doc.date.date().isoformat(),
            "score": round(float(self.score), 6),
            "rank": self.rank,
            "method": self.method,
        }


@dataclass
class SearchResult:
    """The hits of one search plus what was filtered on the way (counted, never silent)."""

    hits: list[Hit]
    excluded_target: list[str] = field(default_factory=list)
    after_cutoff: int = 0
    cutoff_ms: int | None = None


def _cache_path(kind: str, corpus: Corpus, extra: str = "") -> Path:
    key = hashlib.sha256(
        f"{CACHE_VERSION}|{kind}|{extra}|{corpus.content_hash}".encode()
    ).hexdigest()[:24]
    return cache_dir() / f"{kind}-{key}.pkl"


def _load_cached(path: Path, use_cache: bool) -> Any:
    if not use_cache or not path.is_file():
        return None
    try:
        with path.open("rb") as fh:
            return pickle.load(fh)
    except (OSError, pickle.UnpicklingError, EOFError):
        return None  # a broken cache entry is rebuilt and overwritten


def _store_cached(path: Path, obj: Any, use_cache: bool) -> None:
    if use_cache:
        with atomic_open(path, "wb") as fh:
            pickle.dump(obj, fh, protocol=pickle.HIGHEST_PROTOCOL)


class BM25Scorer:
    """BM25 (Okapi, rank-bm25 defaults k1=1.5, b=0.75, epsilon idf floor) over `tokenize` tokens.

    rank-bm25 fits the statistics (idf with its floor, document lengths, average length);
    its per-term weights are then laid out once as a sparse documents x terms matrix, so a
    query costs one sparse product instead of a Python loop over every document per term.
    `scores` equals `BM25Okapi.get_scores` on the same tokens (checked by a test).
    """

    method = "bm25"

    def __init__(self, corpus: Corpus, use_cache: bool = True) -> None:
        path = _cache_path("bm25", corpus)
        cached = _load_cached(path, use_cache)
        if isinstance(cached, dict) and {"vocab", "weights"} <= set(cached):
            self.vocab: dict[str, int] = cached["vocab"]
            self.weights: sparse.csr_matrix = cached["weights"]
        else:
            tokens = [tokenize(d.text) or ["<empty>"] for d in corpus.documents]
            self.vocab, self.weights = self._weights(BM25Okapi(tokens))
            _store_cached(path, {"vocab": self.vocab, "weights": self.weights}, use_cache)

    @staticmethod
    def _weights(model: BM25Okapi) -> tuple[dict[str, int], sparse.csr_matrix]:
        vocab = {term: i for i, term in enumerate(sorted(model.idf))}
        rows, cols, vals = [], [], []
        k1, b, avgdl = model.k1, model.b, model.avgdl
        for d, (freqs, length) in enumerate(zip(model.doc_freqs, model.doc_len, strict=True)):
            norm = k1 * (1 - b + b * length / avgdl)
            for term, tf in freqs.items():
                rows.append(d)
                cols.append(vocab[term])
                vals.append(model.idf[term] * tf * (k1 + 1) / (tf + norm))
        shape = (len(model.doc_freqs), len(vocab))
        return vocab, sparse.csr_matrix((vals, (rows, cols)), shape=shape, dtype=np.float64)

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every document for the query (each query token counts once per occurrence)."""
        tokens = tokenize(query)
        if not tokens:
            raise ValueError("query has no searchable words")
        counts = Counter(self.vocab[t] for t in tokens if t in self.vocab)
        if not counts:
            return np.zeros(self.weights.shape[0], dtype=np.float64)
        q = sparse.csr_matrix(
            (list(counts.values()), ([0] * len(counts), list(counts))),
            shape=(1, self.weights.shape[1]),
            dtype=np.float64,
        )
        return np.asarray((self.weights @ q.T).toarray(), dtype=np.float64).ravel()


class VectorScorer:
    """Cosine similarity between the query vector and every document vector (MiniLM or TF-IDF)."""

    method = "dense"

    def __init__(
        self, corpus: Corpus, embedder: Embedder | None = None, use_cache: bool = True
    ) -> None:
        self.embedder = embedder or default_embedder()
        path = _cache_path("vectors", corpus, self.embedder.name)
        cached = _load_cached(path, use_cache)
        if isinstance(cached, dict) and cached.get("embedder") == self.embedder.name:
            self.embedder.load_state(cached["state"])
            self.matrix = cached["matrix"]
        elif (shipped := shipped_vectors(corpus, self.embedder)) is not None:
            self.matrix = shipped  # built once for the bundled corpus and model, hash-checked
        else:
            texts = [d.text for d in corpus.documents]
            self.embedder.fit(texts)
            self.matrix = self.embedder.encode(texts)
            _store_cached(
                path,
                {
                    "embedder": self.embedder.name,
                    "state": self.embedder.state(),
                    "matrix": self.matrix,
                },
                use_cache,
            )

    @property
    def name(self) -> str:
        """The embedder's name (minilm-l6-v2 or tfidf)."""
        return self.embedder.name

    def encode(self, texts: Sequence[str]) -> Any:
        """Query vectors in the corpus vector space."""
        return self.embedder.encode(texts)

    def scores(self, query: str) -> np.ndarray:
        """Cosine similarity of every document to the query."""
        return cosine_rows(self.matrix, self.encode([query]))


def rrf(score_lists: Sequence[np.ndarray], k: int = RRF_K) -> np.ndarray:
    """Reciprocal rank fusion: sum over rankings of 1 / (k + rank), rank 1 = best score."""
    total = np.zeros(len(score_lists[0]), dtype=np.float64)
    for scores in score_lists:
        order = np.argsort(-scores, kind="stable")
        ranks = np.empty(len(scores), dtype=np.float64)
        ranks[order] = np.arange(1, len(scores) + 1)
        total += 1.0 / (k + ranks)
    return total


class Retriever:
    """Top-k search over one corpus with one method; scorers are built lazily and cached on disk."""

    def __init__(
        self,
        corpus: Corpus,
        method: Method = "bm25",
        embedder: Embedder | None = None,
        use_cache: bool = True,
    ) -> None:
        if method not in METHODS:
            raise ValueError(
                f"unknown retrieval method {method!r}: use one of {', '.join(METHODS)}"
            )
        self.corpus = corpus
        self.method: Method = method
        self.use_cache = use_cache
        self._embedder = embedder
        self._bm25: BM25Scorer | None = None
        self._vectors: VectorScorer | None = None
        self._cdates = np.array([d.cdate for d in corpus.documents], dtype=np.int64)

    def with_method(self, method: Method) -> Retriever:
        """A retriever over the same corpus with another method, sharing the scorers built so far."""
        other = Retriever(self.corpus, method, self._embedder, self.use_cache)
        other._bm25, other._vectors = self._bm25, self._vectors
        return other

    @property
    def bm25(self) -> BM25Scorer:
        """The BM25 scorer (built or loaded on first use)."""
        if self._bm25 is None:
            self._bm25 = BM25Scorer(self.corpus, self.use_cache)
        return self._bm25

    @property
    def vectors(self) -> VectorScorer:
        """The vector scorer (built or loaded on first use)."""
        if self._vectors is None:
            self._vectors = VectorScorer(self.corpus, self._embedder, self.use_cache)
        return self._vectors

    @property
    def description(self) -> str:
        """Method and, for vector methods, the embedder (e.g. `hybrid:bm25+minilm-l6-v2`)."""
        if self.method == "bm25":
            return "bm25"
        if self.method == "dense":
            return f"dense:{self.vectors.name}"
        return f"hybrid:bm25+{self.vectors.name}"

    def scores(self, query: str) -> np.ndarray:
        """The method's score of every document (higher is more relevant)."""
        if self.method == "bm25":
            return self.bm25.scores(query)
        if self.method == "dense":
            return self.vectors.scores(query)
        return rrf([self.bm25.scores(query), self.vectors.scores(query)])

    def search(
        self, query: str, k: int = 5, cutoff: Cutoff = None, exclude: Exclusion | None = None
    ) -> SearchResult:
        """Top-k documents for `query` dated strictly before `cutoff`, never the excluded target.

        Under BM25 a document sharing no term with the query scores 0 and is not a match: it is
        never returned (a query of unknown words gets no hits rather than arbitrary papers).
        """
        if k < 1:
            raise ValueError(f"k must be >= 1, got {k}")
        return self.rank(self.scores(query), k, cutoff, exclude, matches_only=self.method == "bm25")

    def rank(
        self,
        scores: np.ndarray,
        k: int,
        cutoff: Cutoff = None,
        exclude: Exclusion | None = None,
        matches_only: bool = False,
    ) -> SearchResult:
        """Top-k of precomputed per-document scores under the date cutoff and target exclusion
        (with `matches_only`, documents scoring 0 or less are not returned)."""
        if len(scores) != len(self.corpus):
            raise ValueError(f"{len(scores)} scores for a corpus of {len(self.corpus)} documents")
        cutoff_ms = None if cutoff is None else to_millis(cutoff)
        allowed = (
            np.ones(len(scores), dtype=bool) if cutoff_ms is None else self._cdates < cutoff_ms
        )
        result = SearchResult([], cutoff_ms=cutoff_ms, after_cutoff=int((~allowed).sum()))
        order = np.argsort(-np.where(allowed, scores, -np.inf), kind="stable")
        for i in order:
            if not allowed[i] or len(result.hits) >= k or (matches_only and scores[i] <= 0):
                break
            doc = self.corpus.documents[int(i)]
            if exclude is not None and exclude.excludes(doc):
                result.excluded_target.append(doc.doc_id)
                continue
            result.hits.append(Hit(doc, float(scores[i]), len(result.hits) + 1, self.method))
        return result


_RETRIEVERS: dict[tuple[str, str, str], Retriever] = {}


def get_retriever(
    corpus: str = "iclr2026_submissions", method: Method = "bm25", embedder: str = "auto"
) -> Retriever:
    """A process-wide shared retriever for a bundled corpus name or corpus path (built/loaded once)."""
    key = (corpus, method, embedder)
    if key not in _RETRIEVERS:
        vectors = default_embedder(embedder) if method != "bm25" else None
        _RETRIEVERS[key] = Retriever(load_corpus(corpus), method, vectors)
    return _RETRIEVERS[key]


def search_for_idea(
    retriever: Retriever, idea: Idea, k: int = 5, cutoff: Cutoff = None, query: str | None = None
) -> SearchResult:
    """Top-k prior work for an idea (query = the idea text unless given), the idea itself excluded."""
    return retriever.search(
        query or idea.text, k=k, cutoff=cutoff, exclude=Exclusion.for_idea(idea)
    )
