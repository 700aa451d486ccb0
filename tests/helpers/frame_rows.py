"""Rows of the report's tidy frame built by hand (one judged unit each), for tests that compute
metrics, tables and figures without an Inspect run."""

from __future__ import annotations

from typing import Any


def frame_row(
    config: str,
    item: str,
    gold: str,
    calls: list[tuple[str, int, str]],
    verdict: str,
    model: str = "j",
    variant: str | None = None,
    setup: str = "human_only",
    dataset: str = "d",
    cost: float = 0.5,
) -> dict[str, Any]:
    """One pairwise unit of configuration `config` (`<model> · <variant>`): calls as (order, index, verdict)."""
    return {
        "log": "log.eval",
        "config": config,
        "model": model,
        "variant": variant or config.split(" · ", 1)[1],
        "model_id": f"mock/{model}",
        "judge": "prompted",
        "task": "novelty_pairwise",
        "task_args": "{}",
        "probe": None,
        "probe_variant": None,
        "kind": "pairwise",
        "dataset": dataset,
        "sample_id": item,
        "item_id": item,
        "setup": setup,
        "gold": gold,
        "verdict": verdict,
        "split_rule": None,
        "split": False,
        "human": {},
        "calls": [{"order": o, "call_index": i, "verdict": v} for o, i, v in calls],
        "call_verdicts": "",
        "input_tokens": 1.0,
        "output_tokens": 1.0,
        "total_tokens": 2.0,
        "cost": cost,
    }
