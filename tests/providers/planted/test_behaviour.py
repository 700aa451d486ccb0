"""The planted behaviour core: knobs act as declared, in the declared order, deterministically.

Rates are checked over many synthetic item keys against binomial tolerances (about four standard
errors); the draws are hashes, so every check gives the same answer on every run."""

from __future__ import annotations

import math
import re
from dataclasses import replace

import pytest

from judgeaudit.errors import UserError
from judgeaudit.providers.planted.behaviour import (
    KNOBS,
    PRESETS,
    Behaviour,
    PlantedError,
    Shown,
    behaviour_for,
    call_flip_probability,
    decide,
    draw,
    reading,
)

N = 4000
ITEMS = [f"item{k}" for k in range(N)]


def share(flags: list[bool]) -> float:
    return sum(flags) / len(flags)


def close(observed: float, expected: float, n: int = N) -> bool:
    """Within four binomial standard errors (at least 0.01)."""
    return abs(observed - expected) <= max(0.01, 4 * math.sqrt(expected * (1 - expected) / n))


def pair(item: str, **fields: object) -> Shown:
    return Shown(kind="pairwise", item=item, **{"gold": "a", **fields})  # type: ignore[arg-type]


def point(item: str, **fields: object) -> Shown:
    return Shown(kind="pointwise", item=item, **{"gold": "novel", **fields})  # type: ignore[arg-type]


def test_draws_are_uniform_and_stable() -> None:
    values = [draw("t", k) for k in range(N)]
    assert all(0.0 <= v < 1.0 for v in values)
    assert close(share([v < 0.3 for v in values]), 0.3)
    assert values == [draw("t", k) for k in range(N)]  # same key, same draw
    assert draw("t", 1) != draw("u", 1) and draw("t", 1) != draw("t", 2)


@pytest.mark.parametrize("accuracy", [0.0, 0.25, 0.7, 1.0])
def test_accuracy_is_the_share_choosing_the_gold(accuracy: float) -> None:
    b = Behaviour(accuracy=accuracy)
    pairs = [reading(b, pair(i, gold="b")) == "b" for i in ITEMS]
    points = [reading(b, point(i, gold="not_novel")) == "not_novel" for i in ITEMS]
    assert close(share(pairs), accuracy) and close(share(points), accuracy)


def test_an_unbiased_judge_keeps_its_verdict_across_orders_seeds_cues_and_wordings() -> None:
    """Without noise, surface or bias knobs, the belief is per item: the same idea in either order,
    for any seed, wording, cue or padding, and a wrong belief stays wrong."""
    b = Behaviour(accuracy=0.6)
    for item in ITEMS[:500]:
        ab = reading(b, pair(item, gold="a", seed=1))
        ba = reading(
            b, pair(item, gold="b", seed=2)
        )  # the same pair in b/a order: gold shown second
        assert (ab == "a") == (ba == "b")  # the same idea (gold or not) in both orders
        for extra in (
            {"cue": "b"},
            {"padded": "b"},
            {"injected": "b"},
            {"own": "b"},
            {"frame": "p3"},
            {"seed": 9},
        ):
            assert reading(b, pair(item, **{"gold": "a", "seed": 1, **extra})) == ab


def test_first_position_preference_and_its_order_flips() -> None:
    b = Behaviour(accuracy=0.9, first=0.8)
    ab = [reading(b, pair(i, gold="a")) for i in ITEMS]
    ba = [reading(b, pair(i, gold="b")) for i in ITEMS]
    first = share([v == "a" for v in ab + ba])
    flips = share(
        [x == y for x, y in zip(ab, ba, strict=True)]
    )  # same shown position = different idea
    assert close(first, (1 + 0.8) / 2, 2 * N) and close(flips, 0.8)
    assert all(
        reading(b, point(i)) == reading(Behaviour(accuracy=0.9), point(i)) for i in ITEMS[:300]
    )  # no order pointwise


@pytest.mark.parametrize(
    ("knob", "field", "pair_target", "point_target"),
    [
        ("cue", "cue", "b", "not_novel"),
        ("padding", "padded", "b", "idea"),
        ("injection", "injected", "b", "not_novel"),
        ("self_preference", "own", "b", "idea"),
    ],
)
def test_each_bias_moves_verdicts_towards_its_target_at_its_rate(
    knob: str, field: str, pair_target: str, point_target: str
) -> None:
    b = Behaviour(accuracy=1.0, **{knob: 0.35})
    towards = share([reading(b, pair(i, gold="a", **{field: pair_target})) == "b" for i in ITEMS])
    assert close(towards, 0.35)
    label = "novel" if point_target == "idea" else point_target
    gold = "not_novel" if label == "novel" else "novel"
    pointwise = share(
        [reading(b, point(i, gold=gold, **{field: point_target})) == label for i in ITEMS]
    )
    assert close(pointwise, 0.35)
    # without its trigger in the prompt the bias does nothing
    assert all(reading(b, pair(i, gold="a")) == "a" for i in ITEMS[:300])


def test_biases_act_in_the_declared_precedence() -> None:
    """self_preference < first < padding < cue < injection: each overrides the ones before it."""
    shown = pair("x", gold="b", own="b", padded="b", cue="a", injected="b")
    chain = [
        ("self_preference", "b"),
        ("first", "a"),
        ("padding", "b"),
        ("cue", "a"),
        ("injection", "b"),
    ]
    knobs: dict[str, float] = {}
    for knob, expected in chain:
        knobs[knob] = 1.0
        decision = decide(Behaviour(accuracy=0.0, **knobs), shown)
        assert (decision.reading, decision.cause) == (expected, knob)
    assert decide(Behaviour(accuracy=0.0), shown).cause == "inaccuracy"


def test_surface_edits_reverse_the_belief_per_edit() -> None:
    b = Behaviour(accuracy=1.0, surface=0.3)
    assert all(reading(b, pair(i)) == "a" for i in ITEMS[:300])  # unedited: never
    one = [reading(b, pair(i, edit="casing")) == "b" for i in ITEMS]
    two = [reading(b, pair(i, edit="acronym")) == "b" for i in ITEMS]
    assert close(share(one), 0.3) and close(share(two), 0.3)
    assert close(
        share([x and y for x, y in zip(one, two, strict=True)]), 0.09
    )  # edits draw independently


def test_noise_is_the_rate_at_which_two_runs_differ() -> None:
    for noise in (0.1, 0.3, 0.5):
        b = Behaviour(accuracy=0.8, noise=noise)
        run1 = [reading(b, pair(i, seed=1)) for i in ITEMS]
        run2 = [reading(b, pair(i, seed=2)) for i in ITEMS]
        assert close(share([x != y for x, y in zip(run1, run2, strict=True)]), noise)
        assert run1 == [reading(b, pair(i, seed=1)) for i in ITEMS]  # a run repeats itself
    q = call_flip_probability(0.3)
    assert (
        math.isclose(2 * q * (1 - q), 0.3)
        and call_flip_probability(0.0) == 0.0
        and call_flip_probability(0.5) == 0.5
    )


def test_invalid_answers_at_their_rate_and_per_call() -> None:
    b = Behaviour(invalid=0.2)
    first = [reading(b, point(i, seed=1)) == "invalid" for i in ITEMS]
    second = [reading(b, point(i, seed=2)) == "invalid" for i in ITEMS]
    assert close(share(first), 0.2) and close(
        share([x and y for x, y in zip(first, second, strict=True)]), 0.04
    )
    assert decide(Behaviour(invalid=1.0), pair("x")).cause == "invalid"


def test_judges_of_different_names_err_on_different_items() -> None:
    b = Behaviour(accuracy=0.7)
    one = [reading(b, pair(i), judge="m1") == "a" for i in ITEMS]
    two = [reading(b, pair(i), judge="m2") == "a" for i in ITEMS]
    assert close(share([x != y for x, y in zip(one, two, strict=True)]), 2 * 0.7 * 0.3)
    assert one == [reading(b, pair(i), judge="m1") == "a" for i in ITEMS]


def test_presets_and_knobs() -> None:
    assert behaviour_for("custom", {}) == Behaviour()
    assert behaviour_for("first_shown", {"first": "0.6", "accuracy": 0.75}) == replace(
        PRESETS["first_shown"].behaviour, first=0.6, accuracy=0.75
    )
    unbiased = PRESETS["accurate"].behaviour
    for name, preset in PRESETS.items():
        changed = {k for k in KNOBS if getattr(preset.behaviour, k) != getattr(unbiased, k)}
        if name not in ("accurate", "custom"):
            assert len(changed) == 1 and preset.fails, (
                name
            )  # one bias each, and the gate(s) it should fail


@pytest.mark.parametrize(
    ("preset", "knobs", "message"),
    [
        ("nope", {}, "unknown planted preset 'nope'; choose one of: accurate, first_shown"),
        ("custom", {"frist": 0.3}, "unknown planted knob(s) frist; knobs: accuracy, first, cue"),
        ("custom", {"first": "high"}, "planted knob first='high': not a number"),
        ("custom", {"first": "nan"}, "planted knob first='nan': not a number"),
        ("custom", {"first": True}, "planted knob first=True: must be a probability in [0, 1]"),
        ("custom", {"cue": 1.5}, "planted knob cue=1.5: must be a probability in [0, 1]"),
        ("custom", {"invalid": -0.1}, "planted knob invalid=-0.1: must be a probability in [0, 1]"),
        ("custom", {"noise": 0.7}, "planted knob noise=0.7: at most 0.5"),
    ],
)
def test_bad_presets_and_knobs_fail_in_one_line(
    preset: str, knobs: dict[str, object], message: str
) -> None:
    with pytest.raises(PlantedError, match=re.escape(message)) as info:
        behaviour_for(preset, knobs)
    assert isinstance(info.value, UserError) and "\n" not in str(info.value)


def test_a_shown_prompt_of_the_wrong_shape_is_refused() -> None:
    with pytest.raises(ValueError, match="Shown.gold of a pairwise prompt must be one of"):
        pair("x", gold="novel")
    with pytest.raises(ValueError, match="Shown.padded of a pointwise prompt must be one of"):
        point("x", padded="a")
    with pytest.raises(ValueError, match="Shown.kind must be pairwise or pointwise"):
        Shown(kind="ranking", item="x", gold="a")
