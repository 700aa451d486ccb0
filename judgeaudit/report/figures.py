"""Report figures (matplotlib, Agg backend), each saved as PNG and SVG: per group the study's
heatmap (changes x judges, `report.grid`), the tie rates per judge and setup, the paired differences
with their intervals; for the report, cost vs headline metric with the Pareto front.

Each judge keeps one colour in every figure (`judge_colors`, over all groups of the report). The
aggregations derived from stored calls (`agg=...`) have their own table and are not drawn among the
controlled changes."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import TwoSlopeNorm  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402

from judgeaudit.files import atomic_open  # noqa: E402
from judgeaudit.forked import fork_map, usable_cores  # noqa: E402
from judgeaudit.report.frame import SEP  # noqa: E402
from judgeaudit.report.grid import (  # noqa: E402
    change_label,
    is_aggregation,
    reference_variant,
    setup_name,
    study_grid,
)
from judgeaudit.report.tables import SIG_MARK, safe_name  # noqa: E402

LABEL = {"strict_accuracy": "strict accuracy", "macro_f1": "macro-F1"}
HEATMAP_CMAP = "RdBu"  # diverging: red below the reference, blue above, white at 0
DPI = 150  # of the PNG figures
LABEL_WIDTH = 44  # characters per line of a heatmap row label
FORK_MIN_CONFIGS = 200  # configurations from which the figures are drawn in worker processes
MIN_DELTA_SCALE = 0.05  # the colour scale spans at least +-0.05, so noise does not look saturated
Colors = dict[str, Any]


def _finite(x: Any) -> bool:
    return isinstance(x, int | float) and math.isfinite(x)


def _save(fig: Figure, out: Path, stem: str) -> dict[str, str]:
    """Save PNG and SVG atomically (temp file + rename) and close the figure."""
    paths = {}
    out.mkdir(parents=True, exist_ok=True)
    # the tight bounding box, measured once for both formats (each save would draw to measure it)
    fig.set_dpi(DPI)
    box = fig.get_tightbbox().padded(plt.rcParams["savefig.pad_inches"])
    for ext in ("png", "svg"):
        target = out / f"{stem}.{ext}"
        # the usual mode (0666 minus umask), like every file; SVG text stays text (editable, searchable)
        with atomic_open(target, "wb") as fh, plt.rc_context({"svg.fonttype": "none"}):
            fig.savefig(fh, format=ext, dpi=DPI, bbox_inches=box)
        paths[ext] = str(target)
    plt.close(fig)
    return paths


def judge_colors(results: Sequence[dict[str, Any]]) -> Colors:
    """One colour per judge over every group of a report (tab10, then tab20 beyond ten judges)."""
    judges = sorted({e["model"] for g in results for e in g["configs"].values()})
    cmap = plt.get_cmap("tab10" if len(judges) <= 10 else "tab20")
    return {j: cmap(i % cmap.N) for i, j in enumerate(judges)}


def pareto_front(points: Sequence[tuple[float, float]]) -> list[int]:
    """Indices of points not dominated by another (lower or equal cost and higher or equal metric, one strictly)."""
    front = []
    for i, (c, m) in enumerate(points):
        dominated = any(
            (c2 <= c and m2 >= m) and (c2 < c or m2 > m)
            for j, (c2, m2) in enumerate(points)
            if j != i
        )
        if not dominated:
            front.append(i)
    return sorted(front, key=lambda i: points[i][0])


def _usd(x: float, _pos: Any = None) -> str:
    """A cost axis tick: dollars with as many decimals as small costs need."""
    return f"${x:.2g}" if 0 < abs(x) < 0.01 else f"${x:.2f}"


def label_positions(points: Sequence[tuple[float, float]], min_gap: float) -> list[float]:
    """Label heights for points sorted by height: each at its point, pushed up to stay `min_gap`
    above the label below it (labels that would overlap are spread, in the points' order)."""
    order = sorted(range(len(points)), key=lambda i: points[i][1])
    heights = [0.0] * len(points)
    last = -math.inf
    for i in order:
        heights[i] = max(points[i][1], last + min_gap)
        last = heights[i]
    return heights


def cost_figure(results: Sequence[dict[str, Any]], out: Path, colors: Colors) -> dict[str, str]:
    """Cost per item vs headline metric (with CI bars) of the controlled changes, per group; the
    Pareto front drawn and labelled by change. When every configuration cost USD 0 the panel says so."""
    n = max(len(results), 1)
    fig, axes = plt.subplots(1, n, figsize=(6.5 * n, 4.8), squeeze=False)
    for ax, g in zip(axes[0], results, strict=False):
        metric = g["headline_metric"]
        ref = reference_variant(g)
        entries = [
            (name, e)
            for name, e in sorted(g["configs"].items())
            if not is_aggregation(e["variant"])
        ]
        known = [(name, e) for name, e in entries if _finite(e["cost_per_item_usd"])]
        title = f"{g['kind']} on {g['dataset']}: cost vs {LABEL.get(metric, metric)}"
        unknown = len(entries) - len(known)
        if unknown:
            title += f"\n({unknown} configuration(s) without a known cost not shown)"
        ax.set_title(title, fontsize=10)
        if known and all(e["cost_per_item_usd"] == 0 for _, e in known):
            ax.text(
                0.5,
                0.5,
                f"every configuration shown ({len(known)}) cost USD 0:\n"
                "its calls were served from Inspect's cache or are not billed",
                ha="center",
                va="center",
                transform=ax.transAxes,
            )
            ax.set_xticks([])
            ax.set_yticks([])
            continue
        pts, labels = [], []
        for _name, e in known:
            iv = e["metrics"][metric]
            x, y = e["cost_per_item_usd"], iv["estimate"]
            yerr = (
                [[max(y - iv["low"], 0)], [max(iv["high"] - y, 0)]] if _finite(iv["low"]) else None
            )
            marker = "D" if e["model"].startswith("panel(") else "o"  # a panel stands out
            ax.errorbar(
                [x],
                [y],
                yerr=yerr,
                fmt=marker,
                color=colors[e["model"]],
                capsize=3,
                label=e["model"],
            )
            pts.append((x, y))
            labels.append(f"{e['model']}: {change_label(e['variant'], ref)}")
        if pts:
            front = pareto_front(pts)
            ax.plot(
                [pts[i][0] for i in front],
                [pts[i][1] for i in front],
                "--s",
                color="grey",
                lw=1,
                markersize=11,
                markerfacecolor="none",
                label="Pareto front",
            )
            ys = [p[1] for p in pts]
            gap = max(max(ys) - min(ys), 0.05) * 0.06
            heights = label_positions([pts[i] for i in front], gap)
            for i, h in zip(front, heights, strict=True):  # only the front is labelled
                ax.annotate(
                    labels[i],
                    pts[i],
                    xytext=(pts[i][0], h),
                    textcoords="data",
                    fontsize=7,
                    ha="left",
                    va="bottom",
                    arrowprops={"arrowstyle": "-", "color": "grey", "lw": 0.5},
                )
        else:
            ax.text(
                0.5,
                0.5,
                "no configuration reported a cost",
                ha="center",
                va="center",
                transform=ax.transAxes,
            )
        ax.margins(x=0.25, y=0.1)
        ax.xaxis.set_major_formatter(FuncFormatter(_usd))
        ax.set_xlabel("cost per item (USD)")
        ax.set_ylabel(f"{LABEL.get(metric, metric)} (95% CI)")
        handles, names = ax.get_legend_handles_labels()
        uniq = dict(zip(names, handles, strict=True))
        if uniq:
            ax.legend(uniq.values(), uniq.keys(), fontsize=8, loc="best")
        ax.grid(alpha=0.3)
    fig.suptitle("Cost against quality per configuration (Pareto front labelled)")
    fig.tight_layout()
    return _save(fig, out, "cost_vs_quality")


def tie_figure(g: dict[str, Any], out: Path, colors: Colors) -> dict[str, str]:
    """Horizontal bars: the tie rate of each judge's reference configuration, one bar per data setup
    (and all items when there are several setups), in the judge's colour, with 95% CIs."""
    entries = sorted(
        ((e["model"], e) for e in g["configs"].values() if e["is_reference"]), key=lambda t: t[0]
    )
    found = sorted({s for _, e in entries for s in e.get("tie_rate_by_setup", {})})
    setups = [*found, "all"] if len(found) != 1 else found
    hatches = ["", "//", "..", "xx", "\\\\"]
    height = 0.8 / len(setups)
    fig, ax = plt.subplots(figsize=(8, 1.6 + 0.35 * len(entries) * len(setups)))
    for k, setup in enumerate(setups):
        ys, xs, lo, hi, cs = [], [], [], [], []
        for i, (judge, e) in enumerate(entries):
            iv = (
                e["metrics"]["tie_rate"]
                if setup == "all"
                else e.get("tie_rate_by_setup", {}).get(setup)
            )
            if iv is None:
                continue
            ys.append(i + (k - (len(setups) - 1) / 2) * height)
            xs.append(iv["estimate"])
            lo.append(max(iv["estimate"] - iv["low"], 0))
            hi.append(max(iv["high"] - iv["estimate"], 0))
            cs.append(colors[judge])
        ax.barh(
            ys,
            xs,
            height=height,
            xerr=[lo, hi],
            capsize=2,
            color=cs,
            hatch=hatches[k % len(hatches)],
            edgecolor="black",
            linewidth=0.4,
            label=setup_name(setup) if setup != "all" else "all items",
        )
        for y, x, h in zip(ys, xs, hi, strict=True):  # the value, so a zero rate shows as "0.00"
            ax.text(x + h + 0.01, y, f"{x:.2f}", va="center", fontsize=7)
    ax.set_yticks(range(len(entries)))
    ax.set_yticklabels([j for j, _ in entries], fontsize=9)
    ax.invert_yaxis()
    ax.set_xlim(0, 1.1)
    ax.set_xlabel("tie rate of the reference configuration (share of pairs; 95% CI)")
    ax.set_title(
        f"Tie rates per judge and setup: {g['kind']} on {g['dataset']} (n = {g['n_items']} items)",
        fontsize=10,
    )
    legend = ax.legend(title="setup", fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    for patch in legend.get_patches():  # setups differ by hatch; the colour is the judge's
        patch.set_facecolor("white")
    ax.grid(axis="x", alpha=0.3)
    return _save(fig, out, safe_name(f"tie_rates_{g['dataset']}"))


def wrap_label(label: str, width: int = LABEL_WIDTH) -> str:
    """A row label broken at its ` · ` separators into lines of about `width` characters."""
    lines: list[str] = []
    for part in label.split(SEP):
        if lines and len(lines[-1]) + len(SEP) + len(part) <= width:
            lines[-1] += SEP + part
        else:
            lines.append(part)
    return "\n".join(lines)


def heatmap_figure(g: dict[str, Any], out: Path) -> dict[str, str]:
    """The study's heatmap: rows the controlled changes (the reference first), columns the judges;
    each cell the paired difference of the headline metric from that judge's reference, the value in
    parentheses, `*` where the paired interval excludes 0; colour on a diverging scale centred at 0."""
    grid = study_grid(g)
    deltas = [
        [(grid.delta(v, j) or {}).get("estimate", math.nan) for j in grid.judges] for v in grid.rows
    ]
    finite = [abs(d) for row in deltas for d in row if _finite(d)]
    scale = max([MIN_DELTA_SCALE, *finite])
    norm = TwoSlopeNorm(vcenter=0.0, vmin=-scale, vmax=scale)
    cmap = plt.get_cmap(HEATMAP_CMAP).with_extremes(bad="#eeeeee")  # reference row, missing runs
    labels = [wrap_label(grid.labels[v]) for v in grid.rows]
    longest = max((len(line) for label in labels for line in label.splitlines()), default=0)
    width = 1.6 + 0.07 * longest + 1.25 * max(len(grid.judges), 1)  # room for the row labels
    # no layout engine: labels of any length stay outside the grid, and saving with a tight
    # bounding box (`_save`) takes them in
    fig, ax = plt.subplots(figsize=(width, 1.6 + 0.42 * max(len(grid.rows), 1)))
    image = ax.imshow(
        [[d if _finite(d) else math.nan for d in row] for row in deltas],
        cmap=cmap,
        norm=norm,
        aspect="auto",
    )
    for r, v in enumerate(grid.rows):
        for c, j in enumerate(grid.judges):
            e = grid.cells.get((v, j))
            if e is None:
                text, bold = "–", False
            else:
                value = e["metrics"][grid.metric]["estimate"]
                absolute = f"({value:.2f})" if _finite(value) else "(n/a)"
                d = grid.delta(v, j)
                if e["is_reference"] or d is None:
                    text, bold = absolute, e["is_reference"]
                else:
                    sig = bool(d.get("significant"))
                    est = d.get("estimate")
                    delta = f"{est:+.2f}" if _finite(est) else "n/a"
                    text, bold = f"{delta}{SIG_MARK if sig else ''} {absolute}", sig
            dark = _finite(deltas[r][c]) and abs(deltas[r][c]) > 0.6 * scale
            ax.text(
                c,
                r,
                text,
                ha="center",
                va="center",
                fontsize=8,
                fontweight="bold" if bold else "normal",
                color="white" if dark else "black",
            )
    ax.set_xticks(range(len(grid.judges)))
    ax.set_xticklabels(grid.judges, rotation=30, ha="right", fontsize=9)
    ax.set_yticks(range(len(grid.rows)))
    ax.set_yticklabels(labels, fontsize=9)
    ax.tick_params(length=0)
    label = LABEL.get(grid.metric, grid.metric)
    bar = fig.colorbar(image, ax=ax, fraction=0.04, pad=0.02)
    bar.set_label(f"Δ {label} vs the judge's reference")
    ax.set_title(
        f"{g['kind']} on {g['dataset']} (n = {g['n_items']} items): Δ {label} (value)\n"
        f"{SIG_MARK} and bold: paired 95% interval excludes 0; top row: the reference "
        f"({grid.reference or 'none'})",
        fontsize=9,
    )
    return _save(fig, out, safe_name(f"heatmap_{g['kind']}_{g['dataset']}"))


def reference_line(g: dict[str, Any]) -> str:
    """The forest plot's reference line: the one variant every judge's reference runs, else each
    reference on a line of its own (a title naming every judge's reference on one line would make
    the figure as wide as the list)."""
    refs = sorted(set(g["reference"]["by_model"].values()))
    variants = {e["variant"] for name, e in g["configs"].items() if name in refs}
    if len(refs) > 1 and len(variants) == 1:
        return f"reference: each judge's {variants.pop()}"
    return "reference: " + "\n".join(refs)


def delta_figure(g: dict[str, Any], out: Path, colors: Colors) -> dict[str, str]:
    """Forest plot: paired difference of the headline metric vs the reference, per configuration
    (the controlled changes; aggregations derived from stored calls are in their own table)."""
    metric = g["headline_metric"]
    entries = [
        (n, e)
        for n, e in sorted(g["configs"].items(), key=lambda kv: (kv[1]["model"], kv[1]["variant"]))
        if metric in e["vs_reference"] and not is_aggregation(e["variant"])
    ]
    fig, ax = plt.subplots(figsize=(8, 1.4 + 0.4 * max(len(entries), 1)))
    rows: dict[tuple[str, bool], list[tuple[int, float, float, float]]] = {}
    for i, (_, e) in enumerate(entries):  # one errorbar call per judge and fill: few artists
        d = e["vs_reference"][metric]
        lo = max(d["estimate"] - d["low"], 0) if _finite(d["low"]) else 0
        hi = max(d["high"] - d["estimate"], 0) if _finite(d["high"]) else 0
        rows.setdefault((e["model"], bool(d["significant"])), []).append((i, d["estimate"], lo, hi))
    for (model, significant), points in rows.items():
        ys, xs, los, his = zip(*points, strict=True)
        ax.errorbar(
            xs,
            ys,
            xerr=[los, his],
            fmt="o",
            color=colors[model],
            markerfacecolor=colors[model] if significant else "white",
            capsize=3,
            label=model,
        )
    ax.axvline(0, color="black", lw=0.8)
    ax.set_yticks(range(len(entries)))
    ax.set_yticklabels([f"{e['model']} · {e['variant']}" for _, e in entries], fontsize=8)
    ax.invert_yaxis()
    label = LABEL.get(metric, metric)
    ax.set_xlabel(f"Δ {label} vs reference (paired 95% CI; filled = significant)")
    ax.set_title(
        f"Differences vs reference: {g['kind']} on {g['dataset']}\n{reference_line(g)}",
        fontsize=10,
    )
    if not entries:
        ax.text(
            0.5,
            0.5,
            "no configuration to compare",
            ha="center",
            va="center",
            transform=ax.transAxes,
        )
    handles, labels = ax.get_legend_handles_labels()
    uniq = dict(zip(labels, handles, strict=True))
    if uniq:
        ax.legend(uniq.values(), uniq.keys(), fontsize=8, loc="best")
    ax.grid(axis="x", alpha=0.3)
    return _save(fig, out, safe_name(f"deltas_{g['kind']}_{g['dataset']}"))


def all_figures(results: Sequence[dict[str, Any]], out: Path) -> dict[str, dict[str, str]]:
    """Every figure of a report; returns name -> {png, svg} paths. A report of `FORK_MIN_CONFIGS`
    configurations or more draws them in forked processes, one per usable core."""
    figs: dict[str, dict[str, str]] = {}
    if not results:
        return figs
    colors = judge_colors(results)
    jobs: list[tuple[str, Callable[[], dict[str, str]]]] = [
        ("cost_vs_quality", partial(cost_figure, results, out, colors))
    ]
    for g in results:
        jobs.append((f"heatmap_{g['kind']}_{g['dataset']}", partial(heatmap_figure, g, out)))
        if g["kind"] == "pairwise":
            jobs.append((f"tie_rates_{g['dataset']}", partial(tie_figure, g, out, colors)))
        jobs.append((f"deltas_{g['kind']}_{g['dataset']}", partial(delta_figure, g, out, colors)))
    configs = sum(len(g["configs"]) for g in results)
    workers = usable_cores() if configs >= FORK_MIN_CONFIGS else 1
    for (name, _), paths in zip(jobs, fork_map(lambda job: job[1](), jobs, workers), strict=True):
        figs[name] = paths
    return figs
