"""Fit the learned stance model on the reference study's development split (needs scikit-learn).

Training sentences: every sentence of the signal fields of the dev papers' official reviews.
A sentence is an affirmation (dispute) when it matches one of the paper's reference passages
`positive_signals` (`negative_signals`) under the calibration matching rule
(`sentences.quotes_overlap`); every other sentence is neither. The study lists only the
passages of a paper's own label side, and its extractor found none of the other side there
(a novel paper has no dispute, a not_novel one no affirmation), so the labels are complete
for what the study's extractor saw.

Model: vocabulary = features in at least `min_df` training sentences; two L2-regularised
logistic regressions (affirm vs rest, dispute vs rest, liblinear, fixed seed) on the TF-IDF rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.linear_model import LogisticRegression

from judgeaudit.mine.parse import SIGNAL_FIELDS, Review
from judgeaudit.mine.signals.sentences import quotes_overlap, split_sentences
from judgeaudit.mine.signals.stance import (
    StanceModel,
    Thresholds,
    document_frequencies,
    features,
    smooth_idf,
)

SEED = 20260


@dataclass(frozen=True)
class LabelledSentence:
    """One training sentence: its paper, review, text and reference stance flags."""

    forum: str
    review_id: str
    text: str
    affirm: bool
    dispute: bool


def review_sentences(review: Review, fields: Sequence[str] = SIGNAL_FIELDS) -> list[str]:
    """Sentences of a review's signal fields, in order."""
    return [s for _, text in review.signal_text(fields) for s in split_sentences(text)]


def label_sentences(
    forum: str,
    reviews: Sequence[Review],
    positive: Sequence[str],
    negative: Sequence[str],
    fields: Sequence[str] = SIGNAL_FIELDS,
) -> list[LabelledSentence]:
    """Every sentence of a dev paper's reviews (their `fields`) with its reference stance."""
    out = []
    for review in reviews:
        for sentence in review_sentences(review, fields):
            out.append(
                LabelledSentence(
                    forum,
                    review.review_id,
                    sentence,
                    affirm=any(quotes_overlap(sentence, p) for p in positive),
                    dispute=any(quotes_overlap(sentence, p) for p in negative),
                )
            )
    return out


def fit_stance_weights(
    x: Any, affirm: np.ndarray, dispute: np.ndarray, *, c: float, seed: int = SEED
) -> tuple[np.ndarray, np.ndarray]:
    """(weights (features, 2), intercepts (2,)) of one L2 logistic regression per stance (liblinear, fixed seed);
    a stance that every row or no row has gets weight 0 and intercept +-10."""
    weights = np.zeros((x.shape[1], 2))
    intercepts = np.zeros(2)
    for k, flag in enumerate((affirm, dispute)):
        if flag.all() or not flag.any():
            intercepts[k] = 10.0 if flag.all() else -10.0
            continue
        lr = LogisticRegression(C=c, solver="liblinear", random_state=seed, max_iter=1000)
        lr.fit(x, flag.astype(int))
        weights[:, k] = lr.coef_[0]
        intercepts[k] = lr.intercept_[0]
    return weights, intercepts


def fit_model(
    rows: Sequence[LabelledSentence],
    *,
    name: str,
    c: float = 4.0,
    min_df: int = 2,
    max_n: int = 3,
    thresholds: Thresholds | None = None,
) -> StanceModel:
    """Vocabulary, idf and the two logistic regressions fitted on `rows`."""
    texts = [r.text for r in rows]
    df, n = document_frequencies(texts, max_n)
    terms = sorted(t for t, k in df.items() if k >= min_df)
    vocabulary = {t: i for i, t in enumerate(terms)}
    idf = np.asarray([smooth_idf(df[t], n) for t in terms], dtype=float)
    x = features(texts, vocabulary, idf, max_n)
    weights, intercepts = fit_stance_weights(
        x,
        np.asarray([r.affirm for r in rows]),
        np.asarray([r.dispute for r in rows]),
        c=c,
        seed=SEED,
    )
    return StanceModel(
        name=name,
        max_n=max_n,
        vocabulary=vocabulary,
        idf=idf,
        weights=weights,
        intercepts=intercepts,
        thresholds=thresholds or Thresholds(0.5, 0.5, 0.5),
        training={
            "sentences": len(rows),
            "affirm": int(sum(r.affirm for r in rows)),
            "dispute": int(sum(r.dispute for r in rows)),
            "C": c,
            "min_df": min_df,
            "terms": len(terms),
            "papers": len({r.forum for r in rows}),
        },
    )
