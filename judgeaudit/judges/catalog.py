"""Judge kinds selectable with `-T judge=...` on the novelty tasks: name -> Task factory.

A factory is `fn(kind, judge, dataset, *, idea_format, probe, seed, resamples, **options) -> Task`;
`options` are the task options (`judgeaudit.judges.options`) that differ from their defaults,
already checked against what the judge honours.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from inspect_ai import Task

from judgeaudit.judges.llm.agentic import agentic_task_from_options
from judgeaudit.judges.llm.ai_scientist import ai_scientist_task_from_options
from judgeaudit.judges.llm.concepts import concept_llm_task_from_options
from judgeaudit.judges.llm.novelty_checker import novelty_checker_task_from_options
from judgeaudit.judges.llm.panel import panel_task
from judgeaudit.judges.llm.prompted import prompted_task
from judgeaudit.judges.llm.rubric import rubric_task_from_options
from judgeaudit.judges.option_checks import TaskOptionError, check_values
from judgeaudit.judges.options import DEFAULT_CONCEPTS, check_options, refuse_other_kind
from judgeaudit.judges.score.concepts import EXTRACTORS, concept_task_from_options
from judgeaudit.judges.score.distance import distance_task_from_options
from judgeaudit.judges.score.metric import metric_task_from_options
from judgeaudit.stats.defaults import DEFAULT_RESAMPLES, DEFAULT_SEED

Factory = Callable[..., Task]


def concept_task(
    kind: str, judge: str, dataset: str, *, concepts: str = DEFAULT_CONCEPTS, **options: Any
) -> Task:
    """The concept judges: offline keyphrase concepts (score judge) or concepts a model extracts (`llm`)."""
    if concepts == "keyphrase":
        return concept_task_from_options(kind, judge, dataset, **options)
    if concepts == "llm":
        return concept_llm_task_from_options(kind, judge, dataset, **options)
    raise TaskOptionError(f"concepts must be one of {', '.join(EXTRACTORS)}, got {concepts!r}")


JUDGE_FACTORIES: dict[str, Factory] = {
    "prompted": prompted_task,
    "metric_embedding": metric_task_from_options,
    "metric_ngram": metric_task_from_options,
    "distance_nn": distance_task_from_options,
    "distance_centroid": distance_task_from_options,
    "distance_mean": distance_task_from_options,
    "distance_graph": distance_task_from_options,
    "agentic": agentic_task_from_options,
    "ai_scientist": ai_scientist_task_from_options,
    "novelty_checker": novelty_checker_task_from_options,
    "rubric": rubric_task_from_options,
    "two_stage": rubric_task_from_options,
    "concept_set": concept_task,
    "concept_fuzzy": concept_task,
    "panel": panel_task,
}


def judge_names() -> list[str]:
    """Every judge kind the tasks accept."""
    return ["prompted", *sorted(k for k in JUDGE_FACTORIES if k != "prompted")]


def novelty_task(
    kind: str,
    *,
    dataset: str,
    judge: str = "prompted",
    idea_format: str = "abstract",
    seed: int = DEFAULT_SEED,
    probe: str | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    **options: Any,
) -> Task:
    """The Task of judge kind `judge` on `dataset`; a clear error for an unknown kind or an option it cannot honour."""
    refuse_other_kind(kind, options)
    factory = JUDGE_FACTORIES.get(judge)
    if factory is None:
        raise TaskOptionError(
            f"-T judge={judge}: unknown judge {judge!r}; choose one of: {', '.join(judge_names())}"
        )
    check_values(
        kind,
        judge,
        {
            "dataset": dataset,
            "idea_format": idea_format,
            "seed": seed,
            "probe": probe,
            "resamples": resamples,
            **options,
        },
    )
    given = check_options(judge, options)
    return factory(
        kind,
        judge,
        dataset,
        idea_format=idea_format,
        probe=probe,
        seed=seed,
        resamples=resamples,
        **given,
    )
