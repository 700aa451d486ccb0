"""True figures of planted judges: closed forms checked by hand on simple behaviours, against the
audit's own readings of simulated battery frames on many items, and against the gates' regions
(each preset's true figures fail exactly the gates it is built to fail)."""

from __future__ import annotations

import math

import pytest

from judgeaudit.arms.transforms import SURFACE_ARMS
from judgeaudit.audit.gates import DEFAULT_GATES
from judgeaudit.audit.planted import (
    OWN_GENERATOR,
    Design,
    TrueFigure,
    arm_shown,
    changed_shares,
    expected_figures,
    simulate_frame,
    true_region,
    true_statistic,
)
from judgeaudit.audit.readings import ReadingConfig, read_all
from judgeaudit.data.samples import load_items
from judgeaudit.providers.planted.behaviour import PRESETS, Behaviour

PROBES = (
    "position",
    "presumption",
    "verbosity",
    "surface",
    "injection",
    "self_preference",
    "repeat",
)
MIXED = Behaviour(
    accuracy=0.8,
    first=0.3,
    cue=0.4,
    padding=0.25,
    injection=0.35,
    surface=0.4,
    self_preference=0.3,
    noise=0.2,
    invalid=0.1,
)
BIAS_GATES = (
    "noise_floor",
    "position_flip",
    "position_first",
    "presumption",
    "verbosity",
    "surface",
    "injection",
    "self_preference",
    "invalid_rate",
)


def value(truths: dict[str, dict[str, TrueFigure]], probe: str, figure: str) -> float:
    return truths[probe][figure].value


def test_closed_forms_by_hand() -> None:
    """Single knobs give the textbook values (pairwise, balanced gold, k = 1)."""
    first = expected_figures(Behaviour(accuracy=0.9, first=0.8), "pairwise")
    assert math.isclose(value(first, "position", "first_position_rate"), 0.9)  # (1 + 0.8) / 2
    assert math.isclose(value(first, "position", "order_flip_rate"), 0.8)
    assert math.isclose(value(first, "headline", "accuracy"), 0.8 * 0.5 + 0.2 * 0.9)
    cue = expected_figures(Behaviour(accuracy=0.9, cue=0.6), "pairwise")
    assert math.isclose(value(cue, "presumption", "cue_shift"), 0.6)
    assert math.isclose(value(cue, "presumption", "cue_follow_rate:gold_side"), 0.6 + 0.4 * 0.9)
    noisy = expected_figures(Behaviour(accuracy=1.0, noise=0.3, invalid=0.2), "pairwise")
    assert math.isclose(value(noisy, "repeat", "noise_floor"), 0.3)
    corrected = noisy["position"]["order_flip_rate"].corrected
    assert corrected is not None and math.isclose(
        corrected, 0.0, abs_tol=1e-12
    )  # its order flips are noise
    q = (1 - math.sqrt(1 - 0.6)) / 2
    assert math.isclose(value(noisy, "headline", "accuracy"), 0.8 * (1 - q))
    assert math.isclose(value(noisy, "headline", "invalid_rate"), 0.2)
    surface = expected_figures(
        Behaviour(surface=0.5),
        "pairwise",
        Design(surface_changed={"casing": 1.0, "acronym": 0.4, "sentence_order": 0.0}),
    )
    assert math.isclose(value(surface, "surface", "flip_rate:casing"), 0.5)
    assert math.isclose(value(surface, "surface", "flip_rate:acronym"), 0.2)
    assert (
        value(surface, "surface", "flip_rate:sentence_order") == 0.0
    )  # an unchanged text is the same prompt
    pad = expected_figures(
        Behaviour(accuracy=1.0, padding=0.5), "pointwise", Design(novel_share=0.25)
    )
    assert math.isclose(
        value(pad, "verbosity", "padding_novel_shift"), 0.5 * 0.75
    )  # not-novel ideas turn novel
    perfect = expected_figures(Behaviour(), "pointwise")
    assert value(perfect, "headline", "accuracy") == 1.0


@pytest.mark.parametrize("kind", ["pairwise", "pointwise"])
def test_an_unbiased_judge_has_no_bias(kind: str) -> None:
    truths = expected_figures(PRESETS["accurate"].behaviour, kind)
    for probe, figures in truths.items():
        for name, true in figures.items():
            if (
                name.endswith("shift")
                or "flip" in name
                or name in ("noise_floor", "self_preference_gap", "invalid_rate")
            ):
                assert true.value == 0.0 and true.corrected in (None, 0.0), (probe, name)
    if kind == "pairwise":
        assert truths["position"]["first_position_rate"].value == 0.5


def within(observed: float, low: float, high: float, expected: float) -> bool:
    """`expected` inside the interval widened to twice its width (about four standard errors)."""
    half = max((high - low) / 2, 0.005)
    return low - half - 1e-9 <= expected <= high + half + 1e-9


CASES = [(kind, name) for kind in ("pairwise", "pointwise") for name in PRESETS if name != "custom"]


@pytest.mark.slow
@pytest.mark.parametrize(("kind", "name"), [*CASES, ("pairwise", "mixed"), ("pointwise", "mixed")])
def test_true_figures_are_what_the_readings_measure_on_many_simulated_items(
    kind: str, name: str
) -> None:
    behaviour = MIXED if name == "mixed" else PRESETS[name].behaviour
    design = Design(
        surface_changed={
            "whitespace_markdown": 1.0,
            "casing": 1.0,
            "sentence_order": 0.6,
            "acronym": 0.5,
        }
    )
    probes = [p for p in PROBES if kind == "pairwise" or p not in ("position", "self_preference")]
    sim = simulate_frame(behaviour, kind, 2000, probes, design, judge=name)
    readings = read_all(
        sim.frame,
        probes,
        ReadingConfig(resamples=300, seed=3),
        judge_model=OWN_GENERATOR,
        generators=sim.generators,
    )
    truths = expected_figures(behaviour, kind, design)
    checked = 0
    for probe, figures in truths.items():
        if probe == "headline":
            continue
        for figure, true in figures.items():
            measured = readings[probe].figures[figure]
            v = measured.value
            assert within(v.estimate, v.low, v.high, true.value), (
                probe,
                figure,
                v.estimate,
                true.value,
            )
            if true.corrected is not None:
                c = measured.corrected
                assert c is not None and within(c.estimate, c.low, c.high, true.corrected), (
                    probe,
                    figure,
                )
            checked += 1
    assert checked >= (30 if kind == "pairwise" else 18)


@pytest.mark.parametrize("kind", ["pairwise", "pointwise"])
def test_each_preset_fails_exactly_the_gates_it_is_built_to_fail(kind: str) -> None:
    gates = {g.name: g for g in DEFAULT_GATES}
    for name, preset in PRESETS.items():
        truths = expected_figures(preset.behaviour, kind)
        failing = {g for g in BIAS_GATES if true_region(gates[g], truths, kind) == "fail"}
        applicable = {g for g in preset.fails if true_statistic(gates[g], truths, kind) is not None}
        assert failing == applicable, (kind, name)
        assert all(
            true_region(gates[g], truths, kind) == "pass"
            for g in BIAS_GATES
            if g not in applicable and true_statistic(gates[g], truths, kind) is not None
        ), (kind, name)
        assert true_region(gates["accuracy"], truths, kind) != "fail"


def test_true_statistics_read_the_gates_figure() -> None:
    gates = {g.name: g for g in DEFAULT_GATES}
    truths = expected_figures(Behaviour(accuracy=0.9, first=0.5), "pairwise")
    assert math.isclose(
        true_statistic(gates["position_first"], truths, "pairwise") or -1.0, 0.25
    )  # |0.75 - 0.5|
    noisy = expected_figures(Behaviour(accuracy=0.9, first=0.5, noise=0.2), "pairwise")
    assert math.isclose(
        true_statistic(gates["position_flip"], noisy, "pairwise") or -1.0,
        noisy["position"]["order_flip_rate"].value - 0.2,
    )  # noise-corrected
    point = expected_figures(Behaviour(padding=0.4), "pointwise")
    assert math.isclose(
        true_statistic(gates["verbosity"], point, "pointwise") or -1.0, 0.2
    )  # padding_novel_shift
    assert true_statistic(gates["position_first"], point, "pointwise") is None
    assert true_region(gates["surface_ratio"], point, "pointwise") is None


def test_arms_of_the_battery_as_their_prompts_show_them() -> None:
    base = arm_shown("pairwise", None, None, "k", "a", 7)
    ba = arm_shown("pairwise", "position", "order_ba", "k", "a", 7)
    assert (ba.shown.gold, ba.order, ba.target) == ("b", "ba", "b")
    assert (
        arm_shown("pairwise", "position", "order_ab", "k", "a", 7).shown == base.shown
    )  # the same call
    assert arm_shown("pairwise", "repeat", "run2", "k", "a", 7).shown.seed == 8
    assert arm_shown("pairwise", "presumption", "cue_other", "k", "a", 7).shown.cue == "b"
    assert arm_shown("pairwise", "surface", "casing", "k", "a", 7, edited=False).shown == base.shown
    own = arm_shown(
        "pairwise", "self_preference", "generated", "k", "a", 7, generated="b", own=True
    )
    assert (own.shown.own, own.target) == ("b", "b")
    point = arm_shown("pointwise", "injection", "inject_not_novel", "k", "novel", 7)
    assert (point.shown.injected, point.target, point.order) == ("not_novel", "not_novel", "single")


def test_changed_shares_of_real_items() -> None:
    items = load_items("iclr2026/human_only", "pointwise")[:40]
    shares = changed_shares(items)
    assert (
        set(shares) == set(SURFACE_ARMS)
        and shares["casing"] == 1.0
        and shares["whitespace_markdown"] == 1.0
    )
    assert 0.0 < shares["acronym"] < 1.0
    assert changed_shares([]) == dict.fromkeys(SURFACE_ARMS, 0.0)
