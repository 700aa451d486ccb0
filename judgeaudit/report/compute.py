"""Metrics from the tidy frame: per-configuration intervals, paired differences against a
reference, flip rates, tie rates by setup, cost, and agreement with human scores.

Configurations are compared within a *group*: the same task kind on the same dataset.
Every number comes from `judgeaudit.stats`; this module only aligns items and slices.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from judgeaudit.errors import UserError
from judgeaudit.forked import fork_map, usable_cores
from judgeaudit.report.frame import ReportInputError
from judgeaudit.report.ordinal import has_ordinal_scores, ordinal_summary
from judgeaudit.report.panel import panel_summaries
from judgeaudit.report.reference import UnknownReferenceError, known, match_pairs, parse_pairs
from judgeaudit.stats import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    FLIP_RATE,
    flip_flags,
    intervals_many,
    metrics_for,
    outcomes_for,
    paired_differences_many,
)
from judgeaudit.stats import agreement as agr
from judgeaudit.stats.defaults import (
    DEFAULT_CONFIDENCE,
    METHOD,
    PAIRED_METHOD,
    PAIRED_SCORE_METHOD,
    RATE_METHOD,
    SCORE_METHOD,
)

HEADLINE: dict[str, str] = {"pairwise": "strict_accuracy", "pointwise": "macro_f1"}
PAIR_SCALE: dict[str, float] = {"b": 0.0, "tie": 1.0, "a": 2.0}
POINT_SCALE: dict[str, float] = {"not_novel": 0.0, "novel": 1.0}
FORK_MIN_ROWS = 20_000  # frame rows from which the groups are computed in worker processes


class ItemMismatchError(UserError, ValueError):
    """Configurations to be compared were run on different item sets."""


@dataclass
class Group:
    """Configurations of one kind on one dataset, aligned on the same item ids."""

    kind: str
    dataset: str
    items: list[str]
    configs: list[str]
    verdicts: pd.DataFrame  # items x configs
    rows: pd.DataFrame  # the frame rows of this group (all configs)
    intersected: dict[str, Any] = field(default_factory=dict)


def missing_items(frame: pd.DataFrame) -> dict[str, list[str]]:
    """Per configuration, the item ids other configurations of the group have and it lacks."""
    per = frame.groupby("config")["item_id"].agg(set)
    union: set[str] = set().union(*per.tolist()) if len(per) else set()
    return {str(c): sorted(union - s) for c, s in per.items() if union - s}


def align_group(frame: pd.DataFrame, kind: str, dataset: str, intersect: bool = False) -> Group:
    """Align a group's configurations on item id; differing item sets are an error unless `intersect`."""
    missing = missing_items(frame)
    info: dict[str, Any] = {}
    if missing:
        listing = "; ".join(
            f"{c!r} lacks {len(m)}: {', '.join(m[:10])}{' ...' if len(m) > 10 else ''}"
            for c, m in list(missing.items())[:5]
        ) + (f"; {len(missing) - 5} more configurations lack items" if len(missing) > 5 else "")
        if not intersect:
            raise ItemMismatchError(
                f"{kind} on {dataset!r}: configurations were run on different items ({listing}). "
                "Re-run the missing items, or pass --intersect to compare on the items all share."
            )
        per = frame.groupby("config")["item_id"].agg(set)
        common = set.intersection(*per.tolist())
        if not common:
            raise ItemMismatchError(
                f"{kind} on {dataset!r}: the configurations share no item ({listing})"
            )
        union = set().union(*per.tolist())
        info = {
            "intersection": True,
            "items_kept": len(common),
            "items_dropped": sorted(union - common),
            "missing_by_config": missing,
        }
        frame = frame[frame["item_id"].isin(common)]
    verdicts = frame.pivot(index="item_id", columns="config", values="verdict").sort_index()
    gold = frame.drop_duplicates("item_id").set_index("item_id")["gold"].reindex(verdicts.index)
    clash = frame.groupby("item_id")["gold"].nunique()
    if (clash > 1).any():
        raise ReportInputError(
            f"{kind} on {dataset!r}: item(s) {sorted(clash[clash > 1].index)[:10]} have different gold across logs"
        )
    verdicts.insert(0, "__gold__", gold)
    configs = sorted(frame["config"].unique())
    return Group(kind, dataset, list(verdicts.index), configs, verdicts, frame, info)


def format_parts(frame: pd.DataFrame, dataset: str) -> list[tuple[str, pd.DataFrame, str]]:
    """A group's rows as (dataset label, rows, note) parts: configurations of another idea format
    (plans) run on fewer items than the abstract ones form a part of their own, with every other
    configuration on the items they share, so the format change is paired on its own items and the
    rest of the group keeps all of its items. Without that shape, the group is one part."""
    if "idea_format" not in frame.columns or not missing_items(frame):
        return [(dataset, frame, "")]
    formats = frame["idea_format"].fillna("abstract").astype(str)
    main, other = frame[formats == "abstract"], frame[formats != "abstract"]
    if main.empty or other.empty or missing_items(main):
        return [(dataset, frame, "")]
    shared = set(other["item_id"]) & set(main["item_id"])
    label = f"{dataset} · {'/'.join(sorted(set(formats[formats != 'abstract'])))} items"
    if not shared:
        note = (
            f"{label}: its configurations share no item with the other configurations of "
            f"{dataset!r} ({other['item_id'].nunique()} items of their own): left out"
        )
        return [(dataset, main, note)]
    part = pd.concat([other[other["item_id"].isin(shared)], main[main["item_id"].isin(shared)]])
    dropped = sorted(set(other["item_id"]) - shared)
    note = f"{label}: {len(shared)} items shared with the other configurations" + (
        f"; {len(dropped)} left out: {', '.join(dropped[:10])}" if dropped else ""
    )
    return [(dataset, main, ""), (label, part, note)]


def groups_of(frame: pd.DataFrame, intersect: bool = False) -> list[Group]:
    """All comparison groups of the frame (kind x dataset; a format run on fewer items apart)."""
    groups = []
    for (kind, dataset), sub in frame.groupby(["kind", "dataset"], sort=True):
        for label, rows, note in format_parts(sub, str(dataset)):
            group = align_group(rows.assign(dataset=label), str(kind), label, intersect)
            if note:
                group.intersected = {**group.intersected, "format_apart": note}
            groups.append(group)
    return groups


def choose_reference(group: Group, reference: str | None) -> tuple[dict[str, str], bool]:
    """Map each model to its reference configuration; True when one configuration serves all models.

    `reference` may be a full configuration name (one reference for all) or a variant name
    (each model's own run of that variant). Default: the variant run by most models
    (then the shortest name, then alphabetical).
    """
    meta = group.rows.drop_duplicates("config").set_index("config")
    models = sorted(meta["model"].unique())
    if reference is not None and reference in group.configs:
        return dict.fromkeys(models, reference), True
    variants = Counter(meta["variant"])
    pairs = parse_pairs(reference) if reference is not None and reference not in variants else None
    if pairs is not None and (matched := match_pairs(group.rows, pairs)):
        return matched, len(models) == 1
    if reference is None:
        reference = sorted(variants, key=lambda v: (-variants[v], len(v), v))[0]
    elif reference not in variants:
        raise UnknownReferenceError(
            f"reference {reference!r} is neither a configuration nor a variant of {group.kind} on {group.dataset!r}; "
            f"variants: {sorted(variants)}"
        )
    out = {}
    for model in models:
        name = meta[(meta["model"] == model) & (meta["variant"] == reference)].index
        if len(name):
            out[model] = str(name[0])
    return out, False


def _nan_to_none(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _nan_to_none(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_nan_to_none(v) for v in value]
    return value


def _cost(rows: pd.DataFrame) -> dict[str, Any]:
    cost = rows["cost"].astype(float)
    unknown = int(cost.isna().sum())
    total = float(cost.sum()) if unknown == 0 else float("nan")
    n = len(rows)
    return {
        "cost_usd": total,
        "cost_per_item_usd": total / n if n else float("nan"),
        "cost_unknown_items": unknown,
        "input_tokens": float(rows["input_tokens"].astype(float).sum(skipna=False)),
        "output_tokens": float(rows["output_tokens"].astype(float).sum(skipna=False)),
        "total_tokens": float(rows["total_tokens"].astype(float).sum(skipna=False)),
    }


def _vote_share(kind: str, calls: list[dict[str, Any]]) -> float:
    """Mean vote of the valid calls: pairwise a=1, tie=0.5, b=0; pointwise novel=1, not_novel=0."""
    scale = (
        {"a": 1.0, "tie": 0.5, "b": 0.0} if kind == "pairwise" else {"novel": 1.0, "not_novel": 0.0}
    )
    votes = [scale[c["verdict"]] for c in calls if c.get("verdict") in scale]
    # halves and ones: their sum is exact, so this is numpy's mean to the bit, without its overhead
    return sum(votes) / len(votes) if votes else float("nan")


def _human_score(kind: str, human: dict[str, Any]) -> float:
    def rating(side: str) -> float:
        value = (human.get(side) or {}).get("rating_mean")
        return float(value) if value is not None else float("nan")

    if kind == "pairwise":
        return rating("a") - rating("b")
    return rating("idea")


def agreement_inputs(
    rows: pd.DataFrame, kind: str
) -> tuple[tuple[Any, Any], tuple[list[str], list[str]], dict[str, int]]:
    """Judge-vs-human inputs of one configuration: (scores), (labels) and what was left out.

    Scores: the judge's vote share vs the human rating (pairwise: rating of a minus rating of
    b; pointwise: the idea's mean rating); units lacking either are left out. Labels: the
    judge's verdict vs the gold label on the ordinal scale b < tie < a (pairwise) or
    not_novel < novel; invalid verdicts are left out.
    """
    judge = np.array([_vote_share(kind, c) for c in rows["calls"]])
    human = np.array([_human_score(kind, h) for h in rows["human"]])
    ok = np.isfinite(judge) & np.isfinite(human)
    scale = PAIR_SCALE if kind == "pairwise" else POINT_SCALE
    valid = rows["verdict"].isin(list(scale)).to_numpy()
    labels = (rows["verdict"].to_numpy()[valid].tolist(), rows["gold"].to_numpy()[valid].tolist())
    counts = {
        "units_with_human_scores": int(ok.sum()),
        "units_without": int((~ok).sum()),
        "invalid_left_out": int((~valid).sum()),
    }
    return (judge[ok], human[ok]), labels, counts


def agreement_all(
    rows_by_config: dict[str, pd.DataFrame], kind: str, resamples: int, seed: int
) -> dict[str, dict[str, Any]]:
    """Agreement with humans for every configuration of a group (batched across configurations)."""
    scores, labels, counts = {}, {}, {}
    for c, rows in rows_by_config.items():
        scores[c], labels[c], counts[c] = agreement_inputs(rows, kind)
    scale = PAIR_SCALE if kind == "pairwise" else POINT_SCALE
    categories = sorted(scale, key=lambda k: scale[k])
    stats = agr.agreement_many(scores, labels, categories, resamples, seed)
    out = {}
    for c in rows_by_config:
        entry: dict[str, Any] = dict(counts[c])
        for key in ("pearson", "spearman", "cohen_kappa", "krippendorff_alpha_ordinal"):
            value = stats[c].get(key, "not computed")
            entry[key] = value.to_dict() if hasattr(value, "to_dict") else {"undefined": str(value)}
        out[c] = entry
    return out


def _failed_calls(rows: pd.DataFrame) -> dict[str, Any]:
    """`failed_calls` (calls with verdict `error`, all items) and `error` (the first cause, or None)."""
    failed = (
        [c for calls in rows["calls"] for c in calls if c.get("verdict") == "error"]
        if "calls" in rows
        else []
    )
    return {"failed_calls": len(failed), "error": failed[0].get("error") if failed else None}


def reference_of(group: Group, refs: dict[str, str], single: bool) -> dict[str, str]:
    """Each configuration compared with a reference -> that reference (`choose_reference`): every
    configuration against the one shared reference, else each against its own judge's."""
    meta = group.rows.drop_duplicates("config").set_index("config")["model"]
    if single:
        ref = next(iter(refs.values()), None)
        return {c: ref for c in group.configs if ref is not None and c != ref}
    return {
        c: refs[str(meta[c])]
        for c in group.configs
        if str(meta[c]) in refs and refs[str(meta[c])] != c
    }


def compute_group(
    group: Group,
    reference: str | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    human_agreement: bool = True,
) -> dict[str, Any]:
    """Every number of one group, JSON-ready (intervals carry their method, B and seed)."""
    metrics = metrics_for(group.kind)
    gold = group.verdicts["__gold__"].tolist()
    outcomes = {
        c: outcomes_for(group.kind, group.verdicts[c].tolist(), gold) for c in group.configs
    }
    meta = group.rows.drop_duplicates("config").set_index("config")
    refs, single = choose_reference(group, reference)
    result: dict[str, Any] = {
        "kind": group.kind,
        "dataset": group.dataset,
        "headline_metric": HEADLINE[group.kind],
        "n_items": len(group.items),
        "items": group.items,
        "intersection": group.intersected or {"intersection": False},
        "reference": {"requested": reference, "by_model": refs, "shared_by_all_models": single},
        "configs": {},
    }
    intervals = {m: intervals_many(outcomes, fn, resamples, seed) for m, fn in metrics.items()}
    diffs: dict[str, dict[str, Any]] = {}
    pairs = reference_of(group, refs, single)
    for m, fn in metrics.items():  # every judge's comparisons solved together
        for c, d in paired_differences_many(outcomes, pairs, fn, resamples, seed).items():
            diffs.setdefault(c, {})[m] = d.to_dict()
    result["flip_rates"] = flip_matrix(group)
    rows_of = {str(c): sub for c, sub in group.rows.groupby("config", sort=False)}
    agreement: dict[str, dict[str, Any]] = {}
    if human_agreement:
        aligned = {
            c: rows_of[c].set_index("item_id").reindex(group.items).reset_index()
            for c in group.configs
        }
        agreement = agreement_all(aligned, group.kind, resamples, seed)
    flips = {
        c: {"flip": flip_flags(group.verdicts[c].tolist(), group.verdicts[ref].tolist())}
        for c, ref in pairs.items()
    }
    flip_ivs = intervals_many(flips, FLIP_RATE, resamples, seed) if flips else {}
    setups = (
        group.rows.drop_duplicates("item_id").set_index("item_id")["setup"].reindex(group.items)
    )
    ties_by_setup: dict[str, dict[str, Any]] = {}
    if group.kind == "pairwise":
        for setup in sorted(setups.dropna().unique()):
            mask = (setups == setup).to_numpy()
            subsets = {c: {k: v[mask] for k, v in outcomes[c].items()} for c in group.configs}
            for c, iv in intervals_many(subsets, metrics["tie_rate"], resamples, seed).items():
                ties_by_setup.setdefault(c, {})[str(setup)] = iv.to_dict()
    for c in group.configs:
        rows = rows_of[c]
        judge = str(meta.loc[c, "model"])
        ref = refs.get(judge)
        entry: dict[str, Any] = {
            "model": judge,
            "model_id": str(meta.loc[c, "model_id"]),
            "variant": str(meta.loc[c, "variant"]),
            "task": str(meta.loc[c, "task"]),
            "task_args": str(meta.loc[c, "task_args"]),
            "probe": meta.loc[c, "probe"],
            "probe_variant": meta.loc[c, "probe_variant"],
            # a cell of the reference study: the change it makes (absent for any other run)
            **(
                {"study_change": change}
                if isinstance(change := meta.loc[c].get("study_change"), str)
                else {}
            ),
            "n_items": len(group.items),
            "verdict_counts": {k: int(v) for k, v in Counter(group.verdicts[c]).items()},
            # items with no valid answer, apart: invalid (answered outside the protocol) and error
            # (every call failed), with the failed calls and their first cause
            "invalid_items": int((group.verdicts[c] == "invalid").sum()),
            "error_items": int((group.verdicts[c] == "error").sum()),
            **_failed_calls(rows),
            "split_items": int(rows["split"].fillna(False).astype(bool).sum())
            if "split" in rows
            else 0,
            "metrics": {m: intervals[m][c].to_dict() for m in metrics},
            "reference": ref,
            "is_reference": c == ref,
            "vs_reference": diffs.get(c, {}),
            **_cost(rows),
        }
        if c in flip_ivs:
            entry["flip_rate_vs_reference"] = flip_ivs[c].to_dict()
        if group.kind == "pairwise":
            entry["tie_rate_by_setup"] = ties_by_setup.get(c, {})
        if human_agreement:
            entry["agreement"] = agreement[c]
            if has_ordinal_scores(rows):
                entry["ordinal_scores"] = ordinal_summary(
                    rows.set_index("item_id").reindex(group.items).reset_index(),
                    group.kind,
                    resamples,
                    seed,
                )
        result["configs"][c] = entry
    panels = panel_summaries(group, resamples, seed)
    if panels:  # a panel beside its members (judgeaudit.report.panel)
        result["panels"] = panels
    return result


def flip_matrix(group: Group) -> dict[str, dict[str, float]]:
    """Share of items on which each pair of configurations gives different verdicts (point estimates;
    one configuration against all others at once)."""
    v = group.verdicts[group.configs].to_numpy(dtype=object).T  # configurations x items
    out: dict[str, dict[str, float]] = {}
    for i, a in enumerate(group.configs):
        rates = np.atleast_1d(FLIP_RATE({"flip": flip_flags(v[i], v)}))
        out[a] = {b: float(r) for b, r in zip(group.configs, rates, strict=True)}
    return out


def compute_all(
    frame: pd.DataFrame,
    reference: str | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    intersect: bool = False,
) -> list[dict[str, Any]]:
    """All groups of the frame, computed (in forked processes, one per usable core, for a frame of
    `FORK_MIN_ROWS` rows or more: the groups are independent and each is seeded on its own)."""
    groups = groups_of(frame, intersect)
    workers = usable_cores() if len(frame) >= FORK_MIN_ROWS else 1
    return list(
        fork_map(
            lambda g: compute_group(g, reference if _has(g, reference) else None, resamples, seed),
            groups,
            workers,
        )
    )


def _has(group: Group, reference: str | None) -> bool:
    return reference is not None and known(group.rows, reference)


def bootstrap_settings(resamples: int, seed: int) -> dict[str, Any]:
    """How the intervals were computed (stored beside the numbers; each interval also names its method).

    `methods` maps each kind of figure to its method; `method` / `paired_method`, `resamples`
    and `seed` are the bootstrap's, for the figures no closed form fits."""
    return {
        "method": METHOD,
        "paired_method": PAIRED_METHOD,
        "resamples": resamples,
        "seed": seed,
        "confidence": DEFAULT_CONFIDENCE,
        "unit": "item",
        "methods": {
            "shares of 0/1 outcomes (accuracy, tie, invalid, error, flip rates, recall, precision)": RATE_METHOD,
            "soft accuracy (a tie worth one half)": SCORE_METHOD,
            "paired differences of those (vs the reference)": PAIRED_SCORE_METHOD,
            "macro-F1, F1, paired differences of accuracy without ties, precision and F1, agreement": METHOD,
        },
        "coverage": "docs/methods/intervals.md",
    }


def jsonable(value: Any) -> Any:
    """Replace NaN/inf by None recursively (JSON has no NaN)."""
    return _nan_to_none(value)
