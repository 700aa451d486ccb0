"""Grouped cross-validation pieces: folds by paper, the vectorised rule equals select.decide, the objective."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from judgeaudit.mine.parse import Corpus, Review, Submission
from judgeaudit.mine.select import Thresholds
from judgeaudit.mine.select import decide as select_decide
from judgeaudit.mine.signals.base import AFFIRM, DISPUTE, ReviewSignals, Signal
from judgeaudit.mine.study.crossval import (
    CUE_RULE,
    Matrix,
    Paper,
    Rule,
    ablations,
    assign_folds,
    build_papers,
    decide,
    objective,
)


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
        if d >= rule.weak_dispute:
            sig.append(Signal(DISPUTE, f"d{i}", "weaknesses", weak=d < rule.dispute))
        out.append(ReviewSignals(f"r{i}", tuple(sig)))
    return out


CHOICES = list(
    itertools.product(
        (True, False), (0, 1), ("ignore", "oppose", "support", "count"), ("ignore", "count")
    )
)


@pytest.mark.parametrize("strict, opposing, weak_aff, weak_disp", CHOICES)
def test_the_vectorised_rule_is_select_decide(
    strict: bool, opposing: int, weak_aff: str, weak_disp: str
) -> None:
    rule = Rule(
        affirm=0.6,
        weak=0.3,
        dispute=0.5,
        weak_dispute=0.2,
        weak_affirmations=weak_aff,
        weak_disputes=weak_disp,
        strict_majority=strict,
        max_opposing=opposing,
    )
    th = Thresholds(
        strict_majority=strict,
        max_opposing=opposing,
        weak_affirmations=weak_aff,
        weak_disputes=weak_disp,
    )
    rng = np.random.default_rng(3)
    for _ in range(300):
        n = int(rng.integers(1, 6))
        scores = [
            (float(rng.choice([0, 0.4, 0.7])), float(rng.choice([0, 0.3, 0.6]))) for _ in range(n)
        ]
        side = str(rng.choice(["novel", "not_novel"]))
        m = Matrix(
            np.asarray([1 if side == "novel" else -1]),
            np.asarray([[a for a, _ in scores]]),
            np.asarray([[d for _, d in scores]]),
            np.asarray([float(n)]),
        )
        got = int(decide(m, rule)[0])
        want = select_decide("f", side, n, _signals(scores, rule), th).label  # type: ignore[arg-type]
        assert got == (0 if want is None else 1 if want == "novel" else -1)


def test_the_cue_rule_is_the_reference_rule_and_the_ablations_change_one_choice() -> None:
    assert (
        CUE_RULE.weak_affirmations,
        CUE_RULE.weak_disputes,
        CUE_RULE.strict_majority,
        CUE_RULE.max_opposing,
    ) == ("ignore", "ignore", True, 0)
    for variant in ablations().values():
        changed = [k for k, v in variant.to_dict().items() if CUE_RULE.to_dict()[k] != v]
        assert len(changed) == 1


def test_objective_is_the_mean_estimated_jaccard_by_hand() -> None:
    sample = [
        Paper("a", "a", "novel", "novel"),
        Paper("b", "b", "novel", "novel"),
        Paper("c", "c", "not_novel", "not_novel"),
    ]
    # novel: 1 of 2 sampled kept; the reference's 154 novel ideas, 2 of them dev -> overlap 77; ours 4 outside + 1 = 5
    # -> min(77, 5) / (5 + 154 - 5) = 5 / 154.
    value, per = objective(
        sample, np.asarray([1, 0, -1]), np.asarray([1, 1, 1, 1]), {"novel": 2, "not_novel": 1}
    )
    assert per["novel"] == pytest.approx(5 / 154)
    # not_novel: 1 of 1 kept, the reference's 145 -> overlap min(145, 1) = 1 -> 1 / (1 + 145 - 1)
    assert per["not_novel"] == pytest.approx(1 / 145)
    assert value == pytest.approx((5 / 154 + 1 / 145) / 2)
    # a novel dev idea swapped into not_novel counts as labelled outside the sample: ours 2, overlap min(145, 2) = 2
    _, per = objective(
        sample, np.asarray([-1, 0, -1]), np.asarray([1]), {"novel": 2, "not_novel": 1}
    )
    assert per["not_novel"] == pytest.approx(2 / (2 + 145 - 2))


def test_papers_read_only_the_signal_fields_asked_for() -> None:
    texts = (
        ("summary", "The authors claim a novel method."),
        ("strengths", "The idea is novel."),
        ("weaknesses", "The novelty is limited."),
        ("questions", "How is this different from [3]?"),
    )
    reviews = {
        f: [Review(f"{f}-r{i}", f, 2.0, 1.0, texts, 0) for i in range(3)] for f in ("P1", "P2")
    }
    corpus = Corpus(
        submissions={
            f: Submission(
                f,
                1,
                f"Paper {f}",
                "We study it.",
                "learning theory",
                "active",
                "ICLR.cc/2026/Conference/Submission",
                0,
            )
            for f in reviews
        },
        reviews=reviews,
    )
    dev = [
        {
            "forum": "P1",
            "label": "not_novel",
            "positive_signals": [],
            "negative_signals": ["The novelty is limited."],
        }
    ]
    (paper,), _ = build_papers(dev, corpus)
    assert paper.reviews[0] == [
        "The idea is novel.",
        "The novelty is limited.",
    ]  # strengths and weaknesses only
    (paper,), _ = build_papers(
        dev, corpus, Thresholds(signal_fields=("strengths", "weaknesses", "questions"))
    )
    assert paper.reviews[0] == [
        "The idea is novel.",
        "The novelty is limited.",
        "How is this different from [3]?",
    ]
    bare = {
        f: [Review(f"{f}-r{i}", f, 2.0, 1.0, texts[:2], 0) for i in range(3)] for f in reviews
    }  # no weaknesses
    (paper,), _ = build_papers(dev, Corpus(submissions=corpus.submissions, reviews=bare))
    assert paper.reviews == [[], [], []]  # an empty signal field: the review is not read
