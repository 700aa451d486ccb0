"""Checks of the novelty tasks' option values when the task is built: one line naming `-T key=value`.

`inspect eval -T ...` reads values as YAML (`5`, `true`, text), so a wrong type arrives as text:
`-T both_orders=maybe` is refused here instead of being read as true, `-T seed=abc` before any
model call instead of after all of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from judgeaudit.arms.transforms import PROBES
from judgeaudit.judges.build import IDEA_FORMATS, locate_dataset
from judgeaudit.judges.kinds import judge_spec
from judgeaudit.judges.options import SPLIT_RULES, TaskDatasetError, TaskOptionError
from judgeaudit.judges.panel_votes import RULES as PANEL_RULES
from judgeaudit.judges.prompts import prompt_names
from judgeaudit.resources import resolve_dataset_file

# Integer options and their least allowed value (max_searches / max_turns: the search judges check them,
# naming their own defaults).
INT_MINIMUMS: dict[str, int] = {
    "k": 1,
    "seed": 0,
    "resamples": 1,
    "retrieval": 0,
    "panel_quorum": 0,
}
BOOL_OPTIONS: tuple[str, ...] = ("both_orders", "cache")
CHOICES: dict[str, tuple[str, ...]] = {
    "split_rule": SPLIT_RULES,
    "idea_format": IDEA_FORMATS,
    "concepts": ("keyphrase", "llm"),
    "panel_rule": PANEL_RULES,
}


def _refuse(key: str, value: Any, why: str) -> TaskOptionError:
    return TaskOptionError(f"-T {key}={value}: {why}")


def _check_int(key: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _refuse(key, value, f"{key} must be an integer, got {value!r}")
    least = INT_MINIMUMS[key]
    if value < least:
        raise _refuse(key, value, f"{key} must be >= {least}")


def check_values(kind: str, judge: str, values: Mapping[str, Any]) -> None:
    """Refuse the first option value of a novelty task that has the wrong type or no meaning."""
    for key, value in values.items():
        if key in INT_MINIMUMS:
            _check_int(key, value)
        elif key in BOOL_OPTIONS and not isinstance(value, bool):
            raise _refuse(key, value, f"{key} must be true or false, got {value!r}")
        elif key in CHOICES and value not in CHOICES[key]:
            raise _refuse(key, value, f"{key} must be one of {', '.join(CHOICES[key])}")
    probe = values.get("probe")
    if probe is not None and probe != "none" and probe not in PROBES:
        raise _refuse("probe", probe, f"unknown probe; choose one of {', '.join(PROBES)}")
    prompt = values.get("prompt", "reference")
    if judge_spec(judge).prompt_variants and prompt not in prompt_names(kind):
        raise _refuse(
            "prompt",
            prompt,
            f"unknown {kind} prompt {prompt!r}; choose one of {', '.join(prompt_names(kind))}",
        )
    dataset = values.get("dataset")
    if dataset is not None:
        if not isinstance(dataset, str):
            raise _refuse(
                "dataset",
                dataset,
                "dataset must be a bundled set name, a set directory or a JSONL file",
            )
        try:
            resolve_dataset_file(
                locate_dataset(dataset), kind, str(values.get("idea_format", "abstract"))
            )
        except (
            FileNotFoundError
        ) as exc:  # stays a FileNotFoundError (no path: the message names it)
            raise TaskDatasetError(f"-T dataset={dataset}: {exc}") from None
