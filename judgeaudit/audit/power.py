"""The audit's power by simulation: how often each gate passes, fails or cannot decide on a planted
judge whose true figures are known, at a given number of items.

A planted judge's battery on n items is n independent item draws (`providers.planted.behaviour`:
every random choice is a fresh uniform draw per item or per call). `item_patterns` gives, exactly,
the distribution of one item's verdicts over the battery's arms: it enumerates every item-level
event (belief, surface per edit, each bias) and every call-level event (noise, invalid per
distinct call) with its probability, and runs the provider's own `behaviour.decide` with the
draws forced to that assignment, so each pattern is what the provider answers. A replication
then draws how many items take each pattern (a multinomial per gold side, the gold sides split
as `simulate_frame` splits them), builds the readings' frame, and reads it as an audit does:
`readings.read_all`, `battery.headline`, `gates.evaluate` with the default gates. Whatever those
compute, the power measured here follows.

Items are exchangeable for every reading (paired on item ids, intervals of counts), so the
gates' outcomes depend on the draw only through its counts; `Simulator` reads each distinct
count table once and reuses the outcomes (a cache, not an approximation).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from judgeaudit.audit.battery import headline
from judgeaudit.audit.gates import DEFAULT_GATES, HEADLINE, Gate, GateResult, evaluate
from judgeaudit.audit.planted import (
    OTHER_GENERATOR,
    OWN_GENERATOR,
    Arm,
    Design,
    arm_shown,
    battery_arms,
)
from judgeaudit.audit.readings import COLUMNS, ReadingConfig, read_all
from judgeaudit.judges.verdicts import map_back
from judgeaudit.providers.planted.behaviour import (
    BIASES,
    INVALID,
    Behaviour,
    call_flip_probability,
    decide,
    options,
    other,
)

MAX_ASSIGNMENTS = (
    1 << 16
)  # free events 2^k: more means a behaviour with too many knobs in (0, 1) at once
JUDGE = "planted"


@dataclass(frozen=True)
class ItemType:
    """One item's outcome over the battery: its gold, whether its generated idea is the judge's own,
    and its verdict in each arm (with the arm targets the readings compare against)."""

    gold: str
    own: bool
    verdicts: tuple[str, ...]
    targets: tuple[str | None, ...]


@dataclass(frozen=True)
class Patterns:
    """The exact distribution of one item's outcome: per gold, (probability, item type) pairs."""

    kind: str
    probes: tuple[str, ...]
    arms: tuple[tuple[str | None, str | None], ...]
    by_gold: dict[str, list[tuple[float, ItemType]]]
    gold_share: dict[str, float]


def _arms(kind: str, probes: Sequence[str]) -> tuple[tuple[str | None, str | None], ...]:
    return tuple(
        a
        for a in battery_arms(kind, probes)
        if not (a[0] == "self_preference" and kind == "pointwise")
    )


def _assignments(
    events: Sequence[tuple[object, float]],
) -> Iterator[tuple[float, dict[object, bool]]]:
    """Every assignment of independent events (name, probability) with its probability."""
    free = [(name, p) for name, p in events if 0.0 < p < 1.0]
    fixed = {name: p >= 1.0 for name, p in events if p <= 0.0 or p >= 1.0}
    if 2 ** len(free) > MAX_ASSIGNMENTS:
        raise ValueError(
            f"{len(free)} random events per item: too many to enumerate; use simulate_frame"
        )
    for values in itertools.product((True, False), repeat=len(free)):
        weight = 1.0
        for (_, p), fired in zip(free, values, strict=True):
            weight *= p if fired else 1.0 - p
        yield (
            weight,
            {**fixed, **{name: fired for (name, _), fired in zip(free, values, strict=True)}},
        )


def _shown_arms(
    kind: str,
    arms: Sequence[tuple[str | None, str | None]],
    gold: str,
    own: bool,
    edited: Mapping[str, bool],
    seed: int,
) -> list[Arm]:
    generated = other(kind, gold) if kind == "pairwise" else None
    return [
        arm_shown(
            kind,
            probe,
            variant,
            "item",
            gold,
            seed,
            generated=generated,
            own=own,
            edited=edited.get(str(variant), True),
        )
        for probe, variant in arms
    ]


def _item_distribution(
    behaviour: Behaviour,
    kind: str,
    arms: Sequence[tuple[str | None, str | None]],
    gold: str,
    own: bool,
    design: Design,
) -> Iterator[tuple[float, tuple[str, ...], tuple[str | None, ...]]]:
    """(probability, verdicts per arm, targets per arm) over every assignment of the item's events."""
    surface_arms = [str(v) for p, v in arms if p == "surface"]
    edit_events = [(e, design.surface_changed.get(e, 1.0)) for e in surface_arms]
    for w_edit, edited in _assignments(edit_events):
        shown = _shown_arms(
            kind, arms, gold, own, {str(k): v for k, v in edited.items()}, design.seed
        )
        calls = list(dict.fromkeys(a.shown.call_key() for a in shown))
        q = call_flip_probability(behaviour.noise)
        events: list[tuple[object, float]] = [
            ("accuracy", behaviour.accuracy),
            *((f"surface:{e}", behaviour.surface) for e in surface_arms),
            *((b, float(getattr(behaviour, b))) for b in BIASES),
            *((("noise", c), q) for c in calls),
            *((("invalid", c), behaviour.invalid) for c in calls),
        ]
        for w_events, fired in _assignments(events):

            def forced(tag: str, *key: object, fired: Mapping[object, bool] = fired) -> float:
                if tag in ("noise", "invalid"):
                    name: object = (tag, tuple(key))
                else:
                    name = f"surface:{key[1]}" if tag == "surface" else tag
                return 0.0 if fired[name] else 1.0

            verdicts = []
            for arm in shown:
                reading = decide(behaviour, arm.shown, JUDGE, draw=forced).reading
                verdicts.append(reading if reading == INVALID else map_back(reading, arm.order))  # type: ignore[arg-type]
            yield w_edit * w_events, tuple(verdicts), tuple(a.target for a in shown)


def item_patterns(
    behaviour: Behaviour, kind: str, probes: Sequence[str], design: Design | None = None
) -> Patterns:
    """The exact distribution of one item's verdicts over the battery's arms for these probes (the
    items' mix `design`, default `Design()`)."""
    design = design or Design()
    arms = _arms(kind, probes)
    gold_first = design.gold_first if kind == "pairwise" else design.novel_share
    first, second = options(kind)
    by_gold: dict[str, list[tuple[float, ItemType]]] = {}
    # whether an item's generated idea is the judge's own matters only where self-preference is read
    owns = [
        (own, w)
        for own, w in ((True, design.own_share), (False, 1.0 - design.own_share))
        if w > 0.0
    ]
    if not any(probe == "self_preference" for probe, _ in arms):
        owns = [(False, 1.0)]
    for gold in (first, second):
        mass: dict[ItemType, float] = {}
        for own, w_own in owns:
            for weight, verdicts, targets in _item_distribution(
                behaviour, kind, arms, gold, own, design
            ):
                t = ItemType(gold, own, verdicts, targets)
                mass[t] = mass.get(t, 0.0) + w_own * weight
        by_gold[gold] = [(p, t) for t, p in mass.items() if p > 0.0]
    return Patterns(
        kind, tuple(probes), arms, by_gold, {first: gold_first, second: 1.0 - gold_first}
    )


def gold_counts(patterns: Patterns, n: int) -> dict[str, int]:
    """Items per gold side among n, split as `simulate_frame` splits them (floor of n times the share)."""
    first, second = patterns.by_gold
    k = int(n * patterns.gold_share[first] + 1e-9)
    return {first: k, second: n - k}


Signature = tuple[tuple[int, ...], ...]


def frame_of_counts(
    patterns: Patterns, counts: Signature
) -> tuple[pd.DataFrame, dict[str, str | None]]:
    """The readings' frame (and each item's generator) of items taking each pattern so many times."""
    rows: list[tuple[object, ...]] = []
    generators: dict[str, str | None] = {}
    k = 0
    for gold, per_type in zip(patterns.by_gold, counts, strict=True):
        for (_, t), c in zip(patterns.by_gold[gold], per_type, strict=True):
            for _ in range(c):
                item_id = f"sim{k:05d}"
                k += 1
                generators[item_id] = OWN_GENERATOR if t.own else OTHER_GENERATOR
                rows.extend(
                    (item_id, patterns.kind, gold, verdict, probe, variant, target)
                    for (probe, variant), verdict, target in zip(
                        patterns.arms, t.verdicts, t.targets, strict=True
                    )
                )
    return pd.DataFrame(
        rows, columns=list(COLUMNS), dtype=object
    ), generators  # object columns: faster reads


def gate_results(
    frame: pd.DataFrame,
    kind: str,
    probes: Sequence[str],
    generators: Mapping[str, str | None],
    gates: tuple[Gate, ...] = DEFAULT_GATES,
    config: ReadingConfig | None = None,
) -> list[GateResult]:
    """Every gate's outcome on a battery's frame, read as the audit reads it (the judge's own
    backbone is `OWN_GENERATOR`)."""
    cfg = config or ReadingConfig()
    readings = read_all(frame, probes, cfg, judge_model=OWN_GENERATOR, generators=generators)
    return evaluate(gates, {HEADLINE: headline(frame, kind, cfg), **readings}, kind)


@dataclass(frozen=True)
class Judged:
    """One gate on one replication: its outcome and the estimate it judged (None when not run)."""

    outcome: str
    estimate: float | None


@dataclass
class Simulator:
    """Replications of one planted judge's battery at any n, each distinct count table read once."""

    patterns: Patterns
    gates: tuple[Gate, ...] = DEFAULT_GATES
    config: ReadingConfig = field(default_factory=ReadingConfig)
    cache: dict[Signature, dict[str, Judged]] = field(default_factory=dict)

    def draw(self, n: int, rng: np.random.Generator) -> Signature:
        """One replication's counts of each item type, per gold side."""
        split = gold_counts(self.patterns, n)
        out = []
        for gold, types in self.patterns.by_gold.items():
            p = np.array([w for w, _ in types], dtype=float)
            out.append(tuple(int(c) for c in rng.multinomial(split[gold], p / p.sum())))
        return tuple(out)

    def judge(self, counts: Signature) -> dict[str, Judged]:
        """Gate name -> outcome and estimate on the battery with these counts."""
        if counts not in self.cache:
            frame, generators = frame_of_counts(self.patterns, counts)
            results = gate_results(
                frame, self.patterns.kind, self.patterns.probes, generators, self.gates, self.config
            )
            self.cache[counts] = {r.gate.name: Judged(r.outcome, r.estimate) for r in results}
        return self.cache[counts]

    def run(self, n: int, replications: int, rng: np.random.Generator) -> list[dict[str, Judged]]:
        """`replications` independent batteries of n items: each gate's outcome on each."""
        return [self.judge(self.draw(n, rng)) for _ in range(replications)]


def outcome_counts(runs: Sequence[Mapping[str, Judged]], gate: str) -> Counter[str]:
    """How many replications gave each outcome of one gate."""
    return Counter(run[gate].outcome for run in runs)
