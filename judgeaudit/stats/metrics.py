"""Every judge metric, defined once (DESIGN.md 'Metrics'), vectorised over resamples.

Metric functions take per-item outcome arrays whose *last* axis is items, so the same
function gives the point estimate (1-D input) and all bootstrap replicates at once
(2-D input, one row per resample).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]

PAIRWISE_METRICS: tuple[str, ...] = ("strict_accuracy", "soft_accuracy", "accuracy_no_ties", "tie_rate", "invalid_rate")
POINTWISE_METRICS: tuple[str, ...] = (
    "macro_f1", "f1_novel", "f1_not_novel", "precision_novel", "recall_novel",
    "precision_not_novel", "recall_not_novel", "invalid_rate",
)


def pairwise_outcomes(verdicts: Sequence[str], gold: Sequence[str]) -> dict[str, FloatArray]:
    """Per-item 0/1 (or 0.5) columns: correct, soft, tie, invalid, decided (not tie, not invalid)."""
    v = np.asarray(verdicts, dtype=object)
    g = np.asarray(gold, dtype=object)
    if v.shape != g.shape:
        raise ValueError(f"verdicts ({v.shape[0]}) and gold ({g.shape[0]}) differ in length")
    bad_gold = set(g.tolist()) - {"a", "b"}
    if bad_gold:
        raise ValueError(f"pairwise gold must be 'a' or 'b', got {sorted(map(str, bad_gold))}")
    bad = set(v.tolist()) - {"a", "b", "tie", "invalid"}
    if bad:
        raise ValueError(f"unknown pairwise verdicts {sorted(map(str, bad))}")
    correct = (v == g).astype(float)
    tie = (v == "tie").astype(float)
    invalid = (v == "invalid").astype(float)
    return {
        "correct": correct,
        "soft": correct + 0.5 * tie,
        "tie": tie,
        "invalid": invalid,
        "decided": 1.0 - tie - invalid,
    }


def _ratio(num: FloatArray, den: FloatArray) -> FloatArray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def strict_accuracy(correct: ArrayLike) -> FloatArray:
    """Share of items judged correctly; ties and invalid count as wrong."""
    return np.asarray(np.mean(correct, axis=-1), dtype=float)


def soft_accuracy(soft: ArrayLike) -> FloatArray:
    """Share correct with a tie worth one half."""
    return np.asarray(np.mean(soft, axis=-1), dtype=float)


def accuracy_no_ties(correct: ArrayLike, decided: ArrayLike) -> FloatArray:
    """Correct / (n - ties - invalid); NaN when nothing was decided."""
    return _ratio(np.sum(correct, axis=-1), np.sum(decided, axis=-1))


def rate(flags: ArrayLike) -> FloatArray:
    """Share of items with a flag set (tie rate, invalid rate, flip rate)."""
    return np.asarray(np.mean(flags, axis=-1), dtype=float)


def pointwise_outcomes(verdicts: Sequence[str], gold: Sequence[str]) -> dict[str, FloatArray]:
    """Per-item indicator columns for the novel/not_novel confusion counts (invalid is a miss)."""
    v = np.asarray(verdicts, dtype=object)
    g = np.asarray(gold, dtype=object)
    if v.shape != g.shape:
        raise ValueError(f"verdicts ({v.shape[0]}) and gold ({g.shape[0]}) differ in length")
    bad_gold = set(g.tolist()) - {"novel", "not_novel"}
    if bad_gold:
        raise ValueError(f"pointwise gold must be 'novel' or 'not_novel', got {sorted(map(str, bad_gold))}")
    bad = set(v.tolist()) - {"novel", "not_novel", "invalid"}
    if bad:
        raise ValueError(f"unknown pointwise verdicts {sorted(map(str, bad))}")
    out: dict[str, FloatArray] = {"invalid": (v == "invalid").astype(float)}
    for cls in ("novel", "not_novel"):
        out[f"tp_{cls}"] = ((v == cls) & (g == cls)).astype(float)
        out[f"pred_{cls}"] = (v == cls).astype(float)
        out[f"gold_{cls}"] = (g == cls).astype(float)
    return out


def precision(tp: ArrayLike, pred: ArrayLike) -> FloatArray:
    """TP / predicted positives; 0 when the class is never predicted."""
    p = np.sum(pred, axis=-1)
    return np.where(p > 0, np.sum(tp, axis=-1) / np.where(p > 0, p, 1.0), 0.0)


def recall(tp: ArrayLike, gold: ArrayLike) -> FloatArray:
    """TP / gold positives; NaN when the class is absent from gold."""
    return _ratio(np.sum(tp, axis=-1), np.sum(gold, axis=-1))


def f1(tp: ArrayLike, pred: ArrayLike, gold: ArrayLike) -> FloatArray:
    """2TP / (predicted + gold); 0 when both are empty-TP, NaN when the class is absent from gold."""
    tp_s, den = np.sum(tp, axis=-1), np.sum(pred, axis=-1) + np.sum(gold, axis=-1)
    g = np.sum(gold, axis=-1)
    return np.where(g > 0, 2 * tp_s / np.where(den > 0, den, 1.0), np.nan)


def macro_f1(o: dict[str, FloatArray]) -> FloatArray:
    """Unweighted mean of the novel and not_novel F1."""
    return (f1(o["tp_novel"], o["pred_novel"], o["gold_novel"]) + f1(o["tp_not_novel"], o["pred_not_novel"], o["gold_not_novel"])) / 2


MetricFn = Callable[[dict[str, FloatArray]], FloatArray]

PAIRWISE: dict[str, MetricFn] = {
    "strict_accuracy": lambda o: strict_accuracy(o["correct"]),
    "soft_accuracy": lambda o: soft_accuracy(o["soft"]),
    "accuracy_no_ties": lambda o: accuracy_no_ties(o["correct"], o["decided"]),
    "tie_rate": lambda o: rate(o["tie"]),
    "invalid_rate": lambda o: rate(o["invalid"]),
}

POINTWISE: dict[str, MetricFn] = {
    "macro_f1": macro_f1,
    "f1_novel": lambda o: f1(o["tp_novel"], o["pred_novel"], o["gold_novel"]),
    "f1_not_novel": lambda o: f1(o["tp_not_novel"], o["pred_not_novel"], o["gold_not_novel"]),
    "precision_novel": lambda o: precision(o["tp_novel"], o["pred_novel"]),
    "recall_novel": lambda o: recall(o["tp_novel"], o["gold_novel"]),
    "precision_not_novel": lambda o: precision(o["tp_not_novel"], o["pred_not_novel"]),
    "recall_not_novel": lambda o: recall(o["tp_not_novel"], o["gold_not_novel"]),
    "invalid_rate": lambda o: rate(o["invalid"]),
}


def flip_flags(verdicts_x: Sequence[str], verdicts_y: Sequence[str]) -> FloatArray:
    """Per-item 1 where two configurations' verdicts differ (inputs aligned on item id)."""
    x, y = np.asarray(verdicts_x, dtype=object), np.asarray(verdicts_y, dtype=object)
    if x.shape != y.shape:
        raise ValueError("flip rate needs verdicts aligned on the same items")
    return (x != y).astype(float)
