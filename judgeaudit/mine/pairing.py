"""Pairs of same-area ideas (one `novel`, one `not_novel`), the point set, and their file order.

Pairing (the reference study's, with our seeded draw): per area (in sorted order), an area lacking
either class is dropped whole; every `novel` idea is in exactly one pair, the area's novel ideas
taking their turn in a seeded random order; each one's `not_novel` partner is drawn at random
without replacement from the area's `not_novel` ideas, and ideas are drawn again (reused) only once
the area has run out (the pool is then refilled and drawn without replacement again). The novel
idea's position (a or b) is drawn at random per pair (`positions="random"`), or balanced over the
whole set (`"balanced"`: exactly half at a, the earlier rule). One `random.Random(seed)` makes every
draw, and the inputs are sorted by idea id first, so the pairs depend only on the ideas and the seed.

The point set is the ideas of the pairs, each once (`pair_ideas`); every labelled idea is the larger
point set a user may ask for.

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


POSITIONS: tuple[str, ...] = ("random", "balanced")


@dataclass
class PairingReport:
    """What pairing did: pairs per area, distinct and reused not_novel ideas, areas dropped, draws per idea."""

    pairs_by_area: dict[str, int] = field(default_factory=dict)
    distinct_not_novel_by_area: dict[str, int] = field(default_factory=dict)
    reused_not_novel_by_area: dict[str, int] = field(default_factory=dict)
    unused_not_novel_by_area: dict[str, int] = field(default_factory=dict)
    dropped_areas: dict[str, dict[str, int]] = field(
        default_factory=dict
    )  # area lacking a class -> its counts
    draws: dict[str, int] = field(default_factory=dict)  # idea id -> pairs it is in (0: not drawn)
    novel_at_a: int = 0
    novel_at_b: int = 0


def make_pairs(
    ideas: Iterable[Idea], seed: int, *, pair_prefix: str = "", positions: str = "random"
) -> tuple[list[PairItem], PairingReport]:
    """Same-area novel/not_novel pairs drawn as in the module doc (`positions`: 'random' or 'balanced')."""
    if positions not in POSITIONS:
        raise ValueError(f"positions must be one of {', '.join(POSITIONS)} (got {positions!r})")
    rng = random.Random(seed)
    by_area: dict[str, dict[str, list[Idea]]] = defaultdict(lambda: {"novel": [], "not_novel": []})
    for idea in ideas:
        by_area[idea.area][idea.label].append(idea)
    report = PairingReport()
    raw: list[tuple[str, Idea, Idea]] = []
    for area in sorted(by_area):
        novel = sorted(by_area[area]["novel"], key=lambda i: i.idea_id)
        plain = sorted(by_area[area]["not_novel"], key=lambda i: i.idea_id)
        for idea in novel + plain:
            report.draws[idea.idea_id] = 0
        if not novel or not plain:
            report.dropped_areas[area] = {"novel": len(novel), "not_novel": len(plain)}
            continue
        rng.shuffle(novel)
        pool: list[Idea] = []
        for idea in novel:
            if (
                not pool
            ):  # the area has run out (or starts): draw from all its not_novel ideas again
                pool = list(plain)
                rng.shuffle(pool)
            partner = pool.pop()
            report.draws[idea.idea_id] += 1
            report.draws[partner.idea_id] += 1
            raw.append((area, idea, partner))
        distinct = sum(1 for i in plain if report.draws[i.idea_id])
        report.pairs_by_area[area] = len(novel)
        report.distinct_not_novel_by_area[area] = distinct
        if len(novel) > distinct:
            report.reused_not_novel_by_area[area] = len(novel) - distinct
        if len(plain) > distinct:
            report.unused_not_novel_by_area[area] = len(plain) - distinct
    if positions == "balanced":
        golds = ["a" if k % 2 == 0 else "b" for k in range(len(raw))]
        rng.shuffle(golds)
    else:
        golds = [rng.choice("ab") for _ in raw]
    pairs: list[PairItem] = []
    for (area, novel_idea, plain_idea), gold in zip(raw, golds, strict=True):
        a, b = (novel_idea, plain_idea) if gold == "a" else (plain_idea, novel_idea)
        pair_id = f"{pair_prefix}{novel_idea.idea_id}__{plain_idea.idea_id}"
        pairs.append(
            PairItem(
                pair_id=pair_id,
                setup=SETUP,
                area=area,
                idea_a=a,
                idea_b=b,
                gold="a" if gold == "a" else "b",
            )
        )
    report.novel_at_a = golds.count("a")
    report.novel_at_b = golds.count("b")
    return alternate(pairs, lambda p: p.gold, ("a", "b")), report


def pair_ideas(pairs: Iterable[PairItem]) -> list[Idea]:
    """The ideas of the pairs, each once (the point set of the reference's selection)."""
    seen: dict[str, Idea] = {}
    for pair in pairs:
        for idea in (pair.idea_a, pair.idea_b):
            seen.setdefault(idea.idea_id, idea)
    return list(seen.values())


def make_points(ideas: Iterable[Idea]) -> list[PointItem]:
    """Every idea once, as a pointwise item (item_id = idea_id): novel and not_novel in turn, each by area, id."""
    ordered = sorted(ideas, key=lambda i: (i.area, i.idea_id))
    points = [PointItem(item_id=i.idea_id, setup=SETUP, idea=i, gold=i.label) for i in ordered]
    return alternate(points, lambda p: p.gold, ("novel", "not_novel"))
