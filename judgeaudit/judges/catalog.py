"""The novelty tasks' one entry point: the Task of any judge kind (`-T judge=...`), its options
checked first. The judge kinds themselves are declared in `judgeaudit.judges.kinds`."""

from __future__ import annotations

from typing import Any

from inspect_ai import Task

from judgeaudit.judges.kinds import DEFAULT_JUDGE, check_options, judge_names, judge_spec
from judgeaudit.judges.option_checks import check_values
from judgeaudit.judges.options import refuse_other_kind
from judgeaudit.stats.defaults import DEFAULT_RESAMPLES, DEFAULT_SEED

__all__ = ["judge_names", "novelty_task"]


def novelty_task(
    kind: str,
    *,
    dataset: str,
    judge: str = DEFAULT_JUDGE,
    idea_format: str = "abstract",
    seed: int = DEFAULT_SEED,
    probe: str | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    **options: Any,
) -> Task:
    """The Task of judge kind `judge` on `dataset`; a clear error for an unknown kind or an option it cannot honour."""
    refuse_other_kind(kind, options)
    spec = judge_spec(judge)
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
    return spec.factory(
        kind,
        judge,
        dataset,
        idea_format=idea_format,
        probe=probe,
        seed=seed,
        resamples=resamples,
        **given,
    )
