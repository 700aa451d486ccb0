"""The prompt-ablation grid of the reference study: every controlled prompt variant, both formats.

As an eval set (one task per cell; `-T` options reach the cells that take them: dataset or k every
cell, both_orders the pairwise ones, split_rule the pointwise ones):

    inspect eval-set tasks/prompt_ablation_grid.py --model openai/gpt-4o-mini,local/gemma-3-270m \
        --log-dir logs/prompt-ablation

Re-running the same command resumes: finished cells are kept, only missing ones run, and
calls shared between cells come from Inspect's cache. The same grid from Python, with the
registered task names (`novelty_pairwise` / `novelty_pointwise`) and the prompt in the task args:

    python tasks/prompt_ablation_grid.py --model mockllm/model --log-dir logs/prompt-ablation
"""

from __future__ import annotations

import argparse
import sys
from inspect import signature
from typing import Any

from inspect_ai import Task, task

from judgeaudit.judges import tasks
from judgeaudit.judges.options import TaskOptionError, kind_own
from judgeaudit.judges.prompts import prompt_names


def grid(**params: Any) -> list[Task]:
    """One task per (format, prompt variant), each naming its prompt explicitly."""
    out = [pairwise(name, params) for name in prompt_names("pairwise")]
    out += [pointwise(name, params) for name in prompt_names("pointwise")]
    return out


def _options(kind: str, params: dict[str, Any]) -> dict[str, Any]:
    """The options a task of `kind` takes; one line refusing an option neither task takes."""
    known = {
        p
        for fn in (tasks.novelty_pairwise, tasks.novelty_pointwise)
        for p in signature(fn).parameters
    }
    unknown = sorted(set(params) - known)
    if unknown:
        raise TaskOptionError(
            f"-T {', '.join(unknown)}: no task of the prompt-ablation grid takes it"
        )
    return kind_own(kind, params)


def pairwise(prompt: str, params: dict[str, Any]) -> Task:
    """The pairwise task with `prompt` and the options a pairwise task takes."""
    return tasks.novelty_pairwise(prompt=prompt, **_options("pairwise", params))


def pointwise(prompt: str, params: dict[str, Any]) -> Task:
    """The pointwise task with `prompt` and the options a pointwise task takes."""
    return tasks.novelty_pointwise(prompt=prompt, **_options("pointwise", params))


@task
def pairwise_reference(**params: Any) -> Task:
    """Pairwise, reference prompt."""
    return pairwise("reference", params)


@task
def pairwise_p1_no_guardrails(**params: Any) -> Task:
    """Pairwise, criterion without guardrails (P1)."""
    return pairwise("p1_no_guardrails", params)


@task
def pairwise_p2_no_criterion(**params: Any) -> Task:
    """Pairwise, criterion removed (P2)."""
    return pairwise("p2_no_criterion", params)


@task
def pairwise_p3_judged_novel(**params: Any) -> Task:
    """Pairwise, 'reviewers judged exactly one novel: which?' (P3)."""
    return pairwise("p3_judged_novel", params)


@task
def pairwise_p4_which_novel(**params: Any) -> Task:
    """Pairwise, 'which is novel?' (P4)."""
    return pairwise("p4_which_novel", params)


@task
def pairwise_p5_judged_more_novel(**params: Any) -> Task:
    """Pairwise, 'which was judged more novel?' (P5)."""
    return pairwise("p5_judged_more_novel", params)


@task
def pointwise_reference(**params: Any) -> Task:
    """Pointwise, reference prompt."""
    return pointwise("reference", params)


@task
def pointwise_p1_no_guardrails(**params: Any) -> Task:
    """Pointwise, criterion without guardrails (P1)."""
    return pointwise("p1_no_guardrails", params)


@task
def pointwise_p2_no_criterion(**params: Any) -> Task:
    """Pointwise, criterion removed (P2)."""
    return pointwise("p2_no_criterion", params)


@task
def pointwise_p3_judged_novel(**params: Any) -> Task:
    """Pointwise, 'did reviewers judge this idea novel?' (P3)."""
    return pointwise("p3_judged_novel", params)


def main(argv: list[str] | None = None) -> int:
    """Run (or resume) the grid with `inspect_ai.eval_set`."""
    from inspect_ai import eval_set

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, help="comma-separated Inspect model names")
    parser.add_argument("--log-dir", required=True)
    parser.add_argument("--dataset", default=tasks.DEFAULT_DATASET)
    parser.add_argument("--k", type=int, default=1)
    parser.add_argument("--limit", type=int, default=None)
    args = parser.parse_args(argv)
    ok, _ = eval_set(
        grid(dataset=args.dataset, k=args.k),
        model=args.model.split(","),
        log_dir=args.log_dir,
        limit=args.limit,
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
