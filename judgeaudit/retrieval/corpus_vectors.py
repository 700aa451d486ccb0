"""Shipped corpus vectors: the bundled corpus embedded once by the bundled MiniLM model.

Embedding the 19,630 bundled abstracts takes many minutes on a laptop CPU, and the result
is deterministic, so it ships next to the corpus as
`datasets/corpora/<corpus>.<embedder>.npz`: float16 unit rows plus the corpus content
hash and the model id (embedder name and model package version) they were built from.
`shipped_vectors` returns them only when both match the corpus and embedder in use;
otherwise the caller computes the vectors as before (and the log says why). Rebuild with
`python -m judgeaudit.retrieval.build_vectors` (see that module).
"""

from __future__ import annotations

import importlib.metadata
import json
import logging
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from judgeaudit.files import atomic_open
from judgeaudit.retrieval.corpus import Corpus, bundled_corpus_path
from judgeaudit.retrieval.embed import MINILM_PACKAGE, Embedder, MiniLMEmbedder

FORMAT_VERSION = 1
STORED_DTYPE = np.float16
logger = logging.getLogger(__name__)


def model_id(embedder: Embedder) -> str | None:
    """What identifies the vectors an embedder makes: its name and the model package version
    (None for embedders whose vectors are not shipped, e.g. TF-IDF, which is fitted per corpus)."""
    if not isinstance(embedder, MiniLMEmbedder):
        return None
    try:
        version = importlib.metadata.version(MINILM_PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        return None
    return f"{embedder.name}|{MINILM_PACKAGE}=={version}"


def vectors_path(corpus_name: str, embedder_name: str) -> Path:
    """Where the shipped vectors of a bundled corpus and an embedder live (next to the corpus file)."""
    corpus_file = bundled_corpus_path(corpus_name)
    safe = embedder_name.replace("@", "-")
    return corpus_file.with_name(f"{corpus_name}.{safe}.npz")


def _read(path: Path) -> tuple[dict[str, Any], np.ndarray]:
    """The vector file's metadata and stored rows, read once per process while the file is unchanged."""
    stat = path.stat()
    return _read_unchanged(os.path.abspath(path), stat.st_ino, stat.st_size, stat.st_mtime_ns)


@lru_cache(maxsize=2)
def _read_unchanged(
    path: str, inode: int, size: int, mtime_ns: int
) -> tuple[dict[str, Any], np.ndarray]:
    """`_read`, memoised on the file's identity, size and modification time. Every distance-judge
    task of an audit (one per probe arm) loads the same vectors: decompressing ~20k rows again each
    time cost a third of a second per task. The rows are kept read-only (callers get a converted copy)."""
    with np.load(path, allow_pickle=False) as data:
        meta = json.loads(str(data["meta"]))
        stored = np.asarray(data["vectors"])
    stored.flags.writeable = False
    return meta, stored


def shipped_vectors(
    corpus: Corpus, embedder: Embedder, path: Path | None = None
) -> np.ndarray | None:
    """The shipped float32 unit-row vectors of `corpus` under `embedder` (from `path`, default: next
    to the bundled corpus of that name), or None (logged) when none ship for it or they were built
    from another corpus content or model."""
    wanted = model_id(embedder)
    if wanted is None:
        return None
    if path is None:
        try:
            path = vectors_path(corpus.name, embedder.name)
        except FileNotFoundError:
            return None  # not a bundled corpus name (a path, a subset): nothing ships for it
    if not path.is_file():
        return None
    try:
        meta, stored = _read(path)
    except (OSError, ValueError, KeyError) as exc:
        logger.warning(
            "shipped corpus vectors %s unreadable (%s); computing them instead", path, exc
        )
        return None
    expected = {"corpus_sha256": corpus.content_hash, "model": wanted, "documents": len(corpus)}
    found = {key: meta.get(key) for key in expected}
    if found != expected or stored.shape[0] != len(corpus):
        differs = ", ".join(k for k in expected if found[k] != expected[k]) or "shape"
        logger.warning(
            "shipped corpus vectors %s do not match (%s differs); computing them instead",
            path.name,
            differs,
        )
        return None
    vectors = stored.astype(np.float32)
    vectors /= np.maximum(
        np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12
    )  # undo float16 rounding
    return vectors


def write_vectors(corpus: Corpus, embedder: Embedder, out: Path) -> dict[str, Any]:
    """Embed every document of `corpus` and write the compact vector file; return its metadata."""
    wanted = model_id(embedder)
    if wanted is None:
        raise ValueError(
            f"embedder {embedder.name!r} has no shippable vectors (needs the embed extra's MiniLM)"
        )
    matrix = np.asarray(embedder.encode([d.text for d in corpus.documents]), dtype=np.float32)
    meta = {
        "format_version": FORMAT_VERSION,
        "corpus": corpus.name,
        "corpus_sha256": corpus.content_hash,
        "documents": len(corpus),
        "model": wanted,
        "dtype": np.dtype(STORED_DTYPE).name,
        "dimensions": int(matrix.shape[1]),
    }
    with atomic_open(out, "wb") as fh:
        np.savez_compressed(
            fh, vectors=matrix.astype(STORED_DTYPE), meta=np.array(json.dumps(meta, sort_keys=True))
        )
    return meta
