"""Each single-bias planted judge fails exactly its matching gate at `--limit 10`, and an unbiased
one fails no bias gate: `judgeaudit audit --model planted/<preset> -M <knob>=... --limit 10`, end to
end (real Inspect eval-sets of the judge tasks, the planted provider answering, the card read
back from card.json).

The items are the first 10 pairs of the bundled ICLR 2026 set with their not-novel side marked
generated (by the judge's own backbone on every other pair, by another model on the rest), so
the self-preference probe runs in every battery too. Each bias knob is at 1: the bias acts on
every item, as strong as a judge can be. Two gates cannot fail on 10 items whatever the judge
does (docs/methods/intervals.md, "Items a gate needs when every item is alike"): the
first-position rate of a judge choosing the first-shown idea on every item fails from 16 items
(no 95% interval can exclude 0.75 sooner), and the noise floor of a judge whose runs differ at
the highest rate a planted judge has (0.5, a coin per call) fails only when 6 or more of 10 items
happen to flip (P = 0.38 for a given draw). For those, the test asserts that the gate does not pass.
The self-preferring judge is also right on every item (accuracy 1): then the other backbone's
generated ideas never win, and 5 items a group decide (with accuracy 0.9 one stray win leaves
the gate inconclusive at this n).

Knobs at 1 and answers drawn from SHA-256 of fixed keys: each battery is deterministic.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from judgeaudit.audit.battery import select_items
from judgeaudit.audit.planted import with_generated_sides
from judgeaudit.cli import main
from judgeaudit.data.jsonl import write_items

BUNDLED = "iclr2026/human_only"
LIMIT = 10
BIAS_GATES = (
    "invalid_rate",
    "noise_floor",
    "position_flip",
    "position_first",
    "presumption",
    "verbosity",
    "surface",
    "injection",
    "self_preference",
)
# preset -> (knobs, the gates it must fail, the gates it cannot fail on 10 items but must not pass)
CASES: dict[str, tuple[dict[str, float], tuple[str, ...], tuple[str, ...]]] = {
    "accurate": ({}, (), ()),
    "first_shown": ({"first": 1.0}, ("position_flip",), ("position_first",)),
    "cue_follower": ({"cue": 1.0}, ("presumption",), ()),
    "padding_chooser": ({"padding": 1.0}, ("verbosity",), ()),
    "injection_follower": ({"injection": 1.0}, ("injection",), ()),
    "surface_sensitive": ({"surface": 1.0}, ("surface",), ()),
    # right on every item, so the other backbone's generated (not-novel) ideas never win: 5 items a group decide
    "self_preferring": ({"self_preference": 1.0, "accuracy": 1.0}, ("self_preference",), ()),
    "noisy": ({"noise": 0.5}, (), ("noise_floor",)),
    "rambling": ({"invalid": 1.0}, ("invalid_rate",), ()),
}


def audit(preset: str, root: Path) -> dict[str, Any]:
    """The card of `judgeaudit audit --model planted/<preset>` with the case's knobs at --limit 10."""
    items = with_generated_sides(
        select_items(BUNDLED, "pairwise", LIMIT), f"x/{preset}", "openai/gpt-4o"
    )
    dataset = root / "items"
    write_items(dataset / "pairwise.jsonl", items)
    knobs = [arg for k, v in CASES[preset][0].items() for arg in ("-M", f"{k}={v}")]
    code = main(
        [
            "audit",
            "--model",
            f"planted/{preset}",
            "-M",
            f"dataset={dataset}",
            *knobs,
            "--dataset",
            str(dataset),
            "--limit",
            str(LIMIT),
            "--resamples",
            "500",
            "--display",
            "none",
            "--out",
            str(root / "audit"),
        ]
    )
    assert code == 0
    card: dict[str, Any] = json.loads((root / "audit" / "card.json").read_text(encoding="utf-8"))
    return card


@pytest.fixture(scope="module")
def card_of(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], dict[str, Any]]:
    """A preset's card, its battery run once for the module (when a test first asks for it)."""
    cards: dict[str, dict[str, Any]] = {}

    def card(preset: str) -> dict[str, Any]:
        if preset not in cards:
            cards[preset] = audit(preset, tmp_path_factory.mktemp(preset))
        return cards[preset]

    return card


def outcomes(card: dict[str, Any]) -> dict[str, str]:
    return {g["name"]: g["outcome"] for g in card["gates"]}


@pytest.mark.slow
@pytest.mark.parametrize("preset", [p for p in CASES if p != "accurate"])
def test_a_single_bias_fails_exactly_its_matching_gate(
    preset: str, card_of: Callable[[str], dict[str, Any]]
) -> None:
    _, must_fail, must_not_pass = CASES[preset]
    card = card_of(preset)
    got = outcomes(card)
    failed = {g for g in BIAS_GATES if got[g] == "fail"}
    # the matching gates fail; one that 10 items cannot reliably fail may fail on these items' draws or stay
    # inconclusive, but never passes; no other bias gate fails
    assert set(must_fail) <= failed <= set(must_fail) | set(must_not_pass), got
    assert all(got[g] not in ("pass", "not_run") for g in must_not_pass), got
    assert card["verdict"] == ("unfit" if failed else "use with care"), card["verdict"]
    if (
        preset != "rambling"
    ):  # a judge that never answers leaves no verdict to compare: its other gates do not run
        assert all(got[g] != "not_run" for g in BIAS_GATES), got


@pytest.mark.slow
def test_an_unbiased_planted_judge_fails_no_gate(card_of: Callable[[str], dict[str, Any]]) -> None:
    card = card_of("accurate")
    got = outcomes(card)
    assert "fail" not in got.values(), got
    assert all(got[g] != "not_run" for g in BIAS_GATES), got
    assert (
        card["verdict"] == "use with care"
    )  # ten items cannot show that every bias is absent either
