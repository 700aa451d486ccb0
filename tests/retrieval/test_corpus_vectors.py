"""Shipped corpus vectors (judgeaudit/retrieval/corpus_vectors.py): used only when the corpus content
and the model match, otherwise computed as before; the bundled file matches the bundled corpus."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from judgeaudit.retrieval.corpus import Corpus, load_corpus
from judgeaudit.retrieval.corpus_vectors import (
    model_id,
    shipped_vectors,
    vectors_path,
    write_vectors,
)
from judgeaudit.retrieval.embed import MiniLMEmbedder, TfidfEmbedder, embed_available
from judgeaudit.retrieval.index import Retriever

pytestmark = [
    pytest.mark.embed,
    pytest.mark.skipif(not embed_available(), reason="needs the embed extra"),
]


class NoCorpusEncoding(MiniLMEmbedder):
    """MiniLM that refuses corpus-sized inputs: proves the corpus vectors were not computed."""

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Query-sized inputs only."""
        if len(texts) > 16:
            raise AssertionError(
                f"asked to embed {len(texts)} texts: the shipped vectors were not used"
            )
        return super().encode(texts)


@pytest.fixture(scope="module")
def small() -> Corpus:
    """Twelve documents of the bundled corpus."""
    return load_corpus().head(12)


def test_written_vectors_round_trip(small: Corpus, tmp_path: Path) -> None:
    embedder = MiniLMEmbedder()
    path = tmp_path / "small.npz"
    meta = write_vectors(small, embedder, path)
    assert meta["corpus_sha256"] == small.content_hash and meta["model"] == model_id(embedder)
    got = shipped_vectors(small, embedder, path)
    assert got is not None and got.dtype == np.float32 and got.shape == (12, 384)
    fresh = embedder.encode([d.text for d in small.documents])
    assert np.min(np.sum(got * fresh, axis=1)) > 0.9999  # float16 storage keeps the cosines
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-6)


def test_other_content_or_model_falls_back(
    small: Corpus, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "small.npz"
    write_vectors(small, MiniLMEmbedder(), path)
    docs = list(small.documents)
    docs[3] = replace(docs[3], abstract=docs[3].abstract + " (edited)")
    edited = Corpus(small.name, tuple(docs))
    with caplog.at_level(logging.WARNING):
        assert shipped_vectors(edited, MiniLMEmbedder(), path) is None
    assert "corpus_sha256 differs" in caplog.text
    assert (
        shipped_vectors(small, MiniLMEmbedder(max_seq_length=64), path) is None
    )  # another cut, another model id
    assert shipped_vectors(small, TfidfEmbedder(), path) is None  # fitted per corpus: never shipped
    (tmp_path / "broken.npz").write_bytes(b"not a zip")
    assert shipped_vectors(small, MiniLMEmbedder(), tmp_path / "broken.npz") is None


def test_bundled_vectors_match_the_bundled_corpus() -> None:
    corpus = load_corpus()
    embedder = MiniLMEmbedder()
    path = vectors_path(corpus.name, embedder.name)
    assert path.is_file() and path.stat().st_size < 20_000_000
    vectors = shipped_vectors(corpus, embedder)
    assert vectors is not None and vectors.shape == (len(corpus), 384)
    picks = [0, 9_999, len(corpus) - 1]  # spot-check rows against a fresh embedding
    fresh = embedder.encode([corpus.documents[i].text for i in picks])
    assert np.min(np.sum(vectors[picks] * fresh, axis=1)) > 0.999


def test_dense_retriever_loads_the_bundled_vectors_without_embedding_the_corpus() -> None:
    retriever = Retriever(load_corpus(), "dense", NoCorpusEncoding(), use_cache=False)
    result = retriever.search(
        "graph neural network expressivity beyond the Weisfeiler-Lehman test", k=3
    )
    assert len(result.hits) == 3 and retriever.description == "dense:minilm-l6-v2@128"


def test_embedders_of_one_cut_share_one_loaded_model() -> None:
    """Each judge task builds its own embedder; the MiniLM weights are loaded once per process and cut."""
    a, b, short = MiniLMEmbedder(), MiniLMEmbedder(), MiniLMEmbedder(max_seq_length=64)
    assert a._load() is b._load() and short._load() is not a._load()
    assert (a._load().max_seq_length, short._load().max_seq_length) == (128, 64)
    long_text = "graph " * 200
    assert not np.allclose(
        a.encode([long_text]), short.encode([long_text])
    )  # the cut still applies per model


def test_a_one_text_query_is_encoded_once_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tasks of one audit fit their rule on the same items: a repeated one-text query reuses its vector."""
    embedder = MiniLMEmbedder()
    model = embedder._load()
    calls: list[list[str]] = []
    real = model.encode
    monkeypatch.setattr(
        model, "encode", lambda texts, **kw: calls.append(list(texts)) or real(texts, **kw)
    )
    text = f"A query seen twice ({id(calls)})"
    first = embedder.encode([text])
    first[0, 0] = 99.0  # a caller's change does not reach the memo
    again = MiniLMEmbedder().encode([text])
    assert calls == [[text]] and again[0, 0] != 99.0
    assert np.allclose(again, real([text], normalize_embeddings=True, convert_to_numpy=True))
    embedder.encode([text, "another"])  # batches are encoded as they come
    assert calls[-1] == [text, "another"]
