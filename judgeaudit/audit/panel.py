"""A panel's audit card also audits each member, from the panel's own logs.

`judgeaudit audit --model none --judge panel -T panel=...` runs every probe on the panel (the
battery is the same as for any judge). Every member's calls are in those logs (each call record
names its `member`), so each member is audited too, without a call of its own: its verdicts are its
calls aggregated as one judge's are (`judgeaudit.report.panel.member_rows`), read by the same
readings and judged by the same gates as the panel's. Self-preference is read per backbone: a
member's own ideas are those its backbone generated; the panel's are those any member's backbone
generated (`audit.battery.judge_models`). A gate that does not apply to the panel (or the surface
ratio, which no LLM judge has) does not apply to its members either.

The card shows, per gate, the panel's outcome and figure beside each member's, and whether the
panel's judged value is better than, as good as or worse than its best member's (point
estimates; the intervals are beside them), so a reader sees whether the panel is more robust than
its best member.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from judgeaudit.audit.applicability import inapplicable_probes
from judgeaudit.audit.battery import (
    PANEL,
    PROBES_BY_KIND,
    AuditResult,
    generators_of,
    headline,
    label_runs,
)
from judgeaudit.audit.gates import HEADLINE, MARKS, Gate, GateResult, evaluate
from judgeaudit.audit.readings import Reading, ReadingConfig, read_all
from judgeaudit.data.contract import Item
from judgeaudit.report.panel import is_panel, member_rows


@dataclass
class MemberAudit:
    """One member's figures and gates, read from the panel's logs."""

    name: str
    model: str
    headline: Reading
    readings: dict[str, Reading]
    gates: list[GateResult] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (the card's `members` entry)."""
        return {
            "model": self.model,
            "headline": self.headline.to_dict(),
            "probes": {k: r.to_dict() for k, r in self.readings.items()},
            "gates": [g.to_dict() for g in self.gates],
        }


def member_frame(frame: pd.DataFrame, position: int) -> pd.DataFrame:
    """The rows of the member at `position` of the panel, one per row of the panel's frame."""
    panel_rows = frame[frame["panel"].map(is_panel)]
    return member_rows(panel_rows, position).reset_index(drop=True)


def member_audits(
    result: AuditResult,
    frame: pd.DataFrame,
    items: Sequence[Item],
    generated: Sequence[Item],
    gates: tuple[Gate, ...],
) -> dict[str, MemberAudit]:
    """Member name -> its audit, from the panel battery's frame (`audit.frame`); empty for another judge."""
    spec = result.spec
    if spec.judge != PANEL or frame.empty:
        return {}
    panel = next(p for p in frame["panel"] if is_panel(p))
    cfg = ReadingConfig(resamples=spec.resamples, seed=spec.seed, confidence=spec.confidence)
    limits = inapplicable_probes(spec.judge, spec.judge_options)
    probes = [p for p in spec.probes if p in PROBES_BY_KIND[spec.kind] and p not in limits]
    generators = generators_of([*items, *generated])
    as_panel = {r.gate.name: r for r in result.gates if r.outcome == "not_applicable"}
    out = {}
    for position, (name, model) in enumerate(zip(panel["members"], panel["models"], strict=True)):
        rows = label_runs(member_frame(frame, position), spec.seed)
        head = headline(rows, spec.kind, cfg)
        readings = read_all(rows, probes, cfg, judge_model=model, generators=generators)
        for (
            probe,
            reading,
        ) in result.readings.items():  # what the panel could not read, its members cannot
            readings.setdefault(probe, reading)
        judged = evaluate(gates, {HEADLINE: head, **readings}, spec.kind)
        out[name] = MemberAudit(
            name, model, head, readings, [as_panel.get(r.gate.name, r) for r in judged]
        )
    return out


def _cell(r: GateResult) -> str:
    """A gate's outcome and figure in one short cell: `FAIL 0.812 [0.700, 0.900]`."""
    if r.estimate is None or r.figure_interval is None:
        return MARKS[r.outcome]
    low, high = r.figure_interval
    return f"{MARKS[r.outcome]} {r.estimate:.3f} [{low:.3f}, {high:.3f}]"


def _better(gate: Gate, x: float, y: float) -> bool:
    return x < y if gate.direction == "max" else x > y


def against_best(panel: GateResult, members: dict[str, GateResult]) -> str:
    """Whether the panel's judged value is better than, as good as or worse than its best member's
    (the best members named; several when they tie)."""
    judged = {
        n: r.value for n, r in members.items() if r.value is not None and math.isfinite(r.value)
    }
    if panel.value is None or not math.isfinite(panel.value) or not judged:
        return "n/a"
    gate = panel.gate
    top = min(judged.values()) if gate.direction == "max" else max(judged.values())
    best = ", ".join(n for n, v in judged.items() if math.isclose(v, top, abs_tol=1e-9))
    if math.isclose(panel.value, top, abs_tol=1e-9):
        return f"as good as its best member ({best})"
    return (
        f"{'better' if _better(gate, panel.value, top) else 'worse'} than its best member ({best})"
    )


def members_section(result: AuditResult) -> list[str]:
    """The card's section on a panel's members (none for another judge)."""
    if not result.members:
        return []
    names = list(result.members)
    lines = [
        "## Panel members",
        "",
        "Each member audited from the panel's own logs (its calls, aggregated as one judge's): "
        + ", ".join(f"`{n}` (`{m.model}`)" for n, m in result.members.items())
        + ". Cells: outcome, figure "
        "[95% CI]; the last column compares the judged values (point estimates).",
        "",
        "| gate | panel | " + " | ".join(f"`{n}`" for n in names) + " | panel vs best member |",
        "|---|---|" + "---|" * len(names) + "---|",
    ]
    for r in result.gates:
        if r.outcome == "not_applicable":
            continue
        by_member = {
            n: next(g for g in result.members[n].gates if g.gate.name == r.gate.name) for n in names
        }
        lines.append(
            f"| {r.gate.name} | {_cell(r)} | "
            + " | ".join(_cell(g) for g in by_member.values())
            + f" | {against_best(r, by_member)} |"
        )
    return [
        *lines,
        "",
        "Self-preference: a member's own ideas are those its backbone generated; the panel's, those "
        "any member's backbone generated.",
        "",
    ]
