"""Verdict vocabulary, per-call records, and aggregation of k calls into one verdict per item.

A call's verdict is an option, `invalid` (the model answered outside the answer protocol) or
`error` (no answer: the call failed). Pairwise aggregation over k calls per order (optionally
both orders, positions mapped back to the item's own a/b): each valid call votes a=1, b=0,
tie=0.5; a mean above 0.5 is `a`, below is `b`, exactly 0.5 is `tie`; with no valid call the item
is `invalid`, or `error` when every call failed. Pointwise: the majority of valid votes, an exact
split resolved by the configurable split rule and counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any, Literal

from judgeaudit.protocol import ERROR

PairVerdict = Literal["a", "b", "tie", "invalid", "error"]
PointVerdict = Literal["novel", "not_novel", "invalid", "error"]
Order = Literal["ab", "ba", "single"]
SplitRule = Literal["not_novel", "novel", "invalid"]

# `invalid`: the model answered outside the protocol; `error`: the call failed, no answer.
PAIR_VERDICTS: tuple[str, ...] = ("a", "b", "tie", "invalid", "error")
POINT_VERDICTS: tuple[str, ...] = ("novel", "not_novel", "invalid", "error")
# Default for an exact pointwise split: a judge that cannot reach a majority has not
# claimed novelty, so the item counts as `not_novel`; every split is counted in metadata.
DEFAULT_SPLIT_RULE: SplitRule = "not_novel"


@dataclass(frozen=True)
class CallRecord:
    """One model call: presented order, verdict as shown and mapped back, raw text, parse path,
    for an invalid verdict the parser's reason (`judges/parse/`), and for a failed call
    (verdict and parse `error`, see `failed_call`) the one-line cause in `error`."""

    order: Order
    shown_verdict: str
    verdict: str
    raw: str
    parse: Literal["strict", "wrapped", "failed", "error"]
    call_index: int = 0
    error: str | None = None
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict for score metadata (every field is a string, an int or None: no deep copy)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


def failed_call(order: Order, call_index: int, cause: str, raw: str = "") -> CallRecord:
    """The record of a call that failed (no answer): verdict and parse `error`, the cause in `error`."""
    return CallRecord(order, ERROR, ERROR, raw, "error", call_index, cause)


def no_answer(verdicts: Sequence[str]) -> Literal["invalid", "error"]:
    """The verdict of calls without a valid one: `error` when a call failed or there is none, else `invalid`."""
    return "error" if not verdicts or any(v == ERROR for v in verdicts) else "invalid"


def any_failed(verdicts: Sequence[str]) -> bool:
    """Whether a call failed (or none was made): then the unit is `error`, whatever the others said.

    A unit whose calls did not all answer is an error item of its configuration (its sample errors
    in the log), never a verdict from the calls that survived: k calls in both orders with one
    order lost would otherwise silently become a one-order verdict."""
    return not verdicts or any(v == ERROR for v in verdicts)


def map_back(shown: str, order: Order) -> str:
    """Map a verdict given on the presented order back to the item's own a/b."""
    if order == "ba" and shown in ("a", "b"):
        return "b" if shown == "a" else "a"
    return shown


def aggregate_pairwise(verdicts: Sequence[str]) -> PairVerdict:
    """Mean of valid votes (a=1, b=0, tie=0.5): >0.5 a, <0.5 b, =0.5 tie; no valid vote is
    invalid; a failed call (or no call) makes it error (`any_failed`)."""
    votes = [
        1.0 if v == "a" else 0.0 if v == "b" else 0.5 for v in verdicts if v in ("a", "b", "tie")
    ]
    for v in verdicts:
        if v not in PAIR_VERDICTS:
            raise ValueError(f"unknown pairwise verdict {v!r}")
    if not votes or any_failed(verdicts):
        return no_answer(verdicts)
    # Compare in integer half-votes so float rounding can never turn a tie into a win.
    twice = sum(int(round(2 * x)) for x in votes)
    if twice > len(votes):
        return "a"
    if twice < len(votes):
        return "b"
    return "tie"


def aggregate_pointwise(
    verdicts: Sequence[str], split_rule: SplitRule = DEFAULT_SPLIT_RULE
) -> tuple[PointVerdict, bool]:
    """Majority of valid votes (none: invalid); a failed call (or no call) makes it error
    (`any_failed`); an exact split is resolved by `split_rule`. Returns (verdict, was_split)."""
    for v in verdicts:
        if v not in POINT_VERDICTS:
            raise ValueError(f"unknown pointwise verdict {v!r}")
    novel = sum(v == "novel" for v in verdicts)
    not_novel = sum(v == "not_novel" for v in verdicts)
    if novel == not_novel == 0 or any_failed(verdicts):
        return no_answer(verdicts), False
    if novel > not_novel:
        return "novel", False
    if not_novel > novel:
        return "not_novel", False
    return split_rule, True
