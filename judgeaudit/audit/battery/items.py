"""Which items an audit judges: a gold-balanced head of the dataset, the merged `--generated` sets for
self-preference, written under `<out>/items/` so every task and a resume judge the same items."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from judgeaudit.arms.transforms import apply_probe
from judgeaudit.audit.battery.spec import PROBES_BY_KIND, AuditError
from judgeaudit.audit.readings import ItemGenerators
from judgeaudit.data.contract import Idea, Item, PairItem, item_ideas
from judgeaudit.data.jsonl import write_items
from judgeaudit.data.samples import load_items
from judgeaudit.resources import datasets_root


def balanced_head(items: Sequence[Item], limit: int) -> list[Item]:
    """The first `limit` items taking gold classes in turn (a, b, a, ... / novel, not_novel, ...).

    A plain head of the file may be all one gold side, and then a judge that always answers
    "a" looks accurate; alternating keeps the subset balanced while staying deterministic.
    Classes that run out are filled from the others, in file order.
    """
    by_gold: dict[str, list[Item]] = {}
    for item in items:
        by_gold.setdefault(item.gold, []).append(item)
    queues = [by_gold[g] for g in sorted(by_gold)]
    out: list[Item] = []
    while len(out) < limit and any(queues):
        for q in queues:
            if q and len(out) < limit:
                out.append(q.pop(0))
    order = {item.item_id: k for k, item in enumerate(items)}
    return sorted(out, key=lambda i: order[i.item_id])


def select_items(dataset: str, kind: str, limit: int | None) -> list[Item]:
    """`limit` items of a dataset balanced by gold (all when None); an error on an empty selection."""
    if kind not in PROBES_BY_KIND:
        raise AuditError(f"kind must be 'pairwise' or 'pointwise', got {kind!r}")
    if limit is not None and limit < 1:
        raise AuditError(f"--limit must be a positive number of items, got {limit}")
    items = load_items(dataset, kind)
    if not items:
        raise AuditError(f"dataset {dataset!r} has no {kind} items")
    return balanced_head(items, limit) if limit is not None else list(items)


def write_audit_items(items: Sequence[Item], out: Path, kind: str, folder: str = "items") -> Path:
    """Write the audited items to `<out>/<folder>/<kind>.jsonl` (a set directory the tasks load)."""
    items_dir = out / folder
    write_items(items_dir / f"{kind}.jsonl", list(items))
    return items_dir


def generated_set_dirs(paths: Sequence[str], kind: str) -> list[Path]:
    """The Human+Generated set directories behind `--generated` values, in order.

    A value is a set directory (holding `{kind}.jsonl`), a directory of such sets (one
    subfolder per backbone, e.g. datasets/iclr2026/human_generated), or a bundled set name.
    """
    out: list[Path] = []
    for value in paths:
        root = next((r for r in (Path(value), datasets_root() / value) if r.is_dir()), None)
        if root is None:
            raise AuditError(f"--generated {value!r}: no such directory (nor a bundled set)")
        if (root / f"{kind}.jsonl").is_file():
            found = [root]
        else:
            found = sorted(
                d for d in root.iterdir() if d.is_dir() and (d / f"{kind}.jsonl").is_file()
            )
        if not found:
            raise AuditError(
                f"--generated {value!r}: no {kind}.jsonl in {root} nor in its subfolders"
            )
        out += [d for d in found if d not in out]
    return out


def _renamed(
    item: Item, suffix: str, seen_items: set[str], seen_ideas: dict[str, dict[str, Any]]
) -> Item:
    """`item` with `@suffix` added to its id and to each idea id an earlier set used for other content."""

    def idea(i: Idea) -> Idea:
        if seen_ideas.setdefault(i.idea_id, i.to_dict()) == i.to_dict():
            return i
        renamed = replace(i, idea_id=f"{i.idea_id}@{suffix}")
        seen_ideas.setdefault(renamed.idea_id, renamed.to_dict())
        return renamed

    if isinstance(item, PairItem):
        pair_id = item.pair_id if item.pair_id not in seen_items else f"{item.pair_id}@{suffix}"
        return replace(item, pair_id=pair_id, idea_a=idea(item.idea_a), idea_b=idea(item.idea_b))
    item_id = item.item_id if item.item_id not in seen_items else f"{item.item_id}@{suffix}"
    return replace(item, item_id=item_id, idea=idea(item.idea))


def select_generated(paths: Sequence[str], kind: str, limit: int | None) -> list[Item]:
    """The self-preference items of several Human+Generated sets (one per backbone), merged.

    Each set contributes its items with a generated side (the first `limit`, gold classes in
    turn); an item id or idea id that an earlier set already used (for other content) gets the
    set's folder name appended (`<id>@<folder>`), so sets of different backbones can share
    their human papers.
    """
    merged: list[Item] = []
    seen_items: set[str] = set()
    seen_ideas: dict[str, dict[str, Any]] = {}
    for set_dir in generated_set_dirs(paths, kind):
        items = [i for i in load_items(str(set_dir), kind) if apply_probe("self_preference", [i])]
        if not items:
            raise AuditError(
                f"--generated {str(set_dir)!r}: no Human+Generated {kind} items with a generated side"
            )
        for item in balanced_head(items, limit) if limit is not None else items:
            item = _renamed(item, set_dir.name, seen_items, seen_ideas)
            if item.item_id in seen_items:
                raise AuditError(
                    f"--generated {str(set_dir)!r}: item id {item.item_id!r} is given twice"
                )
            seen_items.add(item.item_id)
            merged.append(item)
    return merged


def items_digest(items: Sequence[Item]) -> str:
    """SHA-256 over the audited items' canonical JSON (ids, texts, gold)."""
    return hashlib.sha256(
        "\n".join(json.dumps(i.to_dict(), sort_keys=True) for i in items).encode()
    ).hexdigest()


def generators_of(items: Sequence[Item]) -> dict[str, ItemGenerators]:
    """Item id -> generator model of its generated idea (None when it has none), or the generators
    of both sides (a, b) of a pair whose two ideas are generated (AI-only)."""
    out: dict[str, ItemGenerators] = {}
    for item in items:
        made = [i.generator for i in item_ideas(item) if i.source == "generated"]
        out[item.item_id] = (made[0], made[1]) if len(made) == 2 else (made[0] if made else None)
    return out
