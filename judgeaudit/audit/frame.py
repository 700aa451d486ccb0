"""The battery's Inspect logs -> the per-judged-unit frame the probe readings consume.

Built on the report layer's tidy frame (`judgeaudit.report.frame.load_frame`, one row per
scored sample with the SCORE_SCHEMA fields), restricted to the logs of this audit's eval-set
and given the few columns the audit needs: `task_probe` and `task_seed` (from the task args),
`tokens`, `cost_usd` and `n_calls`. Unscored samples and superseded logs are carried over
as reported skips, never dropped silently.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from judgeaudit.report.frame import load_frame


@dataclass
class LogFrame:
    """The rows of the audit's logs and the samples/logs that could not be used."""

    frame: pd.DataFrame
    skipped: list[dict[str, Any]] = field(default_factory=list)


def log_name(location: str) -> str:
    """A log's file name, whether given as a path or a file:// URI."""
    return Path(str(location).removeprefix("file://")).name


def frame_from_logdir(log_dir: str | Path, locations: Iterable[str] | None = None) -> LogFrame:
    """Frame of the logs under `log_dir` (only those at `locations` when given)."""
    loaded = load_frame(log_dir)
    frame = loaded.frame
    if locations is not None:
        keep = {log_name(loc) for loc in locations}
        # a boolean Series, not a list: an empty list would select no *columns*
        frame = frame[frame["log"].map(lambda loc: log_name(loc) in keep).astype(bool)]
    frame = frame.copy()
    args = [json.loads(a) if isinstance(a, str) else dict(a or {}) for a in frame["task_args"]]
    frame["task_probe"] = [a.get("probe") for a in args]
    frame["task_seed"] = [a.get("seed") for a in args]
    frame["tokens"] = (
        frame["total_tokens"].fillna(0).astype(int) if len(frame) else frame["total_tokens"]
    )
    frame["cost_usd"] = [None if c is None or c != c else float(c) for c in frame["cost"]]
    frame["n_calls"] = [len(c) for c in frame["calls"]]
    skipped: list[dict[str, Any]] = [
        *loaded.skipped_samples,
        *({**s, "kind": "log"} for s in loaded.skipped_logs),
    ]
    if (
        locations is not None
    ):  # what the logs of other runs left in the dir (a killed run's) is not ours
        skipped = [s for s in skipped if log_name(s["log"]) in keep]
    return LogFrame(frame.reset_index(drop=True), skipped)
