"""Pointwise novelty judge: `inspect eval tasks/novelty_pointwise.py --model <model> -T prompt=...`.

A thin runnable copy of the registered task `judgeaudit/novelty_pointwise` (same parameters:
dataset, prompt, idea_format, k, split_rule, seed, probe, cache, resamples).
"""

from typing import Any

from inspect_ai import Task, task

from judgeaudit.judges import tasks


@task
def novelty_pointwise(**params: Any) -> Task:
    """Is this idea novel? (see judgeaudit.judges.tasks.novelty_pointwise)"""
    return tasks.novelty_pointwise(**params)
