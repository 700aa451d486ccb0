"""The originality-score labels' agreement with the text-based labels (Cohen's kappa from judgeaudit.stats.agreement) on hand-made outcomes, n = 0, 1 and one outcome."""

from __future__ import annotations

import pytest

from judgeaudit.mine.select import Decision, SelectionResult, Side
from judgeaudit.mine.venues.gold import label_agreement


def selection(outcomes: dict[str, tuple[Side, Side | None]]) -> SelectionResult:
    decisions = {
        f: Decision(f, side, label, "kept" if label else "no", 0, 0, (), ())
        for f, (side, label) in outcomes.items()
    }
    candidates = {f: side for f, (side, _) in outcomes.items()}
    return SelectionResult({}, {}, candidates, {}, False, decisions)


def test_agreement_counts_the_cross_table_and_kappa_by_hand() -> None:
    text = selection(
        {
            "a": ("novel", "novel"),
            "b": ("novel", None),
            "c": ("not_novel", "not_novel"),
            "d": ("not_novel", None),
        }
    )
    scores = selection(
        {
            "a": ("novel", "novel"),
            "b": ("novel", "novel"),
            "c": ("not_novel", "not_novel"),
            "d": ("not_novel", None),
        }
    )
    out = label_agreement(text, scores, resamples=200, seed=1)
    assert out["candidates"] == 4 and out["same_outcome"] == 3
    assert out["table"]["none / novel"] == 1 and out["table"]["novel / novel"] == 1
    # po = 3/4; text marginals novel 1, not_novel 1, none 2; scores 2, 1, 1 -> pe = (2 + 1 + 2)/16
    assert out["cohen_kappa"]["estimate"] == pytest.approx((0.75 - 5 / 16) / (1 - 5 / 16))
    assert out["cohen_kappa"]["seed"] == 1 and out["cohen_kappa"]["resamples"] == 200


@pytest.mark.parametrize(
    "outcomes",
    [{}, {"a": ("novel", "novel")}, {"a": ("novel", None), "b": ("not_novel", None)}],
)
def test_kappa_is_none_when_undefined(outcomes: dict[str, tuple[Side, Side | None]]) -> None:
    out = label_agreement(selection(outcomes), selection(outcomes), resamples=50)
    assert out["candidates"] == len(outcomes) and out["same_outcome"] == len(outcomes)
    assert out["cohen_kappa"] is None  # n < 2, or one outcome only (chance agreement 1)
