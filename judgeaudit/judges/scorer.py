"""The `novelty` scorer: aggregate a sample's per-call records and write the score schema.

See judgeaudit/judges/SCORE_SCHEMA.md (schema `judgeaudit.score/1`).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from inspect_ai.scorer import Score, Scorer, ScoreReducer, Target, score_reducer, scorer
from inspect_ai.solver import TaskState

from judgeaudit.judges.records import failure_summary, judge_records
from judgeaudit.judges.verdicts import (
    DEFAULT_SPLIT_RULE,
    SplitRule,
    aggregate_pairwise,
    aggregate_pointwise,
)
from judgeaudit.protocol import ERROR
from judgeaudit.stats import pairwise_outcomes, pointwise_outcomes

SCHEMA = "judgeaudit.score/1"
# The `error` of a sample whose judge failed before recording any call (e.g. a judge that needs
# tools or a real model): the sample's own error says why; the item is scored `error`.
NO_CALLS = "could not judge: no judge calls recorded (the sample failed before its first call)"
# The plan of such a sample.
NO_PLAN: dict[str, Any] = {"prompt": None, "orders": [], "k": 0}


# Few (verdict, gold) combinations exist: their outcome floats are computed once each.
@lru_cache(maxsize=64)
def _pairwise_items(verdict: str, gold: str) -> tuple[tuple[str, float], ...]:
    outcomes = pairwise_outcomes([verdict], [gold])
    return tuple((key, float(outcomes[key][0])) for key in ("correct", "soft", "tie", "invalid", "error"))


@lru_cache(maxsize=64)
def _pointwise_items(verdict: str, gold: str) -> tuple[tuple[str, float], ...]:
    outcomes = pointwise_outcomes([verdict], [gold])
    return tuple((key, float(outcomes[key][0])) for key in ("correct", "invalid", "error"))


def pairwise_value(verdict: str, gold: str) -> dict[str, float]:
    """Per-item outcome floats of a pairwise verdict (Score.value)."""
    return dict(_pairwise_items(verdict, gold))


def pointwise_value(verdict: str, gold: str) -> dict[str, float]:
    """Per-item outcome floats of a pointwise verdict (Score.value)."""
    return dict(_pointwise_items(verdict, gold))


def aggregate_calls(
    kind: str, calls: list[dict[str, Any]], gold: str, split_rule: SplitRule
) -> tuple[str, bool, dict[str, float]]:
    """(verdict, was_split, Score.value) of a list of call records (none recorded: `error`)."""
    if not calls:
        return ERROR, False, (pairwise_value if kind == "pairwise" else pointwise_value)(ERROR, gold)
    verdicts = [c["verdict"] for c in calls]
    if kind == "pairwise":
        verdict: str = aggregate_pairwise(verdicts)
        return verdict, False, pairwise_value(verdict, gold)
    verdict, split = aggregate_pointwise(verdicts, split_rule)
    return verdict, split, pointwise_value(verdict, gold)


def build_score(
    meta: dict[str, Any],
    calls: list[dict[str, Any]],
    plan: dict[str, Any],
    *,
    judge: str,
    idea_format: str,
    split_rule: SplitRule = DEFAULT_SPLIT_RULE,
) -> Score:
    """Aggregate call records into one Score with the full schema metadata."""
    kind = meta["kind"]
    verdict, split, value = aggregate_calls(kind, calls, meta["gold"], split_rule)
    orders = plan["orders"]
    metadata = {
        "schema": SCHEMA,
        "kind": kind,
        "item_id": meta["item_id"],
        "setup": meta["setup"],
        "area": meta["area"],
        "gold": meta["gold"],
        "verdict": verdict,
        **failure_fields(calls),
        "calls": calls,
        "k": plan["k"],
        "both_orders": "ab" in orders and "ba" in orders,
        "split_rule": split_rule,
        "split": split,
        "judge": judge,
        "prompt": plan["prompt"],
        "idea_format": idea_format,
        "probe": meta.get("probe"),
        "probe_variant": meta.get("probe_variant"),
        "probe_target": meta.get("probe_target"),
        "human": meta.get("human", {}),
        "retrieved": meta.get("retrieved"),  # set by retrieval-using judges, else None
    }
    return Score(value=value, answer=verdict, explanation=_explain(calls), metadata=metadata)


def failure_fields(calls: list[dict[str, Any]]) -> dict[str, Any]:
    """`calls_failed` (calls with verdict `error`) and `error` (one line: how many of the calls
    failed and the first cause, or None) of a sample's calls."""
    return {
        "calls_failed": sum(c["verdict"] == ERROR for c in calls),
        "error": failure_summary(calls) if calls else NO_CALLS,
    }


def _explain(calls: list[dict[str, Any]]) -> str:
    text = "; ".join(
        f"{c['order']}#{c['call_index']}: {c['shown_verdict']}->{c['verdict']} ({c['parse']})"
        for c in calls
    )
    summary = failure_summary(calls) if calls else NO_CALLS
    return f"{text}; {summary}" if text and summary else summary or text


@scorer(metrics=[], name="novelty")
def novelty(
    judge: str = "prompted",
    idea_format: str = "abstract",
    split_rule: SplitRule = DEFAULT_SPLIT_RULE,
) -> Scorer:
    """Score a judged sample against its gold (metrics are set by the task)."""

    async def score(state: TaskState, target: Target) -> Score:
        return score_state(state, judge=judge, idea_format=idea_format, split_rule=split_rule)

    return score


def score_state(state: TaskState, *, judge: str, idea_format: str, split_rule: SplitRule) -> Score:
    """The score of a judged sample from its records; a sample with none (its judge failed first,
    scored because the task sets `score_on_error`) is `error` with `NO_CALLS` as its cause."""
    calls, plan = judge_records(state)
    if calls is None or plan is None:
        calls, plan = [], NO_PLAN
    return build_score(dict(state.metadata), calls, plan, judge=judge, idea_format=idea_format,
                       split_rule=split_rule)


@score_reducer(name="pool_calls")
def pool_calls() -> ScoreReducer:
    """Pool the calls of all epochs of a sample and aggregate them as one run with k x epochs calls.

    Call indices are renumbered (epoch e, call i -> e * k + i) so the pooled record reads
    exactly like a single run with the larger k.
    """

    def reduce(scores: list[Score]) -> Score:
        if len(scores) == 1:
            return scores[0]
        first = scores[0].metadata or {}
        k = int(first["k"])
        calls = [
            {**call, "call_index": epoch * k + int(call["call_index"])}
            for epoch, score in enumerate(scores)
            for call in (score.metadata or {})["calls"]
        ]
        verdict, split, value = aggregate_calls(
            first["kind"], calls, first["gold"], first["split_rule"]
        )
        metadata = {
            **first,
            "calls": calls,
            "k": k * len(scores),
            "verdict": verdict,
            **failure_fields(calls),
            "split": split,
        }
        return Score(value=value, answer=verdict, explanation=_explain(calls), metadata=metadata)

    return reduce
