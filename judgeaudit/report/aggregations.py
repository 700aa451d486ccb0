"""Other verdict aggregations recomputed from the stored per-call verdicts.

The stored verdict aggregates every call (k per order, both orders when asked). From the
same calls we rebuild: `k1` (first call of each order), `one_order` (only the item's own
a/b order, or the single pointwise order) and `k1_one_order` (a single call). Each becomes an
extra configuration named `<variant> · agg=<name>`, only where it differs in which calls
it uses. All aggregation goes through `judgeaudit.judges.verdicts`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import SimpleNamespace
from typing import Any

import pandas as pd

from judgeaudit.judges.panel_votes import PanelRule, panel_calls_outcome
from judgeaudit.judges.verdicts import DEFAULT_SPLIT_RULE, aggregate_pairwise, aggregate_pointwise
from judgeaudit.protocol import ERROR
from judgeaudit.report.frame import SEP, call_summary

CallFilter = Callable[[dict[str, Any]], bool]
# The frame columns `reconcile_stored` reads (`panel` and `sample_error` may be absent).
RECONCILE_COLUMNS: tuple[str, ...] = (
    "log",
    "sample_id",
    "item_id",
    "kind",
    "calls",
    "call_verdicts",
    "split_rule",
    "verdict",
    "panel",
    "sample_error",
)

AGGREGATIONS: dict[str, CallFilter] = {
    "k1": lambda c: int(c.get("call_index", 0)) == 0,
    "one_order": lambda c: c.get("order") in ("ab", "single"),
    "k1_one_order": lambda c: (
        int(c.get("call_index", 0)) == 0 and c.get("order") in ("ab", "single")
    ),
}


def aggregate_with_split(
    kind: str,
    calls: list[dict[str, Any]],
    split_rule: str | None,
    panel: Mapping[str, Any] | None = None,
) -> tuple[str, bool]:
    """(aggregated verdict, whether the pointwise split rule decided it) of a list of call records;
    a panel's (`panel`: its task metadata) by the panel's rule (`judges.panel_votes`)."""
    if isinstance(panel, Mapping):
        outcome = panel_calls_outcome(  # type: ignore[arg-type]
            kind,
            calls,
            PanelRule.from_dict(panel),
            (split_rule or DEFAULT_SPLIT_RULE),  # type: ignore[arg-type]
        )
        return outcome.verdict, outcome.no_majority and kind == "pointwise"
    verdicts = [str(c["verdict"]) for c in calls]
    if kind == "pairwise":
        return aggregate_pairwise(verdicts), False
    verdict, split = aggregate_pointwise(verdicts, (split_rule or DEFAULT_SPLIT_RULE))  # type: ignore[arg-type]
    return verdict, split


def aggregate_calls(
    kind: str,
    calls: list[dict[str, Any]],
    split_rule: str | None,
    panel: Mapping[str, Any] | None = None,
) -> str:
    """The aggregated verdict of a list of call records (pairwise mean vote, pointwise majority; a panel's rule)."""
    return aggregate_with_split(kind, calls, split_rule, panel)[0]


def expected_verdict(row: Any) -> str:
    """The verdict a row must carry: its calls' aggregation (a panel's by its rule), and `error` for
    a sample the log marks as errored (a panel's too: a panel whose member failed has no verdict)."""
    if _sample_error(row):
        return ERROR
    return aggregate_calls(row.kind, row.calls, row.split_rule, getattr(row, "panel", None))


def _sample_error(row: Any) -> str | None:
    """The row's sample error line (absent in frames built without it)."""
    cause = getattr(row, "sample_error", None)
    return cause if isinstance(cause, str) and cause else None


def reconcile_stored(frame: pd.DataFrame) -> tuple[pd.DataFrame, list[dict[str, str]]]:
    """The frame with each stored verdict checked against `expected_verdict`; where they differ (a
    log of an older version, whose rule kept a verdict from the calls that survived) the expected
    one is used, and the sample is named in the returned notes. Never refuses a log."""
    notes: list[dict[str, str]] = []
    verdicts: list[str] = []
    row: Any
    read = [c for c in RECONCILE_COLUMNS if c in frame.columns]
    # plain lists, not itertuples: a frame of Arrow-backed strings yields its values slowly
    for values in zip(*(frame[c].tolist() for c in read), strict=True):
        row = SimpleNamespace(**dict(zip(read, values, strict=True)))
        expected = expected_verdict(row)
        verdicts.append(expected)
        if expected != row.verdict:
            notes.append(
                {
                    "log": str(row.log),
                    "sample_id": str(row.sample_id),
                    "item_id": str(row.item_id),
                    "reason": f"stored verdict {row.verdict!r}, counted as {expected!r}: its calls "
                    f"({row.call_verdicts or 'none'})"
                    + (
                        f" and the sample's error ({cause})"
                        if (cause := _sample_error(row))
                        else ""
                    ),
                }
            )
    if notes:
        frame = frame.assign(verdict=verdicts)
    return frame, notes


def _uses_fewer_calls(calls: list[dict[str, Any]], keep: CallFilter) -> bool:
    kept = [c for c in calls if keep(c)]
    return 0 < len(kept) < len(calls)


def with_aggregations(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame plus one block of rows per other aggregation, for configurations where it differs."""
    if frame.empty:
        return frame
    blocks = [frame]
    seen: dict[str, list[tuple[Any, ...]]] = {}
    calls_by_config = frame.groupby("config", sort=False)["calls"]
    for name, keep in AGGREGATIONS.items():
        uses = frame["calls"].map(lambda calls, keep=keep: _uses_fewer_calls(calls, keep))
        configs = []
        for config in sorted(set(frame.loc[uses, "config"])):
            signature = tuple(
                tuple((c.get("order"), c.get("call_index")) for c in calls if keep(c))
                for calls in calls_by_config.get_group(config)
            )
            if signature in seen.setdefault(config, []):
                continue  # same calls as an aggregation already added
            seen[config].append(signature)
            configs.append(config)
        if not configs:
            continue
        sub = frame[frame["config"].isin(configs)].copy()
        sub["calls"] = sub["calls"].map(lambda calls, keep=keep: [c for c in calls if keep(c)])
        panels = sub["panel"] if "panel" in sub else [None] * len(sub)
        again = [
            aggregate_with_split(k, c, r, p)
            for k, c, r, p in zip(sub["kind"], sub["calls"], sub["split_rule"], panels, strict=True)
        ]
        sub["verdict"] = [v for v, _ in again]
        sub["split"] = [sp for _, sp in again]
        sub["call_verdicts"] = sub["calls"].map(call_summary)
        sub["variant"] = sub["variant"] + f"{SEP}agg={name}"
        sub["config"] = sub["model"] + SEP + sub["variant"]
        # cost of a sub-aggregation is not observed separately: leave it unknown rather than guess
        sub[["input_tokens", "output_tokens", "total_tokens", "cost"]] = float("nan")
        if "scores" in sub:  # ordinal scores belong to the full set of calls, not to a subset
            sub["scores"] = sub["scores"].map(lambda _s: {})
        blocks.append(sub)
    return pd.concat(blocks, ignore_index=True)
