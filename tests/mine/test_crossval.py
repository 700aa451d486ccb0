"""Grouped cross-validation pieces: folds by paper, the vectorised rule equals select.decide, the objective."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from judgeaudit.mine.crossval import (
    Matrix,
    Paper,
    Rule,
    assign_folds,
    build_papers,
    decide,
    objective,
    sample_outside,
    stack,
)
from judgeaudit.mine.parse import Corpus, Review, Submission
from judgeaudit.mine.select import Thresholds
from judgeaudit.mine.select import decide as select_decide
from judgeaudit.mine.signals import AFFIRM, DISPUTE, ReviewSignals, Signal


def test_folds_are_stratified_deterministic_and_keep_a_paper_in_one_fold() -> None:
    rows = [{"forum": f"f{i}", "label": "novel" if i % 2 else "not_novel"} for i in range(20)]
    folds = assign_folds(rows, k=5, seed=1)
    assert folds == assign_folds(list(rows), k=5, seed=1)
    for k in range(5):
        labels = [r["label"] for r, f in zip(rows, folds, strict=True) if f == k]
        assert labels.count("novel") == labels.count("not_novel") == 2


def _signals(scores: list[tuple[float, float]], rule: Rule) -> list[ReviewSignals]:
    out = []
    for i, (a, d) in enumerate(scores):
        sig = []
        if a >= rule.weak:
            sig.append(Signal(AFFIRM, f"a{i}", "strengths", weak=a < rule.affirm))
        if d >= rule.dispute:
            sig.append(Signal(DISPUTE, f"d{i}", "weaknesses"))
        out.append(ReviewSignals(f"r{i}", tuple(sig)))
    return out


@pytest.mark.parametrize("strict, opposing, weak", list(itertools.product((True, False), (0, 1), (True, False))))
def test_the_vectorised_rule_is_select_decide(strict: bool, opposing: int, weak: bool) -> None:
    rule = Rule(affirm=0.6, weak=0.3, dispute=0.5, strict_majority=strict, max_opposing=opposing, weak_opposes=weak)
    th = Thresholds(strict_majority=strict, max_opposing=opposing, weak_opposes=weak)
    rng = np.random.default_rng(3)
    for _ in range(200):
        n = int(rng.integers(1, 6))
        scores = [(float(rng.choice([0, 0.4, 0.7])), float(rng.choice([0, 0.6]))) for _ in range(n)]
        side = str(rng.choice(["novel", "not_novel"]))
        m = Matrix(np.asarray([1 if side == "novel" else -1]), np.asarray([[a for a, _ in scores]]),
                   np.asarray([[d for _, d in scores]]), np.asarray([float(n)]))
        got = int(decide(m, rule)[0])
        want = select_decide("f", side, n, _signals(scores, rule), th).label  # type: ignore[arg-type]
        assert got == (0 if want is None else 1 if want == "novel" else -1)


def test_objective_is_the_mean_estimated_jaccard_by_hand() -> None:
    sample = [Paper("a", "a", "novel", "novel"), Paper("b", "b", "novel", "novel"), Paper("c", "c", "not_novel", "not_novel")]
    # novel: 1 of 2 sampled kept; dev has 2 novel -> reference 6, share 1/3 -> overlap 3; ours 4 outside + 1 = 5
    # -> 3 / (5 + 6 - 3) = 0.375.
    value, per = objective(sample, np.asarray([1, 0, -1]), np.asarray([1, 1, 1, 1]), {"novel": 2, "not_novel": 1})
    assert per["novel"] == pytest.approx(3 / 8)
    # not_novel: 1 of 1 kept, reference 3; ours = 0 outside + 1 -> overlap min(3, 1) = 1 -> 1 / (1 + 3 - 1)
    assert per["not_novel"] == pytest.approx(1 / 3)
    assert value == pytest.approx((3 / 8 + 1 / 3) / 2)


def test_a_weighted_outside_row_counts_as_that_many_candidates() -> None:
    sample = [Paper("a", "a", "novel", "novel"), Paper("b", "b", "novel", "novel"), Paper("c", "c", "not_novel", "not_novel")]
    sizes = {"novel": 2, "not_novel": 1}
    # two outside rows standing for 2 candidates each == four unweighted rows (the hand case above)
    weighted, _ = objective(sample, np.asarray([1, 0, -1]), np.asarray([1, 1]), sizes, np.asarray([2.0, 2.0]))
    plain, _ = objective(sample, np.asarray([1, 0, -1]), np.asarray([1, 1, 1, 1]), sizes)
    assert weighted == pytest.approx(plain)
    m = Matrix(np.asarray([1, -1]), np.zeros((2, 1)), np.zeros((2, 1)), np.ones(2), np.asarray([3.0, 5.0]))
    both = stack(m, Matrix(np.asarray([1]), np.zeros((1, 1)), np.zeros((1, 1)), np.ones(1)))
    assert both.weights().tolist() == [3.0, 5.0, 1.0]


def test_the_outside_sample_is_stratified_and_stands_for_every_candidate() -> None:
    outside = [Paper(f"n{i}", f"n{i}", "novel") for i in range(30)] + [Paper(f"p{i}", f"p{i}", "not_novel") for i in range(7)]
    papers, weights = sample_outside(outside, 0.2)
    sides = [p.side for p in papers]
    assert sides.count("novel") == 6 and sides.count("not_novel") == 1
    assert weights.sum() == pytest.approx(37)  # each side's weights add up to its size
    assert [p.key for p in papers] == [p.key for p in sample_outside(list(reversed(outside)), 0.2)[0]]


def test_papers_read_only_the_signal_fields_asked_for() -> None:
    texts = (("summary", "The authors claim a novel method."), ("strengths", "The idea is novel."),
             ("weaknesses", "The novelty is limited."), ("questions", "How is this different from [3]?"))
    reviews = {f: [Review(f"{f}-r{i}", f, 2.0, 1.0, texts, 0) for i in range(3)] for f in ("P1", "P2")}
    corpus = Corpus(submissions={f: Submission(f, 1, f"Paper {f}", "We study it.", "learning theory", "active",
                                               "ICLR.cc/2026/Conference/Submission", 0) for f in reviews},
                    reviews=reviews)
    dev = [{"forum": "P1", "label": "not_novel", "positive_signals": [], "negative_signals": ["The novelty is limited."]}]
    (paper,), _ = build_papers(dev, corpus)
    assert paper.reviews[0] == ["The idea is novel.", "The novelty is limited.", "How is this different from [3]?"]
    (paper,), _ = build_papers(dev, corpus, ("strengths", "weaknesses"))
    assert paper.reviews[0] == ["The idea is novel.", "The novelty is limited."]
