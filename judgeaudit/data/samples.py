"""Contract items -> Inspect Samples (gold and item metadata in Sample.metadata, stable ids)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from inspect_ai.dataset import MemoryDataset, Sample

from judgeaudit.data.contract import Idea, Item, PairItem, PointItem
from judgeaudit.data.jsonl import read_items
from judgeaudit.resources import resolve_dataset_file


def _human(idea: Idea) -> dict[str, Any]:
    return {"rating_mean": idea.evidence.rating_mean, "contribution_mean": idea.evidence.contribution_mean}


def item_to_sample(item: Item, sample_id: str | None = None, extra: dict[str, Any] | None = None) -> Sample:
    """One Sample per item: id = item id (or `sample_id`), target = gold, metadata = the whole item."""
    if isinstance(item, PairItem):
        text = f"Idea A:\n{item.idea_a.text}\n\nIdea B:\n{item.idea_b.text}"
        meta: dict[str, Any] = {
            "kind": "pairwise",
            "item_id": item.pair_id,
            "setup": item.setup,
            "area": item.area,
            "gold": item.gold,
            "item": item.to_dict(),
            "human": {"a": _human(item.idea_a), "b": _human(item.idea_b)},
        }
    elif isinstance(item, PointItem):
        text = f"Idea:\n{item.idea.text}"
        meta = {
            "kind": "pointwise",
            "item_id": item.item_id,
            "setup": item.setup,
            "area": item.area,
            "gold": item.gold,
            "item": item.to_dict(),
            "human": {"idea": _human(item.idea)},
        }
    else:  # pragma: no cover - the union is closed
        raise TypeError(f"not a contract item: {type(item).__name__}")
    if extra:
        meta.update(extra)
    return Sample(id=sample_id or meta["item_id"], input=text, target=meta["gold"], metadata=meta)


def load_items(dataset: str, kind: str, idea_format: str = "abstract") -> list[Item]:
    """Items of a bundled set name, directory or JSONL path (strict contract check)."""
    path = resolve_dataset_file(dataset, kind, idea_format)
    return read_items(path, "pairwise" if kind == "pairwise" else "pointwise")


def items_to_dataset(items: Sequence[Item], name: str | None = None) -> MemoryDataset:
    """An Inspect MemoryDataset with one Sample per item."""
    return MemoryDataset([item_to_sample(i) for i in items], name=name)
