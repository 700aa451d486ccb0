"""Write the audit card: `card.md` (verdict first), `card.json`, and PNG figures."""

from __future__ import annotations

import json
import math
import shlex
from pathlib import Path
from typing import Any

from judgeaudit.audit.battery import (
    CHANCE,
    DEFAULT_JUDGE,
    PANEL,
    PROBES_BY_KIND,
    AuditResult,
    AuditSpec,
    judge_models,
)
from judgeaudit.audit.gates import HEADLINE, MARKS, POINTWISE_FIGURES, GateResult
from judgeaudit.audit.panel import members_section
from judgeaudit.audit.readings import Figure, Reading
from judgeaudit.files import atomic_open, atomic_write_text
from judgeaudit.stats.defaults import DEFAULT_CONFIDENCE

MARK = MARKS
CORRECTED_STATEMENT = (
    "Noise-floor-corrected flip rates are the flip rate minus the repeat runs' flip rate on the same "
    "items, with the interval of a difference of two samples (Mee's score interval): valid when an "
    "item that flips more between identical runs is not less likely to flip under the probe "
    "(non-negative within-item correlation, as for a judge whose noise does not depend on the "
    "presentation); docs/methods/intervals.md gives its coverage there and where that fails."
)


def _num(x: float | None, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "n/a"
    return f"{x:.{digits}f}"


def _ci(fig: Figure) -> str:
    v = fig.value
    return f"{_num(v.estimate)} [{_num(v.low)}, {_num(v.high)}]"


def _corrected(fig: Figure) -> str:
    c = fig.corrected
    if c is None:
        return ""
    return f"{_num(c.estimate)} [{_num(c.low)}, {_num(c.high)}]"


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def _reason(r: GateResult) -> str:
    """A verdict-block line: the outcome as stated (FAIL, WARN, inconclusive (n = ...; interval ...)) and the gate."""
    return f"{r.stated()} {r.describe()}"


def _option(value: Any) -> str:
    """A -T / -M value as typed on the command line (YAML scalars: true, 5, text)."""
    return value if isinstance(value, str) else json.dumps(value)


def judge_label(spec: AuditSpec) -> str:
    """`<model>` for the prompted judge, `panel of <members>` for a panel, `<judge> judge, model <model>`
    for any other kind."""
    if spec.judge == PANEL:
        return f"panel of {', '.join(judge_models(spec))}"
    return spec.model if spec.judge == DEFAULT_JUDGE else f"{spec.judge} judge, model {spec.model}"


def reproduce_command(result: AuditResult) -> str:
    """The `judgeaudit audit` command that regenerates this card (secret model args left out)."""
    spec = result.spec
    judge = result.to_dict()["judge"]
    parts = ["judgeaudit audit", f"--model {spec.model}"]
    if spec.judge != DEFAULT_JUDGE:
        parts.append(f"--judge {spec.judge}")
    for k, v in judge["judge_options"].items():
        if not (isinstance(v, str) and v.startswith("<")):
            parts.append(f"-T {shlex.quote(f'{k}={_option(v)}')}")  # a panel's list needs quotes
    for k, v in judge["model_args"].items():
        if not (isinstance(v, str) and v.startswith("<")):
            parts.append(f"-M {k}={v}")
    parts += [
        f"--prompt {spec.prompt}",
        f"--dataset {shlex.quote(spec.dataset)}",
        f"--kind {spec.kind}",
    ]
    parts += [f"--generated {shlex.quote(g)}" for g in spec.generated]
    if not spec.cache:
        parts.append("--no-cache")
    looks = result.looks
    if looks:
        parts += [
            f"--limit {looks['first']}",
            "--until-decided",
            f"--max-items {looks['max_items']}",
        ]
    elif spec.limit:
        parts.append(f"--limit {spec.limit}")
    if tuple(spec.probes) != PROBES_BY_KIND[spec.kind]:
        parts.append(f"--probes {','.join(spec.probes)}")
    if spec.seed != AuditSpec.seed:
        parts.append(f"--seed {spec.seed}")
    if spec.resamples != AuditSpec.resamples:
        parts.append(f"--resamples {spec.resamples}")
    if spec.gates_file:
        parts.append(f"--gates {spec.gates_file}")
    parts.append(f"--out {looks['out'] if looks else Path(result.log_dir).parent}")
    return " ".join(parts)


def render_markdown(result: AuditResult) -> str:
    """The card as Markdown: verdict and reasons, accuracy vs chance, probes, gates, cost."""
    spec = result.spec
    if spec.judge == DEFAULT_JUDGE:
        lines = [f"# Audit card: `{spec.model}` ({spec.kind}, prompt `{spec.prompt}`)", ""]
    elif spec.judge == PANEL:
        lines = [f"# Audit card: {judge_label(spec)} ({spec.kind}, prompt `{spec.prompt}`)", ""]
    else:
        lines = [f"# Audit card: `{spec.judge}` judge, model `{spec.model}` ({spec.kind})", ""]
    margs = result.to_dict()["judge"]["model_args"]
    topts = result.to_dict()["judge"]["judge_options"]
    lines.append(f"## Verdict: **{result.verdict.upper()}**")
    lines.append("")
    if result.failures is not None and result.failures.failed:
        lines.append(f"- {result.failures.statement()}")
        lines.append(f"- the command that retries them: `{reproduce_command(result)}`")
        lines.append(
            "- no verdict is given on failed calls; the gates below are shown for diagnosis only"
        )
    elif result.reasons:
        for r in result.reasons:
            lines.append(f"- {_reason(r)}")
    else:
        lines.append("- every gate that ran passed")
    not_run = [r.gate.name for r in result.gates if r.outcome == "not_run"]
    if not_run:
        lines.append(f"- gates not run: {', '.join(not_run)}")
    not_applicable = [r.gate.name for r in result.gates if r.outcome == "not_applicable"]
    if not_applicable:
        lines.append(f"- gates that do not apply to this judge: {', '.join(not_applicable)}")
    lines += [
        "",
        f"Judge: `{spec.judge}`"
        + (f" (prompt `{spec.prompt}`)" if spec.judge == DEFAULT_JUDGE else "")
        + "; task options: "
        + (", ".join(f"`{k}={_option(v)}`" for k, v in topts.items()) if topts else "none")
        + ".",
    ]
    if margs:
        lines += ["", "Model args: " + ", ".join(f"`{k}={v}`" for k, v in margs.items())]
    lines += [
        "",
        f"Items: {result.items['count']} {spec.kind} items of `{spec.dataset}`"
        + (f" (first {spec.limit}, gold classes in turn)" if spec.limit else "")
        + f", setups {', '.join(result.items['setups'])}.",
    ]
    judged = result.items.get("judged")
    if judged is not None and judged != result.items["count"]:
        lines.append(
            f"The judge scored {judged} of them; it fits its verdict rule on the others, which are never "
            "scored (the fit split is in every log's task metadata, `metric_rule`)."
        )
    lines.append("")

    head = result.headline
    level = confidence_label(spec.confidence)
    lines += ["## Accuracy", "", f"| figure | estimate [{level} CI] |", "|---|---|"]
    for fig in head.figures.values():
        lines.append(f"| {fig.label} | {_ci(fig)} |")
    lines += [
        "",
        f"Chance is {CHANCE}; {_chance_statement(result)} "
        f"{intervals_statement(spec.resamples, spec.seed, spec.confidence)}",
        "",
    ]

    lines += [
        "## Probes",
        "",
        f"| probe | figure | estimate [{level} CI] | noise-floor corrected | n items |",
        "|---|---|---|---|---|",
    ]
    for probe, reading in result.readings.items():
        if reading.status != "ok" and not reading.figures:
            status = "does not apply" if reading.status == "not_applicable" else "not run"
            lines.append(f"| {probe} | {status}: {_cell(reading.note)} | | | 0 |")
            continue
        for fig in reading.figures.values():
            lines.append(
                f"| {probe} | {_cell(fig.name + ': ' + fig.label)} | {_ci(fig)} | {_corrected(fig)} | {reading.n_items} |"
            )
        if reading.note:
            lines.append(f"| {probe} | note: {_cell(reading.note)} | | | |")
    lines += [
        "",
        "Shifts are paired differences on the same items (x - y); the self-preference gap is an unpaired "
        "(two-sample) difference, its groups holding different items. "
        + CORRECTED_STATEMENT
        + " Probes that cannot apply to this judge say why.",
        "",
    ]
    lines += surface_ratio_section(result)
    if any(r.gate.probe == "position" and r.outcome == "fail" for r in result.gates):
        lines += [
            "Caveat: this judge's verdicts follow the presentation order, so the other probes' shifts "
            "(measured in a fixed order) mostly show that order preference, not a response to the "
            "perturbation; a zero shift here is not evidence of robustness.",
            "",
        ]

    lines += [
        "## Gates",
        "",
        f"| gate | outcome | judged value [{level} CI] | thresholds | what it measures |",
        "|---|---|---|---|---|",
    ]
    for r in result.gates:
        note = f" ({r.note})" if r.note else ""
        lines.append(
            f"| {r.gate.name} | {_cell(r.stated())} | {_cell(r.judged())} | {_cell(r.gate.rule())} | "
            f"{_cell(r.gate.description + note)} |"
        )
    lines += [
        "",
        "A gate passes, warns or fails when its whole interval lies in that region, at any number of items "
        "(a point interval, a bootstrap on which every resample agreed, decides nothing); otherwise it is "
        "inconclusive. Verdict rule: any failed model "
        "call -> could not judge; else any FAIL -> unfit; else any WARN, inconclusive gate or gate not run -> "
        "use with care; else fit. Thresholds are the defaults in `judgeaudit/audit/gates.py`"
        + (f", overridden by `{spec.gates_file}`" if spec.gates_file else "")
        + ".",
        "",
    ]
    lines += looks_section(result)
    lines += more_items_section(result)
    lines += members_section(result)
    lines += cost_section(result.cost)
    if result.skipped_samples:
        lines += [f"Skipped samples (no score): {len(result.skipped_samples)}", ""]
    lines += [
        "## Figures",
        "",
        "![gates](gates.png)",
        "",
        "## Reproduce",
        "",
        f"`{reproduce_command(result)}`",
        "",
        f"Logs: `{result.log_dir}` (view with `inspect view --log-dir {result.log_dir}`); running the "
        "command again resumes the same eval-set and makes no new calls once it is complete.",
        "",
    ]
    return "\n".join(lines)


def confidence_label(confidence: float) -> str:
    """A confidence as the card prints it: 95%, 98.75%."""
    return f"{confidence * 100:.4g}%"


def intervals_statement(resamples: int, seed: int, confidence: float = DEFAULT_CONFIDENCE) -> str:
    """How the card's intervals were computed (each figure's method is in card.json)."""
    return (
        f"Intervals ({confidence_label(confidence)}): Clopper-Pearson for shares of 0/1 outcomes; continuity-corrected score intervals for "
        "per-item means on a few values (soft accuracy, the mean of two arms, the first-position rate, flips pooled "
        "over edits) and for paired differences (Tango's for 0/1 outcomes, with the exact McNemar p-value); Mee's "
        "score interval for the self-preference gap and for noise-corrected flip rates (see below); the percentile "
        f"bootstrap over items ({resamples} resamples, seed {seed}) for macro-F1 and the surface ratio. Each "
        "figure's method is in card.json; their measured coverage is in docs/methods/intervals.md."
    )


def _chance_statement(result: AuditResult) -> str:
    """Whether the headline interval excludes chance (`AuditResult.above_chance`), and why not when it does not."""
    value = result.headline.figures["accuracy"].value
    if result.above_chance():
        return "the interval excludes it."
    if not math.isfinite(value.estimate):
        return "there is no accuracy to compare with it (no valid verdict)."
    if value.low == value.high:
        return "the interval is a single point (every resample agreed), which shows nothing."
    return (
        "the interval lies below it."
        if value.high < CHANCE
        else "the interval does not exclude it."
    )


def looks_section(result: AuditResult) -> list[str]:
    """A sequential audit's looks: items, gates decided, cost at each, and why it stopped."""
    looks = result.looks
    if not looks:
        return []
    lines = [
        "## Looks",
        "",
        f"Planned looks at {', '.join(str(n) for n in looks['planned'])} items (at most "
        f"`--max-items {looks['max_items']}`); stopped after {len(looks['looks'])}: {looks['stopped']}. Every "
        f"interval on this card is a {confidence_label(looks['confidence'])} interval: {looks['spending']} "
        f"spending of the {confidence_label(1 - looks['family_confidence'])} error over the "
        f"{len(looks['planned'])} planned looks, so a gate fails a judge whose true figure is outside its fail "
        "region at most that often across all looks (judgeaudit/audit/sequential.py).",
        "",
        "| look | items | gates decided | gates open | verdict | judge calls (cache hits included) | USD |",
        "|---|---|---|---|---|---|---|",
    ]
    for k, look in enumerate(looks["looks"], 1):
        usd = f"{look['usd']:.4f}" if look["usd"] is not None else "unknown"
        lines.append(
            f"| {k} | {look['items']} | {len(look['decided'])}: {_cell(', '.join(look['decided']) or '-')} | "
            f"{_cell(', '.join(look['undecided']) or '-')} | {look['verdict']} | {look['judge_calls']} | {usd} |"
        )
    return lines + [
        "",
        "Each look is an audit of its own under `looks/` (logs and card); a later look's calls on "
        "the earlier looks' items are served from Inspect's cache.",
        "",
    ]


def more_items_section(result: AuditResult) -> list[str]:
    """For each inconclusive gate: how many items would let it decide at the observed rate(s), how, and at what cost."""
    rows = [(r, result.more_items(r)) for r in result.gates if r.more is not None]
    if not rows:
        return []
    per_item = result.usd_per_item()
    lines = [
        "## What more data would buy",
        "",
        "| gate | now (n; interval) | items to decide | would decide | cost at this run's cost per item | "
        "battery time at this run's time per item |",
        "|---|---|---|---|---|---|",
    ]
    for r, more in rows:
        assert more is not None
        now = f"n = {r.n}; [{_num(r.interval[0] if r.interval else None)}, {_num(r.interval[1] if r.interval else None)}]"
        items = str(more["items"]) if more["items"] is not None else f"none ({more['note']})"
        outcome = MARK[more["outcome"]] if more["outcome"] else "n/a"
        usd = (
            f"USD {more['usd']:.4f}"
            if more["usd"] is not None
            else "n/a"
            if more["items"] is None
            else "cost unknown (the provider reports no price)"
        )
        seconds = _seconds(more["seconds"]) if more["items"] is not None else "n/a"
        lines.append(
            f"| {r.gate.name} | {_cell(now)} | {_cell(items)} | {outcome} | {usd} | {seconds} |"
        )
    per = (
        f"USD {per_item:.6f} per item"
        if per_item is not None
        else "unknown (the provider reports no price)"
    )
    return lines + [
        "",
        "Items to decide: the smallest number of items at which an interval of the same method, with "
        "every observed rate kept, lies in one region of the gate (`judgeaudit.stats.projection`); the "
        "true rates may differ, so this is a plan, not a promise. Cost per item: "
        f"{per}, the whole battery's cost over the audited items; the time is the battery's logs' span "
        "(first task start to last task end) per item (calls served from the cache are fast, a busy "
        "machine is slow).",
        "",
    ]


def _seconds(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.1f} s"


def cost_section(cost: dict[str, Any]) -> list[str]:
    """The card's cost lines: calls, tokens, real wall time, USD ("unknown" without a price)."""
    if cost["usd"] is not None:
        usd = f"{cost['usd']:.4f}"
    else:
        unknown = cost.get("usd_unknown_samples")
        usd = (
            "unknown (no price for " + f"{unknown} of {cost.get('samples')} scored samples)"
            if unknown
            else "unknown (not reported by the provider)"
        )
    span = cost.get("logs_seconds")
    wall = (
        f"- battery wall time: {_seconds(cost.get('battery_seconds'))} (this run of the eval-set)"
    )
    if span is not None:
        wall += f"; the logs span {_seconds(span)} from the first task start to the last task end"
    return [
        "## Cost",
        "",
        f"- judge calls (cache hits included): {cost['judge_calls']}",
        f"- tokens: {cost['tokens']}",
        wall,
        f"- USD: {usd}",
        f"- {cost['note']}",
        "",
    ]


def surface_ratio_section(result: AuditResult) -> list[str]:
    """The card's surface-perturbation ratio section (score judges), or why it does not apply."""
    d = result.surface_ratio
    lines = ["## Surface-perturbation ratio", ""]
    if not d.get("applies") or "ratio" not in d:
        return lines + [f"Not shown: {d.get('note', 'not computed')}.", ""]
    r = d["ratio"]
    lines += [
        f"Ratio: **{_num(r['estimate'])}** [{_num(r['low'])}, {_num(r['high'])}] (95% CI, {r['method']}, "
        f"{r['resamples']} resamples, seed {r['seed']}; {r['undefined']} undefined resamples left out).",
        "",
        f"Median score shift under meaning-preserving edits {_num(d['median_shift'], 4)} over a typical "
        f"difference of {_num(d['typical_difference'], 4)} between two ideas of one area "
        f"({d['n_area_pairs']} pairs), on {d['n_ideas']} ideas: {d['ideas']}. Scorer `{d['judge']}` with "
        f"embedder `{d['embedder']}` on corpus `{d['corpus']}`. Edits applied: {d['edits_applied']}; "
        f"skipped (the edit does not apply to the idea, e.g. no acronym to rename): {d['edits_skipped']}.",
        "",
        "| edit | applied | skipped | median shift | ratio [95% CI] |",
        "|---|---|---|---|---|",
    ]
    for name, e in d["edits"].items():
        lines.append(
            f"| {name} | {int(e['n'])} | {int(e['skipped'])} | {_num(e['median_shift'], 4)} | "
            f"{_num(e['ratio'])} [{_num(e['low'])}, {_num(e['high'])}] |"
        )
    return lines + [
        "",
        "A score that reads meaning keeps this ratio small; near 1, formatting moves the score as "
        "much as a different idea does (gate `surface_ratio`).",
        "",
    ]


def _gate_points(result: AuditResult) -> list[tuple[str, float, float, float, GateResult]]:
    readings: dict[str, Reading] = {HEADLINE: result.headline, **result.readings}
    out = []
    for r in result.gates:
        if r.outcome in ("not_run", "not_applicable"):
            continue
        if r.gate.probe == "surface_ratio":
            v = result.surface_ratio["ratio"]
            out.append(
                (
                    f"{r.gate.name}\n(ratio)",
                    float(v["estimate"]),
                    float(v["low"]),
                    float(v["high"]),
                    r,
                )
            )
            continue
        name = (
            POINTWISE_FIGURES.get(r.gate.probe, r.gate.figure)
            if result.spec.kind == "pointwise"
            else r.gate.figure
        )
        fig = readings[r.gate.probe].figures[name]
        v = (
            fig.corrected
            if r.gate.statistic == "corrected" and fig.corrected is not None
            else fig.value
        )
        out.append((f"{r.gate.name}\n({fig.name})", v.estimate, v.low, v.high, r))
    return out


def plot_gates(result: AuditResult, path: Path) -> None:
    """One row per gate: the figure with its interval and the pass/fail thresholds."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    points = _gate_points(result)
    fig, ax = plt.subplots(figsize=(8, 0.6 * max(len(points), 1) + 1.5))
    colours = {
        "pass": "tab:green",
        "warn": "tab:orange",
        "fail": "tab:red",
        "inconclusive": "tab:grey",
    }
    for y, (_label, est, lo, hi, r) in enumerate(points):
        g = r.gate
        if not math.isfinite(est):  # e.g. an infinite surface ratio: mark it at the right edge
            ax.annotate(f"{est}", (1.0, y), color=colours[r.outcome], fontsize=8)
            continue
        lo, hi = (lo if math.isfinite(lo) else est), (hi if math.isfinite(hi) else est)
        ax.errorbar(
            [est],
            [y],
            xerr=[[max(est - lo, 0)], [max(hi - est, 0)]],
            fmt="o",
            color=colours[r.outcome],
            capsize=4,
        )
        centre = 0.5 if g.statistic == "distance_from_half" else 0.0
        signs = (-1, 1) if g.statistic in ("abs", "distance_from_half") else (1,)
        for s in signs:
            for thr, style in ((g.pass_at, ":"), (g.fail_at, "--")):
                ax.plot([centre + s * thr] * 2, [y - 0.35, y + 0.35], style, color="grey", lw=1)
    ax.set_yticks(range(len(points)), [p[0] for p in points], fontsize=8)
    ax.invert_yaxis()
    reach = max([1.05, *(abs(x) * 1.05 for p in points for x in p[1:4] if math.isfinite(x))])
    ax.set_xlim(-reach, reach)
    ax.axvline(0, color="black", lw=0.5)
    ax.set_xlabel(
        f"estimate with {confidence_label(result.spec.confidence)} interval "
        "(dotted: pass threshold, dashed: fail threshold)"
    )
    ax.set_title(f"{judge_label(result.spec)}: {result.verdict}")
    fig.tight_layout()
    with atomic_open(path, "wb") as fh:
        fig.savefig(fh, format="png", dpi=110)
    plt.close(fig)


def write_card(result: AuditResult, out: Path) -> dict[str, Path]:
    """Write card.md, card.json and gates.png under `out`; returns their paths."""
    out.mkdir(parents=True, exist_ok=True)
    paths = {"md": out / "card.md", "json": out / "card.json", "png": out / "gates.png"}
    data: dict[str, Any] = result.to_dict()
    if result.failures is not None and result.failures.failed:  # its items: the audit run again
        data["failed_calls"]["retry_command"] = reproduce_command(result)
    atomic_write_text(paths["json"], json.dumps(_finite(data), indent=2, allow_nan=False) + "\n")
    plot_gates(result, paths["png"])
    atomic_write_text(paths["md"], render_markdown(result))
    return paths


def _finite(obj: Any) -> Any:
    """NaN/inf (undefined figures) as JSON null, recursively."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_finite(v) for v in obj]
    return obj
