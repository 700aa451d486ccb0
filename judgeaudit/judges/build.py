"""`judge_task`: the one place a novelty judge's Inspect Task (dataset of arms, scorer, metrics,
epoch pooling, metadata) is assembled, for every judge kind of the catalog.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from inspect_ai import Epochs, Task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import Model
from inspect_ai.scorer import Scorer, ScoreReducer
from inspect_ai.solver import Solver

from judgeaudit.arms.base import ProbedItem
from judgeaudit.arms.transforms import apply_probe
from judgeaudit.data.contract import Item
from judgeaudit.data.samples import item_to_sample, load_items
from judgeaudit.judges.inspect_metrics import BOOTSTRAP_METHOD, pairwise_metrics, pointwise_metrics
from judgeaudit.judges.options import TaskOptionError, check_split_rule
from judgeaudit.judges.prompts import PromptPlan, input_prompt
from judgeaudit.judges.scorer import SCHEMA, novelty, pool_calls
from judgeaudit.judges.verdicts import DEFAULT_SPLIT_RULE, SplitRule
from judgeaudit.resources import resolve_dataset_file
from judgeaudit.stats.defaults import DEFAULT_CONFIDENCE

KINDS: tuple[str, ...] = ("pairwise", "pointwise")
IDEA_FORMATS: tuple[str, ...] = ("abstract", "plan")


def probed_items(items: list[Item], probe: str | None, seed: int) -> list[ProbedItem]:
    """Items as judged arms: unperturbed when `probe` is None, else the probe's arms."""
    if probe is None:
        return [ProbedItem(item) for item in items]
    return apply_probe(probe, items, seed)


def locate_dataset(dataset: str) -> str:
    """`dataset` as given, or resolved against the shell's directory ($PWD) when a relative path
    only exists there (`inspect eval tasks/<file>.py` runs the task from the file's directory)."""
    path = Path(dataset)
    shell_dir = os.environ.get("PWD")
    if (
        not path.is_absolute()
        and not path.exists()
        and shell_dir
        and (Path(shell_dir) / path).exists()
    ):
        return str(Path(shell_dir) / path)
    return dataset


def arm_sample(arm: ProbedItem, prompt_plan: PromptPlan | None = None) -> Sample:
    """The Sample of one judged arm: the item's sample, the arm's probe fields in its unit under their
    own names and what the solver reads beside;
    with a `prompt_plan` (the prompted judge without retrieval) a lean sample whose input is its
    first call's prompt (`judges.prompts.input_prompt`)."""
    fields = {
        "probe": arm.probe,
        "probe_variant": arm.probe_variant,
        "probe_target": arm.probe_target,
    }
    extra: dict[str, Any] = {
        "orders": list(arm.orders) if arm.orders else None,
        "cue": arm.cue,
        "prompt": arm.prompt,
        "seed": arm.seed,
    }
    sample = item_to_sample(
        arm.item, sample_id=arm.sample_id, extra=extra, lean=prompt_plan is not None, arm=fields
    )
    if prompt_plan is None:
        return sample
    text, meta = input_prompt(sample.metadata or {}, prompt_plan)
    return Sample(id=sample.id, input=text, target=sample.target, metadata=meta)


def judge_dataset(
    dataset: str,
    kind: str,
    idea_format: str,
    probe: str | None,
    seed: int,
    prompt_plan: PromptPlan | None = None,
    scored: set[str] | None = None,
) -> MemoryDataset:
    """Inspect dataset of one judge run: one Sample per arm of every item (of `scored` items only,
    when given); `prompt_plan`: see `arm_sample`."""
    if idea_format not in IDEA_FORMATS:
        raise ValueError(
            f"idea_format must be one of {', '.join(IDEA_FORMATS)}, got {idea_format!r}"
        )
    located = locate_dataset(dataset)
    path = resolve_dataset_file(located, kind, idea_format)
    items = load_items(located, kind, idea_format)
    samples = []
    for arm in probed_items(items, probe, seed):
        if scored is not None and arm.item.item_id not in scored:
            continue
        samples.append(arm_sample(arm, prompt_plan))
    if not samples and scored is not None:
        raise TaskOptionError(
            f"-T dataset={dataset}: no items left to score after removing the fit split"
        )
    if not samples:
        raise TaskOptionError(f"-T dataset={located}: {path} gives no samples for probe {probe!r}")
    ids = [s.id for s in samples]
    if len(set(ids)) != len(ids):
        raise TaskOptionError(f"-T dataset={located}: with probe {probe!r}: duplicate sample ids")
    return MemoryDataset(samples, name=located.replace("/", "_"), location=str(path))


def judge_task(
    kind: str,
    judge: str,
    dataset: str,
    solver: Solver | list[Solver],
    *,
    idea_format: str,
    probe: str | None,
    seed: int,
    resamples: int,
    split_rule: str = DEFAULT_SPLIT_RULE,
    metadata: Mapping[str, Any] | None = None,
    scorer: Scorer | None = None,
    reducer: ScoreReducer | None = None,
    prompt_plan: PromptPlan | None = None,
    scored: set[str] | None = None,
    model_roles: Mapping[str, Model] | None = None,
) -> Task:
    """A judge Task: the arms of `dataset`, the `novelty` scorer (unless given), the kind's metrics,
    epochs pooled, and the task metadata: the fields every score of the task shares (schema, kind,
    judge, idea format, split rule, ...; SCORE_SCHEMA.md), `metadata` adds the judge's own (`prompt_plan`:
    see `arm_sample`); `model_roles`: the models a judge calls besides the eval's (a panel's members)."""
    if kind not in KINDS:
        raise ValueError(f"kind must be pairwise or pointwise, got {kind!r}")
    check_split_rule(split_rule)
    rule: SplitRule = split_rule  # type: ignore[assignment]
    metrics = pairwise_metrics() if kind == "pairwise" else pointwise_metrics()
    return Task(
        dataset=judge_dataset(dataset, kind, idea_format, probe, seed, prompt_plan, scored),
        solver=solver,
        scorer=scorer or novelty(split_rule=rule, kind=kind),
        metrics=metrics,
        epochs=Epochs(1, reducer or pool_calls(kind, rule)),
        score_on_error=True,  # a sample whose calls failed errors, and is still scored from its records
        model_roles=dict(model_roles) if model_roles else None,
        metadata={
            "judgeaudit": {
                "schema": SCHEMA,
                "kind": kind,
                "judge": judge,
                "dataset": dataset,
                "idea_format": idea_format,
                "split_rule": rule,
                "probe": probe,
                **(metadata or {}),
                "bootstrap": {
                    "method": BOOTSTRAP_METHOD,
                    "resamples": resamples,
                    "seed": seed,
                    "confidence": DEFAULT_CONFIDENCE,
                },
            }
        },
    )
