"""The `novelty` scorer: aggregate a sample's per-call records and write the score schema.

See judgeaudit/judges/SCORE_SCHEMA.md (schema `judgeaudit.score/4`): the score carries the
per-sample fields, the task metadata the per-task ones; `read_unit` joins them for the readers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from inspect_ai.scorer import Score, Scorer, ScoreReducer, Target, score_reducer, scorer
from inspect_ai.solver import TaskState

from judgeaudit.data.samples import human_scores, unit_of
from judgeaudit.judges.panel_votes import PanelRule, panel_calls_outcome, panel_failure
from judgeaudit.judges.records import failure_summary, judge_records
from judgeaudit.judges.verdicts import (
    DEFAULT_SPLIT_RULE,
    SplitRule,
    aggregate_pairwise,
    aggregate_pointwise,
)
from judgeaudit.protocol import ERROR

SCHEMA = "judgeaudit.score/4"
# The schema before `Score.value` became one float and lean samples left out `gold` (the target): still read.
SCHEMA_V3 = "judgeaudit.score/3"
# The schema before the samples' `human` scores became a flat list (`data.samples.human_scores`): still read.
SCHEMA_V2 = "judgeaudit.score/2"
# The previous schema (every field in each score's metadata): still read by `read_unit`.
SCHEMA_V1 = "judgeaudit.score/1"
# The `error` of a sample whose judge failed before recording any call (e.g. a judge that needs
# tools or a real model): the sample's own error says why; the item is scored `error`.
NO_CALLS = "could not judge: no judge calls recorded (the sample failed before its first call)"
# The plan of such a sample.
NO_PLAN: dict[str, Any] = {"prompt": None, "orders": [], "k": 0}


def unit_value(verdict: str, gold: str) -> float:
    """Score.value of a judged unit: 1.0 when the verdict is the gold label, else 0.0 (a tie, `invalid`
    and `error` included). A single float for Inspect's own displays; our metrics read the verdict
    (`Score.answer`) and the gold (score metadata), and every outcome column comes from `judgeaudit.stats`."""
    return 1.0 if verdict == gold else 0.0


def aggregate_calls(
    kind: str, calls: list[dict[str, Any]], gold: str, split_rule: SplitRule
) -> tuple[str, bool, float]:
    """(verdict, was_split, Score.value) of one judge's call records (none recorded: `error`)."""
    if not calls:
        return ERROR, False, unit_value(ERROR, gold)
    verdicts = [c["verdict"] for c in calls]
    if kind == "pairwise":
        verdict: str = aggregate_pairwise(verdicts)
        return verdict, False, unit_value(verdict, gold)
    verdict, split = aggregate_pointwise(verdicts, split_rule)
    return verdict, split, unit_value(verdict, gold)


def judged_unit(
    kind: str,
    calls: list[dict[str, Any]],
    gold: str,
    split_rule: SplitRule,
    panel: PanelRule | None = None,
) -> tuple[str, float, dict[str, Any]]:
    """(verdict, Score.value, the score's judging fields: `split`, `calls_failed`, `error` when a call
    failed, and for a panel `panel`, its outcome) of a sample's call records; a panel's calls by its
    rule (`judges.panel_votes`: `split` when a pointwise panel's tie rule decided)."""
    if panel is None or not calls:
        verdict, split, value = aggregate_calls(kind, calls, gold, split_rule)
        return verdict, value, {"split": split, **failure_fields(calls)}
    outcome = panel_calls_outcome(kind, calls, panel, split_rule)
    error = panel_failure(calls, outcome, panel)
    fields: dict[str, Any] = {
        "split": outcome.no_majority and kind == "pointwise",
        "calls_failed": sum(c["verdict"] == ERROR for c in calls),
        **({"error": error} if error is not None else {}),
        "panel": outcome.to_dict(),
    }
    return outcome.verdict, unit_value(outcome.verdict, gold), fields


def build_score(
    meta: Mapping[str, Any],
    calls: list[dict[str, Any]],
    plan: dict[str, Any],
    gold: str,
    *,
    split_rule: SplitRule = DEFAULT_SPLIT_RULE,
    kind: str | None = None,
    panel: PanelRule | None = None,
) -> Score:
    """Aggregate call records into one Score against `gold` (the sample's target) with the per-sample
    schema metadata (the task's own fields, e.g. judge and idea format, are in the task metadata; see
    `read_unit`); `kind` is the task's, or the sample's `kind` metadata when None; a panel's calls
    by its rule, with the members' verdicts and how many answered (`panel`)."""
    kind = kind or meta["kind"]
    verdict, value, fields = judged_unit(kind, calls, gold, split_rule, panel)
    orders = plan["orders"]
    metadata: dict[str, Any] = {
        "gold": gold,
        "calls": calls,
        "k": plan["k"],
        "both_orders": "ab" in orders and "ba" in orders,
        "prompt": plan["prompt"],
        **fields,
    }
    if meta.get("retrieved") is not None:  # set by retrieval-using judges
        metadata["retrieved"] = meta["retrieved"]
    return Score(value=value, answer=verdict, explanation=fields.get("error"), metadata=metadata)


def failure_fields(calls: list[dict[str, Any]]) -> dict[str, Any]:
    """`calls_failed` (calls with verdict `error`) and, when a call failed (or none was recorded),
    `error` (one line: how many of the calls failed and the first cause) of a sample's calls; that
    line is also the score's explanation (none when every call answered: the per-call verdicts are
    in `calls`, and Inspect thins every explanation of every sample summary)."""
    failed = sum(c["verdict"] == ERROR for c in calls)
    error = failure_summary(calls) if calls else NO_CALLS
    return (
        {"calls_failed": failed, "error": error} if error is not None else {"calls_failed": failed}
    )


@scorer(metrics=[], name="novelty")
def novelty(
    split_rule: SplitRule = DEFAULT_SPLIT_RULE,
    kind: str | None = None,
    panel: dict[str, Any] | None = None,
) -> Scorer:
    """Score a judged sample against its gold (metrics are set by the task); `kind` is the task's
    (a sample's own `kind` metadata when None); `panel` a panel's rule (`PanelRule.to_dict`)."""
    rule = PanelRule.from_dict(panel) if panel is not None else None

    async def score(state: TaskState, target: Target) -> Score:
        return score_state(state, split_rule=split_rule, kind=kind, panel=rule)

    return score


def score_state(
    state: TaskState,
    *,
    split_rule: SplitRule,
    kind: str | None = None,
    panel: PanelRule | None = None,
) -> Score:
    """The score of a judged sample from its records; a sample with none (its judge failed first,
    scored because the task sets `score_on_error`) is `error` with `NO_CALLS` as its cause."""
    calls, plan = judge_records(state)
    if calls is None or plan is None:
        calls, plan = [], NO_PLAN
    return build_score(
        state.metadata,
        calls,
        plan,
        state.target.text,
        split_rule=split_rule,
        kind=kind,
        panel=panel,
    )


@score_reducer(name="pool_calls")
def pool_calls(
    kind: str = "pairwise",
    split_rule: SplitRule = DEFAULT_SPLIT_RULE,
    panel: dict[str, Any] | None = None,
) -> ScoreReducer:
    """Pool the calls of all epochs of a sample and aggregate them as one run with k x epochs calls
    (a panel's by its rule, `panel` as `PanelRule.to_dict` gives it).

    Call indices are renumbered (epoch e, call i -> e * k + i) so the pooled record reads
    exactly like a single run with the larger k.
    """
    rule = PanelRule.from_dict(panel) if panel is not None else None

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
        verdict, value, fields = judged_unit(kind, calls, first["gold"], split_rule, rule)
        metadata = {key: val for key, val in first.items() if key != "error"}
        metadata.update({"calls": calls, "k": k * len(scores), **fields})
        return Score(
            value=value, answer=verdict, explanation=fields.get("error"), metadata=metadata
        )

    return reduce


def task_fields(task_metadata: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Our task metadata (`judgeaudit`) when the log's scores are of `SCHEMA` (or `SCHEMA_V3`, `SCHEMA_V2`), else None."""
    ours = (task_metadata or {}).get("judgeaudit")
    return (
        dict(ours)
        if isinstance(ours, Mapping) and ours.get("schema") in (SCHEMA, SCHEMA_V3, SCHEMA_V2)
        else None
    )


def is_unit(task: Mapping[str, Any] | None, score: Score | None) -> bool:
    """Whether a `novelty` score is one of our judged units: it has calls, and either the log's task
    metadata is ours (`task_fields`) or the score is of the previous schema."""
    meta = (score.metadata or {}) if score is not None else {}
    return "calls" in meta and (task is not None or meta.get("schema") == SCHEMA_V1)


def errored_unit(
    task: Mapping[str, Any] | None, sample: Mapping[str, Any] | None, gold: str, cause: str
) -> dict[str, Any] | None:
    """The record of a sample that errored before it was scored (no calls recorded): an `error`
    item of its configuration, with `cause`; None when the log's task is not ours."""
    if task is None:
        return None
    meta = {"gold": gold, "calls": [], "calls_failed": 0, "error": cause, "k": 0}
    return read_unit(task, sample, Score(value=0.0, answer=ERROR, metadata=meta))


def read_unit(
    task: Mapping[str, Any] | None, sample: Mapping[str, Any] | None, score: Score | None
) -> dict[str, Any] | None:
    """The record of one judged unit (the fields of SCORE_SCHEMA.md) from the task's metadata
    (`task_fields`), the sample's metadata and its `novelty` score; None when the score is not ours (`is_unit`).

    A score of the previous schema (`judgeaudit.score/1`, every field in the score metadata) is
    read as it is, so logs written before the per-task fields moved still report."""
    if score is None or not is_unit(task, score):
        return None
    meta = score.metadata or {}
    if (
        meta.get("schema") == SCHEMA_V1 or task is None
    ):  # is_unit: no task metadata means the previous schema
        return dict(meta)
    sample = unit_of(sample or {})
    return {
        "schema": task.get("schema"),
        "kind": task.get("kind"),
        "item_id": sample.get("item_id"),
        "setup": sample.get("setup"),
        "area": sample.get("area"),
        "gold": meta.get("gold"),
        "verdict": score.answer,
        "calls_failed": meta.get("calls_failed", 0),
        "error": meta.get("error"),
        "calls": meta["calls"],
        "k": meta.get("k"),
        "both_orders": meta.get("both_orders"),
        "split_rule": task.get("split_rule"),
        "split": meta.get("split", False),
        "judge": task.get("judge"),
        "prompt": meta.get("prompt"),
        "idea_format": task.get("idea_format"),
        "probe": sample.get("probe"),
        "probe_variant": sample.get("probe_variant"),
        "probe_target": sample.get("probe_target"),
        "human": human_scores(sample.get("human"), task.get("kind")),
        "scores": meta.get("scores"),
        "retrieved": meta.get("retrieved"),
        "panel": task.get("panel"),
        "panel_votes": meta.get("panel"),
    }
