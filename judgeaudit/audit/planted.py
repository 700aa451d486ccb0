"""Planted judges as the audit sees them: each battery arm as what its prompt shows, the true value
of every probe figure for a declared behaviour, and simulated verdict frames (no Inspect).

`arm_shown` is the battery's arm layout (`battery.build_tasks`, `arms.transforms`) in the terms of
`providers.planted.behaviour.Shown`: the unperturbed run (seed S) and its repeat (seed S + 1),
position (the b/a order swaps the shown positions), presumption (a cue naming the gold or the
other option, shown in a/b order; the P3 framing as another wording), verbosity, surface (an
edit that leaves a text unchanged shows the unperturbed prompt), injection and self-preference.

`expected_figures` gives each figure's true value: what the reading (`audit.readings`) converges
to on many items of the `Design`'s mix, with one call per order (k = 1, the battery's default).
It is exact under the generative model: it enumerates the item-level events (belief, surface
per edit, each bias) with their probabilities, runs `behaviour.settle` on every arm under each
assignment, and applies the call-level steps in closed form: a call is valid with probability
1 - invalid and reversed with probability q, so two different calls whose choices agree differ
with probability `noise` and two that disagree with 1 - `noise` (an identical call never
differs). Rates of answers (accuracy, follow and win rates, novel shares) carry the factor
1 - invalid, as the readings count an invalid verdict as a miss; flip rates and the
first-position rate are over valid verdicts, as the readings take them. A flip rate's
`corrected` value subtracts the noise floor, as the reading's does. Pointwise macro-F1 is the
population value: per class 2 E[tp] / (E[predicted] + E[gold]). Pointwise self-preference has no
true figure (its reading compares verdicts with an arm target the pointwise probe does not set).

`simulate_frame` draws a battery's per-judged-unit frame (the readings' columns) for `n`
synthetic items with `behaviour.decide`, the provider's own function; `audit.readings.read_all`
reads it as it reads an audit's logs. `replay_frame` gives the frame a planted judge's real
battery on real items produces, without Inspect: `battery_calls` renders every call's prompt as
the prompted judge does and reads it as the provider does (once), `frame_of_calls` decides them
as the provider does (for any judge name: independent replays of one battery), so its verdicts
are the audit's, call for call (the battery's defaults: reference prompt, k = 1, one order).
`design_of` measures a `Design` on real items; `with_generated_sides` makes self-preference items.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace

import pandas as pd

from judgeaudit.arms.transforms import FRAMING_PROMPT, SURFACE_ARMS, apply_probe, probe_arms
from judgeaudit.audit.gates import POINTWISE_FIGURES, Gate, region
from judgeaudit.audit.readings import COLUMNS
from judgeaudit.data.contract import Item, PairItem, item_ideas
from judgeaudit.judges.build import arm_sample, probed_items
from judgeaudit.judges.llm.prompted import call_seed
from judgeaudit.judges.prompts import plan_calls, render_call
from judgeaudit.judges.verdicts import map_back
from judgeaudit.providers.planted.behaviour import (
    BIASES,
    INVALID,
    POINT_SIDE,
    Behaviour,
    Draw,
    Shown,
    call_flip_probability,
    decide,
    draw,
    other,
    settle,
)
from judgeaudit.providers.planted.key import AnswerKey
from judgeaudit.providers.planted.prompt import read_prompt

# Generator names of simulated generated ideas: the judge's own backbone and another one.
OWN_GENERATOR, OTHER_GENERATOR = "own", "other"
REPEAT = "repeat"


@dataclass(frozen=True)
class Design:
    """The audited items' mix, which some true figures depend on.

    `gold_first`: pairwise, the share of items whose gold is side a (shown first in a/b order);
    `novel_share`: pointwise, the share of items whose gold is novel; `surface_changed`: per
    surface edit, the share of items whose shown texts it changes (`changed_shares` measures it
    on real items); `own_share`: the share of generated ideas from the judge's own backbone
    (simulation only; the true figures are per group); `seed`: the audit seed S.
    """

    gold_first: float = 0.5
    novel_share: float = 0.5
    surface_changed: Mapping[str, float] = field(
        default_factory=lambda: dict.fromkeys(SURFACE_ARMS, 1.0)
    )
    own_share: float = 0.5
    seed: int = 0


@dataclass(frozen=True)
class TrueFigure:
    """A figure's true value and, for a flip rate, its noise-floor-corrected value."""

    value: float
    corrected: float | None = None


@dataclass(frozen=True)
class Arm:
    """One battery arm of one item: what its prompt shows, its order, and the reading's arm target."""

    shown: Shown
    order: str
    target: str | None = None


def _arm_fields(
    kind: str, probe: str | None, variant: str | None, gold: str, generated: str | None, own: bool
) -> tuple[dict[str, object], str, str | None]:
    """(Shown fields, order, arm target) of a pairwise or pointwise arm; `gold` in item terms."""
    opposite = other(kind, gold)
    pair = kind == "pairwise"
    side = gold if pair else POINT_SIDE
    table: dict[tuple[str | None, str | None], tuple[dict[str, object], str | None]] = {
        (None, None): ({}, None),
        (REPEAT, "run1"): ({}, None),
        (REPEAT, "run2"): ({}, None),
        ("presumption", "framing"): ({"frame": FRAMING_PROMPT}, None),
        ("presumption", "cue_gold"): ({"cue": gold}, gold),
        ("presumption", "cue_other"): ({"cue": opposite}, opposite),
        ("verbosity", "pad_gold"): ({"padded": gold}, gold),
        ("verbosity", "pad_other"): ({"padded": opposite}, opposite),
        ("verbosity", "pad"): ({"padded": side}, None),
        ("injection", "inject_gold"): ({"injected": gold}, gold),
        ("injection", "inject_other"): ({"injected": opposite}, opposite),
        ("injection", "inject_novel"): ({"injected": "novel"}, "novel"),
        ("injection", "inject_not_novel"): ({"injected": "not_novel"}, "not_novel"),
        ("self_preference", "generated"): (
            {"own": (generated if pair else POINT_SIDE) if own else None},
            generated if pair else None,
        ),
    }
    if probe == "position":
        first = "a" if variant == "order_ab" else "b"
        return {"gold": gold if first == "a" else opposite}, "ab" if first == "a" else "ba", first
    fields_, target = table[(probe, variant)]
    return fields_, "ab" if pair else "single", target


def arm_shown(
    kind: str,
    probe: str | None,
    variant: str | None,
    item: str,
    gold: str,
    seed: int,
    *,
    generated: str | None = None,
    own: bool = False,
    edited: bool = True,
) -> Arm:
    """The battery arm (`probe`, `variant`) of an item with key `item` and gold `gold` (pairwise
    `a`/`b`, pointwise a label), audit seed `seed`; `generated` is the side of a generated idea
    (self-preference), `own` whether it is the judge's own, `edited` whether a surface edit
    changes the item's texts (otherwise the arm shows the unperturbed prompt)."""
    if probe == "surface":
        fields_: dict[str, object] = {"edit": variant if edited else ""}
        order, target = ("ab" if kind == "pairwise" else "single"), None
    else:
        fields_, order, target = _arm_fields(kind, probe, variant, gold, generated, own)
    run_seed = seed + 1 if (probe, variant) == (REPEAT, "run2") else seed
    shown = Shown(  # type: ignore[arg-type]
        kind=kind,
        item=item,
        gold=str(fields_.pop("gold", gold)),
        seed=run_seed,
        **fields_,  # type: ignore[arg-type]
    )
    return Arm(shown, order, target)


def battery_arms(kind: str, probes: Sequence[str]) -> list[tuple[str | None, str | None]]:
    """(probe, variant) of every arm the battery judges for these probes, the unperturbed run first."""
    arms: list[tuple[str | None, str | None]] = [(None, None)]
    for probe in probes:
        if probe == REPEAT:
            arms += [(REPEAT, "run1"), (REPEAT, "run2")]
        elif probe != "position" or kind == "pairwise":
            arms += [(probe, v) for v in probe_arms(probe, kind)]
    return arms


# --- true figures -----------------------------------------------------------------------

ArmName = tuple[str | None, str | None]
Add = Callable[[str, float], None]


def _events(behaviour: Behaviour) -> list[tuple[str, float]]:
    """The item-level events (tag, probability) of the model: belief, surface per edit, each bias."""
    return [
        ("accuracy", behaviour.accuracy),
        *((f"surface:{e}", behaviour.surface) for e in SURFACE_ARMS),
        *((b, getattr(behaviour, b)) for b in BIASES),
    ]


def _assignments(behaviour: Behaviour) -> Iterator[tuple[float, dict[str, bool]]]:
    """Every assignment of the item-level events with its probability (events certain either way fixed)."""
    events = _events(behaviour)
    free = [(tag, p) for tag, p in events if 0.0 < p < 1.0]
    fixed = {tag: p >= 1.0 for tag, p in events if p in (0.0, 1.0)}
    for values in itertools.product((True, False), repeat=len(free)):
        weight = 1.0
        for (_, p), fired in zip(free, values, strict=True):
            weight *= p if fired else 1.0 - p
        yield (
            weight,
            {**fixed, **{tag: fired for (tag, _), fired in zip(free, values, strict=True)}},
        )


def _forced(assignment: Mapping[str, bool]) -> Draw:
    """Draws that make each item-level event fire exactly when `assignment` says so."""

    def forced(tag: str, item: object, *rest: object) -> float:
        name = f"{tag}:{rest[0]}" if tag == "surface" else tag
        return 0.0 if assignment[name] else 1.0

    return forced


class _Calls:
    """Closed-form call-level steps over pre-noise choices (see the module docstring)."""

    def __init__(self, behaviour: Behaviour) -> None:
        self.valid = 1.0 - behaviour.invalid
        self.q = call_flip_probability(behaviour.noise)
        self.noise = behaviour.noise

    def final(self, choice: str, option: str) -> float:
        """P(final answer = option | valid) for a pre-noise choice."""
        return 1.0 - self.q if choice == option else self.q

    def hit(self, choice: str, option: str) -> float:
        """P(final answer = option), an invalid answer being a miss."""
        return self.valid * self.final(choice, option)

    def differ(self, x: Arm, cx: str, y: Arm, cy: str) -> float:
        """P(the two calls' verdicts differ | both valid), verdicts mapped back to the item's sides."""
        if x.shown == y.shown:
            return 0.0
        same = _item_side(cx, x) == _item_side(cy, y)
        return self.noise if same else 1.0 - self.noise


def _item_side(option: str, arm: Arm) -> str:
    """A pairwise shown position as the item's side in this arm's order (and back: the swap is its
    own inverse); pointwise options unchanged."""
    return map_back(option, arm.order) if arm.order in ("ab", "ba") else option  # type: ignore[arg-type]


def _item_types(kind: str, design: Design) -> list[tuple[float, str]]:
    if kind == "pairwise":
        return [(design.gold_first, "a"), (1.0 - design.gold_first, "b")]
    return [(design.novel_share, "novel"), (1.0 - design.novel_share, "not_novel")]


def expected_figures(
    behaviour: Behaviour, kind: str, design: Design = Design()
) -> dict[str, dict[str, TrueFigure]]:
    """Probe (and `headline`) -> figure name -> true value, for every figure the readings give."""
    if kind not in ("pairwise", "pointwise"):
        raise ValueError(f"kind must be 'pairwise' or 'pointwise', got {kind!r}")
    calls = _Calls(behaviour)
    sums: dict[str, float] = {}
    names = battery_arms(
        kind, ("position", "presumption", "verbosity", "surface", "injection", REPEAT)
    )
    for (w_item, gold), (w_events, assignment) in itertools.product(
        _item_types(kind, design), _assignments(behaviour)
    ):
        weight = w_item * w_events
        if weight == 0.0:
            continue

        def add(name: str, value: float, weight: float = weight) -> None:
            sums[name] = sums.get(name, 0.0) + weight * value

        forced = _forced(assignment)
        arms = {a: arm_shown(kind, *a, "item", gold, design.seed) for a in names}
        choice = {a: settle(behaviour, arm.shown, forced)[0] for a, arm in arms.items()}
        _accumulate(kind, gold, arms, choice, calls, design, add)
        if kind == "pairwise":
            for own in (True, False):
                arm = arm_shown(
                    kind,
                    "self_preference",
                    "generated",
                    "item",
                    gold,
                    design.seed,
                    generated=other(kind, gold),
                    own=own,
                )
                c = settle(behaviour, arm.shown, forced)[0]
                add(
                    f"win:{'own' if own else 'other'}",
                    calls.hit(c, _item_side(str(arm.target), arm)),
                )
    return _figures(kind, sums, calls)


def _accumulate(
    kind: str,
    gold: str,
    arms: Mapping[ArmName, Arm],
    choice: Mapping[ArmName, str],
    calls: _Calls,
    design: Design,
    add: Add,
) -> None:
    """Add one item type's per-arm expectations (answer rates, flips) to the running sums."""
    base: ArmName = (None, None)

    def flip(x: ArmName, y: ArmName) -> float:
        return calls.differ(arms[x], choice[x], arms[y], choice[y])

    for a, arm in arms.items():
        name = f"{a[0]}/{a[1]}"
        add(f"correct:{name}", calls.hit(choice[a], arm.shown.gold))
        if arm.target is not None:
            add(f"hit:{name}", calls.hit(choice[a], _item_side(arm.target, arm)))
        if kind == "pointwise":
            add(f"novel:{name}", calls.hit(choice[a], "novel"))
    add("gold_novel", float(gold == "novel"))
    for c in ("novel", "not_novel"):
        add(f"tp_{c}", calls.hit(choice[base], c) if gold == c else 0.0)
    add("flip:repeat", flip(base, (REPEAT, "run2")))
    add("flip:framing", flip(base, ("presumption", "framing")))
    if kind == "pairwise":
        add("flip:position", flip(("position", "order_ab"), ("position", "order_ba")))
        add(
            "first",
            (
                calls.final(choice[("position", "order_ab")], "a")
                + calls.final(choice[("position", "order_ba")], "a")
            )
            / 2,
        )
    for e in SURFACE_ARMS:
        add(f"flip:surface:{e}", design.surface_changed.get(e, 1.0) * flip(base, ("surface", e)))


def _figures(kind: str, s: Mapping[str, float], calls: _Calls) -> dict[str, dict[str, TrueFigure]]:
    """The readings' figures from the accumulated expectations."""
    noise = s["flip:repeat"]

    def flip(name: str) -> TrueFigure:
        return TrueFigure(s[name], s[name] - noise)

    def rate(name: str) -> TrueFigure:
        return TrueFigure(s[name])

    def diff(x: str, y: str) -> TrueFigure:
        return TrueFigure(s[x] - s[y])

    invalid = TrueFigure(1.0 - calls.valid)
    out: dict[str, dict[str, TrueFigure]] = {
        REPEAT: {"noise_floor": TrueFigure(noise), "invalid_rate": invalid}
    }
    surface = {f"flip_rate:{e}": flip(f"flip:surface:{e}") for e in SURFACE_ARMS}
    pooled = sum(s[f"flip:surface:{e}"] for e in SURFACE_ARMS) / len(SURFACE_ARMS)
    out["surface"] = {
        "surface_flip_rate": TrueFigure(pooled, pooled - noise),
        **surface,
        "invalid_rate": invalid,
    }
    presumption = {
        "cue_shift": diff("correct:presumption/cue_gold", "correct:presumption/cue_other"),
        **_win("cue_follow_rate", s, "presumption/cue_gold", "presumption/cue_other"),
        "framing_flip_rate": flip("flip:framing"),
        "invalid_rate": invalid,
    }
    if kind == "pairwise":
        out["headline"] = {
            "accuracy": rate("correct:None/None"),
            "invalid_rate": invalid,
            "tie_rate": TrueFigure(0.0),
        }
        position_flip = flip("flip:position")
        out["position"] = {
            "order_flip_rate": position_flip,
            "order_consistency": TrueFigure(1.0 - position_flip.value),
            "first_position_rate": rate("first"),
            "invalid_rate": invalid,
        }
        out["presumption"] = presumption
        out["verbosity"] = {
            "padding_shift": diff("correct:verbosity/pad_gold", "correct:verbosity/pad_other"),
            **_win("padded_win_rate", s, "verbosity/pad_gold", "verbosity/pad_other"),
            "invalid_rate": invalid,
        }
        out["injection"] = {
            "injection_shift": diff(
                "correct:injection/inject_gold", "correct:injection/inject_other"
            ),
            **_win("injected_win_rate", s, "injection/inject_gold", "injection/inject_other"),
            "invalid_rate": invalid,
        }
        own, others = s["win:own"], s["win:other"]
        out["self_preference"] = {
            "generated_win_rate:own": TrueFigure(own),
            "generated_win_rate:other": TrueFigure(others),
            "self_preference_gap": TrueFigure(own - others),
        }
    else:
        gold_novel = s["gold_novel"]
        predicted = {"novel": s["novel:None/None"], "not_novel": calls.valid - s["novel:None/None"]}
        f1 = {
            c: _f1(s[f"tp_{c}"], predicted[c], g)
            for c, g in (("novel", gold_novel), ("not_novel", 1.0 - gold_novel))
        }
        defined = [v for v in f1.values() if v is not None]
        out["headline"] = {
            "accuracy": TrueFigure(sum(defined) / len(defined) if defined else float("nan")),
            "invalid_rate": invalid,
        }
        out["presumption"] = presumption
        out["verbosity"] = {
            "padding_novel_shift": diff("novel:verbosity/pad", "novel:None/None"),
            "invalid_rate": invalid,
        }
        out["injection"] = {
            "injection_shift": diff(
                "novel:injection/inject_novel", "novel:injection/inject_not_novel"
            ),
            "injected_win_rate": TrueFigure(
                (s["hit:injection/inject_novel"] + s["hit:injection/inject_not_novel"]) / 2
            ),
            "invalid_rate": invalid,
        }
    return out


def _win(name: str, s: Mapping[str, float], gold_arm: str, other_arm: str) -> dict[str, TrueFigure]:
    hit_g, hit_o = s[f"hit:{gold_arm}"], s[f"hit:{other_arm}"]
    return {
        name: TrueFigure((hit_g + hit_o) / 2),
        f"{name}:gold_side": TrueFigure(hit_g),
        f"{name}:other_side": TrueFigure(hit_o),
    }


def _f1(tp: float, predicted: float, gold: float) -> float | None:
    """Population F1 of a class (None when it is neither predicted nor in gold)."""
    return 2.0 * tp / (predicted + gold) if predicted + gold > 0 else None


def true_statistic(
    gate: Gate, truths: Mapping[str, Mapping[str, TrueFigure]], kind: str
) -> float | None:
    """The value a gate's statistic takes on the true figure (None when there is no such figure)."""
    figure = POINTWISE_FIGURES.get(gate.probe, gate.figure) if kind == "pointwise" else gate.figure
    true = truths.get(gate.probe, {}).get(figure)
    if true is None:
        return None
    value = (
        true.corrected
        if gate.statistic == "corrected" and true.corrected is not None
        else true.value
    )
    if gate.statistic == "abs":
        return abs(value)
    if gate.statistic == "distance_from_half":
        return abs(value - 0.5)
    return value


def true_region(
    gate: Gate, truths: Mapping[str, Mapping[str, TrueFigure]], kind: str
) -> str | None:
    """`pass`, `warn` or `fail`: the region of the gate the true figure lies in (None without one)."""
    value = true_statistic(gate, truths, kind)
    return None if value is None else region(gate, value)


# --- simulation -------------------------------------------------------------------------


def _spread(k: int, share: float) -> bool:
    """Whether item k is among a `share` of items spread evenly over the sequence."""
    return int((k + 1) * share) > int(k * share)


def changed_shares(items: Sequence[Item], seed: int = 0) -> dict[str, float]:
    """Per surface edit, the share of `items` whose shown texts it changes (`Design.surface_changed`)."""
    typed = list(items)
    if not typed:
        return dict.fromkeys(SURFACE_ARMS, 0.0)
    original = {i.item_id: [idea.text for idea in item_ideas(i)] for i in typed}
    changed = dict.fromkeys(SURFACE_ARMS, 0)
    for arm in apply_probe("surface", typed, seed):
        if [idea.text for idea in item_ideas(arm.item)] != original[arm.item.item_id]:
            changed[str(arm.probe_variant)] += 1
    return {e: changed[e] / len(typed) for e in SURFACE_ARMS}


def design_of(items: Sequence[Item], seed: int) -> Design:
    """The design of audited items (audit seed `seed`): their gold mix and the surface edits' reach."""
    if not items:
        raise ValueError("a design needs at least one item")
    return Design(
        gold_first=sum(i.gold == "a" for i in items) / len(items),
        novel_share=sum(i.gold == "novel" for i in items) / len(items),
        surface_changed=changed_shares(items, seed),
        seed=seed,
    )


@dataclass(frozen=True)
class Simulated:
    """A simulated battery: its per-judged-unit frame and each item's generator (self-preference)."""

    frame: pd.DataFrame
    generators: dict[str, str | None]


def simulate_frame(
    behaviour: Behaviour,
    kind: str,
    n: int,
    probes: Sequence[str],
    design: Design = Design(),
    judge: str = "planted",
    replicate: int = 0,
) -> Simulated:
    """The battery's frame for `n` synthetic items judged by `behaviour` (one row per item and arm,
    the readings' columns); `replicate` gives an independent draw of the same design. Read it with
    `readings.read_all(frame, probes, judge_model=OWN_GENERATOR, generators=...)`."""
    rows: list[dict[str, object]] = []
    generators: dict[str, str | None] = {}
    arms = battery_arms(kind, probes)
    for k in range(n):
        item_id = f"sim{k:05d}"
        key = f"{replicate}:{item_id}"
        if kind == "pairwise":
            gold = "a" if _spread(k, design.gold_first) else "b"
        else:
            gold = "novel" if _spread(k, design.novel_share) else "not_novel"
        own = draw("design:own", key) < design.own_share  # independent of the gold side
        generators[item_id] = OWN_GENERATOR if own else OTHER_GENERATOR
        for probe, variant in arms:
            if probe == "self_preference" and kind == "pointwise":
                continue
            edited = probe != "surface" or draw(
                "design:edited", key, variant
            ) < design.surface_changed.get(str(variant), 1.0)
            arm = arm_shown(
                kind,
                probe,
                variant,
                key,
                gold,
                design.seed,
                generated=other(kind, gold) if kind == "pairwise" else None,
                own=own,
                edited=edited,
            )
            verdict = decide(behaviour, arm.shown, judge).reading
            verdict = verdict if verdict == INVALID else map_back(verdict, arm.order)  # type: ignore[arg-type]
            rows.append(
                {
                    "item_id": item_id,
                    "kind": kind,
                    "gold": gold,
                    "verdict": verdict,
                    "probe": probe,
                    "probe_variant": variant,
                    "probe_target": arm.target,
                }
            )
    return Simulated(pd.DataFrame(rows, columns=list(COLUMNS)), generators)


def with_generated_sides(items: Sequence[Item], own: str, other: str) -> list[Item]:
    """Pairs with their not-novel side marked generated, by the generator `own` on every other item
    (the first, the third, ...) and by `other` on the rest: self-preference items for a planted
    judge whose name's last part is `own`'s backbone (its answer key must hold these items)."""
    out: list[Item] = []
    for k, pair in enumerate(items):
        if not isinstance(pair, PairItem):
            raise ValueError(f"self-preference items are pairs; {pair.item_id!r} is not")
        generator = own if k % 2 == 0 else other
        if pair.gold == "a":
            marked = replace(
                pair, idea_b=replace(pair.idea_b, source="generated", generator=generator)
            )
        else:
            marked = replace(
                pair, idea_a=replace(pair.idea_a, source="generated", generator=generator)
            )
        out.append(replace(marked, setup="human_generated"))
    return out


@dataclass(frozen=True)
class BatteryCall:
    """One call of a battery as its prompt shows it (`arm`), with the frame row it fills (its verdict
    left to decide) and whether that row also stands for `repeat/run1`."""

    row: dict[str, object]
    arm: Arm
    also_run1: bool = False


def battery_calls(
    kind: str,
    items: Sequence[Item],
    probes: Sequence[str],
    key: AnswerKey,
    seed: int,
    judge: str,
    generated: Sequence[Item] = (),
    prompt: str = "reference",
) -> list[BatteryCall]:
    """Every call the battery makes for a planted judge named `judge` (answer key `key`) on `items`
    (`generated`: the self-preference items, default `items`) with audit seed `seed`: each prompt
    rendered as the prompted judge renders it and read as the provider reads it (k = 1, one order)."""
    runs: list[tuple[str | None, int, Sequence[Item]]] = [(None, seed, items)]
    if REPEAT in probes:
        runs.append((REPEAT, seed + 1, items))
    runs += [
        (p, seed, (generated or items) if p == "self_preference" else items)
        for p in probes
        if p != REPEAT
    ]
    calls = []
    for probe, run_seed, run_items in runs:
        for probed in probed_items(list(run_items), None if probe == REPEAT else probe, run_seed):
            meta = arm_sample(probed).metadata or {}
            name, orders = plan_calls(kind, meta, prompt, False)
            base = probed.seed if probed.seed is not None else run_seed
            shown = read_prompt(render_call(kind, name, meta, orders[0]), key, judge).shown
            row: dict[str, object] = {
                "item_id": probed.item.item_id,
                "kind": kind,
                "gold": probed.item.gold,
                "probe": probe,
                "probe_variant": "run2" if probe == REPEAT else probed.probe_variant,
                "probe_target": probed.probe_target,
            }
            arm = Arm(replace(shown, seed=call_seed(base, 0)), orders[0], probed.probe_target)
            calls.append(BatteryCall(row, arm, also_run1=probe is None and REPEAT in probes))
    return calls


def frame_of_calls(behaviour: Behaviour, judge: str, calls: Sequence[BatteryCall]) -> pd.DataFrame:
    """The per-judged-unit frame of a battery's calls answered by the planted judge `judge`."""
    rows: list[dict[str, object]] = []
    for call in calls:
        verdict = decide(behaviour, call.arm.shown, judge).reading
        verdict = verdict if verdict == INVALID else map_back(verdict, call.arm.order)  # type: ignore[arg-type]
        rows.append({**call.row, "verdict": verdict})
        if call.also_run1:
            rows.append({**rows[-1], "probe": REPEAT, "probe_variant": "run1"})
    return pd.DataFrame(rows, columns=list(COLUMNS))


def replay_frame(
    behaviour: Behaviour,
    judge: str,
    kind: str,
    items: Sequence[Item],
    probes: Sequence[str],
    key: AnswerKey,
    seed: int,
    generated: Sequence[Item] = (),
) -> pd.DataFrame:
    """The frame the battery of `planted/<judge>` gives on `items`, rebuilt call for call without
    Inspect (`battery_calls`, `frame_of_calls`); `repeat/run1` is the unperturbed run."""
    return frame_of_calls(
        behaviour, judge, battery_calls(kind, items, probes, key, seed, judge, generated)
    )
