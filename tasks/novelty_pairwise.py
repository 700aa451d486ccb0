"""Pairwise novelty judge: `inspect eval tasks/novelty_pairwise.py --model <model> -T prompt=...`.

A thin runnable copy of the registered task `judgeaudit/novelty_pairwise` (same parameters:
dataset, prompt, idea_format, k, both_orders, seed, probe, cache, resamples).
"""

from typing import Any

from inspect_ai import Task, task

from judgeaudit.judges import tasks


@task
def novelty_pairwise(**params: Any) -> Task:
    """Which of two ideas is more novel? (see judgeaudit.judges.tasks.novelty_pairwise)"""
    return tasks.novelty_pairwise(**params)
