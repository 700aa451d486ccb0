"""The learned stance extractor: a review sentence's probability of affirming / disputing originality.

The model is plain data shipped in the package (`judgeaudit/mine/signals/models/<name>.json`): a word
1-3-gram vocabulary, its inverse document frequencies and one logistic-regression weight vector
per stance, plus its two thresholds, picked by grouped cross-validation on the
reference study's development split (`judgeaudit.mine.study.stance_fit`, `tests/benchmarks/bench_extractor.py`).
No pickle is ever loaded and nothing is fetched: `load_model` reads JSON only.

Features (the same function at training and run time, `analyse`): lower-cased word tokens
(letters with inner apostrophes, or digits) and their 2- and 3-grams; TF-IDF with sublinear term
frequency and L2 normalisation (scikit-learn's `TfidfVectorizer` definition, reimplemented here
so that run time needs numpy only).

A review's signals: every sentence of its signal fields whose affirm probability reaches the
`weak` threshold is an affirmation (weak below `affirm`), and every sentence whose dispute
probability reaches `dispute` is a dispute; a sentence carries the stance with the larger
probability when both apply.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from judgeaudit.mine.parse import SIGNAL_FIELDS, Review
from judgeaudit.mine.signals import sentences as sentences_module
from judgeaudit.mine.signals.base import AFFIRM, DISPUTE, Polarity, ReviewSignals, Signal
from judgeaudit.mine.signals.sentences import split_sentences

MODEL_DIR = Path(__file__).resolve().parent / "models"
FORMAT = "judgeaudit-stance-ngram"
FORMAT_VERSION = 1
DEFAULT_MODEL = "ngram"

if TYPE_CHECKING:
    from scipy import sparse

_TOKEN = re.compile(r"[a-z]+(?:['’][a-z]+)*|\d+")


def analyse(sentence: str, max_n: int = 3) -> list[str]:
    """The sentence's features: lower-case tokens and their n-grams up to `max_n` (space-joined)."""
    tokens = [t.replace("’", "'") for t in _TOKEN.findall(sentence.lower())]
    grams = list(tokens)
    for n in range(2, max_n + 1):
        grams.extend(" ".join(tokens[i : i + n]) for i in range(len(tokens) - n + 1))
    return grams


def document_frequencies(sentences: Sequence[str], max_n: int = 3) -> tuple[Counter[str], int]:
    """How many sentences contain each feature, and the number of sentences."""
    df: Counter[str] = Counter()
    for sentence in sentences:
        df.update(set(analyse(sentence, max_n)))
    return df, len(sentences)


def smooth_idf(df: int, n: int) -> float:
    """scikit-learn's smoothed inverse document frequency: ln((1 + n) / (1 + df)) + 1."""
    return math.log((1 + n) / (1 + df)) + 1.0


def features(
    sentences: Sequence[str], vocabulary: dict[str, int], idf: np.ndarray, max_n: int = 3
) -> sparse.csr_matrix:
    """TF-IDF rows (sublinear tf, L2-normalised) of `sentences` over `vocabulary`."""
    # scipy is imported here, not at the top, so `judgeaudit mine` with the cue extractor never loads it
    from scipy import sparse

    indptr = [0]
    indices: list[int] = []
    values: list[float] = []
    for sentence in sentences:
        counts = Counter(
            j for g in analyse(sentence, max_n) if (j := vocabulary.get(g)) is not None
        )
        row = [(j, (1.0 + math.log(c)) * idf[j]) for j, c in counts.items()]
        norm = math.sqrt(sum(v * v for _, v in row)) or 1.0
        indices.extend(j for j, _ in row)
        values.extend(v / norm for _, v in row)
        indptr.append(len(indices))
    return sparse.csr_matrix(
        (
            np.asarray(values, dtype=float),
            np.asarray(indices, dtype=np.int64),
            np.asarray(indptr, dtype=np.int64),
        ),
        shape=(len(sentences), len(vocabulary)),
    )


class ModelError(ValueError):
    """A stance model file is missing or not a valid model."""


@dataclass(frozen=True)
class Thresholds:
    """Review-level decision thresholds on sentence probabilities."""

    affirm: float  # an affirmation that counts towards a novel majority
    weak: (
        float  # any affirmation (opposes not_novel when the rule says weak ones oppose); <= affirm
    )
    dispute: float


@dataclass
class StanceModel:
    """Vocabulary, idf and per-stance weights of the sentence classifier, with its tuned thresholds."""

    name: str
    max_n: int
    vocabulary: dict[str, int]
    idf: np.ndarray
    weights: np.ndarray  # (terms, 2): columns affirm, dispute
    intercepts: np.ndarray  # (2,)
    thresholds: Thresholds
    training: dict[str, Any] = field(default_factory=dict)

    def probabilities(self, sentences: Sequence[str]) -> np.ndarray:
        """(n, 2) array of P(affirm), P(dispute) per sentence."""
        x = features(sentences, self.vocabulary, self.idf, self.max_n)
        z = x @ self.weights + self.intercepts
        return np.asarray(1.0 / (1.0 + np.exp(-z)))

    def to_json(self) -> dict[str, Any]:
        """The JSON form written to `models/<name>.json` (terms in index order)."""
        terms = sorted(self.vocabulary, key=self.vocabulary.__getitem__)
        return {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "name": self.name,
            "max_n": self.max_n,
            "features": "word 1..max_n-grams, tf-idf (sublinear tf, smooth idf, l2 norm)",
            "terms": terms,
            "idf": [round(float(x), 6) for x in self.idf],
            "weights": {
                "affirm": [round(float(x), 6) for x in self.weights[:, 0]],
                "dispute": [round(float(x), 6) for x in self.weights[:, 1]],
            },
            "intercepts": {
                "affirm": round(float(self.intercepts[0]), 6),
                "dispute": round(float(self.intercepts[1]), 6),
            },
            "thresholds": {
                "affirm": self.thresholds.affirm,
                "weak": self.thresholds.weak,
                "dispute": self.thresholds.dispute,
            },
            "training": self.training,
        }

    @classmethod
    def from_json(cls, data: Any, where: str = "<memory>") -> StanceModel:
        """A model from its JSON form; ModelError naming `where` and the field if it is not one."""
        check_format(data, where, FORMAT, FORMAT_VERSION)
        try:
            terms = list(data["terms"])
            idf = np.asarray(data["idf"], dtype=float)
            weights, intercepts, thresholds = stance_weights(data)
            max_n = int(data["max_n"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelError(f"{where}: malformed model ({type(exc).__name__}: {exc})") from exc
        if not (len(terms) == len(idf) == weights.shape[0]) or not all(
            isinstance(t, str) for t in terms
        ):
            raise ModelError(f"{where}: terms, idf and weights differ in length")
        if not (
            np.all(np.isfinite(idf))
            and np.all(np.isfinite(weights))
            and np.all(np.isfinite(intercepts))
        ):
            raise ModelError(f"{where}: non-finite numbers in the model")
        return cls(
            name=str(data.get("name", "")),
            max_n=max_n,
            vocabulary={t: i for i, t in enumerate(terms)},
            idf=idf,
            weights=weights,
            intercepts=intercepts,
            thresholds=thresholds,
            training=dict(data.get("training") or {}),
        )


def check_format(data: Any, where: str, fmt: str, version: int) -> None:
    """ModelError naming `where` unless `data` is a model file of format `fmt`, version `version`."""
    if not isinstance(data, dict) or data.get("format") != fmt:
        raise ModelError(f"{where}: not a {fmt} model file")
    if data.get("format_version") != version:
        raise ModelError(
            f"{where}: format_version {data.get('format_version')!r}, expected {version}"
        )


def stance_weights(data: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, Thresholds]:
    """(weights (terms, 2), intercepts (2,), thresholds) of a model file's JSON (KeyError/TypeError/ValueError if malformed)."""
    weights = np.stack(
        [np.asarray(data["weights"][k], dtype=float) for k in ("affirm", "dispute")], axis=1
    )
    intercepts = np.asarray(
        [data["intercepts"]["affirm"], data["intercepts"]["dispute"]], dtype=float
    )
    th = data["thresholds"]
    return (
        weights,
        intercepts,
        Thresholds(float(th["affirm"]), float(th["weak"]), float(th["dispute"])),
    )


def model_path(name: str = DEFAULT_MODEL) -> Path:
    """Where the packaged model `name` lives."""
    return MODEL_DIR / f"{name}.json"


def packaged_models() -> list[str]:
    """Names of the stance models shipped in the package."""
    return sorted(p.stem for p in MODEL_DIR.glob("*.json"))


def load_model(name_or_path: str | Path = DEFAULT_MODEL) -> StanceModel:
    """A packaged model by name, or a model file by path (JSON only)."""
    path = Path(name_or_path)
    if path.suffix != ".json":
        path = model_path(str(name_or_path))
    if not path.is_file():
        raise ModelError(
            f"no stance model {name_or_path!r} (packaged: {', '.join(packaged_models()) or 'none'})"
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ModelError(f"{path}: not valid JSON ({exc})") from exc
    return StanceModel.from_json(data, str(path))


def model_fingerprint(name_or_path: str | Path = DEFAULT_MODEL) -> str:
    """SHA-256 of the model file and the sentence splitter (calibration figures are tied to it)."""
    path = Path(name_or_path)
    if path.suffix != ".json":
        path = model_path(str(name_or_path))
    h = hashlib.sha256(path.read_bytes())
    h.update(Path(__file__).read_bytes())
    h.update(Path(sentences_module.__file__).read_bytes())
    return h.hexdigest()


def stance_of(p_affirm: float, p_dispute: float, th: Thresholds) -> tuple[Polarity, bool] | None:
    """(polarity, weak) of one sentence from its probabilities, or None."""
    affirms = p_affirm >= th.weak
    disputes = p_dispute >= th.dispute
    if affirms and (not disputes or p_affirm >= p_dispute):
        return AFFIRM, p_affirm < th.affirm
    if disputes:
        return DISPUTE, False
    return None


@dataclass
class LearnedExtractor:
    """Signals from the learned sentence classifier (see module doc)."""

    model: StanceModel
    fields: Sequence[str] = field(default_factory=lambda: SIGNAL_FIELDS)
    thresholds: Thresholds | None = None

    @property
    def name(self) -> str:
        """Extractor id as recorded in the manifest (`--extractor` value)."""
        return self.model.name

    def sentences(self, review: Review) -> list[tuple[str, str]]:
        """(field, sentence) pairs of the review's signal fields."""
        return [
            (f, s) for f, text in review.signal_text(self.fields) for s in split_sentences(text)
        ]

    def extract(self, review: Review) -> ReviewSignals:
        """Signals of one review."""
        th = self.thresholds or self.model.thresholds
        pairs = self.sentences(review)
        if not pairs:
            return ReviewSignals(review.review_id)
        probs = self.model.probabilities([s for _, s in pairs])
        signals = []
        for (fname, sentence), (pa, pd) in zip(pairs, probs, strict=True):
            found = stance_of(float(pa), float(pd), th)
            if found is not None:
                signals.append(Signal(found[0], sentence, fname, weak=found[1]))
        return ReviewSignals(review.review_id, tuple(signals))
