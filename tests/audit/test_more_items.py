"""What more data would buy an inconclusive gate (`gates.more_items`, `stats.projection`), against
hand-derived closed forms, and its cost at the run's cost per item (`AuditResult.more_items`).

- No flip between the repeat runs on n items: Clopper-Pearson's upper end is 1 - 0.025^(1/n), at most
  0.10 (the noise_floor gate passes) from n = ln 0.025 / ln 0.9 = 35.01, so 36 items.
- Every item flips under the probe and none between the repeat runs (2 of 2 against 0 of 2): the
  two-sample lower end solves (1 - 1/(2n) - d)^2 = z^2 (1 - d^2) / (2n) (tests/stats/test_noise_corrected.py):
  0.195 at n = 4, 0.311 at n = 5, so position_flip fails from 5 items.
- Accuracy 4 of 4: the lower end 0.025^(1/n) reaches 0.6 (pass) from n = ln 0.025 / ln 0.6 = 7.2, so 8.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from judgeaudit.audit.battery import AuditResult, AuditSpec
from judgeaudit.audit.gates import DEFAULT_GATES, decide, more_items
from judgeaudit.audit.readings import Figure, Reading
from judgeaudit.stats import (
    FLIP_RATE,
    bootstrap_metric,
    interval,
    noise_corrected_flip_rate,
    share_metric,
)

GATES = {g.name: g for g in DEFAULT_GATES}


def _rate(k: int, n: int) -> Figure:
    return Figure("x", "x", interval({"flip": np.r_[np.ones(k), np.zeros(n - k)]}, FLIP_RATE))


def test_no_noise_flip_in_six_passes_the_noise_floor_from_36_items() -> None:
    gate = GATES["noise_floor"]
    assert decide(gate, _rate(0, 6)).outcome == "inconclusive"
    more = more_items(gate, _rate(0, 6))
    assert (
        (more.items, more.outcome)
        == (math.ceil(math.log(0.025) / math.log(0.9)), "pass")
        == (36, "pass")
    )
    assert (
        decide(gate, _rate(0, 36)).outcome == "pass"
        and decide(gate, _rate(0, 35)).outcome == "inconclusive"
    )


def test_every_item_flipping_without_noise_fails_position_flip_from_five_items() -> None:
    fig = Figure(
        "order_flip_rate",
        "x",
        _rate(2, 2).value,
        noise_corrected_flip_rate(np.ones(2), np.zeros(2)),
    )
    gate = GATES["position_flip"]
    assert decide(gate, fig).outcome == "inconclusive"
    more = more_items(gate, fig)
    assert (more.items, more.outcome) == (5, "fail")


def test_accuracy_four_of_four_passes_from_eight_items() -> None:
    fig = Figure("accuracy", "x", interval({"ok": np.ones(4)}, share_metric("accuracy", "ok")))
    more = more_items(GATES["accuracy"], fig)
    assert (
        (more.items, more.outcome)
        == (math.ceil(math.log(0.025) / math.log(0.6)), "pass")
        == (8, "pass")
    )


def test_a_value_on_a_threshold_never_decides() -> None:
    """1 flip in 10 between the repeat runs sits on the pass threshold 0.10: every interval straddles it."""
    more = more_items(GATES["noise_floor"], _rate(1, 10), cap=5000)
    assert more.items is None and more.outcome is None and "5,000 items" in more.note


def test_a_bootstrapped_figure_has_no_projection() -> None:
    metric = FLIP_RATE.__class__(
        "f", ("flip",), lambda s, n: float(np.mean(s["flip"]))
    )  # no closed form
    iv = bootstrap_metric({"flip": np.array([1.0, 0.0, 1.0, 0.0])}, metric, 200, 1)
    more = more_items(GATES["noise_floor"], Figure("x", "x", iv))
    assert more.items is None and "no projection" in more.note


@pytest.mark.parametrize(("usd", "expected"), [(0.12, 0.12 / 6 * 36), (None, None)])
def test_the_card_prices_the_items_at_this_runs_cost_per_item(
    usd: float | None, expected: float | None
) -> None:
    gate = GATES["noise_floor"]
    result = decide(gate, _rate(0, 6))
    result = replace(result, more=more_items(gate, _rate(0, 6)))
    head = Reading("headline", "ok", 6, {"accuracy": _rate(6, 6)})
    audit = AuditResult(
        AuditSpec(model="x"),
        "use with care",
        [result],
        head,
        {},
        [result],
        {"usd": usd, "battery_seconds": 3.0},
        [],
        {"count": 6},
        "logs",
    )
    priced = audit.more_items(result)
    assert priced is not None and priced["items"] == 36
    assert priced["usd"] == (pytest.approx(expected) if expected is not None else None)
    assert priced["seconds"] == pytest.approx(3.0 / 6 * 36)
    assert audit.to_dict()["gates"][0]["more_items"] == priced
