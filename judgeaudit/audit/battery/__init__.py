"""`judgeaudit audit`: run the probe battery as one eval-set and assemble the audit card data.

Any judge kind of `judgeaudit.judges.catalog` can be audited (`AuditSpec.judge`, default
`prompted`), with task options (`AuditSpec.judge_options`, the CLI's `-T key=value`) passed to
every task of the battery. Probes that cannot apply to the judge are reported as not
applicable (`audit.applicability`); score judges (no LLM) also get the surface-perturbation
ratio (`audit.surface_ratio`), and run with `--model none`.

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

One module per stage: `spec` (what defines an audit, its checks and redaction), `items` (which
items are judged), `rundir` (claiming and resuming the output directory), `run` (the tasks and
the eval-set) and `result` (readings, gates, verdict and cost). Import from this package.
"""

from __future__ import annotations

from judgeaudit.audit.battery.items import (
    balanced_head,
    generated_set_dirs,
    generators_of,
    items_digest,
    select_generated,
    select_items,
    write_audit_items,
)
from judgeaudit.audit.battery.result import (
    CARD_SCHEMA,
    CHANCE,
    COULD_NOT_JUDGE,
    HEADLINE_METRIC,
    AuditResult,
    assemble,
    cost_summary,
    headline,
    label_runs,
    logs_span_seconds,
)
from judgeaudit.audit.battery.run import (
    IN_PROCESS_PREFIX,
    REALTIME_ENV,
    build_tasks,
    check_model,
    concurrency,
    incomplete,
    judge_task_args,
    realtime_logging,
    run_battery,
    runnable_probes,
)
from judgeaudit.audit.battery.rundir import RUN_FILE, claim_out_dir
from judgeaudit.audit.battery.spec import (
    DEFAULT_DATASET,
    DEFAULT_JUDGE,
    NO_MODEL,
    PANEL,
    PROBES_BY_KIND,
    RESERVED_TASK_ARGS,
    TASK_PROBES,
    AuditError,
    AuditSpec,
    CouldNotJudge,
    check_spec,
    judge_models,
    safe_model_args,
    task_option_names,
)

__all__ = [
    "AuditError",
    "AuditResult",
    "AuditSpec",
    "CARD_SCHEMA",
    "CHANCE",
    "COULD_NOT_JUDGE",
    "CouldNotJudge",
    "DEFAULT_DATASET",
    "DEFAULT_JUDGE",
    "HEADLINE_METRIC",
    "IN_PROCESS_PREFIX",
    "NO_MODEL",
    "PANEL",
    "PROBES_BY_KIND",
    "REALTIME_ENV",
    "RESERVED_TASK_ARGS",
    "RUN_FILE",
    "TASK_PROBES",
    "assemble",
    "balanced_head",
    "build_tasks",
    "check_model",
    "check_spec",
    "claim_out_dir",
    "concurrency",
    "cost_summary",
    "generated_set_dirs",
    "generators_of",
    "headline",
    "incomplete",
    "items_digest",
    "judge_models",
    "judge_task_args",
    "label_runs",
    "logs_span_seconds",
    "realtime_logging",
    "run_battery",
    "runnable_probes",
    "safe_model_args",
    "select_generated",
    "select_items",
    "task_option_names",
    "write_audit_items",
]
