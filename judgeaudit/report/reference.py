"""`--reference` of `judgeaudit report`: a configuration name, a variant name, or `key=value` pairs.

The pairs (`prompt=reference`, `prompt=reference,k=3`) are matched against each configuration's
task arguments including the task's defaults and what the judge recorded per sample (prompt, k,
...), so `prompt=reference` finds the reference run of a grid task (`pairwise_reference`) and of a
run with other `-T` options. Each model gets its own matching configuration; when several match,
the one closest to the defaults wins (an exact tie is an error).
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
import yaml

from judgeaudit.errors import UserError
from judgeaudit.report.frame import SEP, format_value, task_defaults

# Per-sample fields the judge records; they override the task args (a grid task passes none).
RECORDED: tuple[str, ...] = (
    "prompt",
    "k",
    "both_orders",
    "split_rule",
    "judge",
    "idea_format",
    "probe",
)
# Parts of a variant name the report derives (recomputed aggregations, epochs): never the defaults.
DERIVED: frozenset[str] = frozenset({"agg", "epochs", "epoch"})


class UnknownReferenceError(UserError, KeyError):
    """A --reference that names no configuration, or several of one model; the message lists the choices."""

    def __str__(self) -> str:
        """The message as given (a KeyError would quote it)."""
        return str(self.args[0]) if self.args else ""


def parse_pairs(reference: str) -> dict[str, str] | None:
    """`key=value` pairs separated by ',' or ' · ', values normalised; None when `reference` is not of that form."""
    parts = [p.strip() for chunk in reference.split(",") for p in chunk.split(SEP.strip())]
    pairs: dict[str, str] = {}
    for part in parts:
        key, sep, value = part.partition("=")
        if not sep or not key.strip():
            return None
        try:
            parsed = yaml.safe_load(value.strip())
        except yaml.YAMLError:
            parsed = value.strip()
        pairs[key.strip().replace("-", "_")] = _text(parsed)
    return pairs or None


def _text(value: Any) -> str:
    return "none" if value is None else format_value(value)


def _defaults(task: str, kind: str) -> dict[str, Any]:
    """The task's defaults; a task of another file (an eval-set grid cell) gets those of the judge task it wraps."""
    return task_defaults(task) or task_defaults(f"novelty_{kind}") or {}


def config_args(rows: pd.DataFrame) -> dict[str, tuple[str, dict[str, str], int]]:
    """Per configuration: its model, its effective arguments as text, and how many differ from the defaults."""
    out: dict[str, tuple[str, dict[str, str], int]] = {}
    for _, row in rows.drop_duplicates("config").iterrows():
        defaults = _defaults(str(row["task"]), str(row["kind"]))
        args: dict[str, Any] = {**defaults, **json.loads(row["task_args"] or "{}")}
        for key in RECORDED:
            value = row.get(key)
            if value is not None and not (isinstance(value, float) and pd.isna(value)):
                args[key] = value
        if row.get("dataset_arg") not in (
            None,
            "None",
        ):  # the dataset the run used, given or default
            args["dataset"] = row["dataset_arg"]
        text = {k: _text(v) for k, v in args.items()}
        text.setdefault("probe", "none")
        changed = sum(
            1 for k, v in text.items() if k != "probe" and k in defaults and v != _text(defaults[k])
        )
        changed += text["probe"] != "none"
        for part in str(row["variant"]).split(
            SEP
        ):  # names the report adds: agg=..., epochs=..., epoch=...
            key, _, value = part.partition("=")
            if key in DERIVED:
                text[key] = value
                changed += 1
        text.update(task=str(row["task"]), model=str(row["model"]), variant=str(row["variant"]))
        out[str(row["config"])] = (str(row["model"]), text, changed)
    return out


def match_pairs(rows: pd.DataFrame, pairs: dict[str, str]) -> dict[str, str]:
    """Each model's configuration matching every pair (the one closest to the defaults); {} when none does."""
    best: dict[str, list[tuple[int, str]]] = {}
    for config, (model, args, changed) in config_args(rows).items():
        if all(args.get(k) == v for k, v in pairs.items()):
            best.setdefault(model, []).append((changed, config))
    out = {}
    for model, found in best.items():
        found.sort()
        if len(found) > 1 and found[0][0] == found[1][0]:
            names = [c for n, c in found if n == found[0][0]]
            raise UnknownReferenceError(
                f"--reference {format_pairs(pairs)!r} matches several configurations of {model}: "
                f"{', '.join(names)}; add key=value pairs to pick one"
            )
        out[model] = found[0][1]
    return out


def format_pairs(pairs: dict[str, str]) -> str:
    """The pairs as `k=v,k=v`."""
    return ",".join(f"{k}={v}" for k, v in pairs.items())


def known(rows: pd.DataFrame, reference: str) -> bool:
    """Whether `reference` names a configuration or variant of `rows` (one kind and dataset), or its pairs match one."""
    if reference in set(rows["config"]) or reference in set(rows["variant"]):
        return True
    pairs = parse_pairs(reference)
    return bool(pairs and match_pairs(rows, pairs))


def check_reference(frame: pd.DataFrame, reference: str | None) -> None:
    """One-line KeyError listing the variant names when `reference` matches nothing in any group of the frame."""
    if reference is None or any(
        known(sub, reference) for _, sub in frame.groupby(["kind", "dataset"])
    ):
        return
    variants = sorted(set(frame["variant"]))
    raise UnknownReferenceError(
        f"--reference {reference!r} matches no configuration, variant or key=value set of task args; "
        f"variants: {'; '.join(variants)} (or a configuration: MODEL{SEP}VARIANT)"
    )
