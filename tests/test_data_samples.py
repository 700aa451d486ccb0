"""Contract items -> Inspect Samples: stable ids, gold as target and in metadata."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgeaudit.data.contract import PairItem, PointItem
from judgeaudit.data.jsonl import read_items
from judgeaudit.data.samples import item_to_sample, items_to_dataset, load_items


def test_pair_sample_carries_gold_and_item(pairs: list[PairItem]) -> None:
    item = pairs[1]
    s = item_to_sample(item)
    assert s.id == "pair1"
    assert s.target == item.gold == "b"
    assert s.metadata is not None
    assert s.metadata["gold"] == "b" and s.metadata["kind"] == "pairwise"
    assert s.metadata["item"] == item.to_dict()
    assert s.metadata["human"]["b"]["rating_mean"] == item.idea_b.evidence.rating_mean
    assert isinstance(s.input, str)
    assert s.input.index(item.idea_a.text) < s.input.index(item.idea_b.text)


def test_point_sample_carries_gold(points: list[PointItem]) -> None:
    s = item_to_sample(points[1])
    assert (s.id, s.target) == ("item1", "not_novel")
    assert s.metadata is not None and s.metadata["gold"] == "not_novel"
    assert s.metadata["item"]["idea"]["idea_id"] == "q1"


def test_ids_are_stable_across_reloads(set_dir: Path) -> None:
    first = [item_to_sample(i).id for i in read_items(set_dir / "pairwise.jsonl")]
    second = [item_to_sample(i).id for i in read_items(set_dir / "pairwise.jsonl")]
    assert first == second == ["pair0", "pair1", "pair2", "pair3"]


def test_sample_id_override_and_extra_metadata(points: list[PointItem]) -> None:
    s = item_to_sample(points[0], sample_id="item0:swap", extra={"probe": "swap"})
    assert s.id == "item0:swap" and s.metadata is not None and s.metadata["probe"] == "swap"
    assert s.metadata["item_id"] == "item0"


def test_metadata_rebuilds_the_item(pairs: list[PairItem]) -> None:
    from judgeaudit.data.validate import parse_item

    s = item_to_sample(pairs[0])
    assert s.metadata is not None
    item, problems = parse_item(s.metadata["item"], "pairwise")
    assert problems == [] and item == pairs[0]


def test_dataset_and_load_items(set_dir: Path) -> None:
    ds = items_to_dataset(load_items(str(set_dir), "pairwise"), name="demo")
    assert len(ds) == 4 and ds.name == "demo"
    assert [s.id for s in ds] == ["pair0", "pair1", "pair2", "pair3"]
    plan = load_items(str(set_dir), "pairwise", "plan")
    assert {i.idea_a.format for i in plan if isinstance(i, PairItem)} == {"plan"}
    with pytest.raises(FileNotFoundError, match="pointwise_plan.jsonl"):
        load_items(str(set_dir), "pointwise", "plan")


def test_samples_run_through_inspect_eval(set_dir: Path, tmp_path: Path) -> None:
    """A real Inspect eval (mockllm) keeps ids, targets and metadata in the log."""
    from inspect_ai import Task, eval
    from inspect_ai.model import ModelOutput, ModelUsage
    from inspect_ai.scorer import match

    def reply(*_args: object) -> ModelOutput:
        out = ModelOutput.from_content("mockllm/model", "a")
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out

    from inspect_ai.model import get_model

    task = Task(dataset=items_to_dataset(load_items(str(set_dir), "pairwise")), scorer=match())
    model = get_model("mockllm/model", custom_outputs=reply)
    [log] = eval(task, model=model, log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success", log.error
    assert log.samples is not None
    got = {s.id: (s.target, s.metadata["gold"]) for s in log.samples}
    assert got == {"pair0": ("a", "a"), "pair1": ("b", "b"), "pair2": ("a", "a"), "pair3": ("b", "b")}
