"""Pairs of same-area ideas (one `novel`, one `not_novel`) and the pointwise set.

Per area (in sorted order), a seeded RNG shuffles the area's novel and not_novel ideas (each
list first sorted by idea_id, so the result depends only on the ideas and the seed). Every novel
idea is used exactly once. Not-novel ideas are used at most once while the area has enough of
them; only where an area has fewer not_novel than novel ideas are they reused, round-robin.
Novel ideas in an area without any not_novel idea cannot be paired and are counted.
The novel idea's position is balanced over the whole set: exactly half of the pairs (rounded)
put it at `a`, assigned by the same seeded RNG.

File order (so that a run over the first N items sees both classes in turn): pairs alternate gold
`a`, `b`, `a`, ... and points alternate `novel`, `not_novel`, ... as far as the counts allow (the
larger class's rest comes last); within each class the order is by area, then id (`alternate`).
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from judgeaudit.data.contract import Idea, PairItem, PointItem, Setup

SETUP: Setup = "human_only"
T = TypeVar("T")


def alternate(items: Iterable[T], cls: Callable[[T], str], order: Sequence[str]) -> list[T]:
    """Items interleaved by class in `order` (one of each in turn, keeping each class's order; the rest last)."""
    queues: dict[str, list[T]] = {c: [] for c in order}
    for item in items:
        queues[cls(item)].append(item)
    out: list[T] = []
    for k in range(max((len(q) for q in queues.values()), default=0)):
        out.extend(q[k] for q in queues.values() if k < len(q))
    return out


@dataclass
class PairingReport:
    """What pairing did: pairs per area, reuse of not_novel ideas, unpaired novel ideas."""

    pairs_by_area: dict[str, int] = field(default_factory=dict)
    reused_not_novel_by_area: dict[str, int] = field(default_factory=dict)
    unpaired_novel_by_area: dict[str, int] = field(default_factory=dict)
    unused_not_novel_by_area: dict[str, int] = field(default_factory=dict)
    novel_at_a: int = 0
    novel_at_b: int = 0


def make_pairs(ideas: Iterable[Idea], seed: int, *, pair_prefix: str = "") -> tuple[list[PairItem], PairingReport]:
    """Same-area novel/not_novel pairs with the novel idea's position balanced (see module doc)."""
    rng = random.Random(seed)
    by_area: dict[str, dict[str, list[Idea]]] = defaultdict(lambda: {"novel": [], "not_novel": []})
    for idea in ideas:
        by_area[idea.area][idea.label].append(idea)
    report = PairingReport()
    raw: list[tuple[str, Idea, Idea]] = []
    for area in sorted(by_area):
        novel = sorted(by_area[area]["novel"], key=lambda i: i.idea_id)
        plain = sorted(by_area[area]["not_novel"], key=lambda i: i.idea_id)
        rng.shuffle(novel)
        rng.shuffle(plain)
        if not novel:
            report.unused_not_novel_by_area[area] = len(plain)
            continue
        if not plain:
            report.unpaired_novel_by_area[area] = len(novel)
            continue
        for k, idea in enumerate(novel):
            raw.append((area, idea, plain[k % len(plain)]))
        report.pairs_by_area[area] = len(novel)
        if len(novel) > len(plain):
            report.reused_not_novel_by_area[area] = len(novel) - len(plain)
        elif len(plain) > len(novel):
            report.unused_not_novel_by_area[area] = len(plain) - len(novel)
    golds = ["a" if k % 2 == 0 else "b" for k in range(len(raw))]
    rng.shuffle(golds)
    pairs: list[PairItem] = []
    for (area, novel_idea, plain_idea), gold in zip(raw, golds, strict=True):
        a, b = (novel_idea, plain_idea) if gold == "a" else (plain_idea, novel_idea)
        pair_id = f"{pair_prefix}{novel_idea.idea_id}__{plain_idea.idea_id}"
        pairs.append(PairItem(pair_id=pair_id, setup=SETUP, area=area, idea_a=a, idea_b=b, gold="a" if gold == "a" else "b"))
    report.novel_at_a = golds.count("a")
    report.novel_at_b = golds.count("b")
    return alternate(pairs, lambda p: p.gold, ("a", "b")), report


def make_points(ideas: Iterable[Idea]) -> list[PointItem]:
    """Every idea once, as a pointwise item (item_id = idea_id): novel and not_novel in turn, each by area, id."""
    ordered = sorted(ideas, key=lambda i: (i.area, i.idea_id))
    points = [PointItem(item_id=i.idea_id, setup=SETUP, idea=i, gold=i.label) for i in ordered]
    return alternate(points, lambda p: p.gold, ("novel", "not_novel"))
