"""The reference study's protocol as one eval set: every cell on Human-Only and Human+Generated.

    inspect eval-set tasks/reference_study.py --model openai/gpt-4o-mini,anthropic/claude-sonnet-4-5 \
        --log-dir logs/study

A cell is one controlled change of the reference configuration (the prompted judge, the reference
prompt, k = 3 calls per decision, high reasoning effort, no retrieval) in one format on one set:
the reference, P1-P5 (pairwise) / P1-P3 (pointwise), ideas as plans, retrieval of prior work
(`judgeaudit.study.protocol`). The no-aggregation results (k = 1) are not cells: `judgeaudit
report` derives them from the k = 3 runs' stored calls (`agg=k1`).

Options (`-T key=value`) reach the cells that take them: `-T both_orders=true` the pairwise cells,
`-T split_rule=...` the pointwise ones; `-T k=...`, `seed`, `probe`, `cache`, `resamples`,
`retrieval_corpus` every cell. An option no cell takes (or one the study sets per cell, such as
`prompt`) is refused in one line before any call. The sets: `-T human_only=SET` and
`-T human_generated=SET` (default: the bundled ones). The bundled Human-Only set has no plan files,
so this file has no Human-Only plan cells; `judgeaudit study run` runs any number of sets (every
backbone's Human+Generated set) in one eval set, with a plan cell wherever a set has plan files.
Re-running the same command resumes: finished cells are kept, only missing ones run. The same
cells are registered as `judgeaudit/study_<format>_<change>` (`judgeaudit study tasks`).
tests/study/test_protocol.py checks that these cells are the protocol's on the bundled sets.
"""

from __future__ import annotations

from typing import Any

from inspect_ai import Task, task

from judgeaudit.study.protocol import slot_task


@task
def human_only_pairwise_reference(**options: Any) -> Task:
    """Human-Only, pairwise: the reference prompt."""
    return slot_task("human_only", "pairwise", "reference", options)


@task
def human_only_pairwise_p1_no_guardrails(**options: Any) -> Task:
    """Human-Only, pairwise: prompt p1_no_guardrails."""
    return slot_task("human_only", "pairwise", "p1_no_guardrails", options)


@task
def human_only_pairwise_p2_no_criterion(**options: Any) -> Task:
    """Human-Only, pairwise: prompt p2_no_criterion."""
    return slot_task("human_only", "pairwise", "p2_no_criterion", options)


@task
def human_only_pairwise_p3_judged_novel(**options: Any) -> Task:
    """Human-Only, pairwise: prompt p3_judged_novel."""
    return slot_task("human_only", "pairwise", "p3_judged_novel", options)


@task
def human_only_pairwise_p4_which_novel(**options: Any) -> Task:
    """Human-Only, pairwise: prompt p4_which_novel."""
    return slot_task("human_only", "pairwise", "p4_which_novel", options)


@task
def human_only_pairwise_p5_judged_more_novel(**options: Any) -> Task:
    """Human-Only, pairwise: prompt p5_judged_more_novel."""
    return slot_task("human_only", "pairwise", "p5_judged_more_novel", options)


@task
def human_only_pairwise_retrieval(**options: Any) -> Task:
    """Human-Only, pairwise: top-5 prior work per idea."""
    return slot_task("human_only", "pairwise", "retrieval", options)


@task
def human_only_pointwise_reference(**options: Any) -> Task:
    """Human-Only, pointwise: the reference prompt."""
    return slot_task("human_only", "pointwise", "reference", options)


@task
def human_only_pointwise_p1_no_guardrails(**options: Any) -> Task:
    """Human-Only, pointwise: prompt p1_no_guardrails."""
    return slot_task("human_only", "pointwise", "p1_no_guardrails", options)


@task
def human_only_pointwise_p2_no_criterion(**options: Any) -> Task:
    """Human-Only, pointwise: prompt p2_no_criterion."""
    return slot_task("human_only", "pointwise", "p2_no_criterion", options)


@task
def human_only_pointwise_p3_judged_novel(**options: Any) -> Task:
    """Human-Only, pointwise: prompt p3_judged_novel."""
    return slot_task("human_only", "pointwise", "p3_judged_novel", options)


@task
def human_only_pointwise_retrieval(**options: Any) -> Task:
    """Human-Only, pointwise: top-5 prior work per idea."""
    return slot_task("human_only", "pointwise", "retrieval", options)


@task
def human_generated_pairwise_reference(**options: Any) -> Task:
    """Human+Generated, pairwise: the reference prompt."""
    return slot_task("human_generated", "pairwise", "reference", options)


@task
def human_generated_pairwise_p1_no_guardrails(**options: Any) -> Task:
    """Human+Generated, pairwise: prompt p1_no_guardrails."""
    return slot_task("human_generated", "pairwise", "p1_no_guardrails", options)


@task
def human_generated_pairwise_p2_no_criterion(**options: Any) -> Task:
    """Human+Generated, pairwise: prompt p2_no_criterion."""
    return slot_task("human_generated", "pairwise", "p2_no_criterion", options)


@task
def human_generated_pairwise_p3_judged_novel(**options: Any) -> Task:
    """Human+Generated, pairwise: prompt p3_judged_novel."""
    return slot_task("human_generated", "pairwise", "p3_judged_novel", options)


@task
def human_generated_pairwise_p4_which_novel(**options: Any) -> Task:
    """Human+Generated, pairwise: prompt p4_which_novel."""
    return slot_task("human_generated", "pairwise", "p4_which_novel", options)


@task
def human_generated_pairwise_p5_judged_more_novel(**options: Any) -> Task:
    """Human+Generated, pairwise: prompt p5_judged_more_novel."""
    return slot_task("human_generated", "pairwise", "p5_judged_more_novel", options)


@task
def human_generated_pairwise_plan(**options: Any) -> Task:
    """Human+Generated, pairwise: ideas as plans."""
    return slot_task("human_generated", "pairwise", "plan", options)


@task
def human_generated_pairwise_retrieval(**options: Any) -> Task:
    """Human+Generated, pairwise: top-5 prior work per idea."""
    return slot_task("human_generated", "pairwise", "retrieval", options)


@task
def human_generated_pointwise_reference(**options: Any) -> Task:
    """Human+Generated, pointwise: the reference prompt."""
    return slot_task("human_generated", "pointwise", "reference", options)


@task
def human_generated_pointwise_p1_no_guardrails(**options: Any) -> Task:
    """Human+Generated, pointwise: prompt p1_no_guardrails."""
    return slot_task("human_generated", "pointwise", "p1_no_guardrails", options)


@task
def human_generated_pointwise_p2_no_criterion(**options: Any) -> Task:
    """Human+Generated, pointwise: prompt p2_no_criterion."""
    return slot_task("human_generated", "pointwise", "p2_no_criterion", options)


@task
def human_generated_pointwise_p3_judged_novel(**options: Any) -> Task:
    """Human+Generated, pointwise: prompt p3_judged_novel."""
    return slot_task("human_generated", "pointwise", "p3_judged_novel", options)


@task
def human_generated_pointwise_plan(**options: Any) -> Task:
    """Human+Generated, pointwise: ideas as plans."""
    return slot_task("human_generated", "pointwise", "plan", options)


@task
def human_generated_pointwise_retrieval(**options: Any) -> Task:
    """Human+Generated, pointwise: top-5 prior work per idea."""
    return slot_task("human_generated", "pointwise", "retrieval", options)
