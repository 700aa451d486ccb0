"""Checks across the files of one set: a `_plan` variant must agree with its abstract file."""

from __future__ import annotations

import json
from pathlib import Path

from judgeaudit.data.contract import Idea, Item, PairItem
from judgeaudit.data.jsonl import check_file
from judgeaudit.data.validate import Problem


def _ideas(item: Item) -> list[tuple[str, Idea]]:
    return (
        [("idea_a", item.idea_a), ("idea_b", item.idea_b)]
        if isinstance(item, PairItem)
        else [("idea", item.idea)]
    )


def variant_problems(set_dir: Path) -> list[Problem]:
    """Disagreements of `<kind>_plan.jsonl` with `<kind>.jsonl`: an item id with another setup or
    area, or an idea id with another label (an idea's label does not depend on its format).
    Positions (and so gold) may differ between the two files."""
    problems: list[Problem] = []
    for kind in ("pairwise", "pointwise"):
        base_path, plan_path = Path(set_dir) / f"{kind}.jsonl", Path(set_dir) / f"{kind}_plan.jsonl"
        if not (base_path.is_file() and plan_path.is_file()):
            continue
        base_items, _ = check_file(
            base_path, kind
        )  # per-file problems are reported by check_file itself
        plan_items, _ = check_file(plan_path, kind)
        base = {item.item_id: item for item in base_items}
        labels = {idea.idea_id: idea.label for item in base_items for _, idea in _ideas(item)}
        lines = _line_numbers(plan_path, kind)
        for item in plan_items:
            line = lines.get(item.item_id, 0)
            other = base.get(item.item_id)
            if other is not None:
                for name in ("setup", "area"):
                    mine, theirs = getattr(item, name), getattr(other, name)
                    if mine != theirs:
                        problems.append(
                            Problem(
                                str(plan_path),
                                line,
                                name,
                                f"{name} {mine!r} differs from "
                                f"{base_path.name} ({theirs!r}) for the same id {item.item_id!r}",
                            )
                        )
            for side, idea in _ideas(item):
                known = labels.get(idea.idea_id)
                if known is not None and known != idea.label:
                    problems.append(
                        Problem(
                            str(plan_path),
                            line,
                            f"{side}.label",
                            f"idea {idea.idea_id!r} is "
                            f"{idea.label!r} here but {known!r} in {base_path.name}",
                        )
                    )
    return problems


def _line_numbers(path: Path, kind: str) -> dict[str, int]:
    field = "pair_id" if kind == "pairwise" else "item_id"
    out: dict[str, int] = {}
    with path.open("rb") as fh:
        for number, raw in enumerate(fh, start=1):
            try:
                obj = json.loads(raw)
            except (ValueError, UnicodeDecodeError):
                continue
            if isinstance(obj, dict) and isinstance(obj.get(field), str):
                out.setdefault(obj[field], number)
    return out
