"""One call from options to card: run (or resume) the battery, read its logs, write the card."""

from __future__ import annotations

import time
from pathlib import Path

from judgeaudit.audit.battery import (
    AuditResult,
    AuditSpec,
    assemble,
    incomplete,
    logs_span_seconds,
    run_battery,
)
from judgeaudit.audit.card import write_card
from judgeaudit.audit.frame import frame_from_logdir, log_name
from judgeaudit.audit.gates import DEFAULT_GATES, Gate
from judgeaudit.audit.panel import member_audits
from judgeaudit.audit.surface_ratio import judge_prior_work, surface_ratio_reading
from judgeaudit.files import locked_output_dir, staged_outputs


def run_audit(
    spec: AuditSpec,
    out: Path,
    gates: tuple[Gate, ...] = DEFAULT_GATES,
    display: str = "none",
    max_connections: int | None = None,
) -> tuple[AuditResult, dict[str, Path]]:
    """Run the audit of `spec` into `out` and write card.md / card.json / gates.png there.

    `out` (logs, items and card) is locked for the whole run, so a second identical audit waits
    and then resumes the finished eval-set; the card's files are moved in with card.json last.
    Judge calls that failed (their samples errored but were scored) give a card whose verdict is
    `could not judge`; an eval that failed otherwise, or left no usable sample, raises
    `CouldNotJudge` and writes no card.
    """
    with locked_output_dir(Path(out)) as locked:
        return _run_locked(spec, locked, gates, display, max_connections)


def _run_locked(
    spec: AuditSpec, out: Path, gates: tuple[Gate, ...], display: str, max_connections: int | None
) -> tuple[AuditResult, dict[str, Path]]:
    started = time.perf_counter()
    logs, items, skipped, generated = run_battery(
        spec, out, display=display, max_connections=max_connections
    )
    seconds = (
        time.perf_counter() - started
    )  # the battery's real wall time (this run of the eval-set)
    log_dir = out / "logs"
    frame = frame_from_logdir(log_dir, [str(log.location) for log in logs])
    unread = {
        log_name(s["log"])
        for s in frame.skipped
        if s.get("kind") == "log" and s["reason"].startswith("status ")
    }
    unusable = [
        log for log in logs if log.status != "success" and log_name(str(log.location)) in unread
    ]
    if unusable:  # an errored eval without a usable sample: nothing for the card to state
        raise incomplete(unusable)
    ratio = surface_ratio_reading(
        spec.judge, items, spec.resamples, spec.seed, spec.judge_options, judge_prior_work(logs)
    )
    result = assemble(
        spec,
        frame,
        items,
        skipped,
        gates,
        str(log_dir),
        seconds,
        ratio,
        generated,
        logs_span_seconds(logs),
    )
    result.members = (
        member_audits(result, frame.frame, items, generated, gates) or None
    )  # a panel's members
    with staged_outputs(out, "card.json") as staging:
        paths = write_card(result, staging)
    return result, {k: out / p.name for k, p in paths.items()}
