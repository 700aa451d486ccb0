"""Locate shipped resources (prompts, bundled datasets) in a checkout or an installed wheel."""

from __future__ import annotations

import shlex
from importlib.resources import as_file, files
from importlib.resources.abc import Traversable
from pathlib import Path


def prompts_root() -> Traversable:
    """The root of the shipped `prompts/` tree."""
    return files("judgeaudit.prompts")


def read_prompt(relative: str) -> str:
    """Text of a prompt file, e.g. 'judge/pairwise/reference.txt'; clear error if absent."""
    node = prompts_root()
    for part in relative.split("/"):
        node = node / part
    if not node.is_file():
        raise FileNotFoundError(f"no prompt file {relative!r} under prompts/")
    return node.read_text(encoding="utf-8")


def datasets_root() -> Path:
    """Filesystem path of the shipped `datasets/` tree (wheel install or source checkout).

    The top-level `datasets/` folder has no `__init__.py`, so it can never shadow the
    Hugging Face `datasets` library when Python runs from the checkout root. In a wheel it
    is the namespace portion `judgeaudit/bundled_datasets`; in a source or editable
    checkout it is the folder next to the package.
    """
    installed = Path(__file__).resolve().parent / "bundled_datasets"
    if installed.is_dir():
        return installed
    checkout = Path(__file__).resolve().parent.parent / "datasets"
    if checkout.is_dir():
        return checkout
    with as_file(files("judgeaudit.bundled_datasets")) as path:
        return Path(path)


def locate_set(dataset: str) -> Path | None:
    """The path `dataset` names if it exists, else the bundled set (or file) of that name, else None."""
    for path in (Path(dataset), datasets_root() / dataset):
        if path.exists():
            return path
    return None


def resolve_dataset_file(dataset: str, kind: str, idea_format: str = "abstract") -> Path:
    """Path of a pairwise/pointwise file for a bundled set name (e.g. 'iclr2026/human_only') or a path.

    `dataset` may be a bundled set name, a directory holding `{kind}.jsonl`, or a JSONL file.
    `idea_format='plan'` selects the `{kind}_plan.jsonl` variant.
    """
    stem = kind if idea_format == "abstract" else f"{kind}_{idea_format}"
    candidate = Path(dataset)
    if candidate.suffix == ".jsonl":
        if not candidate.is_file():
            raise FileNotFoundError(f"dataset file {dataset!r} does not exist")
        return candidate
    for root in (candidate, datasets_root() / dataset):
        if root.is_dir():
            path = root / f"{stem}.jsonl"
            if path.is_file():
                return path
            if idea_format == "plan" and (root / f"{kind}.jsonl").is_file():
                raise FileNotFoundError(missing_plan_message(dataset, root, kind))
            raise FileNotFoundError(f"dataset {dataset!r} has no {stem}.jsonl (looked in {root})")
    raise FileNotFoundError(
        f"unknown dataset {dataset!r}: not a path and not a bundled set under {datasets_root()}"
    )


def missing_plan_message(dataset: str, root: Path, kind: str) -> str:
    """One line for a set without its `{kind}_plan.jsonl`: what is missing and the command that builds it."""
    command = f"judgeaudit mine plan --dataset {shlex.quote(str(root))} --model MODEL"
    return (
        f"dataset {dataset!r} has no {kind}_plan.jsonl (only {kind}.jsonl in {root}); "
        f"build the plan files with `{command}`, or run with idea_format=abstract"
    )
