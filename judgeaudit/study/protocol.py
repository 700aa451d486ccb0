"""The reference study's protocol: its controlled changes, its reference configuration, its cells.

The reference configuration is the prompted judge with the reference prompt, a verdict with
reasoning, k = 3 calls per decision (`REFERENCE_K`) and high reasoning effort (`REASONING_EFFORT`,
set in each cell's GenerateConfig; Inspect's `--reasoning-effort` overrides it), no tools and no
related work. Each controlled change alters one thing: the prompt (P1-P5 pairwise, P1-P3
pointwise), the ideas as plans, or retrieval of prior work. A cell is one (format, change) on one
data set; the study runs every cell on Human-Only and on every Human+Generated (backbone) set
given. The no-aggregation results (one call per decision) are not cells: `judgeaudit report`
derives them from the stored calls of the k = 3 runs (`agg=k1`).

Task options (`-T key=value`) reach the cells that take them: `both_orders` only the pairwise
cells, `split_rule` only the pointwise ones (`judgeaudit.judges.options.KIND_ONLY`). An option no
cell takes, or one the study sets per cell, is refused in one line before any call.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from inspect_ai import Task, task_with
from inspect_ai.model import GenerateConfig

from judgeaudit.judges.build import KINDS, locate_dataset
from judgeaudit.judges.kinds import judge_spec
from judgeaudit.judges.options import KIND_ONLY, OPTION_DEFAULTS, TaskOptionError, kind_own
from judgeaudit.judges.prompts import prompt_names
from judgeaudit.judges.tasks import TASKS
from judgeaudit.resources import datasets_root, resolve_dataset_file

REFERENCE_K = 3
REASONING_EFFORT: Literal["high"] = "high"
RETRIEVAL_K = 5  # prior-work abstracts per idea in the retrieval cells
HUMAN_ONLY = "iclr2026/human_only"
HUMAN_GENERATED = "iclr2026/human_generated"  # one bundled subfolder per ideation backbone

# Options the study sets per cell (the change) or for the whole study (the judge): not -T options.
FIXED: dict[str, str] = {
    "prompt": "P1-P5 are cells of their own",
    "idea_format": "the plan format is a cell of its own",
    "retrieval": f"retrieval (k = {RETRIEVAL_K}) is a cell of its own",
    "judge": "the study runs the prompted judge",
}


@dataclass(frozen=True)
class Change:
    """One controlled change of the reference configuration: its name, the task options it sets."""

    name: str
    options: Mapping[str, Any]
    description: str


def changes(kind: str) -> tuple[Change, ...]:
    """The changes of one format, the reference first: every prompt variant, plans, retrieval."""
    out = [
        Change(
            name,
            {"prompt": name},
            "the reference prompt" if name == "reference" else f"prompt {name}",
        )
        for name in prompt_names(kind)
    ]
    out.append(Change("plan", {"idea_format": "plan"}, "ideas as plans"))
    out.append(
        Change("retrieval", {"retrieval": RETRIEVAL_K}, f"top-{RETRIEVAL_K} prior work per idea")
    )
    return tuple(out)


def change(kind: str, name: str) -> Change:
    """The change `name` of format `kind` (a ValueError for an unknown one)."""
    for c in changes(kind):
        if c.name == name:
            return c
    raise ValueError(f"no {kind} change {name!r} in the study")


def cell_name(kind: str, change_name: str) -> str:
    """The task name of a cell, e.g. `study_pairwise_p1_no_guardrails`."""
    return f"study_{kind}_{change_name}"


def kind_options(kind: str) -> frozenset[str]:
    """The -T options a cell of format `kind` takes: its novelty task's, less the fixed ones, the
    other format's own and the judge options the prompted judge does not honour."""
    params = inspect.signature(TASKS[f"novelty_{kind}"]).parameters
    return frozenset(
        p
        for p in params
        if p not in FIXED
        and KIND_ONLY.get(p, kind) == kind
        and (p not in OPTION_DEFAULTS or p in judge_spec("prompted").options)
    )


def study_options() -> frozenset[str]:
    """Every -T option some cell of the study takes."""
    return frozenset().union(*(kind_options(k) for k in KINDS))


def route_options(kind: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """The options of `options` a cell of format `kind` takes; one line refusing any no cell takes."""
    fixed = sorted(k for k in options if k in FIXED)
    if fixed:
        key = fixed[0]
        raise TaskOptionError(f"-T {key}: the reference study sets it ({FIXED[key]})")
    known = study_options()
    unknown = sorted(k for k in options if k not in known)
    if unknown:
        raise TaskOptionError(
            f"-T {', '.join(unknown)}: no task of the reference study takes "
            f"{'it' if len(unknown) == 1 else 'them'}; its cells take {', '.join(sorted(known))}"
        )
    return kind_own(kind, options)


def study_task(kind: str, change_name: str, options: Mapping[str, Any]) -> Task:
    """The Task of one cell: the novelty task with the reference configuration, the change applied,
    the options it takes from `options`; the change recorded in the task metadata (`study`)."""
    c = change(kind, change_name)
    args = {"k": REFERENCE_K, **route_options(kind, options), **c.options}
    built = TASKS[f"novelty_{kind}"](**args)
    meta = dict(built.metadata or {})
    meta["judgeaudit"] = {
        **meta.get("judgeaudit", {}),
        "study": {"cell": cell_name(kind, change_name), "change": c.name, "reference": "reference"},
    }
    return task_with(
        built,
        config=built.config.merge(GenerateConfig(reasoning_effort=REASONING_EFFORT)),
        metadata=meta,
    )


@dataclass(frozen=True)
class Cell:
    """One cell of a study run: a format and a change on one data set."""

    kind: str
    change: str
    dataset: str

    @property
    def name(self) -> str:
        """The cell's task name."""
        return cell_name(self.kind, self.change)


def bundled_sets() -> list[str]:
    """The bundled sets of the study: Human-Only, then every bundled Human+Generated backbone set."""
    root = datasets_root() / HUMAN_GENERATED
    backbones = sorted(
        d.name for d in root.iterdir() if d.is_dir() and (d / "pairwise.jsonl").is_file()
    )
    return [HUMAN_ONLY, *(f"{HUMAN_GENERATED}/{b}" for b in backbones)]


def has_format(dataset: str, kind: str, idea_format: str) -> bool:
    """Whether `dataset` holds the `kind` file of `idea_format`."""
    try:
        resolve_dataset_file(locate_dataset(dataset), kind, idea_format)
    except FileNotFoundError:
        return False
    return True


def study_cells(datasets: Sequence[str]) -> tuple[list[Cell], list[str]]:
    """(the cells of the study on `datasets`, one line per cell left out): a set lacking a format's
    file is refused in one line; a set without plan files has no plan cells (each skip stated)."""
    if not datasets:
        raise TaskOptionError("the study needs at least one data set")
    cells: list[Cell] = []
    skipped: list[str] = []
    for dataset in dict.fromkeys(datasets):
        for kind in KINDS:
            try:
                resolve_dataset_file(locate_dataset(dataset), kind)
            except FileNotFoundError as exc:
                raise TaskOptionError(f"--dataset {dataset}: {exc}") from None
            for c in changes(kind):
                fmt = str(c.options.get("idea_format", "abstract"))
                if fmt != "abstract" and not has_format(dataset, kind, fmt):
                    skipped.append(
                        f"{cell_name(kind, c.name)} on {dataset}: no {kind}_{fmt}.jsonl "
                        f"(build it with `judgeaudit mine plan --dataset ... --model MODEL`)"
                    )
                    continue
                cells.append(Cell(kind, c.name, dataset))
    return cells, skipped


# The eval-set file (tasks/reference_study.py) names its sets by data setup: these -T options.
SLOTS: tuple[str, ...] = ("human_only", "human_generated")


def slot_sets(options: Mapping[str, Any]) -> dict[str, str]:
    """The set of each data setup of the eval-set file: `-T human_only=` / `-T human_generated=`,
    else the bundled Human-Only set and the first bundled backbone set."""
    bundled = bundled_sets()
    defaults = {"human_only": bundled[0], "human_generated": bundled[1]}
    return {slot: str(options.get(slot) or defaults[slot]) for slot in SLOTS}


def slot_task(slot: str, kind: str, change_name: str, options: Mapping[str, Any]) -> Task:
    """A cell of the eval-set file: the study cell on the set of data setup `slot`."""
    if "dataset" in options:
        raise TaskOptionError(
            "-T dataset: the reference study's eval-set file takes its sets as "
            "-T human_only=... and -T human_generated=... (or run `judgeaudit study run --dataset ...`)"
        )
    rest = {k: v for k, v in options.items() if k not in SLOTS}
    return study_task(kind, change_name, {**rest, "dataset": slot_sets(options)[slot]})
