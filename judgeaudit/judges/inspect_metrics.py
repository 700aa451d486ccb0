"""Inspect metrics for novelty judges: each reports its estimate and a bootstrap 95% interval.

Every figure comes from `judgeaudit.stats` (outcome columns, metric definition, bootstrap);
this module only collects verdicts and gold from the score metadata (SCORE_SCHEMA.md).
A metric `m` yields the values `m`, `m_ci_low`, `m_ci_high`; its params (`resamples`,
`seed`) are recorded with it in the log, and the method is the stats package's percentile bootstrap.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

from inspect_ai.scorer import Metric, SampleScore, Value, metric

from judgeaudit.stats import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    PAIRWISE,
    POINTWISE,
    bootstrap_metric,
    pairwise_outcomes,
    pointwise_outcomes,
)
from judgeaudit.stats.bootstrap import METHOD

BOOTSTRAP_METHOD = METHOD
# Inspect recomputes metrics about once a second for its progress display while a task runs.
# Those interim values show only the point estimates; a full bootstrap per refresh would
# compete with the model for CPU. Detected by the display's code name; if Inspect renames it,
# interim refreshes simply compute the full interval too (slower, never wrong).
_DISPLAY_QUALNAME = "update_metrics_display_fn.<locals>.compute"
_DISPLAY_MODULE = "inspect_ai._eval.task.run"


def _in_progress_display(max_depth: int = 12) -> bool:
    """True when called from Inspect's running-metrics display (not the final results)."""
    frame = sys._getframe(1)
    for _ in range(max_depth):
        if frame is None:
            return False
        code = frame.f_code
        if (
            code.co_qualname == _DISPLAY_QUALNAME
            and frame.f_globals.get("__name__") == _DISPLAY_MODULE
        ):
            return True
        frame = frame.f_back  # type: ignore[assignment]
    return False


def _verdicts_and_gold(scores: list[SampleScore], kind: str) -> tuple[list[str], list[str]]:
    verdicts, gold = [], []
    for s in scores:
        meta = s.score.metadata or {}
        if meta.get("kind") != kind or "verdict" not in meta or "gold" not in meta:
            raise ValueError(
                f"sample {s.sample_id!r}: score metadata lacks a {kind} verdict/gold (see SCORE_SCHEMA.md)"
            )
        verdicts.append(meta["verdict"])
        gold.append(meta["gold"])
    return verdicts, gold


# Inspect hands every metric of a scorer the same list of scores (for each display refresh
# and for the final results): the outcome columns are built once per list and kind, and
# the metrics share them. The list itself is held so its id cannot be reused while cached;
# its length and last element guard against a list grown in place.
_last_outcomes: dict[str, tuple[list[SampleScore], int, SampleScore, Mapping[str, Any]]] = {}


def _outcomes(scores: list[SampleScore], kind: str) -> Mapping[str, Any]:
    """Outcome columns of the scores (`judgeaudit.stats`), shared by the metrics of one list."""
    cached = _last_outcomes.get(kind)
    if (
        cached is not None
        and cached[0] is scores
        and cached[1] == len(scores)
        and cached[2] is scores[-1]
    ):
        return cached[3]
    verdicts, gold = _verdicts_and_gold(scores, kind)
    outcomes = (
        pairwise_outcomes(verdicts, gold) if kind == "pairwise" else pointwise_outcomes(verdicts, gold)
    )
    _last_outcomes[kind] = (scores, len(scores), scores[-1], outcomes)
    return outcomes


def interval_values(
    name: str, scores: list[SampleScore], kind: str, resamples: int, seed: int
) -> dict[str, float]:
    """`{name, name_ci_low, name_ci_high}` for one metric of `judgeaudit.stats` over the scores."""
    nan = float("nan")
    if not scores:
        return {name: nan, f"{name}_ci_low": nan, f"{name}_ci_high": nan}
    outcomes = _outcomes(scores, kind)
    fn = PAIRWISE[name] if kind == "pairwise" else POINTWISE[name]
    if _in_progress_display():
        return {name: float(fn(outcomes))}
    # No explicit indices: the stats package caches the seeded resample draw across metrics.
    interval = bootstrap_metric(outcomes, fn, resamples, seed)
    return {
        name: interval.estimate,
        f"{name}_ci_low": interval.low,
        f"{name}_ci_high": interval.high,
    }


def _make(name: str, kind: str, resamples: int, seed: int) -> Metric:
    def compute(scores: list[SampleScore]) -> Value:
        return interval_values(name, scores, kind, resamples, seed)

    return compute


@metric
def strict_accuracy(resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> Metric:
    """Pairwise share correct (ties and invalid are wrong), with bootstrap interval."""
    return _make("strict_accuracy", "pairwise", resamples, seed)


@metric
def soft_accuracy(resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> Metric:
    """Pairwise share correct with a tie worth one half, with bootstrap interval."""
    return _make("soft_accuracy", "pairwise", resamples, seed)


@metric
def accuracy_no_ties(resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> Metric:
    """Pairwise correct / decided items, with bootstrap interval."""
    return _make("accuracy_no_ties", "pairwise", resamples, seed)


@metric
def tie_rate(resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> Metric:
    """Pairwise share of tie verdicts, with bootstrap interval."""
    return _make("tie_rate", "pairwise", resamples, seed)


@metric
def invalid_rate(resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> Metric:
    """Pairwise share of invalid verdicts, with bootstrap interval."""
    return _make("invalid_rate", "pairwise", resamples, seed)


@metric
def macro_f1(resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> Metric:
    """Pointwise mean of the novel and not_novel F1, with bootstrap interval."""
    return _make("macro_f1", "pointwise", resamples, seed)


@metric
def f1_novel(resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> Metric:
    """Pointwise F1 of the `novel` class, with bootstrap interval."""
    return _make("f1_novel", "pointwise", resamples, seed)


@metric
def f1_not_novel(resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> Metric:
    """Pointwise F1 of the `not_novel` class, with bootstrap interval."""
    return _make("f1_not_novel", "pointwise", resamples, seed)


@metric
def pointwise_invalid_rate(resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> Metric:
    """Pointwise share of invalid verdicts (reported as `invalid_rate`), with bootstrap interval."""
    return _make("invalid_rate", "pointwise", resamples, seed)


def pairwise_metrics(
    resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> list[Metric | dict[str, list[Metric]]]:
    """All pairwise metrics of a judge task."""
    return [
        f(resamples, seed)
        for f in (strict_accuracy, soft_accuracy, accuracy_no_ties, tie_rate, invalid_rate)
    ]


def pointwise_metrics(
    resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> list[Metric | dict[str, list[Metric]]]:
    """All pointwise metrics of a judge task."""
    return [f(resamples, seed) for f in (macro_f1, f1_novel, f1_not_novel, pointwise_invalid_rate)]
