"""The adjudication summary: per judge and setup, how often an expert sides with gold on the
judge's errors, the controls' agreement, and the judge's accuracy were the rest label errors.

`summarise` turns adjudicated rows (`audit.adjudicate.read_adjudicated`) into one JSON-ready dict
(schema `SUMMARY_SCHEMA`); `render_markdown` writes it as the section the adjudication file, the
report (`judgeaudit report --adjudication`) and the audit card (`judgeaudit audit --adjudication`)
show; `read_summary` loads a written summary for those hooks. Every share carries its exact
(Clopper-Pearson, two-sided) interval; the statistics are `stats.adjudication`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judgeaudit.errors import UserError
from judgeaudit.files import atomic_write_text
from judgeaudit.stats.adjudication import exact_share, relabelled_accuracy
from judgeaudit.stats.defaults import DEFAULT_CONFIDENCE

SUMMARY_SCHEMA = "judgeaudit.adjudication/1"
ALL = "all"


@dataclass(frozen=True)
class Adjudicated:
    """One adjudicated row: its run (configuration), judge, setup, and gold, verdict and the
    expert's choice in the sheet's shown terms (A, B, tie)."""

    row_id: str
    run: str
    judge: str
    setup: str
    gold: str
    predicted: str
    annotation: str

    @property
    def error(self) -> bool:
        """Whether the judge's verdict was wrong (a tie is wrong)."""
        return self.predicted != self.gold


@dataclass(frozen=True)
class RunTotals:
    """A judged run's totals, for the accuracy bounds: items, right, wrong (ties included), ties,
    and items without a decision (invalid or error)."""

    judge_model: str
    dataset: str
    n: int
    correct: int
    errors: int
    ties: int
    not_decided: int


def _share(k: int, n: int, confidence: float) -> dict[str, Any]:
    iv = exact_share(k, n, confidence)
    return {"k": k, "n": n, **iv.to_dict()}


def _group(rows: Sequence[Adjudicated], confidence: float) -> dict[str, Any]:
    errors = [r for r in rows if r.error]
    controls = [r for r in rows if not r.error]
    with_gold = sum(r.annotation == r.gold for r in errors)
    with_judge = sum(r.annotation == r.predicted for r in errors)
    return {
        "rows": len(rows),
        "errors": len(errors),
        "ties": sum(r.predicted == "tie" for r in errors),
        "controls": len(controls),
        "expert_with_gold": _share(
            sum(r.annotation == r.gold for r in rows), len(rows), confidence
        ),
        "errors_expert_with_gold": _share(with_gold, len(errors), confidence),
        "errors_expert_with_judge": with_judge,
        "errors_expert_with_neither": len(errors) - with_gold - with_judge,
        "controls_agree": _share(
            sum(r.annotation == r.gold for r in controls), len(controls), confidence
        ),
    }


def summarise(
    rows: Sequence[Adjudicated],
    runs: Mapping[str, Mapping[str, Any]] | None = None,
    *,
    source: str = "",
    confidence: float = DEFAULT_CONFIDENCE,
) -> dict[str, Any]:
    """The summary of adjudicated rows, per judge and setup (and per judge over all its setups);
    `runs` (a key's run totals by configuration) adds each run's accuracy bounds."""
    groups: dict[tuple[str, str], list[Adjudicated]] = {}
    for r in rows:
        groups.setdefault((r.judge, r.setup), []).append(r)
        groups.setdefault((r.judge, ALL), []).append(r)
    table = [
        {"judge": judge, "setup": setup, **_group(members, confidence)}
        for (judge, setup), members in sorted(
            groups.items(), key=lambda g: (g[0][0], g[0][1] == ALL, g[0][1])
        )
        if setup != ALL or len({m.setup for m in members}) > 1
    ]
    bounds = []
    for run, totals in sorted((runs or {}).items()):
        errors = [r for r in rows if r.run == run and r.error]
        # a tie the expert sides with is no right answer under strict accuracy: a/b verdicts only
        sided = sum(r.annotation == r.predicted and r.predicted != "tie" for r in errors)
        iv = relabelled_accuracy(
            int(totals["correct"]),
            int(totals["n"]),
            int(totals["errors"]),
            sided,
            len(errors),
            confidence,
        )
        bounds.append(
            {
                "run": run,
                "judge": totals["judge_model"],
                "dataset": totals["dataset"],
                "n": int(totals["n"]),
                "correct": int(totals["correct"]),
                "errors": int(totals["errors"]),
                "adjudicated_errors": len(errors),
                "expert_with_judge": sided,
                "accuracy": int(totals["correct"]) / int(totals["n"]) if totals["n"] else None,
                "accuracy_if_label_errors": iv.to_dict(),
            }
        )
    return {
        "schema": SUMMARY_SCHEMA,
        "source": source,
        "confidence": confidence,
        "interval": "Clopper-Pearson (exact), two-sided",
        "groups": table,
        "accuracy_bounds": bounds,
    }


def _cell(share: Mapping[str, Any]) -> str:
    if not share["n"]:
        return "no rows"
    return f"{share['k']} of {share['n']} ({share['estimate']:.3f} [{share['low']:.3f}, {share['high']:.3f}])"


def render_markdown(summary: Mapping[str, Any], heading: str = "##") -> str:
    """The adjudication section in Markdown (a heading, a table per judge and setup, the bounds)."""
    pct = f"{summary['confidence']:.0%}"
    lines = [
        f"{heading} Expert adjudication of the judge's errors",
        "",
        f"Source: `{summary['source']}`. An expert re-judged the judge's errors (a tie counts as an "
        f"error) and control items it got right, blind (no labels, verdicts or model names; each "
        f"pair in a random A/B order). Intervals: {summary['interval']}, {pct}.",
        "",
        "| judge | setup | rows | expert sides with gold (all rows) | on the judge's errors | "
        "errors: with judge / neither | controls agree |",
        "|---|---|---|---|---|---|---|",
    ]
    for g in summary["groups"]:
        lines.append(
            f"| `{g['judge']}` | {g['setup']} | {g['rows']} ({g['errors']} errors, "
            f"{g['ties']} ties, {g['controls']} controls) | {_cell(g['expert_with_gold'])} | "
            f"{_cell(g['errors_expert_with_gold'])} | {g['errors_expert_with_judge']} / "
            f"{g['errors_expert_with_neither']} | {_cell(g['controls_agree'])} |"
        )
    bounds = summary.get("accuracy_bounds") or []
    lines.append("")
    if not bounds:
        lines.append(
            "Accuracy bounds: the run's totals are not in this file (an export's key holds them)."
        )
    else:
        lines += [
            "If every error the expert sided with the judge on were a label error, the judge's "
            "strict accuracy would be (right + q x errors) / items, q the share of adjudicated "
            "errors the expert sided with the judge on (ends: q's exact interval).",
            "",
            "| run | items | accuracy | errors adjudicated | expert with judge | accuracy if label errors |",
            "|---|---|---|---|---|---|",
        ]
        for b in bounds:
            iv = b["accuracy_if_label_errors"]
            shown = (
                f"{iv['estimate']:.3f} [{iv['low']:.3f}, {iv['high']:.3f}]"
                if iv["status"] == "ok"
                else "no adjudicated errors"
            )
            acc = "-" if b["accuracy"] is None else f"{b['accuracy']:.3f}"
            lines.append(
                f"| `{b['run']}` | {b['n']} | {acc} | {b['adjudicated_errors']} of {b['errors']} | "
                f"{b['expert_with_judge']} | {shown} |"
            )
    return "\n".join(lines) + "\n"


class SummaryError(UserError, ValueError):
    """An adjudication file that cannot be shown (not ours, not JSON)."""


def read_summary(path: str | Path) -> dict[str, Any]:
    """A written adjudication summary (`adjudication.json`), checked to be one."""
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise SummaryError(f"--adjudication {p}: not JSON ({exc.msg}, line {exc.lineno})") from None
    if not isinstance(data, dict) or data.get("schema") != SUMMARY_SCHEMA:
        raise SummaryError(
            f"--adjudication {p}: not an adjudication summary (write one with "
            f"`judgeaudit adjudicate import`)"
        )
    return data


def append_section(markdown: Path, section: str) -> None:
    """Append a section to a written Markdown file (report.md, card.md), a blank line between."""
    text = markdown.read_text(encoding="utf-8")
    atomic_write_text(markdown, text.rstrip("\n") + "\n\n" + section)
