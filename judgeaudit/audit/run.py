"""One call from options to card: run (or resume) the battery, read its logs, write the card."""

from __future__ import annotations

import time
from pathlib import Path

from judgeaudit.audit.battery import (
    AuditResult,
    AuditSpec,
    assemble,
    logs_span_seconds,
    run_battery,
)
from judgeaudit.audit.card import write_card
from judgeaudit.audit.frame import frame_from_logdir
from judgeaudit.audit.gates import DEFAULT_GATES, Gate
from judgeaudit.audit.surface_ratio import judge_prior_work, surface_ratio_reading


def run_audit(spec: AuditSpec, out: Path, gates: tuple[Gate, ...] = DEFAULT_GATES, display: str = "none",
              max_connections: int | None = None) -> tuple[AuditResult, dict[str, Path]]:
    """Run the audit of `spec` into `out` and write card.md / card.json / gates.png there."""
    out = Path(out)
    started = time.perf_counter()
    logs, items, skipped = run_battery(spec, out, display=display, max_connections=max_connections)
    seconds = time.perf_counter() - started  # the battery's real wall time (this run of the eval-set)
    log_dir = out / "logs"
    frame = frame_from_logdir(log_dir, [str(log.location) for log in logs])
    ratio = surface_ratio_reading(spec.judge, items, spec.resamples, spec.seed, spec.judge_options,
                                  judge_prior_work(logs))
    result = assemble(spec, frame, items, skipped, gates, str(log_dir), seconds, ratio, logs_span_seconds(logs))
    return result, write_card(result, out)
