"""BM25 / vector / hybrid retrieval on real corpus documents: top-k, date cutoff, target exclusion, disk cache."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from judgeaudit.data.contract import Idea, Provenance
from judgeaudit.retrieval import index as index_mod
from judgeaudit.retrieval.corpus import Corpus, Document, Exclusion, load_corpus
from judgeaudit.retrieval.embed import TfidfEmbedder, embed_available, tokenize
from judgeaudit.retrieval.index import Retriever, rrf


@pytest.fixture(scope="module")
def small() -> Corpus:
    """600 real ICLR 2026 submissions: big enough for real ranking, fast to index."""
    return load_corpus().head(600)


@pytest.fixture(scope="module")
def built(small: Corpus) -> dict[str, Retriever]:
    """One retriever per method over `small`, sharing one BM25 and one TF-IDF scorer (no disk cache)."""
    hybrid = Retriever(small, "hybrid", embedder=TfidfEmbedder(), use_cache=False)
    hybrid.bm25, hybrid.vectors  # noqa: B018 - build both scorers once
    return {m: hybrid.with_method(m) for m in ("bm25", "dense", "hybrid")}  # type: ignore[arg-type]


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUDGEAUDIT_CACHE", str(tmp_path / "cache"))


def _tfidf(corpus: Corpus, method: str = "dense") -> Retriever:
    return Retriever(corpus, method, embedder=TfidfEmbedder())  # type: ignore[arg-type]


@pytest.mark.parametrize("method", ["bm25", "dense", "hybrid"])
def test_own_abstract_ranks_first_and_target_is_always_excluded(
    small: Corpus, built: dict[str, Retriever], method: str
) -> None:
    """Searching with a paper's own abstract finds it first, unless it is the judged idea."""
    retriever = built[method]
    for doc in (small.documents[3], small.documents[300], small.documents[599]):
        plain = retriever.search(doc.abstract, k=5)
        assert plain.hits[0].doc.doc_id == doc.doc_id
        idea = Idea(
            idea_id=doc.doc_id,
            text=doc.abstract,
            format="abstract",
            source="human",
            area="x",
            label="novel",
            title=doc.title,
        )
        result = retriever.search(doc.abstract, k=5, exclude=Exclusion.for_idea(idea))
        assert doc.doc_id not in [h.doc.doc_id for h in result.hits]
        assert result.excluded_target == [doc.doc_id]
        assert len(result.hits) == 5 and [h.rank for h in result.hits] == [1, 2, 3, 4, 5]
        assert [h.doc.doc_id for h in result.hits] == [h.doc.doc_id for h in plain.hits[1:]] + [
            result.hits[-1].doc.doc_id
        ]


def test_generated_idea_with_hash_id_is_excluded_by_its_original_text(
    small: Corpus, built: dict[str, Retriever]
) -> None:
    doc = small.documents[42]
    idea = Idea(
        idea_id="gen-9f8e",
        text="We propose a method.",
        format="abstract",
        source="generated",
        area="x",
        label="not_novel",
        original_text=doc.abstract,
        provenance=Provenance(dataset="t"),
    )
    result = built["bm25"].search(doc.abstract, k=3, exclude=Exclusion.for_idea(idea))
    assert doc.doc_id not in [h.doc.doc_id for h in result.hits] and result.excluded_target == [
        doc.doc_id
    ]


@pytest.mark.parametrize("method", ["bm25", "hybrid"])
def test_date_cutoff_keeps_only_earlier_documents(
    small: Corpus, built: dict[str, Retriever], method: str
) -> None:
    dates = sorted(d.cdate for d in small.documents)
    cutoff = dates[len(dates) // 2]
    retriever = built[method]
    query = "language models reasoning benchmark"
    result = retriever.search(query, k=50, cutoff=cutoff)
    assert result.hits and all(h.doc.cdate < cutoff for h in result.hits)
    assert result.after_cutoff == sum(d.cdate >= cutoff for d in small.documents)
    unrestricted = retriever.search(query, k=50)
    assert any(
        h.doc.cdate >= cutoff for h in unrestricted.hits
    )  # the cutoff really removed something
    # a cutoff before every document leaves nothing, and says why
    empty = retriever.search(query, k=5, cutoff="2000-01-01")
    assert empty.hits == [] and empty.after_cutoff == len(small)


def test_bm25_index_is_cached_on_disk_and_reused(
    small: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    small = small.head(300)
    first = Retriever(small, "bm25")
    expected = first.search("graph neural network", k=5)
    files = list((tmp_path / "cache" / "retrieval").glob("bm25-*.pkl"))
    assert len(files) == 1

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("index rebuilt although a cached copy exists")

    monkeypatch.setattr(index_mod, "BM25Okapi", refuse)
    again = Retriever(small, "bm25").search("graph neural network", k=5)
    assert [h.doc.doc_id for h in again.hits] == [h.doc.doc_id for h in expected.hits]
    # A different corpus has a different key and is built afresh (here: refused -> error).
    with pytest.raises(AssertionError, match="rebuilt"):
        Retriever(small.head(100), "bm25").search("graph", k=1)


def test_vector_cache_round_trip(small: Corpus, tmp_path: Path) -> None:
    small = small.head(200)
    a = _tfidf(small).search("diffusion model sampling", k=5)
    assert list((tmp_path / "cache" / "retrieval").glob("vectors-*.pkl"))
    b = _tfidf(small).search("diffusion model sampling", k=5)
    assert [(h.doc.doc_id, round(h.score, 9)) for h in a.hits] == [
        (h.doc.doc_id, round(h.score, 9)) for h in b.hits
    ]


def test_sparse_bm25_equals_rank_bm25_scores(small: Corpus, built: dict[str, Retriever]) -> None:
    """The precomputed weight matrix reproduces rank-bm25's own get_scores (repeated and unknown tokens too)."""
    reference = BM25Okapi([tokenize(d.text) or ["<empty>"] for d in small.documents])
    for query in (
        "graph neural networks for graphs",
        small.documents[9].abstract,
        "zzzunknownword language",
    ):
        expected = reference.get_scores(tokenize(query))
        assert np.allclose(built["bm25"].scores(query), expected, rtol=1e-9, atol=1e-9)


def test_rrf_fuses_ranks() -> None:
    fused = rrf([np.array([3.0, 2.0, 1.0]), np.array([1.0, 3.0, 2.0])], k=1)
    # doc0: 1/2 + 1/4; doc1: 1/3 + 1/2; doc2: 1/4 + 1/3
    assert np.allclose(fused, [0.75, 5 / 6, 7 / 12])


def test_bad_queries_and_arguments_are_clear_errors(
    small: Corpus, built: dict[str, Retriever]
) -> None:
    retriever = built["bm25"]
    with pytest.raises(ValueError, match="no searchable words"):
        retriever.search("the of and", k=3)
    with pytest.raises(ValueError, match="k must be"):
        retriever.search("graph", k=0)
    with pytest.raises(ValueError, match="unknown retrieval method"):
        Retriever(small, "sparse")  # type: ignore[arg-type]


def test_tokenize_lowercases_and_drops_stopwords() -> None:
    assert tokenize("The State-of-the-art GNN, for graphs!") == ["state", "art", "gnn", "graphs"]


@pytest.mark.embed
@pytest.mark.slow
@pytest.mark.skipif(
    not embed_available(), reason="needs the embed extra (sentence-transformers + MiniLM)"
)
def test_minilm_dense_and_hybrid_on_real_abstracts() -> None:
    """The packaged MiniLM finds a paper from its own abstract, and hybrid honours exclusion (16 documents, CPU)."""
    corpus = load_corpus().head(16)
    doc = corpus.documents[7]
    dense = Retriever(corpus, "dense")
    assert dense.description == "dense:minilm-l6-v2@128"
    assert dense.search(doc.abstract, k=1).hits[0].doc.doc_id == doc.doc_id
    hybrid = Retriever(corpus, "hybrid")
    exclude = Exclusion(ids=frozenset({doc.doc_id}))
    assert doc.doc_id not in [
        h.doc.doc_id for h in hybrid.search(doc.abstract, k=5, exclude=exclude).hits
    ]


def test_rank_rejects_misaligned_scores(built: dict[str, Retriever]) -> None:
    with pytest.raises(ValueError, match="scores for a corpus"):
        built["bm25"].rank(np.zeros(3), k=1)


def test_documents_without_text_still_index() -> None:
    corpus = Corpus(
        "tiny",
        (
            Document("a", "", "the of", 1),
            Document("b", "Graph nets", "graph networks", 2),
            Document("c", "Optimizers", "adaptive step sizes", 3),
        ),
    )
    assert [
        h.doc.doc_id for h in Retriever(corpus, "bm25", use_cache=False).search("graph", k=2).hits
    ][0] == "b"


def test_search_for_idea_excludes_it_and_get_retriever_is_shared(
    small: Corpus, tmp_path: Path
) -> None:
    from judgeaudit.retrieval.build_corpus import write_corpus
    from judgeaudit.retrieval.index import get_retriever, search_for_idea

    path = tmp_path / "c.jsonl.gz"
    write_corpus(list(small.head(200).documents), path)
    retriever = get_retriever(str(path), "bm25")
    assert get_retriever(str(path), "bm25") is retriever
    doc = small.documents[17]
    idea = Idea(
        idea_id=doc.doc_id,
        text=doc.abstract,
        format="abstract",
        source="human",
        area="x",
        label="novel",
    )
    result = search_for_idea(retriever, idea, k=4)
    assert result.excluded_target == [doc.doc_id] and len(result.hits) == 4


def test_bm25_returns_only_documents_sharing_a_query_term(
    small: Corpus, built: dict[str, Retriever]
) -> None:
    retriever = built["bm25"]
    assert (
        retriever.search("zzqqxx", k=3).hits == []
    )  # no document contains the word: no hits, not arbitrary papers
    rare = retriever.search("zzqqxx diffusion", k=50)
    assert rare.hits and all(h.score > 0 and "diffusion" in h.doc.text.lower() for h in rare.hits)
    # precomputed scores keep the old behaviour unless asked (distance judges rank every document)
    zeros = np.zeros(len(small))
    assert (
        len(retriever.rank(zeros, 3).hits) == 3
        and retriever.rank(zeros, 3, matches_only=True).hits == []
    )
