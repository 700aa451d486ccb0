"""The hybrid stance model: the cue extractor's candidate passages re-scored by a learned model.

Only sentences with originality or prior-work vocabulary (`stance_embed.prefilter`, the cue
extractor's candidate passages) are scored; every other sentence scores 0. A candidate's
features are its word n-gram TF-IDF row (`stance.features`) and three cue-hit indicators (the
cue extractor's verdict on the sentence: explicit affirmation, weak affirmation, dispute);
two L2 logistic regressions (affirm vs rest, dispute vs rest) on those, fitted on the
training papers only (`crossval.hybrid_learner`). Evaluation only: not shipped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import sparse

from judgeaudit.mine.signals import AFFIRM, classify
from judgeaudit.mine.stance import Thresholds, document_frequencies, features, smooth_idf
from judgeaudit.mine.stance_embed import prefilter
from judgeaudit.mine.stance_fit import SEED, LabelledSentence, fit_stance_weights

CUE_FEATURES = ("cue affirm", "cue weak affirm", "cue dispute")


def cue_features(sentences: Sequence[str]) -> np.ndarray:
    """(n, 3) indicators of the cue extractor's verdict per sentence."""
    out = np.zeros((len(sentences), len(CUE_FEATURES)))
    for i, s in enumerate(sentences):
        found = classify(s)
        if found is not None:
            polarity, weak = found
            out[i, 0 if polarity == AFFIRM and not weak else 1 if polarity == AFFIRM else 2] = 1.0
    return out


@dataclass
class HybridModel:
    """N-gram vocabulary and idf, weights over n-grams + cue indicators, and the tuned thresholds/selection."""

    name: str
    max_n: int
    vocabulary: dict[str, int]
    idf: np.ndarray
    weights: np.ndarray  # (terms + 3, 2)
    intercepts: np.ndarray  # (2,)
    thresholds: Thresholds
    selection: dict[str, Any] = field(default_factory=dict)
    training: dict[str, Any] = field(default_factory=dict)

    def matrix(self, sentences: Sequence[str]) -> sparse.csr_matrix:
        """Feature rows: TF-IDF n-grams then the cue indicators."""
        return sparse.hstack([features(sentences, self.vocabulary, self.idf, self.max_n),
                              sparse.csr_matrix(cue_features(sentences))], format="csr")

    def probabilities(self, sentences: Sequence[str]) -> np.ndarray:
        """(n, 2) P(affirm), P(dispute); 0 for sentences that are not candidates."""
        out = np.zeros((len(sentences), 2))
        idx = [i for i, s in enumerate(sentences) if prefilter(s)]
        if idx:
            z = self.matrix([sentences[i] for i in idx]) @ self.weights + self.intercepts
            out[idx] = 1.0 / (1.0 + np.exp(-np.asarray(z)))
        return out

    def to_json(self) -> dict[str, Any]:
        """Plain-data form (terms in index order, then the cue features)."""
        terms = sorted(self.vocabulary, key=self.vocabulary.__getitem__)
        return {"format": "judgeaudit-stance-hybrid", "format_version": 1, "name": self.name, "max_n": self.max_n,
                "terms": terms, "cue_features": list(CUE_FEATURES), "idf": [round(float(x), 6) for x in self.idf],
                "weights": {"affirm": [round(float(x), 6) for x in self.weights[:, 0]],
                            "dispute": [round(float(x), 6) for x in self.weights[:, 1]]},
                "intercepts": {"affirm": round(float(self.intercepts[0]), 6),
                               "dispute": round(float(self.intercepts[1]), 6)},
                "thresholds": {"affirm": self.thresholds.affirm, "weak": self.thresholds.weak,
                               "dispute": self.thresholds.dispute},
                "selection": self.selection, "training": self.training}


def fit_hybrid(rows: Sequence[LabelledSentence], *, name: str = "hybrid", c: float = 4.0, min_df: int = 2,
               max_n: int = 3) -> HybridModel:
    """Fit on the candidate sentences of `rows` (the others always score 0)."""
    kept = [r for r in rows if prefilter(r.text)]
    texts = [r.text for r in kept]
    df, n = document_frequencies(texts, max_n)
    terms = sorted(t for t, k in df.items() if k >= min_df)
    vocabulary = {t: i for i, t in enumerate(terms)}
    idf = np.asarray([smooth_idf(df[t], n) for t in terms], dtype=float)
    model = HybridModel(name, max_n, vocabulary, idf, np.zeros((len(terms) + len(CUE_FEATURES), 2)), np.zeros(2),
                        Thresholds(0.5, 0.5, 0.5))
    x = model.matrix(texts)
    model.weights, model.intercepts = fit_stance_weights(
        x, np.asarray([r.affirm for r in kept]), np.asarray([r.dispute for r in kept]), c=c, seed=SEED)
    model.training = {"sentences": len(rows), "candidates": len(kept), "affirm": int(sum(r.affirm for r in kept)),
                      "dispute": int(sum(r.dispute for r in kept)), "C": c, "min_df": min_df, "terms": len(terms),
                      "papers": len({r.forum for r in rows})}
    return model
