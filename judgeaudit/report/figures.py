"""Report figures (matplotlib, Agg backend), each saved as PNG and SVG:
cost vs headline metric with the Pareto front, tie rates per judge and setup, and
per-configuration paired differences with their intervals."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from judgeaudit.files import atomic_open  # noqa: E402
from judgeaudit.report.tables import safe_name  # noqa: E402

LABEL = {"strict_accuracy": "strict accuracy", "macro_f1": "macro-F1"}


def _finite(x: Any) -> bool:
    return isinstance(x, int | float) and math.isfinite(x)


def _save(fig: Figure, out: Path, stem: str) -> dict[str, str]:
    """Save PNG and SVG atomically (temp file + rename) and close the figure."""
    paths = {}
    out.mkdir(parents=True, exist_ok=True)
    for ext in ("png", "svg"):
        target = out / f"{stem}.{ext}"
        with atomic_open(target, "wb") as fh:  # the usual mode (0666 minus umask), like every file
            fig.savefig(fh, format=ext, dpi=150, bbox_inches="tight")
        paths[ext] = str(target)
    plt.close(fig)
    return paths


def _colors(judges: Sequence[str]) -> dict[str, Any]:
    cmap = plt.get_cmap("tab10")
    return {j: cmap(i % 10) for i, j in enumerate(sorted(judges))}


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


def cost_figure(results: Sequence[dict[str, Any]], out: Path) -> dict[str, str]:
    """Cost per item vs headline metric (with CI bars), Pareto front drawn per group."""
    n = max(len(results), 1)
    fig, axes = plt.subplots(1, n, figsize=(6.5 * n, 4.8), squeeze=False)
    colors = _colors(sorted({e["model"] for g in results for e in g["configs"].values()}))
    for ax, g in zip(axes[0], results, strict=False):
        metric = g["headline_metric"]
        entries = [(name, e) for name, e in sorted(g["configs"].items())]
        known = [(name, e) for name, e in entries if _finite(e["cost_per_item_usd"])]
        pts = []
        for _name, e in known:
            iv = e["metrics"][metric]
            x, y = e["cost_per_item_usd"], iv["estimate"]
            yerr = (
                [[max(y - iv["low"], 0)], [max(iv["high"] - y, 0)]] if _finite(iv["low"]) else None
            )
            marker = (
                "D" if e["model"].startswith("panel(") else "o"
            )  # a panel (judgeaudit.report.panel) stands out
            ax.errorbar(
                [x],
                [y],
                yerr=yerr,
                fmt=marker,
                color=colors[e["model"]],
                capsize=3,
                label=e["model"],
            )
            ax.annotate(e["variant"], (x, y), textcoords="offset points", xytext=(5, 4), fontsize=7)
            pts.append((x, y))
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
        unknown = len(entries) - len(known)
        note = f" ({unknown} config(s) without cost not shown)" if unknown else ""
        if not pts:
            ax.text(
                0.5,
                0.5,
                "no configuration reported a cost",
                ha="center",
                va="center",
                transform=ax.transAxes,
            )
        ax.set_title(
            f"{g['kind']} on {g['dataset']}: cost vs {LABEL.get(metric, metric)}{note}", fontsize=10
        )
        ax.margins(x=0.25, y=0.08)
        ax.set_xlabel("cost per item (USD)")
        ax.set_ylabel(f"{LABEL.get(metric, metric)} (95% CI)")
        handles, labels = ax.get_legend_handles_labels()
        uniq = dict(zip(labels, handles, strict=True))
        if uniq:
            ax.legend(uniq.values(), uniq.keys(), fontsize=8, loc="best")
        ax.grid(alpha=0.3)
    fig.suptitle("Cost against quality per configuration")
    fig.tight_layout()
    return _save(fig, out, "cost_vs_quality")


def tie_figure(g: dict[str, Any], out: Path) -> dict[str, str]:
    """Horizontal bars: tie rate of every configuration, one bar per setup (plus all items), with CIs."""
    entries = sorted(g["configs"].items(), key=lambda kv: (kv[1]["model"], kv[1]["variant"]))
    setups = ["all", *sorted({s for _, e in entries for s in e.get("tie_rate_by_setup", {})})]
    height = 0.8 / len(setups)
    fig, ax = plt.subplots(figsize=(8, 1.0 + 0.45 * len(entries) * len(setups) ** 0.5 + 0.5))
    cmap = plt.get_cmap("Set2")
    for k, setup in enumerate(setups):
        ys, xs, lo, hi = [], [], [], []
        for i, (_, e) in enumerate(entries):
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
        ax.barh(ys, xs, height=height, xerr=[lo, hi], capsize=2, color=cmap(k), label=setup)
        for y, x, h in zip(
            ys, xs, hi, strict=True
        ):  # the value, so a zero rate is visible as "0.00"
            ax.text(x + h + 0.01, y, f"{x:.2f}", va="center", fontsize=6)
    ax.set_yticks(range(len(entries)))
    ax.set_yticklabels([f"{e['model']} · {e['variant']}" for _, e in entries], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1.1)
    ax.set_xlabel("tie rate (share of items; 95% CI)")
    ax.set_title(
        f"Tie rates per judge and setup: {g['kind']} on {g['dataset']} (n = {g['n_items']} items)"
    )
    ax.legend(title="setup", fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.grid(axis="x", alpha=0.3)
    return _save(fig, out, safe_name(f"tie_rates_{g['dataset']}"))


def delta_figure(g: dict[str, Any], out: Path) -> dict[str, str]:
    """Forest plot: paired difference of the headline metric vs the reference, per configuration."""
    metric = g["headline_metric"]
    entries = [
        (n, e)
        for n, e in sorted(g["configs"].items(), key=lambda kv: (kv[1]["model"], kv[1]["variant"]))
        if metric in e["vs_reference"]
    ]
    colors = _colors([e["model"] for _, e in entries])
    fig, ax = plt.subplots(figsize=(8, 1.4 + 0.4 * max(len(entries), 1)))
    for i, (_, e) in enumerate(entries):
        d = e["vs_reference"][metric]
        lo = max(d["estimate"] - d["low"], 0) if _finite(d["low"]) else 0
        hi = max(d["high"] - d["estimate"], 0) if _finite(d["high"]) else 0
        face = colors[e["model"]] if d["significant"] else "white"
        ax.errorbar(
            [d["estimate"]],
            [i],
            xerr=[[lo], [hi]],
            fmt="o",
            color=colors[e["model"]],
            markerfacecolor=face,
            capsize=3,
            label=e["model"],
        )
    ax.axvline(0, color="black", lw=0.8)
    ax.set_yticks(range(len(entries)))
    ax.set_yticklabels([f"{e['model']} · {e['variant']}" for _, e in entries], fontsize=8)
    ax.invert_yaxis()
    label = LABEL.get(metric, metric)
    ax.set_xlabel(f"Δ {label} vs reference (paired 95% CI; filled = significant)")
    refs = ", ".join(sorted(set(g["reference"]["by_model"].values())))
    ax.set_title(
        f"Differences vs reference: {g['kind']} on {g['dataset']}\nreference: {refs}", fontsize=10
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
    """Every figure of a report; returns name -> {png, svg} paths."""
    figs: dict[str, dict[str, str]] = {}
    if not results:
        return figs
    figs["cost_vs_quality"] = cost_figure(results, out)
    for g in results:
        if g["kind"] == "pairwise":
            figs[f"tie_rates_{g['dataset']}"] = tie_figure(g, out)
        figs[f"deltas_{g['kind']}_{g['dataset']}"] = delta_figure(g, out)
    return figs
