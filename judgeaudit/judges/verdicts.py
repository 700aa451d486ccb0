"""Verdict vocabulary, per-call records, and aggregation of k calls (DESIGN.md 'Verdicts and aggregation')."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

PairVerdict = Literal["a", "b", "tie", "invalid"]
PointVerdict = Literal["novel", "not_novel", "invalid"]
Order = Literal["ab", "ba", "single"]
SplitRule = Literal["not_novel", "novel", "invalid"]

PAIR_VERDICTS: tuple[str, ...] = ("a", "b", "tie", "invalid")
POINT_VERDICTS: tuple[str, ...] = ("novel", "not_novel", "invalid")
# Default for an exact pointwise split: a judge that cannot reach a majority has not
# claimed novelty, so the item counts as `not_novel`; every split is counted in metadata.
DEFAULT_SPLIT_RULE: SplitRule = "not_novel"


@dataclass(frozen=True)
class CallRecord:
    """One model call: presented order, verdict as shown and mapped back, raw text, parse path,
    and for an invalid verdict the parser's reason (`judges/parse.py`)."""

    order: Order
    shown_verdict: str
    verdict: str
    raw: str
    parse: Literal["strict", "wrapped", "failed", "error"]
    call_index: int = 0
    error: str | None = None
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict for score metadata."""
        return asdict(self)


def map_back(shown: str, order: Order) -> str:
    """Map a verdict given on the presented order back to the item's own a/b."""
    if order == "ba" and shown in ("a", "b"):
        return "b" if shown == "a" else "a"
    return shown


def aggregate_pairwise(verdicts: Sequence[str]) -> PairVerdict:
    """Mean of valid votes (a=1, b=0, tie=0.5): >0.5 a, <0.5 b, =0.5 tie; no valid vote is invalid."""
    votes = [1.0 if v == "a" else 0.0 if v == "b" else 0.5 for v in verdicts if v in ("a", "b", "tie")]
    for v in verdicts:
        if v not in PAIR_VERDICTS:
            raise ValueError(f"unknown pairwise verdict {v!r}")
    if not votes:
        return "invalid"
    # Compare in integer half-votes so float rounding can never turn a tie into a win.
    twice = sum(int(round(2 * x)) for x in votes)
    if twice > len(votes):
        return "a"
    if twice < len(votes):
        return "b"
    return "tie"


def aggregate_pointwise(verdicts: Sequence[str], split_rule: SplitRule = DEFAULT_SPLIT_RULE) -> tuple[PointVerdict, bool]:
    """Majority of valid votes; an exact split is resolved by `split_rule`. Returns (verdict, was_split)."""
    for v in verdicts:
        if v not in POINT_VERDICTS:
            raise ValueError(f"unknown pointwise verdict {v!r}")
    novel = sum(v == "novel" for v in verdicts)
    not_novel = sum(v == "not_novel" for v in verdicts)
    if novel == not_novel == 0:
        return "invalid", False
    if novel > not_novel:
        return "novel", False
    if not_novel > novel:
        return "not_novel", False
    return split_rule, True
