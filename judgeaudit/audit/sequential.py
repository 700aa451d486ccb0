"""Audits that stop when they have decided: `judgeaudit audit --until-decided --max-items N`.

Looks. The battery runs on a growing set of items: n0, 2 n0, 4 n0, ... and last N (`look_sizes`;
n0 is `--limit`, `FIRST_LOOK` without it). The items of a look are those `--limit n` audits
(`battery.balanced_head`: the first items of the file taking gold classes in turn), so each look's
items hold the previous look's and keep the set's gold balance. Each look is an audit of its own in
`<out>/looks/n<items>/` (logs, items, card); the calls an earlier look made are served from Inspect's
cache, so a look pays only for its new items, and running the command again makes no new call.

Stopping. After each look the audit stops when model calls failed (the look's verdict is `could not
judge`, as any audit's), or when its verdict is settled (`settled`): every gate has
decided (`pass`, `warn` or `fail`; `not_run` and `not_applicable` do not block), or a gate has failed
(the verdict is then unfit whatever the open gates would show: a judge that always picks the idea
shown first has an accuracy of exactly chance on balanced items, on the accuracy gate's fail
threshold, which no number of items decides); else it goes on to the next look, up to N. Its card is
the last look's card with the list of looks (items, gates decided, cost at each) and is written to
`<out>/`.

Error rates across looks: Bonferroni spending. With K planned looks, every interval of every look
is a 1 - alpha / K interval (alpha = 0.05: at 3 looks 98.33%). A gate fails a judge whose true figure
is at most its fail threshold only when some look's interval misses the truth, which by the union
bound happens with probability at most K x alpha / K = alpha, whatever the looks' dependence and
whatever the interval method; the stop rule can only lower that. Pocock's or O'Brien-Fleming's
boundaries spend less but need the joint law of the statistic across looks, which the battery's
mix of exact, score and bootstrapped intervals does not give in closed form; doubling the items at
each look keeps K small (log2(N / n0) + 1), so Bonferroni costs little. `tests/benchmarks/
bench_sequential.py` measures the false-fail rate across looks with planted judges.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from judgeaudit.audit.battery import COULD_NOT_JUDGE, AuditError, AuditResult, AuditSpec
from judgeaudit.audit.card import write_card
from judgeaudit.audit.gates import DEFAULT_GATES, Gate, GateResult
from judgeaudit.audit.run import run_audit
from judgeaudit.files import locked_output_dir, staged_outputs
from judgeaudit.stats.defaults import DEFAULT_CONFIDENCE

FIRST_LOOK = 10  # items of the first look without --limit
DECIDED: frozenset[str] = frozenset({"pass", "warn", "fail"})
NOT_BLOCKING: frozenset[str] = frozenset({"not_run", "not_applicable"})
LOOKS_DIR = "looks"
SPENDING = "Bonferroni"


def look_sizes(first: int, max_items: int) -> list[int]:
    """The items of each planned look: first, 2 first, 4 first, ... below `max_items`, then `max_items`."""
    if first < 1 or max_items < first:
        raise AuditError(
            f"--max-items ({max_items}) must be at least the first look's items ({first}), which is >= 1"
        )
    sizes = [first]
    while sizes[-1] * 2 < max_items:
        sizes.append(sizes[-1] * 2)
    if sizes[-1] != max_items:
        sizes.append(max_items)
    return sizes


def look_confidence(looks: int, confidence: float = DEFAULT_CONFIDENCE) -> float:
    """Each look's interval confidence under Bonferroni spending of 1 - `confidence` over `looks` looks."""
    if looks < 1:
        raise ValueError("a sequential audit needs at least one look")
    return 1.0 - (1.0 - confidence) / looks


def decided(results: Sequence[GateResult]) -> bool:
    """Whether every gate has decided (pass, warn or fail); gates not run or not applicable do not block."""
    return all(r.outcome in DECIDED or r.outcome in NOT_BLOCKING for r in results)


def settled(results: Sequence[GateResult]) -> str | None:
    """Why the verdict is settled at this look (every gate decided, or a gate failed), None while it is not."""
    if decided(results):
        return "every gate decided"
    failed = [r.gate.name for r in results if r.outcome == "fail"]
    return (
        f"{', '.join(failed)} failed: the verdict is unfit whatever the open gates show"
        if failed
        else None
    )


def look_record(result: AuditResult) -> dict[str, Any]:
    """One look as the card lists it: items, gates decided and open, each gate's outcome, verdict, calls, cost."""
    open_gates = [
        r.gate.name
        for r in result.gates
        if r.outcome not in DECIDED and r.outcome not in NOT_BLOCKING
    ]
    return {
        "items": result.items["count"],
        "verdict": result.verdict,
        "decided": [r.gate.name for r in result.gates if r.outcome in DECIDED],
        "undecided": open_gates,
        "outcomes": {r.gate.name: r.outcome for r in result.gates},
        "judge_calls": result.cost["judge_calls"],
        "usd": result.cost["usd"],
        "log_dir": result.log_dir,
    }


def run_until_decided(
    spec: AuditSpec,
    out: Path,
    max_items: int,
    gates: tuple[Gate, ...] = DEFAULT_GATES,
    display: str = "none",
    max_connections: int | None = None,
) -> tuple[AuditResult, dict[str, Path]]:
    """Run the looks of `spec` (its `limit` the first look's items) into `<out>/looks/`, stop when the verdict
    is settled or at `max_items`, and write the last look's card, with the looks, to `out`."""
    sizes = look_sizes(spec.limit or FIRST_LOOK, max_items)
    confidence = look_confidence(len(sizes), spec.confidence)
    looks: list[dict[str, Any]] = []
    result: AuditResult | None = None
    stopped = "the last planned look"
    with locked_output_dir(Path(out)) as locked:
        for size in sizes:
            look_spec = replace(spec, limit=size, confidence=confidence)
            result, _ = run_audit(
                look_spec, locked / LOOKS_DIR / f"n{size}", gates, display, max_connections
            )
            looks.append(look_record(result))
            why = (
                "model calls failed: could not judge"
                if result.verdict == COULD_NOT_JUDGE
                else settled(result.gates)
            )
            if why is not None:
                stopped = why
                break
            if (
                result.items["count"] < size
            ):  # the dataset holds fewer items: no later look adds any
                stopped = f"the dataset holds only {result.items['count']} items"
                break
        assert result is not None
        result.looks = {
            "first": sizes[0],
            "max_items": max_items,
            "planned": sizes,
            "confidence": confidence,
            "family_confidence": spec.confidence,
            "spending": SPENDING,
            "stopped": stopped,
            "out": str(locked),
            "looks": looks,
        }
        with staged_outputs(locked, "card.json") as staging:
            paths = write_card(result, staging)
    return result, {k: Path(out) / p.name for k, p in paths.items()}
