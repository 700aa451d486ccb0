"""Inspect metrics of the novelty tasks: point estimates only, from `judgeaudit.stats`.

Every figure comes from `judgeaudit.stats` (outcome columns, metric definition); this module only
collects verdicts (`Score.answer`) and gold (score metadata, SCORE_SCHEMA.md). The intervals
(closed forms, and the seeded bootstrap where none fits) are computed once, by `judgeaudit.stats`
for the report and the audit, from the `bootstrap` settings the task records in its metadata: Inspect recomputes its metrics for every
progress refresh, where an interval would compete with the model for CPU.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from inspect_ai.scorer import Metric, SampleScore, Value, metric

from judgeaudit.stats import PAIRWISE, POINTWISE, pairwise_outcomes, pointwise_outcomes
from judgeaudit.stats.defaults import METHOD
from judgeaudit.stats.results import STATUS_OK, answer_status

BOOTSTRAP_METHOD = METHOD


def _verdicts_and_gold(scores: list[SampleScore], kind: str) -> tuple[list[str], list[str]]:
    verdicts, gold = [], []
    for s in scores:
        meta = s.score.metadata or {}
        if not isinstance(s.score.answer, str) or "gold" not in meta:
            raise ValueError(
                f"sample {s.sample_id!r}: score lacks a {kind} verdict/gold (see SCORE_SCHEMA.md)"
            )
        verdicts.append(s.score.answer)
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
        pairwise_outcomes(verdicts, gold)
        if kind == "pairwise"
        else pointwise_outcomes(verdicts, gold)
    )
    _last_outcomes[kind] = (scores, len(scores), scores[-1], outcomes)
    return outcomes


def point_estimate(name: str, scores: list[SampleScore], kind: str) -> float:
    """One metric of `judgeaudit.stats` over the scores (NaN for no scores, or no answer to measure)."""
    if not scores:
        return float("nan")
    fn = PAIRWISE[name] if kind == "pairwise" else POINTWISE[name]
    outcomes = _outcomes(scores, kind)
    if answer_status(outcomes, fn) != STATUS_OK:
        return float("nan")
    return float(fn(outcomes))


def _make(name: str, kind: str) -> Metric:
    def compute(scores: list[SampleScore]) -> Value:
        return {
            name: point_estimate(name, scores, kind)
        }  # keyed: both kinds report `invalid_rate`, `error_rate`

    return compute


@metric
def strict_accuracy() -> Metric:
    """Pairwise share correct (ties and invalid are wrong)."""
    return _make("strict_accuracy", "pairwise")


@metric
def soft_accuracy() -> Metric:
    """Pairwise share correct with a tie worth one half."""
    return _make("soft_accuracy", "pairwise")


@metric
def accuracy_no_ties() -> Metric:
    """Pairwise correct / decided items."""
    return _make("accuracy_no_ties", "pairwise")


@metric
def tie_rate() -> Metric:
    """Pairwise share of tie verdicts."""
    return _make("tie_rate", "pairwise")


@metric
def invalid_rate() -> Metric:
    """Pairwise share of invalid verdicts."""
    return _make("invalid_rate", "pairwise")


@metric
def error_rate() -> Metric:
    """Pairwise share of `error` verdicts (every call of the item failed)."""
    return _make("error_rate", "pairwise")


@metric
def macro_f1() -> Metric:
    """Pointwise mean of the novel and not_novel F1."""
    return _make("macro_f1", "pointwise")


@metric
def f1_novel() -> Metric:
    """Pointwise F1 of the `novel` class."""
    return _make("f1_novel", "pointwise")


@metric
def f1_not_novel() -> Metric:
    """Pointwise F1 of the `not_novel` class."""
    return _make("f1_not_novel", "pointwise")


@metric
def pointwise_invalid_rate() -> Metric:
    """Pointwise share of invalid verdicts (reported as `invalid_rate`)."""
    return _make("invalid_rate", "pointwise")


@metric
def pointwise_error_rate() -> Metric:
    """Pointwise share of `error` verdicts (reported as `error_rate`)."""
    return _make("error_rate", "pointwise")


def pairwise_metrics() -> list[Metric | dict[str, list[Metric]]]:
    """All pairwise metrics of a judge task."""
    return [
        f()
        for f in (
            strict_accuracy,
            soft_accuracy,
            accuracy_no_ties,
            tie_rate,
            invalid_rate,
            error_rate,
        )
    ]


def pointwise_metrics() -> list[Metric | dict[str, list[Metric]]]:
    """All pointwise metrics of a judge task."""
    return [
        f()
        for f in (macro_f1, f1_novel, f1_not_novel, pointwise_invalid_rate, pointwise_error_rate)
    ]
