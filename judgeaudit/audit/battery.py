"""`judgeaudit audit`: run the probe battery as one eval-set and assemble the audit card data.

Any judge kind of `judgeaudit.judges.catalog` can be audited (`AuditSpec.judge`, default
`prompted`), with task options (`AuditSpec.judge_options`, the CLI's `-T key=value`) passed to
every task of the battery. Probes that cannot apply to the judge are reported as not
applicable (`probes.applicability`); score judges (no LLM) also get the surface-perturbation
ratio (`probes.surface_ratio`), and run with `--model none`.

The battery is one resumable, cached `inspect_ai.eval_set` (logs under `<out>/logs`) over:
the unperturbed run (seed S), a second unperturbed run with seed S+1 (the `repeat` probe:
identical configuration, a different seed, so Inspect's cache cannot serve one from the
other), and one task per probe (`-T probe=<name>`). The audited items (the first `limit`
items of the dataset) are written to `<out>/items/` so every task and a later resume judge
exactly the same items.

Self-preference over several backbones: `AuditSpec.generated` (the CLI's repeatable
`--generated DIR`) names Human+Generated sets, one per backbone, or directories of them
(e.g. datasets/iclr2026/human_generated/). Their items are merged (`select_generated`) into
`<out>/items/generated/`, and the self-preference task judges those instead of the
dataset's own; the reading compares the judge's own backbone's ideas with the others'.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

import pandas as pd

from judgeaudit.arms.transforms import apply_probe
from judgeaudit.audit.applicability import inapplicable_probes, needs_model
from judgeaudit.audit.display import COMPACT
from judgeaudit.audit.failures import CallFailures, frame_failures
from judgeaudit.audit.frame import LogFrame
from judgeaudit.audit.gates import (
    HEADLINE,
    Gate,
    GateResult,
    evaluate,
    verdict,
)
from judgeaudit.audit.readings import Figure, Reading, ReadingConfig, read_all
from judgeaudit.data.contract import Idea, Item, PairItem, item_ideas
from judgeaudit.data.jsonl import write_items
from judgeaudit.data.samples import load_items
from judgeaudit.errors import ExitCode, ModelSetupError, UserError, error_line
from judgeaudit.files import atomic_write_text
from judgeaudit.judges.catalog import judge_names
from judgeaudit.judges.llm.panel import parse_members
from judgeaudit.judges.tasks import novelty_pairwise, novelty_pointwise
from judgeaudit.report.frame import log_cause
from judgeaudit.resources import datasets_root
from judgeaudit.stats import excludes_from_above, interval
from judgeaudit.stats.defaults import DEFAULT_CONFIDENCE, DEFAULT_RESAMPLES, DEFAULT_SEED
from judgeaudit.stats.metrics import metrics_for, outcomes_for

CARD_SCHEMA = "judgeaudit.audit/1"
DEFAULT_DATASET = "iclr2026/human_only"
PROBES_BY_KIND: dict[str, tuple[str, ...]] = {
    "pairwise": (
        "position",
        "presumption",
        "verbosity",
        "surface",
        "injection",
        "self_preference",
        "repeat",
    ),
    "pointwise": ("presumption", "verbosity", "surface", "injection", "self_preference", "repeat"),
}
# Probes that run as their own task; `repeat` is the second unperturbed run.
TASK_PROBES: frozenset[str] = frozenset(
    {"position", "presumption", "verbosity", "surface", "injection", "self_preference"}
)
HEADLINE_METRIC: dict[str, str] = {"pairwise": "strict_accuracy", "pointwise": "macro_f1"}
CHANCE = 0.5
COULD_NOT_JUDGE = (
    "could not judge"  # the verdict when model calls failed (judgeaudit.audit.failures)
)
DEFAULT_JUDGE = "prompted"
PANEL = "panel"  # the panel judge (judgeaudit.judges.llm.panel): its members are its models
NO_MODEL = "none"
REALTIME_ENV = "JUDGEAUDIT_LOG_REALTIME"
IN_PROCESS_PREFIX = "local/"  # models run in this process (providers/local_llama.py)
# Task arguments the audit sets itself (or through its own options); not allowed as -T options.
RESERVED_TASK_ARGS: dict[str, str] = {
    "dataset": "--dataset",
    "seed": "--seed",
    "probe": "--probes",
    "judge": "--judge",
    "prompt": "--prompt",
    "cache": "--no-cache",
    "resamples": "--resamples",
    "idea_format": "nothing (the audit judges abstracts)",
}


class AuditError(UserError, ValueError):
    """An audit that cannot run or cannot be read (bad options, failed tasks, missing results)."""


class CouldNotJudge(AuditError):
    """The battery did not complete in a way a card can state (an eval failed, was cancelled or
    left no usable sample); the message is one line starting `could not judge: `."""

    exit_code = ExitCode.COULD_NOT_JUDGE


@dataclass(frozen=True)
class AuditSpec:
    """Everything that defines one audit."""

    model: str
    prompt: str = "reference"
    dataset: str = DEFAULT_DATASET
    kind: str = "pairwise"
    limit: int | None = None
    seed: int = DEFAULT_SEED
    probes: tuple[str, ...] = PROBES_BY_KIND["pairwise"]
    cache: bool = True
    resamples: int = DEFAULT_RESAMPLES
    gates_file: str | None = None
    model_args: dict[str, Any] = field(default_factory=dict)
    judge: str = DEFAULT_JUDGE
    judge_options: dict[str, Any] = field(default_factory=dict)
    generated: tuple[str, ...] = ()
    confidence: float = (
        DEFAULT_CONFIDENCE  # of every interval; below 95% only at a look of `audit.sequential`
    )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict; model args and judge options with secret-looking names are redacted."""
        return {
            "judge": self.judge,
            "judge_options": safe_model_args(self.judge_options),
            "model": self.model,
            "model_args": safe_model_args(self.model_args),
            "prompt": self.prompt,
            "dataset": self.dataset,
            "kind": self.kind,
            "limit": self.limit,
            "seed": self.seed,
            "probes": list(self.probes),
            "cache": self.cache,
            "resamples": self.resamples,
            "gates_file": self.gates_file,
            "generated": list(self.generated),
            "confidence": self.confidence,
        }


_SECRET_WORDS = ("key", "token", "secret", "password", "auth", "credential")


def safe_model_args(args: dict[str, Any]) -> dict[str, Any]:
    """Model args fit for a card: secret-looking names redacted, lists and mappings of such values kept
    (a panel's `-T panel` list), anything else by type name."""
    out: dict[str, Any] = {}
    for name, value in sorted(args.items()):
        if any(w in name.lower() for w in _SECRET_WORDS):
            out[name] = "<redacted>"
        else:
            out[name] = _safe_value(value)
    return out


def _safe_value(value: Any) -> Any:
    """A scalar as it is, a list or mapping with its values made safe, anything else by type name."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, list | tuple):
        return [_safe_value(v) for v in value]
    if isinstance(value, dict):
        return safe_model_args(value)
    return f"<{type(value).__name__}>"


def balanced_head(items: Sequence[Item], limit: int) -> list[Item]:
    """The first `limit` items taking gold classes in turn (a, b, a, ... / novel, not_novel, ...).

    A plain head of the file may be all one gold side, and then a judge that always answers
    "a" looks accurate; alternating keeps the subset balanced while staying deterministic.
    Classes that run out are filled from the others, in file order.
    """
    by_gold: dict[str, list[Item]] = {}
    for item in items:
        by_gold.setdefault(item.gold, []).append(item)
    queues = [by_gold[g] for g in sorted(by_gold)]
    out: list[Item] = []
    while len(out) < limit and any(queues):
        for q in queues:
            if q and len(out) < limit:
                out.append(q.pop(0))
    order = {item.item_id: k for k, item in enumerate(items)}
    return sorted(out, key=lambda i: order[i.item_id])


def select_items(dataset: str, kind: str, limit: int | None) -> list[Item]:
    """`limit` items of a dataset balanced by gold (all when None); an error on an empty selection."""
    if kind not in PROBES_BY_KIND:
        raise AuditError(f"kind must be 'pairwise' or 'pointwise', got {kind!r}")
    if limit is not None and limit < 1:
        raise AuditError(f"--limit must be a positive number of items, got {limit}")
    items = load_items(dataset, kind)
    if not items:
        raise AuditError(f"dataset {dataset!r} has no {kind} items")
    return balanced_head(items, limit) if limit is not None else list(items)


def write_audit_items(items: Sequence[Item], out: Path, kind: str, folder: str = "items") -> Path:
    """Write the audited items to `<out>/<folder>/<kind>.jsonl` (a set directory the tasks load)."""
    items_dir = out / folder
    write_items(items_dir / f"{kind}.jsonl", list(items))
    return items_dir


def generated_set_dirs(paths: Sequence[str], kind: str) -> list[Path]:
    """The Human+Generated set directories behind `--generated` values, in order.

    A value is a set directory (holding `{kind}.jsonl`), a directory of such sets (one
    subfolder per backbone, e.g. datasets/iclr2026/human_generated), or a bundled set name.
    """
    out: list[Path] = []
    for value in paths:
        root = next((r for r in (Path(value), datasets_root() / value) if r.is_dir()), None)
        if root is None:
            raise AuditError(f"--generated {value!r}: no such directory (nor a bundled set)")
        if (root / f"{kind}.jsonl").is_file():
            found = [root]
        else:
            found = sorted(
                d for d in root.iterdir() if d.is_dir() and (d / f"{kind}.jsonl").is_file()
            )
        if not found:
            raise AuditError(
                f"--generated {value!r}: no {kind}.jsonl in {root} nor in its subfolders"
            )
        out += [d for d in found if d not in out]
    return out


def _renamed(
    item: Item, suffix: str, seen_items: set[str], seen_ideas: dict[str, dict[str, Any]]
) -> Item:
    """`item` with `@suffix` added to its id and to each idea id an earlier set used for other content."""

    def idea(i: Idea) -> Idea:
        if seen_ideas.setdefault(i.idea_id, i.to_dict()) == i.to_dict():
            return i
        renamed = replace(i, idea_id=f"{i.idea_id}@{suffix}")
        seen_ideas.setdefault(renamed.idea_id, renamed.to_dict())
        return renamed

    if isinstance(item, PairItem):
        pair_id = item.pair_id if item.pair_id not in seen_items else f"{item.pair_id}@{suffix}"
        return replace(item, pair_id=pair_id, idea_a=idea(item.idea_a), idea_b=idea(item.idea_b))
    item_id = item.item_id if item.item_id not in seen_items else f"{item.item_id}@{suffix}"
    return replace(item, item_id=item_id, idea=idea(item.idea))


def select_generated(paths: Sequence[str], kind: str, limit: int | None) -> list[Item]:
    """The self-preference items of several Human+Generated sets (one per backbone), merged.

    Each set contributes its items with a generated side (the first `limit`, gold classes in
    turn); an item id or idea id that an earlier set already used (for other content) gets the
    set's folder name appended (`<id>@<folder>`), so sets of different backbones can share
    their human papers.
    """
    merged: list[Item] = []
    seen_items: set[str] = set()
    seen_ideas: dict[str, dict[str, Any]] = {}
    for set_dir in generated_set_dirs(paths, kind):
        items = [i for i in load_items(str(set_dir), kind) if apply_probe("self_preference", [i])]
        if not items:
            raise AuditError(
                f"--generated {str(set_dir)!r}: no Human+Generated {kind} items with a generated side"
            )
        for item in balanced_head(items, limit) if limit is not None else items:
            item = _renamed(item, set_dir.name, seen_items, seen_ideas)
            if item.item_id in seen_items:
                raise AuditError(
                    f"--generated {str(set_dir)!r}: item id {item.item_id!r} is given twice"
                )
            seen_items.add(item.item_id)
            merged.append(item)
    return merged


def items_digest(items: Sequence[Item]) -> str:
    """SHA-256 over the audited items' canonical JSON (ids, texts, gold)."""
    return hashlib.sha256(
        "\n".join(json.dumps(i.to_dict(), sort_keys=True) for i in items).encode()
    ).hexdigest()


RUN_FILE = "audit-run.json"
# Options that decide which calls the eval-set makes; a resume must agree on all of them.
_RUN_KEYS: tuple[str, ...] = (
    "judge",
    "judge_options",
    "model",
    "model_args",
    "prompt",
    "kind",
    "seed",
    "cache",
)
# What a run file written before a key existed implied for it.
_RUN_DEFAULTS: dict[str, Any] = {"judge": DEFAULT_JUDGE, "judge_options": {}}
# Keys a run file written before the rename carries, by their current name.
_RUN_RENAMED: dict[str, str] = {"judge_kind": "judge"}


def task_option_names(kind: str) -> list[str]:
    """The judge task options `-T` may set for `kind` (the task's parameters the audit leaves open)."""
    import inspect

    make = novelty_pairwise if kind == "pairwise" else novelty_pointwise
    return [p for p in inspect.signature(make).parameters if p not in RESERVED_TASK_ARGS]


def check_spec(spec: AuditSpec) -> None:
    """Reject an unknown judge kind, a -T option the audit sets itself or the task lacks, and
    `--model none` for a judge that calls an LLM."""
    if spec.judge not in judge_names():
        raise AuditError(f"unknown judge {spec.judge!r}; choose one of: {', '.join(judge_names())}")
    if spec.kind not in PROBES_BY_KIND:
        raise AuditError(f"kind must be 'pairwise' or 'pointwise', got {spec.kind!r}")
    for key in spec.judge_options:
        if key in RESERVED_TASK_ARGS:
            raise AuditError(
                f"-T {key}=... is set by the audit itself; use {RESERVED_TASK_ARGS[key]}"
            )
        if key not in task_option_names(spec.kind):
            raise AuditError(
                f"-T {key}: not an option of the {spec.kind} judge task "
                f"(options: {', '.join(task_option_names(spec.kind))})"
            )
    if spec.judge == PANEL:
        if spec.model != NO_MODEL:
            raise AuditError(
                f"--judge {PANEL}: the panel's models are its members (-T panel=...); give --model "
                f"{NO_MODEL}, not --model {spec.model}"
            )
    elif spec.model == NO_MODEL and needs_model(spec.judge, spec.judge_options):
        raise AuditError(
            f"judge {spec.judge!r} calls an LLM: give it a --model (--model none works only for "
            "the metric, distance and concept judges, the latter with keyphrase concepts)"
        )


def claim_out_dir(spec: AuditSpec, items: Sequence[Item], out: Path, write: bool = True) -> None:
    """Record what this out dir audits; refuse to resume it with other items or judge options.

    Inspect's eval-set recognises finished tasks by their arguments, not by the items behind
    a dataset path, so resuming with another `--limit`, model or judge would silently reuse old
    logs. With `write=False` only the check is made (nothing is recorded yet).
    """
    current = {"items_sha256": items_digest(items), **{k: spec.to_dict()[k] for k in _RUN_KEYS}}
    current = json.loads(json.dumps(current))  # as it reads back from the file (tuples as lists)
    path = out / RUN_FILE
    if path.is_file():
        try:
            previous = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise AuditError(
                f"{path} is not valid JSON ({exc.msg}); remove it or use another --out"
            ) from exc
        previous = {_RUN_RENAMED.get(k, k): v for k, v in previous.items()}
        differs = sorted(k for k in current if previous.get(k, _RUN_DEFAULTS.get(k)) != current[k])
        if differs:
            raise AuditError(
                f"{out} already holds an audit with different {', '.join(differs)}; "
                "use another --out (or delete it) to audit this configuration"
            )
        return
    if write:
        atomic_write_text(path, json.dumps(current, indent=2) + "\n")


def build_tasks(
    spec: AuditSpec, items_dir: Path, probes: Sequence[str], generated_dir: Path | None = None
) -> list[Any]:
    """The battery's Inspect tasks: unperturbed (seed S), repeat (seed S+1), one per probe.

    With `generated_dir` (the merged `--generated` sets) the self-preference task judges those items.
    """
    make = novelty_pairwise if spec.kind == "pairwise" else novelty_pointwise
    common: dict[str, Any] = {
        "dataset": str(items_dir),
        "prompt": spec.prompt,
        "cache": spec.cache,
        **judge_task_args(spec),
    }
    tasks = [make(seed=spec.seed, **common)]
    if "repeat" in probes:
        tasks.append(make(seed=spec.seed + 1, **common))
    for probe in probes:
        if probe in TASK_PROBES:
            own = (
                {"dataset": str(generated_dir)}
                if probe == "self_preference" and generated_dir
                else {}
            )
            tasks.append(make(seed=spec.seed, probe=probe, **{**common, **own}))
    return tasks


def task_label(spec: AuditSpec, task_args: Mapping[str, Any]) -> str:
    """The name of a battery task in progress lines: its probe, `repeat` or `unperturbed`."""
    probe = task_args.get("probe")
    if probe and probe != "none":
        return str(probe)
    return "repeat" if task_args.get("seed", spec.seed) != spec.seed else "unperturbed"


def judge_task_args(spec: AuditSpec) -> dict[str, Any]:
    """Task arguments that select the judge: `judge` (left out for the default) and the -T options."""
    return {**({"judge": spec.judge} if spec.judge != DEFAULT_JUDGE else {}), **spec.judge_options}


def runnable_probes(
    spec: AuditSpec, items: Sequence[Item], generated: Sequence[Item] = ()
) -> tuple[list[str], dict[str, str]]:
    """Probes that apply to these items (self-preference: to `generated` when given) and this judge,
    and a reason for each one that does not."""
    wanted = [p for p in spec.probes if p in PROBES_BY_KIND[spec.kind]]
    skipped = {
        p: f"probe {p!r} does not apply to {spec.kind} items"
        for p in spec.probes
        if p not in wanted
    }
    limits = inapplicable_probes(spec.judge, spec.judge_options)
    run = []
    for p in wanted:
        if p in limits:
            skipped[p] = limits[p]
            continue
        if p == "self_preference" and not apply_probe(p, generated or items, spec.seed):
            skipped[p] = "no Human+Generated items with a generated side in this dataset"
            continue
        run.append(p)
    return run, skipped


def run_battery(
    spec: AuditSpec, out: Path, display: str = "none", max_connections: int | None = None
) -> tuple[list[Any], list[Item], dict[str, str], list[Item]]:
    """Run (or resume) the eval-set of the battery; returns (logs, items, skipped probes, generated items).

    `display` is Inspect's (`full`, `plain`, `none`, ...) or `compact`: Inspect's off and one line
    per battery task instead (`audit.progress`)."""
    from inspect_ai import eval_set

    from judgeaudit.audit.progress import battery_progress

    check_spec(spec)
    check_model(spec)
    items = select_items(spec.dataset, spec.kind, spec.limit)
    generated = select_generated(spec.generated, spec.kind, spec.limit) if spec.generated else []
    claim_out_dir(spec, [*items, *generated], out, write=False)
    items_dir = write_audit_items(items, out, spec.kind)
    generated_dir = (
        write_audit_items(generated, out / "items", spec.kind, "generated") if generated else None
    )
    probes, skipped = runnable_probes(spec, items, generated)
    tasks = build_tasks(
        spec, items_dir, probes, generated_dir
    )  # a judge option the task refuses fails here
    claim_out_dir(spec, [*items, *generated], out)
    kwargs: dict[str, Any] = dict(
        concurrency(spec.model, [len(task.dataset) for task in tasks], max_connections)
    )
    if not realtime_logging():
        kwargs["log_realtime"] = False
    compact = display == COMPACT
    with battery_progress(len(tasks), partial(task_label, spec)) if compact else nullcontext():
        success, logs = eval_set(
            tasks,
            log_dir=str(out / "logs"),
            model=spec.model,
            model_args=spec.model_args,
            display="none" if compact else display,  # type: ignore[arg-type]
            retry_attempts=2,
            retry_wait=1,
            log_dir_allow_dirty=True,
            **kwargs,
        )
    failed = [log for log in logs if log.status != "success"]
    if not success and not all(log.status == "error" and log.error is None for log in failed):
        raise incomplete(failed)
    # Failed judge calls error their samples (status error, no eval error) and are still scored:
    # the card says "could not judge: N of M calls failed" from those scores.
    return list(logs), items, skipped, generated


def check_model(spec: AuditSpec) -> None:
    """Start the judge's model before anything is written: a provider Inspect does not know, or one that
    cannot start (a missing key or model file), is one line, and the out dir stays free for the next run."""
    if spec.model == NO_MODEL:
        return
    from inspect_ai.model import get_model

    try:
        get_model(spec.model, **spec.model_args)
    except UserError as exc:
        if not isinstance(exc, ModelSetupError):
            raise
        raise AuditError(f"--model {spec.model} cannot be used: {error_line(exc)}") from exc
    except Exception as exc:  # noqa: BLE001 (whatever the provider raised, it could not start)
        raise AuditError(f"--model {spec.model} cannot be used: {error_line(exc)}") from exc


def realtime_logging() -> bool:
    """Whether the battery's evals keep Inspect's realtime sample buffer (its default, for live views in
    `inspect view`): off when `JUDGEAUDIT_LOG_REALTIME` is 0/false/no (about a fifth less overhead per
    sample, which matters only when answers are instant, as in the test suite)."""
    return os.environ.get(REALTIME_ENV, "1").strip().lower() not in ("0", "false", "no")


def concurrency(
    model: str, task_samples: Sequence[int], max_connections: int | None
) -> dict[str, int]:
    """The eval-set's sample and connection limits for tasks of these sizes: an in-process model gets
    every sample started and every call queued at once (it runs one call at a time anyway, and its
    queue, providers/call_queue.py, can then order all the calls for prefix reuse); `--max-connections` wins."""
    limits: dict[str, int] = {}
    if model.startswith(IN_PROCESS_PREFIX):
        limits["max_samples"] = max([1, *task_samples])
        limits["max_connections"] = max(1, sum(task_samples))
    if max_connections is not None:
        limits["max_connections"] = max_connections
    return limits


def incomplete(failed: Sequence[Any]) -> CouldNotJudge:
    """The error of a battery whose evals did not complete, naming each failed eval and its cause."""
    named = [
        f"{log.eval.task}({log.eval.task_args.get('probe')}): {log.status}: {log_cause(log)}"
        for log in failed
    ]
    return CouldNotJudge(
        f"could not judge: the audit eval-set did not complete; rerun the same command to "
        f"resume. Failed: {named}"
    )


def label_runs(frame: pd.DataFrame, seed: int) -> pd.DataFrame:
    """Mark the S+1 unperturbed run as `repeat/run2` and copy the S run as `repeat/run1`."""
    if frame.empty:
        raise AuditError("the audit logs hold no scored samples")
    base = frame["task_probe"].isna()
    run2 = base & (frame["task_seed"] == seed + 1)
    main = base & (frame["task_seed"] == seed)
    out = frame[~run2].copy()
    if run2.any():
        r2 = frame[run2].copy()
        r2["probe"], r2["probe_variant"] = "repeat", "run2"
        r1 = frame[main].copy()
        r1["probe"], r1["probe_variant"] = "repeat", "run1"
        r1["tokens"], r1["cost_usd"] = 0, None  # a view of the unperturbed run: no extra calls
        out = pd.concat([out, r1, r2], ignore_index=True)
    return out


def headline(frame: pd.DataFrame, kind: str, cfg: ReadingConfig) -> Reading:
    """Accuracy (or macro-F1), invalid and tie rate of the unperturbed run, with intervals."""
    base = frame[frame["probe"].isna()].sort_values("item_id")
    if base.empty:
        raise AuditError("no unperturbed run in the audit logs")
    outcomes = outcomes_for(
        kind, base["verdict"].astype(str).tolist(), base["gold"].astype(str).tolist()
    )
    metrics = metrics_for(kind)
    figures = {
        "accuracy": Figure(
            "accuracy",
            HEADLINE_METRIC[kind].replace("_", " "),
            interval(
                outcomes, metrics[HEADLINE_METRIC[kind]], cfg.resamples, cfg.seed, cfg.confidence
            ),
        ),
        "invalid_rate": Figure(
            "invalid_rate",
            "invalid rate",
            interval(outcomes, metrics["invalid_rate"], cfg.resamples, cfg.seed, cfg.confidence),
        ),
    }
    if kind == "pairwise":
        figures["tie_rate"] = Figure(
            "tie_rate",
            "tie rate",
            interval(outcomes, metrics["tie_rate"], cfg.resamples, cfg.seed, cfg.confidence),
        )
    return Reading(HEADLINE, "ok", len(base), figures)


def judge_models(spec: AuditSpec) -> tuple[str, ...]:
    """The models whose backbone is the judge's own: `--model`, or a panel's members (`-T panel`)."""
    if spec.judge == PANEL:
        return tuple(m.model for m in parse_members(spec.judge_options.get("panel")))
    return (spec.model,)


def generators_of(items: Sequence[Item]) -> dict[str, str | None]:
    """Item id -> generator model of its generated idea (None when it has none)."""
    out: dict[str, str | None] = {}
    for item in items:
        out[item.item_id] = next(
            (i.generator for i in item_ideas(item) if i.source == "generated"), None
        )
    return out


@dataclass
class AuditResult:
    """Everything on the card."""

    spec: AuditSpec
    verdict: str
    reasons: list[GateResult]
    headline: Reading
    readings: dict[str, Reading]
    gates: list[GateResult]
    cost: dict[str, Any]
    skipped_samples: list[dict[str, Any]]
    items: dict[str, Any]
    log_dir: str
    surface_ratio: dict[str, Any] = field(default_factory=dict)
    failures: CallFailures | None = (
        None  # failed model calls; any makes the verdict `could not judge`
    )
    members: dict[str, Any] | None = (
        None  # a panel's members, each audited from the panel's logs (audit.panel)
    )
    looks: dict[str, Any] | None = (
        None  # a sequential audit's looks (audit.sequential), on its last look's card
    )

    def to_dict(self) -> dict[str, Any]:
        """The card as JSON-ready data."""
        return {
            "schema": CARD_SCHEMA,
            "verdict": self.verdict,
            "failed_calls": self.failures.to_dict() if self.failures else None,
            "reasons": [r.to_dict() for r in self.reasons],
            "judge": self.spec.to_dict(),
            "items": self.items,
            "headline": {
                **self.headline.to_dict(),
                "chance": CHANCE,
                "above_chance": self.above_chance(),
            },
            "probes": {k: r.to_dict() for k, r in self.readings.items()},
            "surface_ratio": self.surface_ratio,
            "gates": [{**g.to_dict(), "more_items": self.more_items(g)} for g in self.gates],
            "cost": self.cost,
            "skipped_samples": self.skipped_samples,
            "log_dir": self.log_dir,
            **(
                {"members": {name: m.to_dict() for name, m in self.members.items()}}
                if self.members
                else {}
            ),
            **({"looks": self.looks} if self.looks else {}),
        }

    def usd_per_item(self) -> float | None:
        """This run's cost per audited item (every probe's calls over the items), None when the provider
        reports no price (e.g. the local model)."""
        usd, count = self.cost.get("usd"), self.items.get("count")
        return float(usd) / int(count) if usd is not None and count else None

    def more_items(self, result: GateResult) -> dict[str, Any] | None:
        """An inconclusive gate's `MoreItems` with the cost of that many items at this run's cost per item."""
        if result.more is None:
            return None
        per_item = self.usd_per_item()
        items = result.more.items
        usd = per_item * items if per_item is not None and items is not None else None
        # the logs' span: the battery's time even when this run only resumed it (else this run's wall time)
        seconds, count = (
            self.cost.get("logs_seconds") or self.cost.get("battery_seconds"),
            self.items.get("count"),
        )
        per_second = float(seconds) / int(count) if seconds is not None and count else None
        return {
            **result.more.to_dict(),
            "usd": usd,
            "usd_per_item": per_item,
            "seconds": per_second * items if per_second is not None and items is not None else None,
        }

    def above_chance(self) -> bool:
        """Whether the headline interval excludes chance from above (`stats.results.excludes_from_above`)."""
        return excludes_from_above(self.headline.figures["accuracy"].value, CHANCE)


def logs_span_seconds(logs: Sequence[Any]) -> float | None:
    """First task start to last task end, from the logs' stats (a resumed battery spans its runs)."""
    from datetime import datetime

    starts, ends = [], []
    for log in logs:
        stats = getattr(log, "stats", None)
        if stats and stats.started_at and stats.completed_at:
            starts.append(datetime.fromisoformat(stats.started_at))
            ends.append(datetime.fromisoformat(stats.completed_at))
    return (max(ends) - min(starts)).total_seconds() if starts else None


def cost_summary(
    frame: pd.DataFrame, seconds: float | None = None, logs_seconds: float | None = None
) -> dict[str, Any]:
    """Tokens, calls, USD (None, "unknown", when any sample's cost is unknown: usage without a
    price, as the report has it) and the battery's real wall time."""
    run1 = (frame["probe"] == "repeat") & (
        frame["probe_variant"] == "run1"
    )  # a view: no calls of its own
    costs = frame.loc[~run1, "cost_usd"].tolist()
    unknown = sum(1 for c in costs if c is None or c != c)
    return {
        "battery_seconds": seconds,
        "logs_seconds": logs_seconds,
        "usd": float(sum(costs)) if costs and unknown == 0 else None,
        "usd_unknown_samples": unknown,
        "samples": len(costs),
        "tokens": int(frame["tokens"].fillna(0).sum()),
        "judge_calls": int(frame.loc[~run1, "n_calls"].sum()),
        "note": "from the provider's token usage as Inspect logged it; cached calls are not charged again",
    }


def assemble(
    spec: AuditSpec,
    logframe: LogFrame,
    items: Sequence[Item],
    skipped_probes: dict[str, str],
    gates: tuple[Gate, ...],
    log_dir: str,
    seconds: float | None = None,
    ratio: tuple[Reading, dict[str, Any]] | None = None,
    generated: Sequence[Item] = (),
    logs_seconds: float | None = None,
) -> AuditResult:
    """Readings, gates and the verdict from the battery's logs (and the surface ratio, if computed);
    `seconds` is the battery's real wall time; `generated` are the merged `--generated` sets the
    self-preference task judged. Failed model calls refuse a verdict (`could not judge`)."""
    cfg = ReadingConfig(resamples=spec.resamples, seed=spec.seed, confidence=spec.confidence)
    frame = label_runs(logframe.frame, spec.seed)
    head = headline(frame, spec.kind, cfg)
    limits = inapplicable_probes(spec.judge, spec.judge_options)
    readings = read_all(
        frame,
        [p for p in spec.probes if p in PROBES_BY_KIND[spec.kind] and p not in limits],
        cfg,
        judge_model=judge_models(spec),
        generators=generators_of([*items, *generated]),
    )
    for probe, reason in skipped_probes.items():
        readings[probe] = Reading(
            probe, "not_applicable" if probe in limits else "not_run", 0, note=reason
        )
    if ratio is None:
        ratio = (
            Reading("surface_ratio", "not_run", 0, note="not computed"),
            {"applies": None, "note": "not computed"},
        )
    results = evaluate(
        gates, {HEADLINE: head, **readings, ratio[0].probe: ratio[0]}, spec.kind, project=True
    )
    word, reasons = verdict(results)
    failures = frame_failures(frame)
    if failures.failed:
        word, reasons = COULD_NOT_JUDGE, []
    digest = items_digest(items)
    items_info = {
        "count": len(items),
        "kind": spec.kind,
        "dataset": spec.dataset,
        "limit": spec.limit,
        "items_sha256": digest,
        "setups": sorted({i.setup for i in items}),
        "judged": head.n_items,
    }
    if generated:
        items_info["generated"] = {
            "sets": list(spec.generated),
            "count": len(generated),
            "items_sha256": items_digest(generated),
            "by_generator": dict(Counter(str(g) for g in generators_of(generated).values())),
        }
    return AuditResult(
        spec,
        word,
        reasons,
        head,
        readings,
        results,
        cost_summary(frame, seconds, logs_seconds),
        logframe.skipped,
        items_info,
        log_dir,
        ratio[1],
        failures,
    )
