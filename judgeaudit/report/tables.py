"""The study's tables from computed groups: a display frame (Markdown, LaTeX) and a numeric
long frame (CSV) for each.

(1) ablation: rows = variants, columns = models, cells "Δ vs reference [95% CI]" (* = significant);
(2) tie rates by variant x model x setup; (3) pointwise per-class precision/recall/F1;
(4) cost and the headline metric per configuration. Every table shows, per configuration,
the share of items without a valid answer, apart: `invalid rate` (answered outside the protocol)
and `error rate` (every call failed), and pairwise tables the `tie rate` beside them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from judgeaudit.files import atomic_write_text
from judgeaudit.report.grid import REFERENCE_LABEL, is_aggregation, setup_name, study_grid

MISSING = "–"
# Characters pdflatex cannot set from UTF-8 text as they are, and what a table's LaTeX says instead.
LATEX_GREEK: dict[str, str] = {"ρ": r"$\rho$", "κ": r"$\kappa$", "α": r"$\alpha$", "Δ": r"$\Delta$"}
LATEX_SPECIAL: dict[str, str] = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
}
# Each table's LaTeX needs graphicx (\resizebox, in every LaTeX installation); booktabs' rules are
# used when the document loads booktabs, plain \hline otherwise.
LATEX_PREAMBLE = (
    "% \\input into a document that loads graphicx (booktabs optional)\n"
    "\\providecommand{\\toprule}{\\hline}\\providecommand{\\midrule}{\\hline}"
    "\\providecommand{\\bottomrule}{\\hline}\n"
)
SIG_MARK = "*"


@dataclass
class Table:
    """One table: its name, a caption, the display frame and the numeric frame."""

    name: str
    caption: str
    display: pd.DataFrame
    data: pd.DataFrame


def _num(x: Any, signed: bool = False, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "n/a"
    return f"{x:+.{digits}f}" if signed else f"{x:.{digits}f}"


def interval_cell(iv: dict[str, Any], signed: bool = False) -> str:
    """`0.750 [0.620, 0.880]` from an Interval/PairedDifference dict."""
    return f"{_num(iv.get('estimate'), signed)} [{_num(iv.get('low'), signed)}, {_num(iv.get('high'), signed)}]"


def diff_cell(d: dict[str, Any]) -> str:
    """`+0.050 [-0.010, +0.110]*` with the mark when the paired interval excludes zero."""
    return interval_cell(d, signed=True) + (SIG_MARK if d.get("significant") else "")


def _group_title(g: dict[str, Any]) -> str:
    extra = ""
    inter = g.get("intersection") or {}
    if inter.get("intersection"):
        extra = f"; intersection of item sets: {inter['items_kept']} items kept, {len(inter['items_dropped'])} dropped"
    return f"{g['kind']} on {g['dataset']} (n = {g['n_items']} items{extra})"


# The failure (and tie) rates every table shows per configuration: (metric, column label).
RATE_COLUMNS: dict[str, tuple[tuple[str, str], ...]] = {
    "pairwise": (
        ("tie_rate", "tie rate"),
        ("invalid_rate", "invalid rate"),
        ("error_rate", "error rate"),
    ),
    "pointwise": (("invalid_rate", "invalid rate"), ("error_rate", "error rate")),
}


def rate_cells(e: dict[str, Any], kind: str, skip: Sequence[str] = ()) -> dict[str, str]:
    """The rate columns (`RATE_COLUMNS`) of one configuration entry, point estimates with intervals."""
    return {
        label: interval_cell(e["metrics"][key])
        for key, label in RATE_COLUMNS[kind]
        if key not in skip
    }


def ablation_table(g: dict[str, Any], aggregations: bool = False) -> Table:
    """Rows = variants (the reference first), columns = models: the reference's value, others' paired Δ
    of the headline metric. The controlled changes, or with `aggregations` the aggregations derived
    from the stored calls (`agg=...`, `report.aggregations`) beside the reference: a table of their own."""
    metric = g["headline_metric"]
    configs = {
        n: e
        for n, e in g["configs"].items()
        if is_aggregation(e["variant"]) == aggregations or (aggregations and e["is_reference"])
    }
    models = sorted({e["model"] for e in configs.values()})
    grid = study_grid(g, aggregations)  # its order: the reference first, then by what changes
    variants = sorted(
        {e["variant"] for e in configs.values()},
        key=lambda v: (
            not any(e["is_reference"] for e in configs.values() if e["variant"] == v),
            grid.labels.get(v, ""),
            v,
        ),
    )
    rates = [(model, key, label) for model in models for key, label in RATE_COLUMNS[g["kind"]]]
    columns = [*models, *(f"{label} ({model})" for model, _, label in rates)]
    display = pd.DataFrame(MISSING, index=pd.Index(variants, name="configuration"), columns=columns)
    records = []
    for name, e in configs.items():
        for model, key, label in rates:
            if e["model"] == model:
                display.loc[e["variant"], f"{label} ({model})"] = _num(
                    e["metrics"][key]["estimate"]
                )
        if e["is_reference"]:
            cell = interval_cell(e["metrics"][metric]) + " (reference)"
        elif metric in e["vs_reference"]:
            cell = diff_cell(e["vs_reference"][metric])
        else:
            cell = interval_cell(e["metrics"][metric]) + " (no reference)"
        display.loc[e["variant"], e["model"]] = cell
        d = e["vs_reference"].get(metric, {})
        records.append(
            {
                "kind": g["kind"],
                "dataset": g["dataset"],
                "config": name,
                "model": e["model"],
                "variant": e["variant"],
                "metric": metric,
                "reference": e["reference"],
                "is_reference": e["is_reference"],
                "value": e["metrics"][metric]["estimate"],
                "value_low": e["metrics"][metric]["low"],
                "value_high": e["metrics"][metric]["high"],
                "delta": d.get("estimate"),
                "delta_low": d.get("low"),
                "delta_high": d.get("high"),
                "p_value": d.get("p_value"),
                "significant": d.get("significant"),
                "method": d.get("method") or e["metrics"][metric]["method"],
                "resamples": d.get("resamples", e["metrics"][metric]["resamples"]),
                "seed": d.get("seed", e["metrics"][metric]["seed"]),
                **{key: e["metrics"][key]["estimate"] for key, _ in RATE_COLUMNS[g["kind"]]},
            }
        )
    any_iv = next(iter(configs.values()))["metrics"][metric]
    diffs = [e["vs_reference"][metric] for e in configs.values() if metric in e["vs_reference"]]
    what = (
        "Aggregations recomputed from the stored calls (agg=k1: the first call of each order; "
        "agg=one_order: the item's own order only; agg=k1_one_order: one call)"
        if aggregations
        else "Ablation"
    )
    caption = (
        f"{what}, {_group_title(g)}: {metric} of the reference [{any_iv['confidence']:.0%} CI, "
        f"{_method(any_iv)}], and for other configurations the paired difference vs the same model's "
        f"reference [{_method(diffs[0]) if diffs else 'paired on item id'}]; {SIG_MARK} = interval excludes 0. "
        f"{_rates_note(g['kind'])}"
    )
    return Table(
        f"{'aggregations' if aggregations else 'ablation'}_{g['kind']}_{g['dataset']}",
        caption,
        display.reset_index(),
        pd.DataFrame(records),
    )


def has_aggregations(g: dict[str, Any]) -> bool:
    """Whether a computed group holds aggregations derived from the stored calls."""
    return any(is_aggregation(e["variant"]) for e in g["configs"].values())


def grid_cell(entry: dict[str, Any] | None, metric: str) -> str:
    """One cell of the study grid: `+0.050* (0.800)` (Δ vs the judge's reference, * significant,
    the absolute value in parentheses), `0.800 (reference)`, or `–` where the judge has no such run."""
    if entry is None:
        return MISSING
    value = _num(entry["metrics"][metric]["estimate"])
    if entry["is_reference"]:
        return f"{value} ({REFERENCE_LABEL})"
    d = entry["vs_reference"].get(metric)
    if d is None:
        return f"{value} (no reference)"
    return f"{_num(d.get('estimate'), signed=True)}{SIG_MARK if d.get('significant') else ''} ({value})"


def grid_table(g: dict[str, Any]) -> Table:
    """The study grid as a table (the heatmap's numbers): rows the controlled changes, the reference
    first, columns the judges, each cell the change from the judge's reference with the value beside it."""
    grid = study_grid(g)
    display = pd.DataFrame(
        [
            [grid.labels[v], *(grid_cell(grid.cells.get((v, j)), grid.metric) for j in grid.judges)]
            for v in grid.rows
        ],
        columns=["change", *grid.judges],
    )
    records = [
        {
            "kind": g["kind"],
            "dataset": g["dataset"],
            "change": grid.labels[v],
            "variant": v,
            "model": j,
            "metric": grid.metric,
            "value": e["metrics"][grid.metric]["estimate"],
            "is_reference": e["is_reference"],
            "delta": (grid.delta(v, j) or {}).get("estimate"),
            "p_value": (grid.delta(v, j) or {}).get("p_value"),
            "significant": (grid.delta(v, j) or {}).get("significant"),
        }
        for (v, j), e in grid.cells.items()
    ]
    caption = (
        f"Controlled changes, {_group_title(g)}: per judge, the paired difference of {grid.metric} from "
        f"the judge's reference ({grid.reference}), with the value in parentheses; {SIG_MARK} = the "
        "paired 95% interval excludes 0 (intervals and the invalid, error and tie rates: the ablation table)."
    )
    return Table(f"grid_{g['kind']}_{g['dataset']}", caption, display, pd.DataFrame(records))


def _method(iv: dict[str, Any]) -> str:
    """An interval's method as a caption says it (with resamples and seed for the bootstrap)."""
    if iv.get("resamples") is None:
        return str(iv.get("method"))
    return f"{iv.get('method')} bootstrap over items, B = {iv['resamples']}, seed {iv['seed']}"


def _rates_note(kind: str) -> str:
    ties = "tie rate, " if kind == "pairwise" else ""
    return (
        f"Per configuration also the {ties}invalid rate (answered outside the protocol) and error rate "
        "(every call failed)."
    )


def tie_table(g: dict[str, Any]) -> Table:
    """Tie rate of every configuration, overall and per setup, beside its invalid and error rates (pairwise groups)."""
    rows, records = [], []
    for name, e in g["configs"].items():
        base = {
            "kind": g["kind"],
            "dataset": g["dataset"],
            "config": name,
            "model": e["model"],
            "variant": e["variant"],
        }
        setups = e.get("tie_rate_by_setup", {})
        cells = {"configuration": e["variant"], "model": e["model"]}
        if len(setups) != 1:  # with one setup, 'all' would repeat it
            cells["all"] = interval_cell(e["metrics"]["tie_rate"])
        records.append(
            {**base, "metric": "tie_rate", "setup": "all", **_iv_cols(e["metrics"]["tie_rate"])}
        )
        for setup, iv in e.get("tie_rate_by_setup", {}).items():
            cells[setup] = interval_cell(iv)
            records.append({**base, "metric": "tie_rate", "setup": setup, **_iv_cols(iv)})
        for key in ("invalid_rate", "error_rate"):
            records.append({**base, "metric": key, "setup": "all", **_iv_cols(e["metrics"][key])})
        rows.append({**cells, **rate_cells(e, "pairwise", skip=("tie_rate",))})
    display = pd.DataFrame(rows).sort_values(["configuration", "model"]).fillna(MISSING)
    rates = ["invalid rate", "error rate"]
    display = display[
        [*(c for c in display.columns if c not in rates), *rates]
    ]  # rates last, after every setup
    caption = (
        f"Tie rates, {_group_title(g)}, by configuration, model and setup (one column per setup, and 'all' "
        "where there are several), "
        "beside the invalid rate (answered outside the protocol) and error rate (every call failed) [95% CI]."
    )
    return Table(
        f"tie_rates_{g['dataset']}", caption, display.reset_index(drop=True), pd.DataFrame(records)
    )


POINTWISE_COLUMNS: tuple[tuple[str, str], ...] = (
    ("precision_novel", "P novel"),
    ("recall_novel", "R novel"),
    ("f1_novel", "F1 novel"),
    ("precision_not_novel", "P not_novel"),
    ("recall_not_novel", "R not_novel"),
    ("f1_not_novel", "F1 not_novel"),
    ("macro_f1", "macro-F1"),
    ("invalid_rate", "invalid rate"),
    ("error_rate", "error rate"),
)


def f1_table(g: dict[str, Any]) -> Table:
    """Per-class precision/recall/F1 (invalid counts as a miss) and macro-F1 per configuration."""
    rows, records = [], []
    for name, e in sorted(g["configs"].items()):
        cells = {"configuration": e["variant"], "model": e["model"]}
        for key, label in POINTWISE_COLUMNS:
            cells[label] = interval_cell(e["metrics"][key])
            records.append(
                {
                    "kind": g["kind"],
                    "dataset": g["dataset"],
                    "config": name,
                    "model": e["model"],
                    "variant": e["variant"],
                    "metric": key,
                    **_iv_cols(e["metrics"][key]),
                }
            )
        cells["split items"] = e.get("split_items", 0)
        rows.append(cells)
    caption = (
        f"Pointwise per-class decomposition, {_group_title(g)} [95% CI]; an invalid verdict (answered outside "
        "the protocol) and an error (every call failed) are misses for the gold class; 'split items' were "
        "decided by the task's exact-split rule."
    )
    return Table(f"pointwise_f1_{g['dataset']}", caption, pd.DataFrame(rows), pd.DataFrame(records))


def cost_table(results: Sequence[dict[str, Any]]) -> Table:
    """Cost (USD, tokens) beside the headline metric of every configuration."""
    rows, records = [], []
    for g in results:
        metric = g["headline_metric"]
        for name, e in sorted(g["configs"].items()):
            iv = e["metrics"][metric]
            unknown = e["cost_unknown_items"]
            cost = "unknown" if unknown else f"{e['cost_usd']:.4f}"
            rates = {
                label: _num(e["metrics"][key]["estimate"]) for key, label in RATE_COLUMNS[g["kind"]]
            }
            rows.append(
                {
                    "kind": g["kind"],
                    "dataset": g["dataset"],
                    "configuration": e["variant"],
                    "model": e["model"],
                    "metric": metric,
                    "value [95% CI]": interval_cell(iv),
                    "tie rate": MISSING,
                    **rates,
                    "cost USD": cost,
                    "USD / item": "unknown" if unknown else f"{e['cost_per_item_usd']:.6f}",
                    "tokens": _num(e["total_tokens"], digits=0),
                }
            )
            records.append(
                {
                    "kind": g["kind"],
                    "dataset": g["dataset"],
                    "config": name,
                    "model": e["model"],
                    "variant": e["variant"],
                    "metric": metric,
                    **_iv_cols(iv),
                    **{key: e["metrics"][key]["estimate"] for key, _ in RATE_COLUMNS[g["kind"]]},
                    "cost_usd": e["cost_usd"],
                    "cost_per_item_usd": e["cost_per_item_usd"],
                    "cost_unknown_items": unknown,
                    "input_tokens": e["input_tokens"],
                    "output_tokens": e["output_tokens"],
                    "total_tokens": e["total_tokens"],
                }
            )
    caption = (
        "Cost and headline metric per configuration (pairwise: strict accuracy; pointwise: macro-F1) [95% CI]. "
        "Calls served from Inspect's cache cost 0; cost is unknown where the provider reported usage without a price "
        "(and for aggregations recomputed from a subset of calls). Tie, invalid (answered outside the protocol) "
        "and error (every call failed) rates are point estimates."
    )
    return Table("cost", caption, pd.DataFrame(rows), pd.DataFrame(records))


def _iv_cols(iv: dict[str, Any]) -> dict[str, Any]:
    return {
        "estimate": iv["estimate"],
        "low": iv["low"],
        "high": iv["high"],
        "method": iv["method"],
        "resamples": iv["resamples"],
        "seed": iv["seed"],
        "n": iv["n"],
        "undefined": iv.get("undefined", 0),
    }


AGREEMENT_COLUMNS: tuple[tuple[str, str], ...] = (
    ("pearson", "Pearson r"),
    ("spearman", "Spearman ρ"),
    ("cohen_kappa", "Cohen κ"),
    ("krippendorff_alpha_ordinal", "Krippendorff α (ordinal)"),
)


def agreement_table(g: dict[str, Any]) -> Table | None:
    """Judge-human agreement per configuration (None when no configuration has agreement numbers)."""
    rows, records = [], []
    for name, e in sorted(g["configs"].items()):
        a = e.get("agreement")
        if not a:
            continue
        cells = {
            "configuration": e["variant"],
            "model": e["model"],
            "units": a["units_with_human_scores"],
        }
        for key, label in AGREEMENT_COLUMNS:
            iv = a.get(key, {})
            cells[label] = interval_cell(iv) if "estimate" in iv else "undefined"
            if "estimate" in iv:
                records.append(
                    {
                        "kind": g["kind"],
                        "dataset": g["dataset"],
                        "config": name,
                        "model": e["model"],
                        "variant": e["variant"],
                        "statistic": key,
                        **_iv_cols(iv),
                    }
                )
            else:
                records.append(
                    {
                        "kind": g["kind"],
                        "dataset": g["dataset"],
                        "config": name,
                        "model": e["model"],
                        "variant": e["variant"],
                        "statistic": key,
                        "undefined_reason": iv.get("undefined"),
                    }
                )
        rows.append({**cells, **rate_cells(e, g["kind"])})
    if not rows:
        return None
    human = (
        "rating of a minus rating of b"
        if g["kind"] == "pairwise"
        else "the idea's mean review rating"
    )
    caption = (
        f"Agreement with humans, {_group_title(g)} [95% CI]: correlations of the judge's vote share with "
        f"{human}; κ and ordinal α of the verdict with the gold label (invalid and error verdicts left out). "
        f"{_rates_note(g['kind'])}"
    )
    return Table(
        f"agreement_{g['kind']}_{g['dataset']}", caption, pd.DataFrame(rows), pd.DataFrame(records)
    )


ORDINAL_COLUMNS: tuple[tuple[str, str], ...] = (
    ("spearman_rating", "Spearman ρ vs rating"),
    ("spearman_contribution", "Spearman ρ vs contribution"),
    ("alpha_between_calls", "Krippendorff α (ordinal) between calls"),
)


def ordinal_table(g: dict[str, Any]) -> Table | None:
    """Ordinal-score judges (rubric, two_stage): rank agreement with reviews and reliability across calls."""
    rows, records = [], []
    for name, e in sorted(g["configs"].items()):
        o = e.get("ordinal_scores")
        if not o:
            continue
        cells: dict[str, Any] = {
            "configuration": e["variant"],
            "model": e["model"],
            "units": o["units"],
        }
        for key, label in ORDINAL_COLUMNS:
            iv = o[key]
            cells[label] = (
                interval_cell(iv) if "estimate" in iv else f"undefined ({iv.get('undefined')})"
            )
            base = {
                "kind": g["kind"],
                "dataset": g["dataset"],
                "config": name,
                "model": e["model"],
                "variant": e["variant"],
                "statistic": key,
            }
            records.append(
                {**base, **_iv_cols(iv)}
                if "estimate" in iv
                else {**base, "undefined_reason": iv.get("undefined")}
            )
        rows.append({**cells, **rate_cells(e, g["kind"])})
    if not rows:
        return None
    unit = (
        "the pair (score of a minus score of b vs the same review difference)"
        if g["kind"] == "pairwise"
        else "the idea (mean call score vs mean review score)"
    )
    caption = (
        f"Ordinal novelty scores, {_group_title(g)} [95% CI]: Spearman ρ per unit, {unit}; Krippendorff α "
        f"(ordinal, 0-4) with the calls as coders and each judged idea as a unit. {_rates_note(g['kind'])}"
    )
    return Table(
        f"ordinal_{g['kind']}_{g['dataset']}", caption, pd.DataFrame(rows), pd.DataFrame(records)
    )


def flip_table(g: dict[str, Any]) -> Table:
    """Flip rate of every configuration against its judge's reference (share of items whose verdict
    differs, [95% CI]) as a grid: rows the changes, columns the judges (all pairs: report.json)."""
    rows = []
    records = []
    for aggregations in (False, True):
        grid = study_grid(g, aggregations)
        for v in grid.rows:
            if aggregations and v == grid.reference:
                continue
            cells = {"change": grid.labels[v]}
            for j in grid.judges:
                e = grid.cells.get((v, j))
                iv = (e or {}).get("flip_rate_vs_reference")
                cells[j] = (
                    MISSING
                    if e is None
                    else REFERENCE_LABEL
                    if e["is_reference"]
                    else interval_cell(iv)
                    if iv
                    else "n/a"
                )
                if iv:
                    records.append(
                        {
                            "kind": g["kind"],
                            "dataset": g["dataset"],
                            "config": e["model"] + " · " + v,  # type: ignore[index]
                            "model": j,
                            "variant": v,
                            "reference": e["reference"],  # type: ignore[index]
                            "metric": "flip_rate_vs_reference",
                            **_iv_cols(iv),
                        }
                    )
            rows.append(cells)
    caption = (
        f"Flip rates against the reference, {_group_title(g)}: per judge, the share of items whose "
        "verdict differs from the judge's reference run [95% CI]; the flip rate between every pair of "
        "configurations is in report.json (flip_rates)."
    )
    return Table(
        f"flip_rates_{g['kind']}_{g['dataset']}", caption, pd.DataFrame(rows), pd.DataFrame(records)
    )


def setup_columns(results: Sequence[dict[str, Any]]) -> list[tuple[str, str, str]]:
    """(dataset, setup, column label) of every data setup in the pairwise groups, the dataset named in
    the label only where one setup occurs in several datasets."""
    pairs = sorted(
        {
            (g["dataset"], s)
            for g in results
            if g["kind"] == "pairwise"
            for e in g["configs"].values()
            for s in e.get("tie_rate_by_setup", {})
        },
        key=lambda p: (list(SETUP_ORDER).index(p[1]) if p[1] in SETUP_ORDER else 99, p),
    )
    count = pd.Series([s for _, s in pairs]).value_counts() if pairs else pd.Series(dtype=int)
    return [(d, s, setup_name(s) if count[s] == 1 else f"{setup_name(s)} ({d})") for d, s in pairs]


SETUP_ORDER: tuple[str, ...] = ("human_only", "human_generated", "ai_only")


def judge_tie_table(results: Sequence[dict[str, Any]]) -> Table | None:
    """Tie rate of each judge's reference configuration per data setup (Human-Only beside
    Human+Generated and any other setup present), across the pairwise groups; None without any."""
    columns = setup_columns(results)
    if not columns:
        return None
    by_judge: dict[str, dict[str, str]] = {}
    records = []
    for g in results:
        if g["kind"] != "pairwise":
            continue
        for name, e in g["configs"].items():
            if not e["is_reference"]:
                continue
            for dataset, setup, label in columns:
                iv = e.get("tie_rate_by_setup", {}).get(setup)
                if dataset != g["dataset"] or iv is None:
                    continue
                by_judge.setdefault(e["model"], {})[label] = interval_cell(iv)
                records.append(
                    {
                        "dataset": dataset,
                        "setup": setup,
                        "config": name,
                        "model": e["model"],
                        "variant": e["variant"],
                        "metric": "tie_rate",
                        **_iv_cols(iv),
                    }
                )
    display = pd.DataFrame(
        [
            {"judge": j, **{label: cells.get(label, MISSING) for _, _, label in columns}}
            for j, cells in sorted(by_judge.items())
        ]
    )
    caption = (
        "Tie rates by judge and data setup: the share of pairs each judge's reference configuration "
        "called a tie, per setup of the pairs [95% CI]."
    )
    return Table("tie_rates_by_judge", caption, display, pd.DataFrame(records))


def all_tables(results: Sequence[dict[str, Any]]) -> list[Table]:
    """Every table of a report."""
    tables: list[Table] = []
    ties = judge_tie_table(results)
    if ties is not None:
        tables.append(ties)
    for g in results:
        tables.append(grid_table(g))
        tables.append(ablation_table(g))
        if has_aggregations(g):
            tables.append(ablation_table(g, aggregations=True))
        if g["kind"] == "pairwise":
            tables.append(tie_table(g))
        else:
            tables.append(f1_table(g))
        tables.append(flip_table(g))
        agreement = agreement_table(g)
        if agreement is not None:
            tables.append(agreement)
        ordinal = ordinal_table(g)
        if ordinal is not None:
            tables.append(ordinal)
    if results:
        tables.append(cost_table(results))
    return tables


def to_markdown(df: pd.DataFrame) -> str:
    """A GitHub-flavoured Markdown table (pipes in cells escaped)."""

    def esc(x: Any) -> str:
        return str(x).replace("|", "\\|").replace("\n", " ")

    header = "| " + " | ".join(esc(c) for c in df.columns) + " |"
    rule = "|" + "|".join("---" for _ in df.columns) + "|"
    body = ["| " + " | ".join(esc(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join([header, rule, *body]) + "\n"


def latex_text(text: Any) -> str:
    """Plain text as LaTeX text: its special characters escaped (`LATEX_SPECIAL`), Greek letters as math."""
    out = "".join(LATEX_SPECIAL.get(ch, ch) for ch in str(text))
    for char, command in LATEX_GREEK.items():  # pdflatex has no Greek letters in text mode
        out = out.replace(char, command)
    return out


def to_latex(table: Table, stem: str) -> str:
    """A table as a LaTeX `table` float: booktabs rules, every cell, header and the caption escaped
    (`latex_text`), scaled to the text width when wider (graphicx `\\resizebox`)."""
    df = table.display.rename(columns=latex_text).map(latex_text)
    tabular = df.to_latex(index=False, escape=False)
    return (
        LATEX_PREAMBLE
        + "\\begin{table}[htbp]\n\\centering\n"
        + f"\\caption{{{latex_text(table.caption)}}}\n\\label{{tab:{stem}}}\n"
        + "\\resizebox{\\ifdim\\width>\\linewidth\\linewidth\\else\\width\\fi}{!}{%\n"
        + tabular
        + "}\n\\end{table}\n"
    )


def safe_name(name: str) -> str:
    """A file-system-safe version of a table name."""
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)


def write_table(table: Table, out: Path) -> dict[str, str]:
    """Write `<name>.md`, `<name>.tex` (display) and `<name>.csv` (numbers) atomically; return the paths."""
    stem = safe_name(table.name)
    paths = {
        "markdown": out / f"{stem}.md",
        "latex": out / f"{stem}.tex",
        "csv": out / f"{stem}.csv",
    }
    atomic_write_text(paths["markdown"], f"**{table.caption}**\n\n" + to_markdown(table.display))
    atomic_write_text(paths["latex"], to_latex(table, stem))
    atomic_write_text(paths["csv"], table.data.to_csv(index=False))
    return {k: str(v) for k, v in paths.items()}
