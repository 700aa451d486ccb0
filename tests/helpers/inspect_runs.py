"""Test helpers: run one Inspect eval and insist it succeeded; read a sample's judged-unit record."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog, EvalSample
from inspect_ai.model import Model, get_model

from judgeaudit.judges.scorer import read_unit, task_fields


def eval_ok(task: Task, tmp_path: Path, model: str | Model = "none", **kwargs: Any) -> EvalLog:
    """One eval of `task` logged under `tmp_path/logs`; asserts a single successful log and returns it."""
    logs = inspect_eval(task, model=model, log_dir=str(tmp_path / "logs"), display="none", **kwargs)
    assert len(logs) == 1 and logs[0].status == "success", logs[0].error
    return logs[0]


def run_scripted(task: Task, policy: Any, tmp_path: Path, **kwargs: Any) -> EvalLog:
    """`eval_ok` with mockllm answering through `policy` (a `custom_outputs` callable)."""
    return eval_ok(task, tmp_path, get_model("mockllm/model", custom_outputs=policy), **kwargs)


def unit(log: EvalLog, sample: EvalSample) -> dict[str, Any]:
    """The judged-unit record (SCORE_SCHEMA.md) of one sample of `log`, as the report reads it."""
    assert sample.scores and "novelty" in sample.scores
    record = read_unit(task_fields(log.eval.metadata), sample.metadata, sample.scores["novelty"])
    assert record is not None
    return record


def score_meta(log: EvalLog) -> dict[str, Any]:
    """The judged-unit record of the log's first sample."""
    assert log.samples
    return unit(log, log.samples[0])
