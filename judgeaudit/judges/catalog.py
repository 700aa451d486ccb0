"""Judge kinds selectable with `-T judge=...` on the novelty tasks, each built on demand.

`prompted` is built by `judgeaudit.judges.tasks` itself. Every other kind maps to a factory
`fn(kind, judge, dataset, *, idea_format, probe, seed, resamples, **options) -> Task`, named
as "module:function" so heavy judges import nothing until they are asked for. `options` are
the remaining task arguments (prompt, k, both_orders, cache, retrieval, ...); a factory uses
what it understands and must reject a non-default option it cannot honour.
"""

from __future__ import annotations

import importlib
from typing import Any

from inspect_ai import Task

JUDGE_FACTORIES: dict[str, str] = {
    "metric_embedding": "judgeaudit.judges.metric_judges:metric_task_from_options",
    "metric_ngram": "judgeaudit.judges.metric_judges:metric_task_from_options",
    "distance_nn": "judgeaudit.judges.distance_judges:distance_task_from_options",
    "distance_centroid": "judgeaudit.judges.distance_judges:distance_task_from_options",
    "distance_mean": "judgeaudit.judges.distance_judges:distance_task_from_options",
    "distance_graph": "judgeaudit.judges.distance_judges:distance_task_from_options",
    "agentic": "judgeaudit.judges.agentic:agentic_task_from_options",
    "ai_scientist": "judgeaudit.judges.ai_scientist:ai_scientist_task_from_options",
    "novelty_checker": "judgeaudit.judges.novelty_checker:novelty_checker_task_from_options",
    "rubric": "judgeaudit.judges.rubric:rubric_task_from_options",
    "two_stage": "judgeaudit.judges.rubric:rubric_task_from_options",
    "concept_set": "judgeaudit.judges.concepts:concept_task_from_options",
    "concept_fuzzy": "judgeaudit.judges.concepts:concept_task_from_options",
}


def judge_names() -> list[str]:
    """Every judge kind the tasks accept."""
    return ["prompted", *sorted(JUDGE_FACTORIES)]


def build_judge_task(kind: str, judge: str, dataset: str, **args: Any) -> Task:
    """The Task of a non-prompted judge kind; a clear error for an unknown kind."""
    target = JUDGE_FACTORIES.get(judge)
    if target is None:
        raise ValueError(f"unknown judge {judge!r}; choose one of: {', '.join(judge_names())}")
    module_name, _, fn_name = target.partition(":")
    factory = getattr(importlib.import_module(module_name), fn_name)
    task: Task = factory(kind, judge, dataset, **args)
    return task
