"""Inspect logs -> one tidy per-item DataFrame (one row per log x sample).

Reads only what SCORE_SCHEMA.md promises: `eval.task`, `eval.task_args`, `eval.model`,
`eval.model_generate_config`, our task metadata, sample ids and metadata, per-sample `model_usage`,
and the `novelty` score, joined into one record per judged unit by `judges.scorer.read_unit`
(logs of the previous schema `judgeaudit.score/1` are read too). Logs that are not ours, not finished, or
superseded by a newer log of the same configuration are skipped and counted with a reason.

Logs with status `error` are read too: a judge whose calls failed errors its samples (so the
eval's status is `error`), and the judge tasks score them anyway (`score_on_error`), as verdict
`error` with every call kept. Such a log's scored samples are rows like any other (their error
items count in the error-rate column) and the log is listed in `LoadResult.error_logs` with its
cause. A log with status `error` and no usable sample (none scored, or no judge call recorded in
any: the judge failed before calling a model, e.g. a solver bug) is one counted skip naming the
file and the log's own error cause.

Logs that stopped before every sample finished (status `cancelled` after a Ctrl-C, `started` after
a kill or while still running, or an eval that errored early) are read for the samples they
finished. Each sample of the log's dataset (`eval.dataset.sample_ids`, every epoch) with no sample
in the log is *missing* from that configuration: it is an `error` item of the configuration
(`not_run_rows`, cause `not run: ...`) when another row names its item (same kind, dataset and
item id, which gives its gold), so the configuration keeps its items and counts them in its error
rate; the log's entry in `LoadResult.partial_logs` names every missing sample either way (a log a
newer one of its configuration supersedes is named only as superseded).
"""

from __future__ import annotations

import ast
import functools
import inspect
import json
import math
import re
from collections.abc import Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from judgeaudit.arms.base import split_sample_id
from judgeaudit.errors import UserError
from judgeaudit.forked import fork_map, usable_cores
from judgeaudit.judges.scorer import SCHEMA, errored_unit, is_unit, read_unit, task_fields
from judgeaudit.judges.tasks import TASKS
from judgeaudit.report.logread import NotFast, read_fast
from judgeaudit.resources import datasets_root

SCORER = "novelty"
POOL_REDUCER = "pool_calls"  # judgeaudit.judges.scorer.pool_calls: all epochs' calls in one verdict
# Task args that never name a configuration: where the items come from (the dataset column)
# and bookkeeping that does not change a verdict.
# The probe is named per sample from its judged-unit record (probe and arm, sample metadata),
# not from the task args.
# A panel's members (`panel`) are named by its model label (`panel_label`), not by its variant.
HIDDEN_ARGS: frozenset[str] = frozenset({"dataset", "cache", "resamples", "probe", "panel"})
# Always shown, even at their defaults, so every name says which prompt and k it used.
ALWAYS_ARGS: tuple[str, ...] = ("prompt", "k")
# Generation settings that change verdicts (shown when set); operational ones are not.
GENERATE_FIELDS: tuple[str, ...] = (
    "temperature",
    "top_p",
    "top_k",
    "max_tokens",
    "reasoning_effort",
    "reasoning_tokens",
    "effort",
    "seed",
)
DEFAULT_TASKS: frozenset[str] = frozenset({"novelty_pairwise", "novelty_pointwise"})
READ_STATUSES: tuple[str, ...] = ("success", "error", "cancelled", "started")  # every status
NOT_RUN = "not run: the log is {status} and this sample never finished"
NO_CAUSE = "no cause recorded"
# Sample fields the report never reads: the conversation, the transcript and the like, which hold
# nearly all of a log's text. They are skipped while a log is parsed (Inspect's `exclude_fields`);
# `input` and `target` stay, as Inspect requires them, and are dropped with the log once its rows
# are made. What is read: id, epoch, scores, metadata, model and role usage, error.
UNREAD_SAMPLE_FIELDS: frozenset[str] = frozenset(
    {
        "messages",
        "events",
        "output",
        "store",
        "attachments",
        "timelines",
        "events_data",
        "choices",
        "sandbox",
        "files",
        "setup",
    }
)
# A call record's text the report never reads (the model's raw reply): not kept in the frame, so
# the frame's size follows the number of judged units and calls, not the length of the replies.
UNREAD_CALL_FIELDS: tuple[str, ...] = ("raw",)
LOG_READERS = 4  # logs parsed at once (reading waits on decompression and I/O more than on Python)
LOG_WINDOW = 8  # logs read ahead of the one being turned into rows (bounds the memory held)
PROCESS_MIN_LOGS = 16  # logs per worker process that pay for starting it (`read_logs`)
_WRAPPED_MESSAGE = re.compile(r"^\w+\((['\"])(.*)\1\)$", re.DOTALL)  # Inspect's `Type('message')`
# What Inspect records for a sample cut off by a Ctrl-C (an async cancellation), and our line for it.
_CANCELLED_MESSAGE = re.compile(r"^Cancelled\b.*cancel scope", re.DOTALL)
CANCELLED_SAMPLE = "cancelled (Ctrl-C) before it finished"
SEP = " · "

COLUMNS: tuple[str, ...] = (
    "log",
    "eval_id",
    "created",
    "epochs",
    "task",
    "task_args",
    "model",
    "model_id",
    "variant",
    "config",
    "kind",
    "dataset",
    "dataset_arg",
    "sample_id",
    "item_id",
    "setup",
    "area",
    "gold",
    "verdict",
    "calls",
    "call_verdicts",
    "k",
    "both_orders",
    "split_rule",
    "split",
    "judge",
    "prompt",
    "idea_format",
    "probe",
    "probe_variant",
    "probe_target",
    "human",
    "scores",
    "input_tokens",
    "output_tokens",
    "total_tokens",
    "cost",
    "panel",
    "sample_error",
    "study_change",
)


class ReportInputError(UserError, ValueError):
    """Logs the report cannot use as they are (missing score fields, duplicate items, no results)."""


@dataclass
class LoadResult:
    """The frame plus what was skipped and why (reported, never silent)."""

    frame: pd.DataFrame
    logs_read: list[str] = field(default_factory=list)
    skipped_logs: list[dict[str, str]] = field(default_factory=list)
    skipped_samples: list[dict[str, str]] = field(default_factory=list)
    error_logs: list[dict[str, Any]] = field(default_factory=list)  # read logs with status error
    # samples whose stored verdict this version reads otherwise (`report.aggregations.reconcile_stored`)
    reaggregated: list[dict[str, str]] = field(default_factory=list)
    # logs the fast reader left to Inspect's reader, and why (`read_log`)
    inspect_reads: list[dict[str, str]] = field(default_factory=list)
    # logs missing samples of their dataset (cancelled, started, stopped early): `partial_entry`
    partial_logs: list[dict[str, Any]] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        """JSON-ready account of the input."""
        read_by = {"read_by_inspect": self.inspect_reads} if self.inspect_reads else {}
        return {
            "logs_read": len(self.logs_read),
            "rows": int(len(self.frame)),
            "error_logs": self.error_logs,
            "partial_logs": self.partial_logs,
            "skipped_logs": self.skipped_logs,
            "skipped_samples": self.skipped_samples,
            "reaggregated": self.reaggregated,
            **read_by,
        }


def short_task(task: str) -> str:
    """Task name without its package prefix (`judgeaudit/novelty_pairwise` -> `novelty_pairwise`)."""
    return task.rsplit("/", 1)[-1].replace("-", "_")


def short_model(model: str) -> str:
    """Model name without provider path (`litellm/openai/gpt-4o` -> `gpt-4o`)."""
    return model.rstrip("/").rsplit("/", 1)[-1]


def member_label(name: str, model: str) -> str:
    """A panel member's model name in a report: its name when it was given one, else the short model name."""
    return short_model(model) if name == model else name


def member_id(name: str, model: str, model_args: Mapping[str, Any] | None = None) -> str:
    """A panel member's full model id: the model, its model args and its name when it was given one."""
    args = ",".join(f"{k}={format_value(v)}" for k, v in sorted((model_args or {}).items()))
    return model + (f"[{args}]" if args else "") + ("" if name == model else f" as {name}")


def panel_label(spec: Mapping[str, Any]) -> tuple[str, str]:
    """(model, model id) of a panel in a report, from its task metadata `panel`: `panel(<member>+...)`
    with the members' short names, and with their full ids (`member_id`)."""
    names, models = list(spec["members"]), list(spec["models"])
    args = list(spec.get("model_args") or [{}] * len(names))
    short = "+".join(member_label(n, m) for n, m in zip(names, models, strict=True))
    full = "+".join(member_id(n, m, a) for n, m, a in zip(names, models, args, strict=True))
    return f"panel({short})", f"panel({full})"


def role_usage(samples: list[Any], roles: Iterable[str]) -> dict[str, dict[str, float]]:
    """Per model role (a panel's members), tokens and USD cost summed over samples (`_usage`)."""
    out = {}
    for role in roles:
        inp, out_, tot, cost = _usage(samples, role)
        out[role] = {"input_tokens": inp, "output_tokens": out_, "total_tokens": tot, "cost": cost}
    return out


@functools.lru_cache(maxsize=1)
def bundled_sets() -> dict[Path, str]:
    """The bundled sets (`resources.datasets_root`): resolved directory -> set name (`iclr2026/human_only`)."""
    root = datasets_root().resolve()
    return {
        d.parent.resolve(): d.parent.relative_to(root).as_posix()
        for d in root.glob("*/*/pairwise.jsonl")
    }


def dataset_label(value: Any) -> str:
    """Readable dataset name: bundled names as given; a set given by path by where it came from: the
    bundled set's name when the path is a bundled set, else its directory's name, or, where that
    name is also a bundled set's (`human_only`), the directory with its parent (`.../mine/human_only`)."""
    if value is None:
        return "default"
    text = str(value)
    path = Path(text)
    if path.suffix == ".jsonl":
        path = path.parent
    elif not (path.is_absolute() or text.startswith(".")):
        return text
    bundled = bundled_sets()
    if path.resolve() in bundled:
        return bundled[path.resolve()]
    name = path.name or text
    if name in {n.rsplit("/", 1)[-1] for n in bundled.values()}:
        return f".../{path.parent.name}/{name}" if path.parent.name else name
    return name


def used_dataset(
    task: str, task_args: Mapping[str, Any], task_metadata: Mapping[str, Any] | None
) -> Any:
    """The dataset a run used: its `-T dataset`, else the one our task recorded in its metadata
    (a grid cell run without `-T dataset` uses its default), else the task's default, else None."""
    if task_args.get("dataset") is not None:
        return task_args["dataset"]
    recorded = ((task_metadata or {}).get("judgeaudit") or {}).get("dataset")
    if recorded is not None:
        return recorded
    return (task_defaults(task) or {}).get("dataset")


def format_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return ",".join(format_value(v) for v in value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def task_defaults(task: str) -> dict[str, Any] | None:
    """Default arguments of one of our tasks (`judgeaudit.judges.tasks.TASKS`), or None for another task."""
    fn = TASKS.get(short_task(task))
    if fn is None:
        return None
    params = inspect.signature(fn).parameters.values()
    return {p.name: p.default for p in params if p.default is not inspect.Parameter.empty}


def variant_name(
    task: str,
    task_args: Mapping[str, Any],
    passed: Iterable[str] | None,
    generate: Mapping[str, Any],
    defaults: Mapping[str, Any] | None,
) -> str:
    """Readable, stable name of a configuration apart from its model.

    Shows the task when it is not one of the default judge tasks, `prompt` and `k` always,
    other task args when they differ from the task's defaults (from its signature, else
    from which args were passed), and verdict-changing generation settings that are set.
    """
    parts: list[str] = []
    name = short_task(task)
    if name not in DEFAULT_TASKS:
        parts.append(name)
    passed_set = set(passed) if passed is not None else set(task_args)
    for key in ALWAYS_ARGS:
        if key in task_args:
            parts.append(f"{key}={format_value(task_args[key])}")
    for key in sorted(task_args):
        if key in HIDDEN_ARGS or key in ALWAYS_ARGS:
            continue
        value = task_args[key]
        if defaults is not None and key in defaults:
            if value == defaults[key]:
                continue
        elif key not in passed_set:
            continue
        if value is None:
            continue
        parts.append(f"{key}={format_value(value)}")
    for key in GENERATE_FIELDS:
        value = generate.get(key)
        if value is not None:
            parts.append(f"{key}={format_value(value)}")
    return SEP.join(parts) if parts else "default"


def probe_label(probe: str | None, variant: str | None) -> str | None:
    """`probe=position/order_ba` for a probe arm, None for an unperturbed run."""
    if not probe:
        return None
    return f"probe={probe}/{variant}" if variant else f"probe={probe}"


def _usages(sample: Any, role: str | None) -> list[Any]:
    """A sample's `ModelUsage` entries: of every model, or of one model role."""
    if role is None:
        return list((getattr(sample, "model_usage", None) or {}).values())
    usage = (getattr(sample, "role_usage", None) or {}).get(role)
    return [usage] if usage is not None else []


def _usage(samples: list[Any], role: str | None = None) -> tuple[float, float, float, float]:
    """Tokens and USD cost summed over samples (epochs), of every model, or of one model role.

    A sample with no model usage at all made no billed call (its calls were served from
    Inspect's cache): it costs 0. Usage reported without a price makes the cost unknown (NaN).
    """
    inp = out = tot = 0.0
    cost = 0.0
    cost_known = True
    for sample in samples:
        for u in _usages(sample, role):
            inp += u.input_tokens or 0
            out += u.output_tokens or 0
            tot += u.total_tokens or 0
            if u.total_cost is None:
                cost_known = False
            else:
                cost += u.total_cost
    return inp, out, tot, (cost if cost_known else math.nan)


def _pooled_scores(log: Any) -> dict[str, Any] | None:
    """Per-sample `novelty` scores pooled over epochs by the tasks' `pool_calls` reducer, if the log has them.

    Other reducers (mean, mode, ...) keep one epoch's metadata beside an averaged value, so
    their per-sample records are not a verdict of all calls and are not used.
    """
    for reduction in log.reductions or []:
        if reduction.scorer != SCORER or reduction.reducer != POOL_REDUCER:
            continue
        pooled = {str(s.sample_id): s for s in reduction.samples}
        task = task_fields(log.eval.metadata)
        if pooled and all(is_unit(task, s) for s in pooled.values()):
            return pooled
    return None


def _units(log: Any, epochs: int) -> list[tuple[str, int | None, Any, list[Any]]]:
    """(sample id, epoch or None, score, samples) per judged unit.

    With several epochs, the task's pooled reduction (all epochs' calls in one verdict, see
    `pool_calls`) is used when present; otherwise every epoch is its own run (`epoch=<n>`).
    """
    samples = list(log.samples or [])
    pooled = _pooled_scores(log) if epochs > 1 else None
    if pooled is None:
        return [
            (str(s.id), s.epoch if epochs > 1 else None, (s.scores or {}).get(SCORER), [s])
            for s in samples
        ]
    by_id: dict[str, list[Any]] = {}
    for s in samples:
        by_id.setdefault(str(s.id), []).append(s)
    return [(sid, None, pooled.get(sid), group) for sid, group in by_id.items()]


def lean_call(call: Mapping[str, Any]) -> dict[str, Any]:
    """A call record without the text the report never reads (`UNREAD_CALL_FIELDS`)."""
    return {k: v for k, v in call.items() if k not in UNREAD_CALL_FIELDS}


def call_summary(calls: list[dict[str, Any]]) -> str:
    """Compact per-call verdicts, e.g. `ab#0:a,ba#0:tie`."""
    return ",".join(f"{c.get('order')}#{c.get('call_index', 0)}:{c.get('verdict')}" for c in calls)


def _ours(log: Any) -> bool:
    task = task_fields(log.eval.metadata)
    return any(is_unit(task, (sample.scores or {}).get(SCORER)) for sample in log.samples or [])


def study_change(task: Mapping[str, Any] | None) -> str | None:
    """The controlled change a cell of the reference study makes (`p1_no_guardrails`, `plan`, ...),
    from our task metadata (`judgeaudit.study.protocol.study_task`); None for any other run."""
    study = (task or {}).get("study")
    change = study.get("change") if isinstance(study, Mapping) else None
    return str(change) if change is not None else None


def log_fields(log: Any) -> dict[str, Any]:
    """The columns every row of one log shares (its configuration apart from a probe arm or epoch)."""
    ev = log.eval
    task_args = dict(ev.task_args or {})
    generate = ev.model_generate_config.model_dump() if ev.model_generate_config is not None else {}
    passed = getattr(ev, "task_args_passed", None)
    variant = variant_name(ev.task, task_args, passed, generate, task_defaults(ev.task))
    dataset = used_dataset(ev.task, task_args, ev.metadata)
    epochs = int(getattr(ev.config, "epochs", None) or 1)
    if epochs > 1 and _pooled_scores(log) is not None:
        variant = f"{variant}{SEP}epochs={epochs}"
    task = task_fields(ev.metadata) or {}
    panel = task.get("panel")
    model, model_id = panel_label(panel) if panel else (short_model(ev.model), ev.model)
    return {
        "log": str(log.location),
        "eval_id": ev.eval_id,
        "created": ev.created,
        "task": short_task(ev.task),
        "task_args": json.dumps(task_args, sort_keys=True, default=str),
        "model": model,
        "model_id": model_id,
        "variant": variant,
        "config": "",  # filled once all judges are known
        "kind": task.get("kind"),
        "dataset": dataset_label(dataset),
        "dataset_arg": str(dataset),
        "panel": {**panel, "usage": role_usage([], panel["members"])} if panel else None,
        "study_change": study_change(task),
    }


def rows_from_log(log: Any, skipped_samples: list[dict[str, str]]) -> list[dict[str, Any]]:
    """One row per scored sample of a judgeaudit log (unscored samples are recorded as skipped)."""
    ev = log.eval
    shared = log_fields(log)
    variant, location = shared["variant"], shared["log"]
    epochs = int(getattr(ev.config, "epochs", None) or 1)
    task = task_fields(ev.metadata)
    rows = []
    for sample_id, epoch, score, samples in _units(log, epochs):
        errors = [error_message(s.error) or NO_CAUSE for s in samples if s.error]
        unit = read_unit(task, samples[0].metadata, score)
        if unit is None and errors:  # errored before it was scored: an error item, not a skip
            unit = errored_unit(task, samples[0].metadata, _gold(samples[0]), errors[0])
        meta = unit or {}
        if unit is None:
            reason = (
                f"sample error: {errors[0]}"
                if errors
                else f"no '{SCORER}' score with schema {SCHEMA}"
            )
            skipped_samples.append({"log": location, "sample_id": sample_id, "reason": reason})
            continue
        missing = [
            k for k in ("kind", "item_id", "gold", "verdict", "calls") if meta.get(k) is None
        ]
        if missing:
            raise ReportInputError(
                f"{location}: sample {sample_id!r}: the judged unit lacks {missing} "
                "(score, sample or task metadata; SCORE_SCHEMA.md)"
            )
        arm = probe_label(meta.get("probe"), meta.get("probe_variant"))
        sample_variant = variant if arm is None else f"{variant}{SEP}{arm}"
        if epoch is not None:  # epochs not pooled by the task: each epoch is its own run
            sample_variant = f"{sample_variant}{SEP}epoch={epoch}"
        inp, out, tot, cost = _usage(samples)
        calls = [lean_call(c) for c in meta["calls"]]
        panel = meta.get("panel")
        model, model_id = panel_label(panel) if panel else (shared["model"], shared["model_id"])
        rows.append(
            {
                **shared,
                "epochs": len(samples) if epoch is None else 1,
                "model": model,
                "model_id": model_id,
                "variant": sample_variant,
                "kind": meta["kind"],
                "sample_id": sample_id,
                "item_id": str(meta["item_id"]),
                "setup": meta.get("setup"),
                "area": meta.get("area"),
                "gold": meta["gold"],
                "verdict": meta["verdict"],
                "calls": calls,
                "call_verdicts": call_summary(calls),
                "k": meta.get("k"),
                "both_orders": meta.get("both_orders"),
                "split_rule": meta.get("split_rule"),
                "split": bool(meta.get("split", False)),
                "judge": meta.get("judge"),
                "prompt": meta.get("prompt"),
                "idea_format": meta.get("idea_format"),
                "probe": meta.get("probe"),
                "probe_variant": meta.get("probe_variant"),
                "probe_target": meta.get("probe_target"),
                "human": meta.get("human") or {},
                "scores": meta.get("scores") or {},
                "input_tokens": inp,
                "output_tokens": out,
                "total_tokens": tot,
                "cost": cost,
                # a panel's rule and members (task metadata) and each member's usage (its model role)
                "panel": {**panel, "usage": role_usage(samples, panel["members"])}
                if panel
                else None,
                "sample_error": errors[0] if errors else None,
            }
        )
    return rows


def missing_samples(log: Any) -> list[str]:
    """Sample ids of the log's dataset (`eval.dataset.sample_ids`) with fewer samples in the log
    than its epochs: never run, or cut off by a Ctrl-C or a kill. [] when the log does not say."""
    expected = getattr(getattr(log.eval, "dataset", None), "sample_ids", None) or []
    epochs = int(getattr(log.eval.config, "epochs", None) or 1)
    held: dict[str, int] = {}
    for sample in log.samples or []:
        held[str(sample.id)] = held.get(str(sample.id), 0) + 1
    return [str(s) for s in expected if held.get(str(s), 0) < epochs]


def _task_probe(row: Mapping[str, Any]) -> str | None:
    """The probe a row's task ran (its `probe` task arg), None for an unperturbed run."""
    probe = json.loads(row["task_args"]).get("probe")
    return None if probe in (None, "none") else str(probe)


def not_run_rows(
    missing: list[tuple[dict[str, Any], str, str]], rows: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    """An `error` row per missing sample (log fields, sample id, log status) whose item another row
    names (same kind, dataset and item id: its gold and fields), and the (log, sample id) of those no
    row names. A probe run's sample id names its arm (`arms.base.split_sample_id`); the arm's target
    side is taken from a row of the same probe and sample where there is one."""
    if not missing:  # the usual case: no index of every row to build
        return [], []
    items = {(r["kind"], r["dataset_arg"], str(r["item_id"])): r for r in rows}
    arms = {(r["kind"], r["dataset_arg"], _task_probe(r), r["sample_id"]): r for r in rows}
    placed: list[dict[str, Any]] = []
    unplaced: list[tuple[str, str]] = []
    for fields, sample_id, status in missing:
        probe = _task_probe(fields)
        item_id, arm = split_sample_id(sample_id) if probe else (sample_id, None)
        donor = items.get((fields["kind"], fields["dataset_arg"], item_id))
        if donor is None:
            unplaced.append((fields["log"], sample_id))
            continue
        same_arm = arms.get((fields["kind"], fields["dataset_arg"], probe, sample_id)) or {}
        label = probe_label(probe, arm)
        placed.append(
            {
                **dict.fromkeys(COLUMNS),
                **fields,
                **{k: donor[k] for k in ("item_id", "setup", "area", "gold", "human")},
                "idea_format": donor["idea_format"],
                "probe": probe,
                "probe_variant": arm,
                "probe_target": same_arm.get("probe_target"),
                "variant": fields["variant"]
                if label is None
                else f"{fields['variant']}{SEP}{label}",
                "sample_id": sample_id,
                "epochs": 0,
                "verdict": "error",
                "calls": [],
                "call_verdicts": "",
                "split": False,
                "scores": {},
                "input_tokens": 0.0,
                "output_tokens": 0.0,
                "total_tokens": 0.0,
                "cost": 0.0,
                "sample_error": NOT_RUN.format(status=status),
            }
        )
    return placed, unplaced


def partial_entry(
    log: Any, name: str, rows: list[dict[str, Any]], missing: list[str]
) -> dict[str, Any]:
    """The account of a log missing samples of its dataset: its status and cause, how many samples
    it was to hold and how many finished (`rows` without a sample error), its samples that were cut
    off (`interrupted`, error items), the missing sample ids, the items they are error items of
    (`error_item_ids`) and those no other row names (`unplaced`; both filled by `load_frame`)."""
    return {
        "log": name,
        "status": log.status,
        "cause": log_cause(log) if log.status == "error" else f"status {log.status}",
        "expected": len(getattr(log.eval.dataset, "sample_ids", None) or []),
        "finished": sum(1 for r in rows if r["sample_error"] is None),
        "interrupted": sorted(str(r["sample_id"]) for r in rows if r["sample_error"] is not None),
        "missing": missing,
        "error_item_ids": [],
        "unplaced": [],
    }


def _gold(sample: Any) -> str:
    """A sample's gold label (its target)."""
    target = sample.target
    return str(target[0] if isinstance(target, list) and target else target)


def _name_datasets(frame: pd.DataFrame) -> pd.DataFrame:
    """Dataset labels: short names, the full task argument where two datasets share a short name."""
    clash = frame.groupby("dataset")["dataset_arg"].nunique()
    clashing = set(clash[clash > 1].index)
    frame["dataset"] = [
        a if d in clashing else d
        for d, a in zip(frame["dataset"], frame["dataset_arg"], strict=True)
    ]
    return frame


def _name_models(frame: pd.DataFrame) -> pd.DataFrame:
    """Model names: short model names, the full model id where two models share a short name."""
    clash = frame.groupby("model")["model_id"].nunique()
    clashing = set(clash[clash > 1].index)
    frame["model"] = [
        i if m in clashing else m for m, i in zip(frame["model"], frame["model_id"], strict=True)
    ]
    frame["config"] = frame["model"] + SEP + frame["variant"]
    return frame


def _drop_superseded(frame: pd.DataFrame, skipped_logs: list[dict[str, str]]) -> pd.DataFrame:
    """Keep the newest log of each (configuration, dataset, kind); older ones are skipped and reported."""
    logs = frame.drop_duplicates(["log"])[["log", "config", "dataset", "kind", "created"]]
    logs = logs.sort_values(["created", "log"])
    newest = logs.groupby(["config", "dataset", "kind"])["log"].last()
    keep = set(newest.tolist())
    for log in logs["log"]:
        if log not in keep:
            row = logs[logs["log"] == log].iloc[0]
            skipped_logs.append(
                {
                    "log": log,
                    "reason": f"superseded by a newer log of {row['config']!r} on {row['dataset']!r}",
                }
            )
    return frame[frame["log"].isin(keep)].reset_index(drop=True)


def error_message(error: Any) -> str:
    """First line of an Inspect `EvalError`'s message, unwrapped from `Type('...')`, or ""."""
    text = str(getattr(error, "message", "") or "").strip()
    match = _WRAPPED_MESSAGE.match(text)
    if match:  # the repr of the exception's message: read the string literal back
        try:
            text = str(ast.literal_eval(match.group(1) + match.group(2) + match.group(1))).strip()
        except (ValueError, SyntaxError):
            text = match.group(2).strip()
    if _CANCELLED_MESSAGE.match(text):
        return CANCELLED_SAMPLE
    return text.splitlines()[0].strip() if text else ""


def log_cause(log: Any) -> str:
    """One line on why a log did not succeed: the eval's own error, else its first errored
    sample's (a judge whose calls failed errors the sample, not the eval), else `NO_CAUSE`."""
    from inspect_ai.log import read_eval_log

    cause = error_message(getattr(log, "error", None))
    if cause:
        return cause
    samples = getattr(log, "samples", None)
    if samples is None and getattr(log, "location", None):
        samples = read_eval_log(log.location, exclude_fields=set(UNREAD_SAMPLE_FIELDS)).samples
    return next(
        (m for s in samples or () if s.error is not None and (m := error_message(s.error))),
        NO_CAUSE,
    )


def _status_skip(name: str, log: Any) -> dict[str, str]:
    return {"log": name, "reason": f"status {log.status}: {log_cause(log)}"}


def read_log(info: Any) -> tuple[Any, Any, str | None, str | None]:
    """(header, log, None, slow) of one log file: read by the fast reader (`logread.read_fast`), else
    by Inspect's `read_eval_log` without `UNREAD_SAMPLE_FIELDS` (`slow` says why, else None); the log
    is None when its status is not read (`READ_STATUSES`); (None, None, reason, slow) when unreadable."""
    from inspect_ai.log import read_eval_log

    header: Any
    try:
        header = read_fast(info.name, header_only=True)
        if header.status not in READ_STATUSES:
            return header, None, None, None
        return header, read_fast(info.name), None, None
    except NotFast as exc:
        slow = str(exc)
    try:
        header = read_eval_log(info, header_only=True)
        if header.status not in READ_STATUSES:
            return header, None, None, slow
        return header, read_eval_log(info, exclude_fields=set(UNREAD_SAMPLE_FIELDS)), None, slow
    except Exception as exc:  # noqa: BLE001 - an unreadable file is skipped and reported, not fatal
        return None, None, f"unreadable: {type(exc).__name__}: {exc}"[:300], slow


@dataclass
class LogRows:
    """What one log file gives the frame (`log_rows`): its rows, or the reason it is skipped."""

    log: str
    rows: list[dict[str, Any]] = field(default_factory=list)
    unscored: list[dict[str, str]] = field(default_factory=list)  # samples skipped, with reasons
    skip: dict[str, str] | None = None  # the log skipped, with its reason
    error_log: dict[str, Any] | None = None  # a log with status error whose rows are read
    slow: str | None = None  # why Inspect's reader read it (`read_log`), else None
    # a log missing samples of its dataset: its shared fields, the missing sample ids, `partial_entry`
    fields: dict[str, Any] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    partial: dict[str, Any] | None = None


def log_rows(info: Any) -> LogRows:
    """Read one log file (`read_log`) and make its rows (`rows_from_log`), or say why it is skipped;
    the log itself is dropped here, so only rows leave (memory follows judged units, not text)."""
    header, log, unreadable, slow = read_log(info)
    out = LogRows(info.name, slow=slow)
    if unreadable is not None:
        out.skip = {"log": info.name, "reason": unreadable}
        return out
    if log is None:
        out.skip = _status_skip(info.name, header)
        return out
    missing = missing_samples(log) if task_fields(log.eval.metadata) is not None else []
    if not _ours(log) and not (missing and log.status in ("started", "cancelled")):
        out.skip = (
            _status_skip(info.name, log)
            if log.status == "error"
            else {"log": info.name, "reason": f"not a judgeaudit log (no {SCHEMA} scores)"}
        )
        return out
    rows = rows_from_log(log, out.unscored)
    if log.status == "error" and not any(r["calls"] for r in rows) and not missing:
        out.skip = _status_skip(info.name, log)  # no usable sample: one skip, the log's cause
        return out
    if missing:
        out.fields, out.missing = log_fields(log), missing
        out.partial = partial_entry(log, info.name, rows, missing)
    elif not rows:
        out.skip = _status_skip(info.name, log)
        return out
    out.rows = rows
    if log.status == "error":
        errors = sorted(str(r["item_id"]) for r in rows if r["verdict"] == "error")
        out.error_log = {
            "log": info.name,
            "cause": log_cause(log),
            "samples": len(rows),
            "error_items": len(errors),
            "error_item_ids": errors,
        }
    return out


def _fork_workers(logs: int) -> int:
    """Processes to read `logs` log files with: one per usable core, when there are enough logs to
    pay for starting them (`PROCESS_MIN_LOGS` each); else 0 (threads)."""
    if logs < PROCESS_MIN_LOGS:
        return 0
    cores = usable_cores()
    return min(cores, -(-logs // PROCESS_MIN_LOGS)) if cores > 1 else 0


def read_logs(infos: list[Any]) -> Iterator[LogRows]:
    """`log_rows` of each log in turn: in forked worker processes when there are many logs and cores
    (`_fork_workers`; parsing holds the interpreter lock, so threads would not share it), else in
    `LOG_READERS` threads with at most `LOG_WINDOW` logs held ahead of the caller."""
    workers = _fork_workers(len(infos))
    if workers:
        yield from fork_map(log_rows, infos, workers)
        return
    with ThreadPoolExecutor(LOG_READERS) as pool:
        for start in range(0, len(infos), LOG_WINDOW):
            yield from pool.map(log_rows, infos[start : start + LOG_WINDOW])


def load_frame(logdir: str | Path, recursive: bool = True) -> LoadResult:
    """Read every Inspect log under `logdir` into one tidy per-item frame (skips counted and reported).

    Each log file is parsed once, without the fields the report never reads (`read_log`), and
    dropped once its rows are made: memory follows the number of judged units, not the logs' text."""
    from inspect_ai.log import list_eval_logs

    root = Path(logdir)
    if not root.exists():
        raise FileNotFoundError(f"log directory {str(root)!r} does not exist")
    result = LoadResult(pd.DataFrame(columns=list(COLUMNS)))
    rows: list[dict[str, Any]] = []
    pending: list[
        tuple[dict[str, Any], str, str]
    ] = []  # samples missing from a log: `not_run_rows`
    partial: dict[str, dict[str, Any]] = {}  # by log name: `partial_entry`
    infos = list_eval_logs(str(root), recursive=recursive)
    for read in read_logs(infos):
        if read.slow is not None:
            result.inspect_reads.append({"log": read.log, "reason": read.slow})
        if read.skip is not None:
            result.skipped_logs.append(read.skip)
            continue
        if read.partial is not None:
            pending.extend((read.fields, sid, read.partial["status"]) for sid in read.missing)
            partial[read.fields["log"]] = read.partial
        if read.error_log is not None:
            result.error_logs.append(read.error_log)
        result.logs_read.append(read.log)
        result.skipped_samples.extend(read.unscored)
        rows.extend(read.rows)
    placed, unplaced = not_run_rows(pending, rows)
    for row in placed:
        ids = partial[row["log"]]["error_item_ids"]
        ids[:] = sorted({*ids, str(row["item_id"])})
    for log, sample_id in unplaced:
        partial[log]["unplaced"].append(sample_id)
    result.partial_logs = list(partial.values())
    rows.extend(placed)
    if not rows:
        return result
    frame = pd.DataFrame(rows, columns=list(COLUMNS))
    frame = _name_datasets(_name_models(frame))
    frame = _drop_superseded(frame, result.skipped_logs)
    superseded = {s["log"] for s in result.skipped_logs if s["reason"].startswith("superseded")}
    result.partial_logs = [e for log, e in partial.items() if log not in superseded]
    dup = frame[frame.duplicated(["config", "dataset", "kind", "item_id"], keep=False)]
    if not dup.empty:
        first = dup.iloc[0]
        same = dup[(dup["config"] == first["config"]) & (dup["item_id"] == first["item_id"])]
        raise ReportInputError(
            f"{first['log']}: item {first['item_id']!r} appears {len(same)} times in configuration "
            f"{first['config']!r} (samples {sorted(same['sample_id'])}); a probe arm needs its own probe_variant"
        )
    result.frame = frame.sort_values(["kind", "dataset", "config", "item_id"]).reset_index(
        drop=True
    )
    return result
