"""audit.power: the exact per-item outcome distribution of a planted judge is what the provider's own
draws give (`simulate_frame`), and batteries drawn from it, read by the audit's readings and gates,
measure the planted truths (`expected_figures`) back."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from judgeaudit.audit.gates import DEFAULT_GATES
from judgeaudit.audit.planted import (
    Design,
    battery_arms,
    expected_figures,
    simulate_frame,
    true_statistic,
)
from judgeaudit.audit.power import (
    Simulator,
    frame_of_counts,
    gate_results,
    item_patterns,
    outcome_counts,
)
from judgeaudit.providers.planted.behaviour import Behaviour

GATES = {g.name: g for g in DEFAULT_GATES}


def test_item_patterns_are_a_distribution_per_gold_side() -> None:
    patterns = item_patterns(
        Behaviour(accuracy=0.9, first=0.6, noise=0.2), "pairwise", ("position", "repeat")
    )
    assert set(patterns.by_gold) == {"a", "b"}
    for types in patterns.by_gold.values():
        assert math.isclose(sum(p for p, _ in types), 1.0)
        assert all(len(t.verdicts) == len(patterns.arms) == 5 for _, t in types)
    perfect = item_patterns(Behaviour(), "pairwise", ("repeat",))
    assert [t.verdicts for _, t in perfect.by_gold["a"]] == [
        ("a", "a", "a")
    ]  # always right, never noisy


@pytest.mark.parametrize(
    ("behaviour", "probes"),
    [
        (Behaviour(accuracy=0.8, first=0.5, noise=0.3), ("position", "repeat")),
        (Behaviour(accuracy=0.7, cue=0.4, invalid=0.2), ("presumption",)),
        (Behaviour(accuracy=0.9, surface=0.5), ("surface",)),
    ],
)
def test_item_patterns_match_the_providers_own_draws(
    behaviour: Behaviour, probes: tuple[str, ...]
) -> None:
    n = 1500
    frame = simulate_frame(behaviour, "pairwise", n, probes, judge="power").frame
    arms = battery_arms("pairwise", probes)
    seen: Counter[tuple[str, tuple[str, ...]]] = Counter()
    for _, rows in frame.groupby("item_id"):
        by_arm = {
            (
                r.probe if isinstance(r.probe, str) else None,
                r.probe_variant if isinstance(r.probe_variant, str) else None,
            ): r.verdict
            for r in rows.itertuples()
        }
        seen[(rows["gold"].iloc[0], tuple(by_arm[a] for a in arms))] += 1
    patterns = item_patterns(behaviour, "pairwise", probes)
    exact = {(gold, t.verdicts): p for gold, types in patterns.by_gold.items() for p, t in types}
    assert set(seen) <= set(exact)  # no pattern the enumeration says is impossible
    half = n / 2
    for key, p in exact.items():
        # within five standard errors of the exact probability (per gold side, n / 2 items each)
        assert abs(seen[key] / half - p) <= 5 * math.sqrt(p * (1 - p) / half) + 1e-9, (
            key,
            seen[key] / half,
            p,
        )


@pytest.mark.parametrize(
    ("gate", "behaviour", "probes"),
    [
        ("position_flip", Behaviour(accuracy=0.9, first=0.4, noise=0.1), ("position", "repeat")),
        ("position_first", Behaviour(accuracy=0.9, first=0.4), ("position",)),
        ("presumption", Behaviour(accuracy=0.9, cue=0.5), ("presumption",)),
        ("noise_floor", Behaviour(accuracy=0.9, noise=0.3), ("repeat",)),
        ("self_preference", Behaviour(accuracy=0.8, self_preference=0.5), ("self_preference",)),
        ("invalid_rate", Behaviour(accuracy=0.9, invalid=0.3), ()),
    ],
)
def test_simulated_batteries_measure_the_planted_truth(
    gate: str, behaviour: Behaviour, probes: tuple[str, ...]
) -> None:
    truths = expected_figures(behaviour, "pairwise", Design())
    figure = truths[GATES[gate].probe][GATES[gate].figure]
    true = (
        figure.corrected
        if GATES[gate].statistic == "corrected" and figure.corrected is not None
        else figure.value
    )
    sim = Simulator(item_patterns(behaviour, "pairwise", probes))
    n, reps = 200, 8
    runs = sim.run(n, reps, np.random.default_rng(5))
    estimates = [r[gate].estimate for r in runs]
    assert all(e is not None for e in estimates)
    mean = float(np.mean([e for e in estimates if e is not None]))
    # a share over n * reps items (a difference of two: at most twice the spread)
    assert abs(mean - true) <= 5 * 2 * 0.5 / math.sqrt(n * reps), (gate, mean, true)
    stat = true_statistic(GATES[gate], truths, "pairwise")
    assert stat is not None and math.isclose(
        stat, abs(true - 0.5) if gate == "position_first" else abs(true)
    )


def test_gates_decide_on_a_drawn_battery_as_the_audit_does() -> None:
    # every item flips between the two orders and never between runs: the corrected flip (two samples, n of n
    # against 0 of n) fails from 5 items (4: [0.195, 1]; 5: [0.311, 1]; tests/stats/test_noise_corrected.py)
    patterns = item_patterns(Behaviour(accuracy=1.0, first=1.0), "pairwise", ("position", "repeat"))
    sim = Simulator(patterns)
    assert outcome_counts(sim.run(4, 3, np.random.default_rng(0)), "position_flip") == Counter(
        {"inconclusive": 3}
    )
    assert outcome_counts(sim.run(5, 3, np.random.default_rng(0)), "position_flip") == Counter(
        {"fail": 3}
    )
    counts = sim.draw(9, np.random.default_rng(0))
    frame, generators = frame_of_counts(patterns, counts)
    assert frame["item_id"].nunique() == 9 and len(frame) == 9 * len(patterns.arms)
    results = {r.gate.name: r for r in gate_results(frame, "pairwise", patterns.probes, generators)}
    assert (
        results["position_flip"].outcome == "fail" and results["presumption"].outcome == "not_run"
    )
    assert len(sim.cache) == 2  # one count table per n: every item alike
