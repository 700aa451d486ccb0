"""Contract items -> Inspect Samples (gold and item metadata in Sample.metadata, stable ids)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from inspect_ai.dataset import MemoryDataset, Sample

from judgeaudit.data.contract import Idea, Item, PairItem, PointItem
from judgeaudit.data.jsonl import read_items
from judgeaudit.data.validate import parse_item
from judgeaudit.resources import resolve_dataset_file

# The sides of a judged unit by kind: a pair's two ideas, a point's one idea.
UNIT_SIDES: dict[str, tuple[str, ...]] = {"pairwise": ("a", "b"), "pointwise": ("idea",)}
# The review scores a sample carries for agreement with humans, per side, in this order.
HUMAN_FIELDS: tuple[str, ...] = ("rating_mean", "contribution_mean")


def _human(*ideas: Idea) -> list[float | None]:
    """The ideas' review scores as one flat list (each idea's `HUMAN_FIELDS` in turn): Inspect copies,
    thins and walks every sample's metadata several times, and a list of numbers is one cheap node
    where nested dicts are many; `human_scores` names them again."""
    return [getattr(idea.evidence, field) for idea in ideas for field in HUMAN_FIELDS]


def human_scores(value: Any, kind: str | None) -> dict[str, Any]:
    """The `human` field of a judged unit, `{side: {field: score}}`, from a sample's flat list (`_human`);
    a dict (logs of schema `judgeaudit.score/2` and earlier) is returned as it is, anything else as {}."""
    if isinstance(value, Mapping):
        return dict(value)
    sides = UNIT_SIDES.get(kind or "")
    if not isinstance(value, list) or sides is None or len(value) != len(sides) * len(HUMAN_FIELDS):
        return {}
    width = len(HUMAN_FIELDS)
    return {
        side: dict(zip(HUMAN_FIELDS, value[i * width : (i + 1) * width], strict=True))
        for i, side in enumerate(sides)
    }


def _texts(item: Item) -> dict[str, str]:
    """The idea texts a judge prompt shows, under the prompt's own placeholder names."""
    if isinstance(item, PairItem):
        return {"idea_a": item.idea_a.text, "idea_b": item.idea_b.text}
    return {"idea": item.idea.text}


# Sample metadata: the sample's part of the record of a judged unit (SCORE_SCHEMA.md), one value.
UNIT = "unit"


def unit_of(meta: Mapping[str, Any]) -> Mapping[str, Any]:
    """The judged unit's sample fields (item_id, setup, area, human, probe arm) of a sample's metadata:
    its `UNIT` value, or the metadata itself for logs of schema `judgeaudit.score/3` and earlier,
    where they were top-level keys."""
    unit = meta.get(UNIT)
    return unit if isinstance(unit, Mapping) else meta


def item_to_sample(
    item: Item,
    sample_id: str | None = None,
    extra: dict[str, Any] | None = None,
    lean: bool = False,
    arm: Mapping[str, Any] | None = None,
) -> Sample:
    """One Sample per item: id = item id (or `sample_id`), target = gold, metadata = the whole item.

    The fields of the judged unit's record that the sample holds (item id, setup, area, `human` and
    the probe arm's `arm` fields that are set) are one value, `UNIT` (`unit_of` reads it): Inspect
    copies, thins and writes every sample's metadata several times, and thins each top-level string
    on its own (`textwrap`), where one small dict is a single cheap node. `extra` holds what a judge
    solver reads (orders, cue, prompt, seed).
    `lean=True` (prompted judges without retrieval) keeps only what their solver, scorer and the
    reports read: kind, gold, the unit, the idea texts (`texts`, by prompt placeholder, from which the
    solver renders every call's prompt, `judges.prompts.render_call`) and the `extra` keys that are
    set (None values dropped; readers use `.get`); its input is a one-line summary (`summary`), so no
    text is carried twice. A judge task then makes the first call's prompt the input and keeps the
    texts only when another call needs them (`judgeaudit.judges.build.arm_sample`).
    Judges that rebuild the item (`parse_item(metadata["item"])`) need the default.
    """
    if isinstance(item, PairItem):
        text = f"Idea A:\n{item.idea_a.text}\n\nIdea B:\n{item.idea_b.text}"
        kind, item_id, human = "pairwise", item.pair_id, _human(item.idea_a, item.idea_b)
    elif isinstance(item, PointItem):
        text = f"Idea:\n{item.idea.text}"
        kind, item_id, human = "pointwise", item.item_id, _human(item.idea)
    else:  # pragma: no cover - the union is closed
        raise TypeError(f"not a contract item: {type(item).__name__}")
    unit = {
        "item_id": item_id,
        "setup": item.setup,
        "area": item.area,
        "human": human,
        **{key: value for key, value in (arm or {}).items() if value is not None},
    }
    meta: dict[str, Any] = {"kind": kind, "gold": item.gold, UNIT: unit}
    if lean:
        text = summary(meta)
        meta["texts"] = _texts(item)
        meta.update({key: value for key, value in (extra or {}).items() if value is not None})
    else:
        meta["item"] = item.to_dict()
        meta.update(extra or {})
    return Sample(id=sample_id or item_id, input=text, target=item.gold, metadata=meta)


def summary(meta: Mapping[str, Any]) -> str:
    """A sample's one-line input for display: the item, its area and the question (no idea text)."""
    question = (
        "which of two ideas is more novel?" if meta["kind"] == "pairwise" else "is this idea novel?"
    )
    unit = unit_of(meta)
    return f"{meta['kind']} item {unit['item_id']} ({unit['area']}): {question}"


# The contract files this process loaded items from, in loading order (`loaded_files`).
_LOADED: dict[Path, None] = {}


def load_items(dataset: str, kind: str, idea_format: str = "abstract") -> list[Item]:
    """Items of a bundled set name, directory or JSONL path (strict contract check); the file is
    remembered for `loaded_files`."""
    path = resolve_dataset_file(dataset, kind, idea_format)
    items = read_items(path, "pairwise" if kind == "pairwise" else "pointwise")
    _LOADED.setdefault(path.resolve(), None)
    return items


def loaded_files() -> tuple[Path, ...]:
    """The contract files the tasks of this process loaded items from (a planted judge's default
    answer key holds them beside the bundled sets, so it knows the set it is judging)."""
    return tuple(_LOADED)


def items_to_dataset(items: Sequence[Item], name: str | None = None) -> MemoryDataset:
    """An Inspect MemoryDataset with one Sample per item."""
    return MemoryDataset([item_to_sample(i) for i in items], name=name)


def sample_item(meta: Mapping[str, Any], sample_id: object) -> Item:
    """The contract item a (non-lean) sample's metadata carries; a clear error when it breaks the contract."""
    item, problems = parse_item(meta.get("item"), meta.get("kind"), f"sample {sample_id}", 0)  # type: ignore[arg-type]
    if item is None:
        raise ValueError(
            f"sample {sample_id!r}: item metadata breaks the contract: "
            + "; ".join(str(p) for p in problems)
        )
    return item
