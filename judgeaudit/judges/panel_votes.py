"""A panel's verdict from its members' verdicts: the declared rule, the quorum, the tie rule.

A panel (`-T judge=panel`, `judgeaudit.judges.llm.panel`) is several member models, each judging
the item as the prompted judge does (k calls per order, aggregated as one judge's calls are,
`judges.verdicts`). Each member's own verdict is then one vote:

- A member *answered* when its verdict is valid (pairwise `a`, `b`, `tie`; pointwise `novel`,
  `not_novel`). A member whose verdict is `invalid` (it answered outside the protocol) casts no vote.
- A member whose verdict is `error` (one of its calls failed) makes the panel's verdict `error`,
  whatever the others said: the panel that was asked did not answer, and a verdict of the members
  that survived would be another panel's. The item is an error item, as for one judge whose call
  failed, and a retry (`inspect eval-retry`, the same eval-set) makes only the failed calls again.
- Quorum: the panel decides only when at least `needed` members answered (`-T panel_quorum=n`;
  0, the default, means more than half of the members); below it the panel's verdict is `invalid`.
- Rules (`-T panel_rule=...`):
  `majority` (default): the option (`a`, `b`, `tie`; `novel`, `not_novel`) given by more than half
  of the answering members. `weighted`: the same with each member's vote worth its `weight`
  (more than half of the answering members' total weight). `unanimity`: the option every
  answering member gave.
- Tie rule: when no option wins (`a`, `b`, `tie` one each; two members split; any disagreement
  under `unanimity`), a pairwise panel says `tie` and a pointwise panel applies the task's split
  rule (`-T split_rule`, default `not_novel`, the same rule as an exact split of one judge's
  calls); either way the outcome records `no_majority`.

Weights are compared exactly (as decimal fractions), so a weighted tie is a tie, never a float
rounding. `panel_outcome` is the one aggregation; the scorer, the solver's answer line and the
report's check of stored verdicts all call it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from judgeaudit.judges.verdicts import (
    DEFAULT_SPLIT_RULE,
    SplitRule,
    aggregate_pairwise,
    aggregate_pointwise,
)
from judgeaudit.protocol import ERROR

RULES: tuple[str, ...] = ("majority", "weighted", "unanimity")
DEFAULT_RULE = "majority"
OPTIONS: dict[str, tuple[str, ...]] = {
    "pairwise": ("a", "b", "tie"),
    "pointwise": ("novel", "not_novel"),
}
MIN_MEMBERS = 2


class PanelRuleError(ValueError):
    """A panel rule that cannot be applied (unknown rule, bad quorum or weights); one line."""


@dataclass(frozen=True)
class PanelRule:
    """How a panel's member verdicts become one verdict: its members (names, in order), the rule,
    the quorum (0 = more than half of the members) and, for `weighted`, one weight per member."""

    members: tuple[str, ...]
    rule: str = DEFAULT_RULE
    quorum: int = 0
    weights: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        if len(self.members) < MIN_MEMBERS:
            raise PanelRuleError(
                f"a panel needs at least {MIN_MEMBERS} members, got {len(self.members)}"
            )
        if len(set(self.members)) != len(self.members):
            twice = sorted({m for m in self.members if self.members.count(m) > 1})
            raise PanelRuleError(
                f"member name(s) {', '.join(twice)} given twice; give each member its own name"
            )
        if self.rule not in RULES:
            raise PanelRuleError(f"panel_rule must be one of {', '.join(RULES)}, got {self.rule!r}")
        if (
            isinstance(self.quorum, bool)
            or not isinstance(self.quorum, int)
            or not 0 <= self.quorum <= len(self.members)
        ):
            raise PanelRuleError(
                f"panel_quorum must be 0 (more than half of the members) to {len(self.members)} "
                f"(every member), got {self.quorum!r}"
            )
        if self.rule == "weighted":
            if len(self.weights) != len(self.members):
                raise PanelRuleError(
                    f"panel_rule=weighted needs a weight for each of the {len(self.members)} members, "
                    f"got {len(self.weights)}"
                )
            bad = [
                w
                for w in self.weights
                if isinstance(w, bool) or not isinstance(w, int | float) or not 0 < w < float("inf")
            ]
            if bad:
                raise PanelRuleError(f"member weights must be positive numbers, got {bad[0]!r}")
        elif any(w != 1 for w in self.weights):
            raise PanelRuleError(
                f"member weights apply only to panel_rule=weighted (the rule is {self.rule})"
            )

    def needed(self) -> int:
        """Members that must answer for the panel to decide."""
        return self.quorum or len(self.members) // 2 + 1

    def weight(self, member: str) -> Fraction:
        """A member's vote, exactly (1 unless the rule is `weighted`)."""
        if self.rule != "weighted":
            return Fraction(1)
        return Fraction(str(self.weights[self.members.index(member)]))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (the task metadata's and the scorer's form)."""
        return {
            "members": list(self.members),
            "rule": self.rule,
            "quorum": self.quorum,
            "needed": self.needed(),
            "weights": list(self.weights),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PanelRule:
        """The rule `to_dict` wrote (extra keys, e.g. the members' models, are ignored)."""
        return cls(
            tuple(str(m) for m in data["members"]),
            str(data.get("rule", DEFAULT_RULE)),
            int(data.get("quorum", 0)),
            tuple(data.get("weights") or ()),
        )


@dataclass(frozen=True)
class PanelOutcome:
    """The panel's verdict, how many members answered, whether the tie rule decided, and every
    member's own verdict."""

    verdict: str
    answered: int
    no_majority: bool
    members: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The per-sample record (score metadata `panel`, SCORE_SCHEMA.md)."""
        return {
            "answered": self.answered,
            "no_majority": self.no_majority,
            "verdicts": dict(self.members),
        }


def member_verdict(
    kind: str, calls: Sequence[Mapping[str, Any]], split_rule: SplitRule = DEFAULT_SPLIT_RULE
) -> str:
    """One member's verdict from its own calls, aggregated as one judge's calls are; no call is `error`."""
    verdicts = [str(c["verdict"]) for c in calls]
    if not verdicts:
        return ERROR
    if kind == "pairwise":
        return aggregate_pairwise(verdicts)
    return aggregate_pointwise(verdicts, split_rule)[0]


def member_verdicts(
    kind: str,
    calls: Sequence[Mapping[str, Any]],
    rule: PanelRule,
    split_rule: SplitRule = DEFAULT_SPLIT_RULE,
) -> dict[str, str]:
    """Member name -> its verdict, from a panel's call records (each names its `member`)."""
    by_member: dict[str, list[Mapping[str, Any]]] = {m: [] for m in rule.members}
    for call in calls:
        member = call.get("member")
        if member not in by_member:
            raise ValueError(
                f"call record of member {member!r}, not one of the panel's {list(rule.members)}"
            )
        by_member[str(member)].append(call)
    return {m: member_verdict(kind, c, split_rule) for m, c in by_member.items()}


def panel_outcome(
    kind: str,
    verdicts: Mapping[str, str],
    rule: PanelRule,
    split_rule: SplitRule = DEFAULT_SPLIT_RULE,
) -> PanelOutcome:
    """The panel's verdict from its members' verdicts (see the module docstring)."""
    if kind not in OPTIONS:
        raise ValueError(f"kind must be pairwise or pointwise, got {kind!r}")
    missing = [m for m in rule.members if m not in verdicts]
    if missing:
        raise ValueError(f"no verdict for panel member(s) {missing}")
    votes = {m: verdicts[m] for m in rule.members if verdicts[m] in OPTIONS[kind]}
    answered = len(votes)
    members = {m: verdicts[m] for m in rule.members}
    if any(v == ERROR for v in members.values()):  # never a verdict of the members that survived
        return PanelOutcome(ERROR, answered, False, members)
    if answered < rule.needed():
        return PanelOutcome("invalid", answered, False, members)
    if rule.rule == "unanimity":
        agreed = set(votes.values())
        if len(agreed) == 1:
            return PanelOutcome(agreed.pop(), answered, False, members)
    else:
        totals: dict[str, Fraction] = {}
        for member, vote in votes.items():
            totals[vote] = totals.get(vote, Fraction(0)) + rule.weight(member)
        whole = sum(totals.values(), Fraction(0))
        winners = [option for option, total in totals.items() if 2 * total > whole]
        if winners:
            return PanelOutcome(winners[0], answered, False, members)
    return PanelOutcome("tie" if kind == "pairwise" else split_rule, answered, True, members)


def panel_calls_outcome(
    kind: str,
    calls: Sequence[Mapping[str, Any]],
    rule: PanelRule,
    split_rule: SplitRule = DEFAULT_SPLIT_RULE,
) -> PanelOutcome:
    """The panel's outcome from its call records (`member_verdicts`, then `panel_outcome`)."""
    return panel_outcome(kind, member_verdicts(kind, calls, rule, split_rule), rule, split_rule)


def panel_failure(
    calls: Sequence[Mapping[str, Any]], outcome: PanelOutcome, rule: PanelRule
) -> str | None:
    """One line on a panel's failed calls, or None: `[could not judge: ]N of M calls failed (member(s)
    ...; A of P members answered, Q needed): <first cause>`, led by `could not judge: ` when the
    panel's verdict is `error`."""
    failed = [c for c in calls if c.get("verdict") == ERROR]
    if not failed:
        return None
    names = sorted({str(c.get("member")) for c in failed})
    head = "could not judge: " if outcome.verdict == ERROR else ""
    cause = failed[0].get("error") or "no cause recorded"
    return (
        f"{head}{len(failed)} of {len(calls)} calls failed (member{'s' if len(names) > 1 else ''} "
        f"{', '.join(names)}; {outcome.answered} of {len(rule.members)} members answered, {rule.needed()} "
        f"needed): {cause}"
    )
