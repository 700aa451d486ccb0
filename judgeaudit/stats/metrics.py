"""Every judge metric, defined once (computed per configuration on item ids), vectorised over resamples.

Each metric is a function of *column sums* of per-item outcome columns (and the item
count). A `Metric` can be called on per-item outcome arrays whose last axis is items, so
the same object gives the point estimate (1-D input) and all bootstrap replicates at
once (2-D input, one row per resample); the bootstrap also feeds it resampled sums
directly (multiplicity matrix @ outcome columns), which is what makes it fast.

Conventions for undefined values (documented once, here):
- accuracy without ties is NaN when no item was decided (all ties/invalid);
- precision of a class never predicted is 0 (as scikit-learn's zero_division=0);
- recall of a class absent from gold is NaN;
- F1 of a class is 2TP / (predicted + gold): 0 when the class is predicted but absent from
  gold, NaN when it is neither predicted nor in gold;
- macro-F1 is the mean of the F1 of the classes that are defined (present in gold or
  predicted), i.e. scikit-learn's label-union behaviour; NaN if neither is.

Failed answers: `invalid` (the model answered outside the protocol) and `error` (no answer:
the call failed) are both wrong for accuracy and a miss for recall, and are counted apart
(`invalid_rate`, `error_rate`). Metrics of the answers (every metric but those two rates) are
not reported for a configuration without a single valid answer (`bootstrap` gives it a
status instead of a number).

Items a statistic does not apply to carry NaN in its outcome columns and are left out of it
(sums and item count); the bootstrap reports how many (`excluded`). `flip_flags` uses this:
a flip rate counts only items valid in both configurations.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from judgeaudit.stats.exact import macro_f1_bounds

FloatArray = NDArray[np.float64]
Sums = Mapping[str, FloatArray]
# The item count a metric divides by: an int, or one count per resample when items are left out.
Count = int | FloatArray
FAILED_VERDICTS: tuple[str, ...] = ("invalid", "error")

PAIRWISE_METRICS: tuple[str, ...] = (
    "strict_accuracy",
    "soft_accuracy",
    "accuracy_no_ties",
    "tie_rate",
    "invalid_rate",
    "error_rate",
)
POINTWISE_METRICS: tuple[str, ...] = (
    "macro_f1",
    "f1_novel",
    "f1_not_novel",
    "precision_novel",
    "recall_novel",
    "precision_not_novel",
    "recall_not_novel",
    "accuracy",
    "invalid_rate",
    "error_rate",
)
PAIRWISE_COLUMNS: tuple[str, ...] = ("correct", "soft", "tie", "invalid", "error", "decided")
POINTWISE_COLUMNS: tuple[str, ...] = (
    "correct",
    "invalid",
    "error",
    "tp_novel",
    "pred_novel",
    "gold_novel",
    "tp_not_novel",
    "pred_not_novel",
    "gold_not_novel",
)


def _check(
    v: np.ndarray, g: np.ndarray, gold_vocab: set[str], verdict_vocab: set[str], kind: str
) -> None:
    if v.shape != g.shape:
        raise ValueError(f"verdicts ({v.shape[0]}) and gold ({g.shape[0]}) differ in length")
    bad_gold = set(g.tolist()) - gold_vocab
    if bad_gold:
        raise ValueError(
            f"{kind} gold must be one of {sorted(gold_vocab)}, got {sorted(map(str, bad_gold))}"
        )
    bad = set(v.tolist()) - verdict_vocab
    if bad:
        raise ValueError(f"unknown {kind} verdicts {sorted(map(str, bad))}")


def pairwise_outcomes(verdicts: Sequence[str], gold: Sequence[str]) -> dict[str, FloatArray]:
    """Per-item 0/1 (or 0.5) columns: correct, soft, tie, invalid, error, decided (a or b)."""
    v = np.asarray(verdicts, dtype=object)
    g = np.asarray(gold, dtype=object)
    _check(v, g, {"a", "b"}, {"a", "b", "tie", "invalid", "error"}, "pairwise")
    correct = (v == g).astype(float)
    tie = (v == "tie").astype(float)
    invalid = (v == "invalid").astype(float)
    error = (v == "error").astype(float)
    return {
        "correct": correct,
        "soft": correct + 0.5 * tie,
        "tie": tie,
        "invalid": invalid,
        "error": error,
        "decided": 1.0 - tie - invalid - error,
    }


def pointwise_outcomes(verdicts: Sequence[str], gold: Sequence[str]) -> dict[str, FloatArray]:
    """Per-item indicator columns for the novel/not_novel confusion counts (invalid and error are misses)."""
    v = np.asarray(verdicts, dtype=object)
    g = np.asarray(gold, dtype=object)
    _check(v, g, {"novel", "not_novel"}, {"novel", "not_novel", "invalid", "error"}, "pointwise")
    out: dict[str, FloatArray] = {
        "correct": (v == g).astype(float),
        "invalid": (v == "invalid").astype(float),
        "error": (v == "error").astype(float),
    }
    for cls in ("novel", "not_novel"):
        out[f"tp_{cls}"] = ((v == cls) & (g == cls)).astype(float)
        out[f"pred_{cls}"] = (v == cls).astype(float)
        out[f"gold_{cls}"] = (g == cls).astype(float)
    return out


def ratio(num: ArrayLike, den: ArrayLike, empty: float = np.nan) -> FloatArray:
    """num / den elementwise; `empty` where den is 0 (NaN unless given)."""
    num_a, den_a = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(
            np.where(den_a > 0, num_a / np.where(den_a > 0, den_a, 1.0), empty), dtype=float
        )


# ---- metric definitions on column sums (the single definition of each metric) ----


def strict_accuracy(correct: ArrayLike, n: ArrayLike) -> FloatArray:
    """Share of items judged correctly; ties and invalid count as wrong."""
    return ratio(correct, n)


def soft_accuracy(soft: ArrayLike, n: ArrayLike) -> FloatArray:
    """Share correct with a tie worth one half."""
    return ratio(soft, n)


def accuracy_no_ties(correct: ArrayLike, decided: ArrayLike) -> FloatArray:
    """Correct / (n - ties - invalid); NaN when nothing was decided."""
    return ratio(correct, decided)


def rate(flags: ArrayLike, n: ArrayLike) -> FloatArray:
    """Share of items with a flag set (tie rate, invalid rate, flip rate); `n` may be a per-resample count."""
    return ratio(flags, n)


def precision(tp: ArrayLike, pred: ArrayLike) -> FloatArray:
    """TP / predicted positives; 0 when the class is never predicted."""
    return ratio(tp, pred, empty=0.0)


def recall(tp: ArrayLike, gold: ArrayLike) -> FloatArray:
    """TP / gold positives (an invalid verdict is a miss); NaN when the class is absent from gold."""
    return ratio(tp, gold)


def f1(tp: ArrayLike, pred: ArrayLike, gold: ArrayLike) -> FloatArray:
    """2TP / (predicted + gold); NaN when the class is neither predicted nor in gold."""
    return ratio(
        2 * np.asarray(tp, dtype=float),
        np.asarray(pred, dtype=float) + np.asarray(gold, dtype=float),
    )


def macro_f1(f1_novel: ArrayLike, f1_not_novel: ArrayLike) -> FloatArray:
    """Mean of the defined per-class F1 values (novel, not_novel); NaN if neither is defined."""
    both = np.stack([np.asarray(f1_novel, dtype=float), np.asarray(f1_not_novel, dtype=float)])
    defined = np.isfinite(both)
    count = defined.sum(axis=0)
    total = np.where(defined, both, 0.0).sum(axis=0)
    return ratio(total, count)


BINARY: tuple[float, float] = (0.0, 1.0)
HALVES: tuple[float, float, float] = (0.0, 0.5, 1.0)


@dataclass(frozen=True)
class Mean:
    """How a metric is the mean of one per-item column, which decides its interval (stats.intervals).

    `support`: the values the column takes (`BINARY` for 0/1 outcomes; `HALVES` for a tie worth
    one half or the mean of two 0/1 outcomes); `over`: a 0/1 column naming the items the mean
    runs over (its denominator, e.g. decided items), None for every item; `shared`: whether two
    configurations on the same items run over the same items (None or a gold column), which a
    paired difference needs.
    """

    column: str
    support: tuple[float, ...] = BINARY
    over: str | None = None
    shared: bool = True

    def __post_init__(self) -> None:
        """Check the support: at least two values, increasing."""
        if len(self.support) < 2 or any(
            b <= a for a, b in zip(self.support, self.support[1:], strict=False)
        ):
            raise ValueError(
                f"support of {self.column!r} must be two or more increasing values, got {self.support}"
            )


@dataclass(frozen=True)
class Metric:
    """A metric as a function of outcome-column sums and the item count.

    Calling it on per-item outcome columns (last axis = items) sums them first, so
    `metric(outcomes)` is the point estimate and `metric.from_sums(...)` serves the bootstrap.
    Items with NaN in any of its columns are left out (of the sums and of the count).
    `bounds` are the values the metric can take (interval ends are kept inside them);
    `of_answers` is False for the failure rates, which stay defined when no answer was valid;
    `mean`, when the metric is the mean of one per-item column (a share of 0/1 outcomes, soft
    accuracy), says so: such a metric gets a closed-form interval, any other the bootstrap;
    `bound`, for a bootstrapped metric, gives a valid interval from the outcomes (and the
    confidence) for when the bootstrap collapses to a point (every resample alike).
    """

    name: str
    columns: tuple[str, ...]
    from_sums: Callable[[Sums, Count], FloatArray]
    bounds: tuple[float, float] = (0.0, 1.0)
    of_answers: bool = True
    mean: Mean | None = None
    bound: Callable[[Mapping[str, ArrayLike], float], tuple[float, float]] | None = None

    def __call__(self, outcomes: Mapping[str, ArrayLike]) -> FloatArray:
        """The metric of per-item outcome columns (sums over the last axis), NaN items left out."""
        arrays = {c: np.asarray(outcomes[c], dtype=float) for c in self.columns}
        applies = applicable(arrays)
        if applies.all():
            n: Count = next(iter(arrays.values())).shape[-1]
        else:
            n = np.asarray(applies.sum(axis=-1), dtype=float)
        sums = {c: np.where(applies, a, 0.0).sum(axis=-1) for c, a in arrays.items()}
        return np.asarray(self.from_sums(sums, n), dtype=float)


def applicable(columns: Mapping[str, ArrayLike]) -> NDArray[np.bool_]:
    """Per item: whether every given column is a number there (NaN marks an item a statistic skips)."""
    arrays = [np.asarray(a, dtype=float) for a in columns.values()]
    if not arrays:
        raise ValueError("no outcome columns given")
    return np.asarray(np.logical_and.reduce([np.isfinite(a) for a in arrays]), dtype=bool)


MetricFn = Callable[[dict[str, FloatArray]], FloatArray]


def _f1_of(cls: str) -> Callable[[Sums, Count], FloatArray]:
    return lambda s, n: f1(s[f"tp_{cls}"], s[f"pred_{cls}"], s[f"gold_{cls}"])


_CONFUSION = (
    "tp_novel",
    "pred_novel",
    "gold_novel",
    "tp_not_novel",
    "pred_not_novel",
    "gold_not_novel",
)

PAIRWISE: dict[str, Metric] = {
    "strict_accuracy": Metric(
        "strict_accuracy",
        ("correct",),
        lambda s, n: strict_accuracy(s["correct"], n),
        mean=Mean("correct"),
    ),
    "soft_accuracy": Metric(
        "soft_accuracy",
        ("soft",),
        lambda s, n: soft_accuracy(s["soft"], n),
        mean=Mean("soft", HALVES),
    ),
    "accuracy_no_ties": Metric(
        "accuracy_no_ties",
        ("correct", "decided"),
        lambda s, n: accuracy_no_ties(s["correct"], s["decided"]),
        mean=Mean("correct", over="decided", shared=False),
    ),
    "tie_rate": Metric("tie_rate", ("tie",), lambda s, n: rate(s["tie"], n), mean=Mean("tie")),
    "invalid_rate": Metric(
        "invalid_rate",
        ("invalid",),
        lambda s, n: rate(s["invalid"], n),
        of_answers=False,
        mean=Mean("invalid"),
    ),
    "error_rate": Metric(
        "error_rate",
        ("error",),
        lambda s, n: rate(s["error"], n),
        of_answers=False,
        mean=Mean("error"),
    ),
}


def macro_f1_bound(outcomes: Mapping[str, ArrayLike], confidence: float) -> tuple[float, float]:
    """Macro-F1's interval from the Clopper-Pearson interval of the share of wrong items (`exact.macro_f1_bounds`)."""
    gold = np.asarray(outcomes["gold_novel"], dtype=float)
    right = np.asarray(outcomes["tp_novel"], dtype=float) + np.asarray(
        outcomes["tp_not_novel"], dtype=float
    )
    return macro_f1_bounds(
        float(gold.mean()), int(gold.size - right.sum()), int(gold.size), confidence
    )


POINTWISE: dict[str, Metric] = {
    "macro_f1": Metric(
        "macro_f1",
        _CONFUSION,
        lambda s, n: macro_f1(_f1_of("novel")(s, n), _f1_of("not_novel")(s, n)),
        bound=macro_f1_bound,
    ),
    "f1_novel": Metric("f1_novel", _CONFUSION[:3], _f1_of("novel")),
    "f1_not_novel": Metric("f1_not_novel", _CONFUSION[3:], _f1_of("not_novel")),
    "precision_novel": Metric(
        "precision_novel",
        ("tp_novel", "pred_novel"),
        lambda s, n: precision(s["tp_novel"], s["pred_novel"]),
        mean=Mean("tp_novel", over="pred_novel", shared=False),
    ),
    "recall_novel": Metric(
        "recall_novel",
        ("tp_novel", "gold_novel"),
        lambda s, n: recall(s["tp_novel"], s["gold_novel"]),
        mean=Mean("tp_novel", over="gold_novel"),
    ),
    "precision_not_novel": Metric(
        "precision_not_novel",
        ("tp_not_novel", "pred_not_novel"),
        lambda s, n: precision(s["tp_not_novel"], s["pred_not_novel"]),
        mean=Mean("tp_not_novel", over="pred_not_novel", shared=False),
    ),
    "recall_not_novel": Metric(
        "recall_not_novel",
        ("tp_not_novel", "gold_not_novel"),
        lambda s, n: recall(s["tp_not_novel"], s["gold_not_novel"]),
        mean=Mean("tp_not_novel", over="gold_not_novel"),
    ),
    "accuracy": Metric(
        "accuracy",
        ("correct",),
        lambda s, n: strict_accuracy(s["correct"], n),
        mean=Mean("correct"),
    ),
    "invalid_rate": Metric(
        "invalid_rate",
        ("invalid",),
        lambda s, n: rate(s["invalid"], n),
        of_answers=False,
        mean=Mean("invalid"),
    ),
    "error_rate": Metric(
        "error_rate",
        ("error",),
        lambda s, n: rate(s["error"], n),
        of_answers=False,
        mean=Mean("error"),
    ),
}

FLIP_RATE = Metric("flip_rate", ("flip",), lambda s, n: rate(s["flip"], n), mean=Mean("flip"))


def share_metric(name: str, column: str, support: tuple[float, ...] = BINARY) -> Metric:
    """The mean of one per-item column over the items where it is a number (a share of 0/1 flags, or
    of values on `support`), as a Metric with its closed-form interval."""
    return Metric(name, (column,), lambda s, n: rate(s[column], n), mean=Mean(column, support))


def metrics_for(kind: str) -> dict[str, Metric]:
    """The metric table of a task kind (`pairwise` or `pointwise`)."""
    if kind == "pairwise":
        return PAIRWISE
    if kind == "pointwise":
        return POINTWISE
    raise ValueError(f"unknown task kind {kind!r} (expected 'pairwise' or 'pointwise')")


def outcomes_for(kind: str, verdicts: Sequence[str], gold: Sequence[str]) -> dict[str, FloatArray]:
    """Per-item outcome columns of a task kind."""
    return (
        pairwise_outcomes(verdicts, gold)
        if kind == "pairwise"
        else pointwise_outcomes(verdicts, gold)
    )


def flip_flags(verdicts_x: ArrayLike, verdicts_y: ArrayLike) -> FloatArray:
    """Per item (aligned on item id): 1 where the verdicts differ, 0 where they agree, NaN where
    either is `invalid` or `error` (so a flip rate counts only items valid in both). Items run
    along the last axis; one configuration's verdicts broadcast against several (rows of `y`)."""
    x, y = np.asarray(verdicts_x, dtype=object), np.asarray(verdicts_y, dtype=object)
    if x.shape[-1:] != y.shape[-1:]:
        raise ValueError("flip rate needs verdicts aligned on the same items")
    both_valid = ~(np.isin(x, FAILED_VERDICTS) | np.isin(y, FAILED_VERDICTS))
    return np.where(both_valid, (x != y).astype(float), np.nan)


def comparable_items(verdicts_x: Sequence[str], verdicts_y: Sequence[str]) -> tuple[int, int]:
    """(items valid in both configurations, items left out because either verdict is invalid or error)."""
    valid = int(np.isfinite(flip_flags(verdicts_x, verdicts_y)).sum())
    return valid, len(verdicts_x) - valid
