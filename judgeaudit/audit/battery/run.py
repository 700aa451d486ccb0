"""Running the battery: its Inspect tasks (one per probe), which probes can run, the model check,
and the one resumable, cached `inspect_ai.eval_set` over them."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from functools import partial
from pathlib import Path
from typing import Any

from judgeaudit.arms.transforms import apply_probe
from judgeaudit.audit.applicability import inapplicable_probes
from judgeaudit.audit.battery.items import select_generated, select_items, write_audit_items
from judgeaudit.audit.battery.rundir import claim_out_dir
from judgeaudit.audit.battery.spec import (
    DEFAULT_JUDGE,
    NO_MODEL,
    PROBES_BY_KIND,
    TASK_PROBES,
    AuditError,
    AuditSpec,
    CouldNotJudge,
    check_spec,
)
from judgeaudit.audit.display import COMPACT
from judgeaudit.data.contract import Item
from judgeaudit.errors import ModelSetupError, UserError, error_line
from judgeaudit.judges.tasks import novelty_pairwise, novelty_pointwise
from judgeaudit.report.frame import log_cause

REALTIME_ENV = "JUDGEAUDIT_LOG_REALTIME"
IN_PROCESS_PREFIX = "local/"  # models run in this process (providers/local_llama.py)


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
            skipped[p] = "no Human+Generated or AI-only items with a generated side in this dataset"
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
    if any(log.status == "cancelled" for log in failed) or len(logs) < len(tasks):
        # Ctrl-C: Inspect stopped the evals. Its eval-set then either returns cancelled logs or,
        # when the Ctrl-C stopped its eval as a whole, no log at all and `success` (all of none
        # succeeded): fewer logs than tasks is that case, not a finished battery.
        raise KeyboardInterrupt
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
