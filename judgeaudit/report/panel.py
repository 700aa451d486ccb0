"""Panels in a report: each member as a configuration of its own, read from the panel's own log,
and the panel beside its members.

A panel's log (`-T judge=panel`, `judgeaudit.judges.llm.panel`) holds every member's calls, each
naming its `member`. `with_members` adds, for every panel row, one row per member: the member's
calls, its own verdict (its calls aggregated as one judge's are), the billed tokens and cost of its
model role, model `<member>` and variant `<the panel's variant> · member of <panel>`. The members
then appear in every table and figure like any configuration (accuracy, macro-F1, tie, invalid
and error rates, flips, cost, the Pareto figure), beside the panel and beside single-judge runs
of the same models.

`panel_summaries` adds, per panel configuration, what only a panel has: how often the panel
overrules each member (the flip rate between the panel's and the member's verdicts, over items
where both are valid, `judgeaudit.stats`), the members' agreement (Krippendorff's alpha, nominal,
members as coders and items as units, a member's invalid or error verdict missing), the items
below the panel's quorum, and the cost as made of the panel and of each member (the calls' own
usage from their records, so a call served from Inspect's cache counts what it cost when it was
made; the cost table's billed cost counts it 0). `panel_table` shows them, one table per group.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from judgeaudit.report.aggregations import aggregate_with_split
from judgeaudit.report.frame import SEP, call_summary, member_id, member_label
from judgeaudit.report.tables import MISSING, RATE_COLUMNS, Table, interval_cell
from judgeaudit.stats import FLIP_RATE, flip_flags, intervals_many
from judgeaudit.stats.agreement import krippendorff_alpha_interval

MEMBER_OF = "member_of"  # the column naming a member row's panel configuration
# Variant parts of a panel that its members do not share: the judge kind and the panel's own options.
PANEL_PARTS: tuple[str, ...] = ("judge=panel", "panel_rule=", "panel_quorum=")
CATEGORIES: dict[str, tuple[str, ...]] = {
    "pairwise": ("a", "b", "tie"),
    "pointwise": ("novel", "not_novel"),
}


def is_panel(value: Any) -> bool:
    """Whether a frame row's `panel` cell holds a panel (its task metadata), not None or NaN."""
    return isinstance(value, Mapping)


def member_variant(variant: str, panel_model: str) -> str:
    """A member's variant: the panel's, without the panel's own parts, `member of <panel>` added."""
    parts = [p for p in variant.split(SEP) if not p.startswith(PANEL_PARTS)]
    return SEP.join([*parts, f"member of {panel_model}"])


def member_rows(rows: pd.DataFrame, position: int) -> pd.DataFrame:
    """The member at `position` of each panel row of `rows` (one panel configuration) as rows of its own."""
    out = rows.copy()
    records: list[dict[str, Any]] = []
    row: Any
    for row in rows.itertuples(index=False):
        spec = row.panel
        name, model = spec["members"][position], spec["models"][position]
        args = (spec.get("model_args") or [{}] * len(spec["members"]))[position]
        calls = [c for c in row.calls if c.get("member") == name]
        verdict, split = aggregate_with_split(row.kind, calls, row.split_rule)
        usage = (spec.get("usage") or {}).get(name, {})
        cost = float("nan") if not math.isfinite(float(row.cost)) else float(usage.get("cost", 0.0))
        records.append(
            {
                "model": member_label(name, model),
                "model_id": member_id(name, model, args),
                "variant": member_variant(row.variant, row.model),
                "verdict": verdict,
                "split": split,
                "calls": calls,
                "call_verdicts": call_summary(calls),
                "judge": "prompted",
                "panel": None,
                MEMBER_OF: row.config,
                "cost": cost,
                **{
                    k: float(usage.get(k, 0.0)) if math.isfinite(cost) else float("nan")
                    for k in ("input_tokens", "output_tokens", "total_tokens")
                },
            }
        )
    for key in records[0] if records else ():
        out[key] = pd.Series([r[key] for r in records], index=out.index)
    out["config"] = out["model"] + SEP + out["variant"]
    return out


def with_members(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame plus, for every panel configuration, one block of rows per member (see the module
    docstring); other rows get `member_of` None."""
    frame = frame.assign(**{MEMBER_OF: None})
    if frame.empty or "panel" not in frame:
        return frame
    panels = frame[frame["panel"].map(is_panel)]
    blocks = [frame]
    for _config, rows in panels.groupby("config", sort=True):
        for position in range(len(rows.iloc[0]["panel"]["members"])):
            blocks.append(member_rows(rows, position))
    return pd.concat(blocks, ignore_index=True) if len(blocks) > 1 else frame


def member_configs(rows: pd.DataFrame, panel_config: str) -> dict[str, str]:
    """Member name -> its configuration, for one panel configuration of a group's rows, in member order."""
    spec = rows.loc[rows["config"] == panel_config, "panel"].iloc[0]
    members = rows[rows[MEMBER_OF] == panel_config] if MEMBER_OF in rows else rows.iloc[:0]
    by_label = dict(zip(members["model"], members["config"], strict=False))
    return {
        name: by_label[member_label(name, model)]
        for name, model in zip(spec["members"], spec["models"], strict=True)
        if member_label(name, model) in by_label
    }


def cost_as_made(rows: pd.DataFrame) -> dict[str, float]:
    """USD and tokens of a configuration's calls as made (the call records' own usage; unknown, NaN,
    when a call's provider reported no usage or no price)."""
    calls = [c for calls in rows["calls"] for c in calls]
    known = all("input_tokens" in c for c in calls)
    priced = known and all(c.get("cost_usd") is not None for c in calls)
    tokens = sum(float((c.get("input_tokens") or 0) + (c.get("output_tokens") or 0)) for c in calls)
    usd = sum(float(c["cost_usd"]) for c in calls) if priced else float("nan")
    n = len(rows)
    return {
        "usd": usd,
        "usd_per_item": usd / n if n else float("nan"),
        "tokens": tokens if known else float("nan"),
        "calls": float(len(calls)),
    }


def member_agreement(
    verdicts: pd.DataFrame, kind: str, resamples: int, seed: int
) -> dict[str, Any]:
    """Krippendorff's alpha (nominal) of the members' verdicts: members as coders, items as units,
    invalid and error verdicts missing."""
    codes = {v: float(i) for i, v in enumerate(CATEGORIES[kind])}
    data = np.array([[codes.get(str(v), np.nan) for v in verdicts[c]] for c in verdicts.columns])
    try:
        iv = krippendorff_alpha_interval(data, "nominal", sorted(codes.values()), resamples, seed)
    except ValueError as exc:  # e.g. no item with two valid member verdicts
        return {"undefined": str(exc)}
    return iv.to_dict()


def panel_summary(group: Any, panel_config: str, resamples: int, seed: int) -> dict[str, Any]:
    """Everything a panel's table shows beyond the configurations' own entries (see the module docstring)."""
    rows = group.rows
    panel_rows = rows[rows["config"] == panel_config]
    spec = panel_rows["panel"].iloc[0]
    members = member_configs(rows, panel_config)
    panel_v = group.verdicts[panel_config].tolist()
    flips = {
        name: {"flip": flip_flags(panel_v, group.verdicts[c].tolist())}
        for name, c in members.items()
    }
    overrules = intervals_many(flips, FLIP_RATE, resamples, seed) if flips else {}
    member_v = group.verdicts[list(members.values())]
    valid = member_v.isin(list(CATEGORIES[group.kind])).sum(axis=1)
    needed = int(spec.get("needed") or len(spec["members"]) // 2 + 1)
    return {
        "rule": spec.get("rule"),
        "quorum": spec.get("quorum"),
        "needed": needed,
        "members": {
            name: {
                "config": c,
                "model": spec["models"][spec["members"].index(name)],
                "overruled": overrules[name].to_dict(),
                "cost_as_made": cost_as_made(rows[rows["config"] == c]),
            }
            for name, c in members.items()
        },
        "agreement": member_agreement(member_v, group.kind, resamples, seed),
        "items_below_quorum": int((valid < needed).sum()),
        "mean_answered": float(valid.mean()) if len(valid) else float("nan"),
        "cost_as_made": cost_as_made(panel_rows),
    }


def panel_summaries(group: Any, resamples: int, seed: int) -> dict[str, dict[str, Any]]:
    """Panel configuration -> `panel_summary`, for every panel of a comparison group (empty without one)."""
    if "panel" not in group.rows:
        return {}
    configs = sorted(set(group.rows.loc[group.rows["panel"].map(is_panel), "config"]))
    return {c: panel_summary(group, c, resamples, seed) for c in configs}


def _figure(x: Any, digits: int) -> str:
    return f"{x:.{digits}f}" if isinstance(x, int | float) and math.isfinite(x) else "unknown"


def all_panel_tables(results: Sequence[Mapping[str, Any]]) -> list[Table]:
    """The panel table of every computed group that has a panel."""
    return [panel_table(g) for g in results if g.get("panels")]


def _agreement_cell(alpha: dict[str, Any]) -> str:
    return (
        f"{interval_cell(alpha)} (n = {alpha['n']})"
        if "estimate" in alpha
        else f"undefined ({alpha['undefined']})"
    )


def panel_table(g: Mapping[str, Any]) -> Table:
    """Every panel configuration of a computed group with its members below it, side by side."""
    metric = g["headline_metric"]
    rates = RATE_COLUMNS[g["kind"]]
    rows, records = [], []
    for config, p in sorted(g["panels"].items()):
        entries: list[tuple[str, str, dict[str, Any] | None, dict[str, Any]]] = [
            (
                f"panel ({p['rule']}, {p['needed']} of {len(p['members'])} must answer)",
                config,
                None,
                p["cost_as_made"],
            )
        ]
        entries += [
            (m["model"], m["config"], m["overruled"], m["cost_as_made"])
            for m in p["members"].values()
        ]
        for role, name, overruled, cost in entries:
            e = g["configs"][name]
            own = overruled is None  # the panel's own row carries the panel-wide figures
            rows.append(
                {
                    "configuration": g["configs"][config]["variant"],
                    "judge": e["model"],
                    "model": role,
                    metric: interval_cell(e["metrics"][metric]),
                    **{label: interval_cell(e["metrics"][key]) for key, label in rates},
                    "panel overrules it": interval_cell(overruled)
                    if overruled is not None
                    else MISSING,
                    "members' α": _agreement_cell(p["agreement"]) if own else MISSING,
                    "answered / item": _figure(p["mean_answered"], 2) if own else MISSING,
                    "items below quorum": p["items_below_quorum"] if own else MISSING,
                    "USD / item (billed)": "unknown"
                    if e["cost_unknown_items"]
                    else f"{e['cost_per_item_usd']:.6f}",
                    "USD / item (as made)": _figure(cost["usd_per_item"], 6),
                    "tokens (as made)": _figure(cost["tokens"], 0),
                }
            )
            records.append(
                {
                    "kind": g["kind"],
                    "dataset": g["dataset"],
                    "panel": config,
                    "config": name,
                    "model": e["model"],
                    "role": "panel" if own else "member",
                    "metric": metric,
                    "value": e["metrics"][metric]["estimate"],
                    "value_low": e["metrics"][metric]["low"],
                    "value_high": e["metrics"][metric]["high"],
                    **{key: e["metrics"][key]["estimate"] for key, _ in rates},
                    **{
                        f"overruled{end}": (overruled or {}).get(key)
                        for end, key in (("", "estimate"), ("_low", "low"), ("_high", "high"))
                    },
                    "members_alpha": p["agreement"].get("estimate") if own else None,
                    "items_below_quorum": p["items_below_quorum"] if own else None,
                    "cost_per_item_usd": e["cost_per_item_usd"],
                    "cost_as_made_per_item_usd": cost["usd_per_item"],
                    "tokens_as_made": cost["tokens"],
                }
            )
    caption = (
        f"Panels and their members, {g['kind']} on {g['dataset']} (n = {g['n_items']} items) [95% CI]: each panel "
        f"row is followed by its members, read from the panel's own log. 'panel overrules it': share of the "
        f"items where the member and the panel both gave a valid verdict on which the panel's differs; members' "
        f"α: Krippendorff's alpha (nominal) of the members' verdicts, invalid and error verdicts missing; "
        f"answered: members with a valid verdict per item; below quorum: items with fewer answers than the "
        f"panel needs. Cost billed counts a call served from Inspect's cache as 0; as made counts what each "
        f"call cost when it was made."
    )
    return Table(
        f"panels_{g['kind']}_{g['dataset']}", caption, pd.DataFrame(rows), pd.DataFrame(records)
    )
