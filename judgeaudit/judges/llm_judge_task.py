"""Shared Task assembly for the catalog's LLM judges (agentic, ai_scientist, novelty_checker, rubric).

Same dataset, scorer (`novelty`), metrics, epoch pooling and task metadata as the prompted
judge, with the judge's own solver; options a judge cannot honour are rejected by name.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from inspect_ai import Epochs, Task
from inspect_ai.scorer import Scorer, ScoreReducer
from inspect_ai.solver import Solver

from judgeaudit.judges.verdicts import DEFAULT_SPLIT_RULE, SplitRule

# Task options of `novelty_pairwise` / `novelty_pointwise` and their defaults.
TASK_OPTION_DEFAULTS: dict[str, Any] = {
    "prompt": "reference", "k": 1, "both_orders": False, "cache": True, "split_rule": DEFAULT_SPLIT_RULE,
    "retrieval": 0, "retrieval_corpus": None, "max_searches": 0, "max_turns": 0, "concepts": "keyphrase",
}


def check_options(judge: str, options: Mapping[str, Any], honoured: set[str]) -> None:
    """Reject options a judge cannot honour: unknown names, or non-default values it ignores."""
    unknown = sorted(k for k in options if k not in TASK_OPTION_DEFAULTS)
    changed = sorted(k for k, v in options.items()
                     if k in TASK_OPTION_DEFAULTS and k not in honoured and v != TASK_OPTION_DEFAULTS[k])
    if unknown or changed:
        raise ValueError(f"judge {judge!r} cannot honour {', '.join(unknown + changed)}")


def llm_judge_task(kind: str, judge: str, dataset: str, solver: Solver | list[Solver], *, idea_format: str,
                   probe: str | None, seed: int, resamples: int, prompt: str, split_rule: str = DEFAULT_SPLIT_RULE,
                   settings: Mapping[str, Any] | None = None, scorer: Scorer | None = None,
                   reducer: ScoreReducer | None = None) -> Task:
    """A judge Task with the standard dataset, scorer (`novelty` unless given), metrics and metadata."""
    from judgeaudit.judges.inspect_metrics import (
        BOOTSTRAP_METHOD,
        pairwise_metrics,
        pointwise_metrics,
    )
    from judgeaudit.judges.scorer import SCHEMA, novelty, pool_calls
    from judgeaudit.judges.tasks import SPLIT_RULES, judge_dataset

    if kind not in ("pairwise", "pointwise"):
        raise ValueError(f"kind must be pairwise or pointwise, got {kind!r}")
    if split_rule not in SPLIT_RULES:
        raise ValueError(f"split_rule must be one of {', '.join(SPLIT_RULES)}, got {split_rule!r}")
    rule: SplitRule = split_rule  # type: ignore[assignment]
    metrics = pairwise_metrics(resamples, seed) if kind == "pairwise" else pointwise_metrics(resamples, seed)
    return Task(
        dataset=judge_dataset(dataset, kind, idea_format, probe, seed),
        solver=solver,
        scorer=scorer or novelty(judge=judge, idea_format=idea_format, split_rule=rule),
        metrics=metrics,
        epochs=Epochs(1, reducer or pool_calls()),
        metadata={"judgeaudit": {
            "schema": SCHEMA, "kind": kind, "judge": judge, "prompt": prompt, "dataset": dataset,
            "idea_format": idea_format, "probe": probe, "settings": dict(settings or {}),
            "bootstrap": {"method": BOOTSTRAP_METHOD, "resamples": resamples, "seed": seed, "confidence": 0.95},
        }},
    )
