"""A panel's verdict from its members' verdicts (`judges.panel_votes`), every rule worked by hand."""

from __future__ import annotations

from typing import Any

import pytest

from judgeaudit.judges.panel_votes import (
    PanelRule,
    PanelRuleError,
    member_verdicts,
    panel_calls_outcome,
    panel_failure,
    panel_outcome,
)

THREE = ("p", "q", "r")


def votes(*verdicts: str, members: tuple[str, ...] = THREE) -> dict[str, str]:
    return dict(zip(members, verdicts, strict=True))


def call(
    member: str, verdict: str, order: str = "ab", index: int = 0, error: str | None = None
) -> dict[str, Any]:
    return {
        "member": member,
        "verdict": verdict,
        "order": order,
        "call_index": index,
        "error": error,
    }


@pytest.mark.parametrize(
    ("verdicts", "expected", "no_majority"),
    [
        (("a", "a", "b"), "a", False),  # 2 of 3
        (("b", "tie", "b"), "b", False),
        (
            ("a", "b", "tie"),
            "tie",
            True,
        ),  # one each: no option has more than half, the tie rule says tie
        (
            ("tie", "tie", "a"),
            "tie",
            False,
        ),  # two members said tie: a majority for tie, not the tie rule
        (("a", "b", "invalid"), "tie", True),  # 1 of 2 answering members is not more than half
        (("a", "a", "error"), "error", False),  # a member failed: never the survivors' verdict
    ],
)
def test_pairwise_majority(verdicts: tuple[str, ...], expected: str, no_majority: bool) -> None:
    outcome = panel_outcome("pairwise", votes(*verdicts), PanelRule(THREE))
    assert (outcome.verdict, outcome.no_majority) == (expected, no_majority)
    assert outcome.answered == sum(v in ("a", "b", "tie") for v in verdicts)
    assert outcome.members == votes(*verdicts)


@pytest.mark.parametrize("split_rule", ["not_novel", "novel", "invalid"])
def test_pointwise_split_goes_to_the_split_rule(split_rule: str) -> None:
    members = ("p", "q", "r", "s")
    outcome = panel_outcome(
        "pointwise",
        votes("novel", "novel", "not_novel", "not_novel", members=members),
        PanelRule(members),
        split_rule,
    )  # type: ignore[arg-type]
    assert (outcome.verdict, outcome.no_majority, outcome.answered) == (split_rule, True, 4)
    clear = panel_outcome(
        "pointwise",
        votes("novel", "novel", "not_novel", "invalid", members=members),
        PanelRule(members),
        split_rule,
    )  # type: ignore[arg-type]
    assert (clear.verdict, clear.no_majority, clear.answered) == ("novel", False, 3)


def test_unanimity_or_tie() -> None:
    rule = PanelRule(THREE, "unanimity")
    assert panel_outcome("pairwise", votes("b", "b", "b"), rule).verdict == "b"
    assert (
        panel_outcome("pairwise", votes("b", "b", "invalid"), rule).verdict == "b"
    )  # abstainers do not break it
    dissent = panel_outcome("pairwise", votes("b", "b", "a"), rule)
    assert (dissent.verdict, dissent.no_majority) == ("tie", True)  # a majority is not unanimity
    point = panel_outcome("pointwise", votes("novel", "novel", "not_novel"), rule, "not_novel")
    assert (point.verdict, point.no_majority) == ("not_novel", True)


def test_weighted_vote_needs_more_than_half_of_the_answering_weight() -> None:
    heavy = PanelRule(THREE, "weighted", weights=(2, 1, 1))
    assert panel_outcome("pairwise", votes("a", "b", "b"), heavy).verdict == "tie"  # 2 against 2
    assert panel_outcome("pairwise", votes("a", "b", "invalid"), heavy).verdict == "a"  # 2 of 3
    heavier = PanelRule(THREE, "weighted", weights=(3, 1, 1))
    assert panel_outcome("pairwise", votes("a", "b", "b"), heavier).verdict == "a"  # 3 of 5
    # decimal weights compare exactly: 0.1 + 0.2 against 0.3 is a tie, not a float rounding
    exact = PanelRule(THREE, "weighted", weights=(0.1, 0.2, 0.3))
    outcome = panel_outcome("pairwise", votes("a", "a", "b"), exact)
    assert (outcome.verdict, outcome.no_majority) == ("tie", True)


def test_a_failed_member_makes_the_panel_error_whatever_the_others_said() -> None:
    """Below quorum or above it, a member whose call failed leaves the panel without a verdict;
    below quorum with every member answering (some outside the protocol) it is `invalid`."""
    rule = PanelRule(THREE)  # default: more than half, 2 of 3
    assert rule.needed() == 2
    failed = panel_outcome("pairwise", votes("a", "error", "error"), rule)
    assert (failed.verdict, failed.answered) == ("error", 1)
    outside = panel_outcome("pairwise", votes("a", "invalid", "invalid"), rule)
    assert (outside.verdict, outside.answered) == ("invalid", 1)
    mixed = panel_outcome("pairwise", votes("a", "invalid", "error"), rule)
    assert mixed.verdict == "error"  # the missing answer is a failed call: never a verdict
    everyone = PanelRule(THREE, quorum=3)
    assert panel_outcome("pairwise", votes("a", "a", "error"), everyone).verdict == "error"
    assert panel_outcome("pairwise", votes("a", "a", "b"), everyone).verdict == "a"
    survivors = panel_outcome("pairwise", votes("a", "a", "error"), rule)
    assert (survivors.verdict, survivors.answered) == ("error", 2)  # never the survivors' `a`
    one = PanelRule(THREE, quorum=1)
    assert panel_outcome("pointwise", votes("novel", "error", "error"), one).verdict == "error"
    assert panel_outcome("pointwise", votes("novel", "invalid", "invalid"), one).verdict == "novel"


def test_every_member_failing_is_error() -> None:
    outcome = panel_outcome(
        "pointwise", votes("error", "error", "error"), PanelRule(THREE, quorum=1)
    )
    assert (outcome.verdict, outcome.answered) == ("error", 0)


def test_member_verdicts_aggregate_each_members_own_calls() -> None:
    rule = PanelRule(THREE)
    calls = [
        call("p", "a"),
        call("p", "a", "ba"),  # both orders agree: a
        call("q", "a"),
        call("q", "b", "ba"),  # the orders disagree: mean 0.5, a tie
        call("r", "error", error="refused"),
        call("r", "b", "ba"),  # one call failed, the other answered
    ]
    assert member_verdicts("pairwise", calls, rule) == {"p": "a", "q": "tie", "r": "error"}
    outcome = panel_calls_outcome("pairwise", calls, rule)
    assert (outcome.verdict, outcome.answered) == ("error", 2)  # r failed: not the a/tie of p, q
    without_r = panel_calls_outcome("pairwise", [*calls[:4], call("r", "b")], rule)
    assert (without_r.verdict, without_r.no_majority) == ("tie", True)  # a, tie, b
    assert member_verdicts("pairwise", calls[:2], rule) == {
        "p": "a",
        "q": "error",
        "r": "error",
    }  # no call: error
    with pytest.raises(ValueError, match="member 'z'"):
        member_verdicts("pairwise", [call("z", "a")], rule)


def test_failure_line_names_the_members_and_the_answers() -> None:
    rule = PanelRule(THREE)
    calls = [
        call("p", "a"),
        call("q", "a"),
        call("r", "error", error="connection refused at http://127.0.0.1:9/v1"),
    ]
    decided = panel_calls_outcome("pairwise", calls, rule)
    assert decided.verdict == "error"  # 2 of 3 answered, above quorum: still no verdict
    assert panel_failure(calls, decided, rule) == (
        "could not judge: 1 of 3 calls failed (member r; 2 of 3 members answered, 2 needed): "
        "connection refused at http://127.0.0.1:9/v1"
    )
    calls[1] = call("q", "error", error="timeout")
    undecided = panel_calls_outcome("pairwise", calls, rule)
    assert undecided.verdict == "error"
    assert panel_failure(calls, undecided, rule) == (
        "could not judge: 2 of 3 calls failed (members q, r; 1 of 3 "
        "members answered, 2 needed): timeout"
    )
    assert panel_failure([call("p", "a")] * 3, decided, rule) is None


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"members": ("p",)}, "at least 2 members"),
        ({"members": ("p", "p", "q")}, "member name.s. p given twice"),
        (
            {"members": THREE, "rule": "plurality"},
            "panel_rule must be one of majority, weighted, unanimity",
        ),
        ({"members": THREE, "quorum": 4}, "panel_quorum must be 0"),
        ({"members": THREE, "quorum": -1}, "panel_quorum must be 0"),
        ({"members": THREE, "rule": "weighted"}, "a weight for each of the 3 members"),
        ({"members": THREE, "rule": "weighted", "weights": (1, 0, 1)}, "positive numbers"),
        ({"members": THREE, "weights": (2, 1, 1)}, "only to panel_rule=weighted"),
    ],
)
def test_rules_that_cannot_apply_are_refused(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(PanelRuleError, match=message):
        PanelRule(**kwargs)


def test_rule_round_trips_through_its_dict() -> None:
    rule = PanelRule(THREE, "weighted", 3, (0.5, 1, 2))
    assert PanelRule.from_dict({**rule.to_dict(), "models": ["x", "y", "z"]}) == rule
    assert rule.to_dict()["needed"] == 3
