"""The audit's result: the repeat runs labelled, the headline, readings, gates and verdict, and what
the battery cost (`AuditResult`, the card's data)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from judgeaudit.audit.applicability import inapplicable_probes
from judgeaudit.audit.battery.items import generators_of, items_digest
from judgeaudit.audit.battery.spec import PROBES_BY_KIND, AuditError, AuditSpec, judge_models
from judgeaudit.audit.failures import CallFailures, frame_failures
from judgeaudit.audit.frame import LogFrame
from judgeaudit.audit.gates import HEADLINE, Gate, GateResult, evaluate, verdict
from judgeaudit.audit.readings import Figure, Reading, ReadingConfig, read_all
from judgeaudit.data.contract import Item
from judgeaudit.stats import excludes_from_above, interval
from judgeaudit.stats.metrics import metrics_for, outcomes_for

CARD_SCHEMA = "judgeaudit.audit/1"
HEADLINE_METRIC: dict[str, str] = {"pairwise": "strict_accuracy", "pointwise": "macro_f1"}
CHANCE = 0.5
COULD_NOT_JUDGE = (
    "could not judge"  # the verdict when model calls failed (judgeaudit.audit.failures)
)


def label_runs(frame: pd.DataFrame, seed: int) -> pd.DataFrame:
    """Mark the S+1 unperturbed run as `repeat/run2` and copy the S run as `repeat/run1`."""
    if frame.empty:
        raise AuditError("the audit logs hold no scored samples")
    base = frame["task_probe"].isna()
    run2 = base & (frame["task_seed"] == seed + 1)
    main = base & (frame["task_seed"] == seed)
    out = frame[~run2].copy()
    if run2.any():
        r2 = frame[run2].copy()
        r2["probe"], r2["probe_variant"] = "repeat", "run2"
        r1 = frame[main].copy()
        r1["probe"], r1["probe_variant"] = "repeat", "run1"
        r1["tokens"], r1["cost_usd"] = 0, None  # a view of the unperturbed run: no extra calls
        out = pd.concat([out, r1, r2], ignore_index=True)
    return out


def headline(frame: pd.DataFrame, kind: str, cfg: ReadingConfig) -> Reading:
    """Accuracy (or macro-F1), invalid and tie rate of the unperturbed run, with intervals."""
    base = frame[frame["probe"].isna()].sort_values("item_id")
    if base.empty:
        raise AuditError("no unperturbed run in the audit logs")
    outcomes = outcomes_for(
        kind, base["verdict"].astype(str).tolist(), base["gold"].astype(str).tolist()
    )
    metrics = metrics_for(kind)
    figures = {
        "accuracy": Figure(
            "accuracy",
            HEADLINE_METRIC[kind].replace("_", " "),
            interval(
                outcomes, metrics[HEADLINE_METRIC[kind]], cfg.resamples, cfg.seed, cfg.confidence
            ),
        ),
        "invalid_rate": Figure(
            "invalid_rate",
            "invalid rate",
            interval(outcomes, metrics["invalid_rate"], cfg.resamples, cfg.seed, cfg.confidence),
        ),
    }
    if kind == "pairwise":
        figures["tie_rate"] = Figure(
            "tie_rate",
            "tie rate",
            interval(outcomes, metrics["tie_rate"], cfg.resamples, cfg.seed, cfg.confidence),
        )
    return Reading(HEADLINE, "ok", len(base), figures)


@dataclass
class AuditResult:
    """Everything on the card."""

    spec: AuditSpec
    verdict: str
    reasons: list[GateResult]
    headline: Reading
    readings: dict[str, Reading]
    gates: list[GateResult]
    cost: dict[str, Any]
    skipped_samples: list[dict[str, Any]]
    items: dict[str, Any]
    log_dir: str
    surface_ratio: dict[str, Any] = field(default_factory=dict)
    failures: CallFailures | None = (
        None  # failed model calls; any makes the verdict `could not judge`
    )
    members: dict[str, Any] | None = (
        None  # a panel's members, each audited from the panel's logs (audit.panel)
    )
    looks: dict[str, Any] | None = (
        None  # a sequential audit's looks (audit.sequential), on its last look's card
    )

    def to_dict(self) -> dict[str, Any]:
        """The card as JSON-ready data."""
        return {
            "schema": CARD_SCHEMA,
            "verdict": self.verdict,
            "failed_calls": self.failures.to_dict() if self.failures else None,
            "reasons": [r.to_dict() for r in self.reasons],
            "judge": self.spec.to_dict(),
            "items": self.items,
            "headline": {
                **self.headline.to_dict(),
                "chance": CHANCE,
                "above_chance": self.above_chance(),
            },
            "probes": {k: r.to_dict() for k, r in self.readings.items()},
            "surface_ratio": self.surface_ratio,
            "gates": [{**g.to_dict(), "more_items": self.more_items(g)} for g in self.gates],
            "cost": self.cost,
            "skipped_samples": self.skipped_samples,
            "log_dir": self.log_dir,
            **(
                {"members": {name: m.to_dict() for name, m in self.members.items()}}
                if self.members
                else {}
            ),
            **({"looks": self.looks} if self.looks else {}),
        }

    def usd_per_item(self) -> float | None:
        """This run's cost per audited item (every probe's calls over the items), None when the provider
        reports no price (e.g. the local model)."""
        usd, count = self.cost.get("usd"), self.items.get("count")
        return float(usd) / int(count) if usd is not None and count else None

    def more_items(self, result: GateResult) -> dict[str, Any] | None:
        """An inconclusive gate's `MoreItems` with the cost of that many items at this run's cost per item."""
        if result.more is None:
            return None
        per_item = self.usd_per_item()
        items = result.more.items
        usd = per_item * items if per_item is not None and items is not None else None
        # the logs' span: the battery's time even when this run only resumed it (else this run's wall time)
        seconds, count = (
            self.cost.get("logs_seconds") or self.cost.get("battery_seconds"),
            self.items.get("count"),
        )
        per_second = float(seconds) / int(count) if seconds is not None and count else None
        return {
            **result.more.to_dict(),
            "usd": usd,
            "usd_per_item": per_item,
            "seconds": per_second * items if per_second is not None and items is not None else None,
        }

    def above_chance(self) -> bool:
        """Whether the headline interval excludes chance from above (`stats.results.excludes_from_above`)."""
        return excludes_from_above(self.headline.figures["accuracy"].value, CHANCE)


def logs_span_seconds(logs: Sequence[Any]) -> float | None:
    """First task start to last task end, from the logs' stats (a resumed battery spans its runs)."""
    from datetime import datetime

    starts, ends = [], []
    for log in logs:
        stats = getattr(log, "stats", None)
        if stats and stats.started_at and stats.completed_at:
            starts.append(datetime.fromisoformat(stats.started_at))
            ends.append(datetime.fromisoformat(stats.completed_at))
    return (max(ends) - min(starts)).total_seconds() if starts else None


def cost_summary(
    frame: pd.DataFrame, seconds: float | None = None, logs_seconds: float | None = None
) -> dict[str, Any]:
    """Tokens, calls, USD (None, "unknown", when any sample's cost is unknown: usage without a
    price, as the report has it) and the battery's real wall time."""
    run1 = (frame["probe"] == "repeat") & (
        frame["probe_variant"] == "run1"
    )  # a view: no calls of its own
    costs = frame.loc[~run1, "cost_usd"].tolist()
    unknown = sum(1 for c in costs if c is None or c != c)
    return {
        "battery_seconds": seconds,
        "logs_seconds": logs_seconds,
        "usd": float(sum(costs)) if costs and unknown == 0 else None,
        "usd_unknown_samples": unknown,
        "samples": len(costs),
        "tokens": int(frame["tokens"].fillna(0).sum()),
        "judge_calls": int(frame.loc[~run1, "n_calls"].sum()),
        "note": "from the provider's token usage as Inspect logged it; cached calls are not charged again",
    }


def assemble(
    spec: AuditSpec,
    logframe: LogFrame,
    items: Sequence[Item],
    skipped_probes: dict[str, str],
    gates: tuple[Gate, ...],
    log_dir: str,
    seconds: float | None = None,
    ratio: tuple[Reading, dict[str, Any]] | None = None,
    generated: Sequence[Item] = (),
    logs_seconds: float | None = None,
) -> AuditResult:
    """Readings, gates and the verdict from the battery's logs (and the surface ratio, if computed);
    `seconds` is the battery's real wall time; `generated` are the merged `--generated` sets the
    self-preference task judged. Failed model calls refuse a verdict (`could not judge`)."""
    cfg = ReadingConfig(resamples=spec.resamples, seed=spec.seed, confidence=spec.confidence)
    frame = label_runs(logframe.frame, spec.seed)
    head = headline(frame, spec.kind, cfg)
    limits = inapplicable_probes(spec.judge, spec.judge_options)
    readings = read_all(
        frame,
        [p for p in spec.probes if p in PROBES_BY_KIND[spec.kind] and p not in limits],
        cfg,
        judge_model=judge_models(spec),
        generators=generators_of([*items, *generated]),
    )
    for probe, reason in skipped_probes.items():
        readings[probe] = Reading(
            probe, "not_applicable" if probe in limits else "not_run", 0, note=reason
        )
    if ratio is None:
        ratio = (
            Reading("surface_ratio", "not_run", 0, note="not computed"),
            {"applies": None, "note": "not computed"},
        )
    results = evaluate(
        gates, {HEADLINE: head, **readings, ratio[0].probe: ratio[0]}, spec.kind, project=True
    )
    word, reasons = verdict(results)
    failures = frame_failures(frame)
    if failures.failed:
        word, reasons = COULD_NOT_JUDGE, []
    digest = items_digest(items)
    items_info = {
        "count": len(items),
        "kind": spec.kind,
        "dataset": spec.dataset,
        "limit": spec.limit,
        "items_sha256": digest,
        "setups": sorted({i.setup for i in items}),
        "judged": head.n_items,
    }
    if generated:
        items_info["generated"] = {
            "sets": list(spec.generated),
            "count": len(generated),
            "items_sha256": items_digest(generated),
            "by_generator": dict(Counter(str(g) for g in generators_of(generated).values())),
        }
    return AuditResult(
        spec,
        word,
        reasons,
        head,
        readings,
        results,
        cost_summary(frame, seconds, logs_seconds),
        logframe.skipped,
        items_info,
        log_dir,
        ratio[1],
        failures,
    )
