"""Test helpers: run one Inspect eval and insist it succeeded; read the first sample's novelty score record."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import Model, get_model


def eval_ok(task: Task, tmp_path: Path, model: str | Model = "none", **kwargs: Any) -> EvalLog:
    """One eval of `task` logged under `tmp_path/logs`; asserts a single successful log and returns it."""
    logs = inspect_eval(task, model=model, log_dir=str(tmp_path / "logs"), display="none", **kwargs)
    assert len(logs) == 1 and logs[0].status == "success", logs[0].error
    return logs[0]


def run_scripted(task: Task, policy: Any, tmp_path: Path, **kwargs: Any) -> EvalLog:
    """`eval_ok` with mockllm answering through `policy` (a `custom_outputs` callable)."""
    return eval_ok(task, tmp_path, get_model("mockllm/model", custom_outputs=policy), **kwargs)


def score_meta(log: EvalLog) -> dict[str, Any]:
    """The `novelty` score metadata of the log's first sample."""
    assert log.samples and log.samples[0].scores
    meta = log.samples[0].scores["novelty"].metadata
    assert meta is not None
    return meta
