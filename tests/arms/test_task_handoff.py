"""The probe hand-off through the real judge task: `-T probe=<name>` arms reach the model as
intended (orders, cues, per-arm seeds) and come back in the score metadata.

The judge is Inspect's `mockllm/model` with a scripted callable (a test double for an LLM).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fixtures.probe_judges import scripted
from helpers.items import FIXTURES
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ModelOutput, ModelUsage, get_model

from judgeaudit.audit.frame import frame_from_logdir
from judgeaudit.audit.readings import ReadingConfig, read_all
from judgeaudit.judges.tasks import novelty_pairwise

FIX = FIXTURES / "probe_items"


def _seed_judge(messages: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
    """Answers A on odd generation seeds and B on even ones: only the seed decides."""
    out = ModelOutput.from_content(
        model="mockllm/model", content=f"Verdict: {'A' if (config.seed or 0) % 2 else 'B'}"
    )
    out.usage = ModelUsage(input_tokens=10, output_tokens=3, total_tokens=13)
    return out


def _run(tmp_path: Path, probe: str, reply: Any) -> Any:
    model = get_model("mockllm/model", custom_outputs=reply, memoize=False)
    logs = inspect_eval(
        novelty_pairwise(dataset=str(FIX), probe=probe),
        model=model,
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert logs[0].status == "success"
    return frame_from_logdir(tmp_path / "logs").frame


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A private Inspect cache per test."""
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))


def test_repeat_arms_get_distinct_seeds_and_are_not_served_from_cache(tmp_path: Path) -> None:
    frame = _run(tmp_path, "repeat", _seed_judge)
    assert sorted(frame["probe_variant"].unique()) == ["run1", "run2"]
    reading = read_all(frame, ["repeat"], ReadingConfig(resamples=200))["repeat"]
    assert (
        reading.figures["noise_floor"].value.estimate == 1.0
    )  # seed 1 -> A, seed 2 -> B on every item


def test_position_arms_map_back_to_item_sides(tmp_path: Path) -> None:
    frame = _run(tmp_path, "position", scripted.judge(scripted.always_first))
    ab = frame[frame["probe_variant"] == "order_ab"]
    ba = frame[frame["probe_variant"] == "order_ba"]
    assert set(ab["verdict"]) == {"a"} and set(ba["verdict"]) == {
        "b"
    }  # first shown = b in b/a order
    assert set(ab["probe_target"]) == {"a"} and set(ba["probe_target"]) == {"b"}
    # gold is the item's own gold in both arms
    assert dict(zip(ab["item_id"], ab["gold"], strict=True)) == dict(
        zip(ba["item_id"], ba["gold"], strict=True)
    )
