"""Inspect judge logs -> the per-judged-unit frame the probe readings consume.

One row per scored sample with the SCORE_SCHEMA fields (`item_id`, `kind`, `gold`, `verdict`,
`probe`, `probe_variant`, `probe_target`, `prompt`), plus the run's `task`, `model`,
`task_seed`, and the sample's token and cost totals. A sample without a `novelty` score
(e.g. an errored sample) is counted in `skipped` and reported, never dropped silently.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
from inspect_ai.log import EvalLog, read_eval_log

SCORER = "novelty"
SCHEMA = "judgeaudit.score/1"


@dataclass
class LogFrame:
    """The rows read from a set of logs and the samples that could not be read."""

    frame: pd.DataFrame
    skipped: list[dict[str, Any]] = field(default_factory=list)


def _usage_totals(sample: Any) -> tuple[int, float | None]:
    tokens, cost, any_cost = 0, 0.0, False
    for usage in (sample.model_usage or {}).values():
        tokens += int(usage.total_tokens or 0)
        if usage.total_cost is not None:
            cost += float(usage.total_cost)
            any_cost = True
    return tokens, (cost if any_cost else None)


def rows_from_log(log: EvalLog) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Rows of one log (samples are read from disk when the log came without them)."""
    if log.samples is None:
        log = read_eval_log(log.location)
    args = dict(log.eval.task_args or {})
    rows, skipped = [], []
    for sample in log.samples or []:
        score = (sample.scores or {}).get(SCORER)
        meta = score.metadata if score is not None else None
        if not meta or meta.get("schema") != SCHEMA:
            reason = "sample error: " + str(sample.error.message)[:200] if sample.error else "no novelty score"
            skipped.append({"task": log.eval.task, "sample_id": str(sample.id), "epoch": sample.epoch, "reason": reason})
            continue
        tokens, cost = _usage_totals(sample)
        rows.append({
            "task": log.eval.task,
            "model": log.eval.model,
            "task_seed": args.get("seed"),
            "task_probe": args.get("probe"),
            "sample_id": str(sample.id),
            "epoch": sample.epoch,
            "item_id": meta["item_id"],
            "kind": meta["kind"],
            "setup": meta.get("setup"),
            "gold": meta["gold"],
            "verdict": meta["verdict"],
            "probe": meta.get("probe"),
            "probe_variant": meta.get("probe_variant"),
            "probe_target": meta.get("probe_target"),
            "prompt": meta.get("prompt"),
            "n_calls": len(meta.get("calls") or []),
            "tokens": tokens,
            "cost_usd": cost,
        })
    return rows, skipped


def frame_from_logs(logs: Iterable[EvalLog]) -> LogFrame:
    """One frame over several logs (object columns keep nulls as None)."""
    rows: list[dict[str, Any]] = []
    skipped: list[dict[str, Any]] = []
    for log in logs:
        r, s = rows_from_log(log)
        rows.extend(r)
        skipped.extend(s)
    frame = pd.DataFrame(rows)
    if not frame.empty:
        frame = frame.astype({"probe": object, "probe_variant": object, "probe_target": object})
    return LogFrame(frame, skipped)
