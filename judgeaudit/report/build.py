"""`build_report(logdir, ...)`: Inspect logs -> tidy frame -> metrics -> tables, figures, report.json."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from judgeaudit.files import atomic_write_text, locked_output_dir, relocate_paths, staged_outputs
from judgeaudit.report.aggregations import reconcile_stored, with_aggregations
from judgeaudit.report.compute import bootstrap_settings, compute_all, groups_of, jsonable
from judgeaudit.report.figures import all_figures
from judgeaudit.report.frame import LoadResult, ReportInputError, load_frame
from judgeaudit.report.panel import all_panel_tables, with_members
from judgeaudit.report.reference import check_reference
from judgeaudit.report.tables import all_tables, write_table
from judgeaudit.stats import DEFAULT_RESAMPLES, DEFAULT_SEED

REPORT_SCHEMA = "judgeaudit.report/1"


@dataclass
class Report:
    """Everything a report run produced: the frame, the computed groups and the files written."""

    frame: pd.DataFrame
    groups: list[dict[str, Any]]
    data: dict[str, Any]
    files: dict[str, Any]


def compute_report(
    loaded: LoadResult,
    reference: str | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    intersect: bool = False,
    aggregations: bool = True,
) -> tuple[pd.DataFrame, list[dict[str, Any]], dict[str, Any]]:
    """The frame with recomputed aggregations, the computed groups and the report.json content."""
    frame = loaded.frame
    if not frame.empty:
        frame, loaded.reaggregated = reconcile_stored(frame)
        if aggregations:
            frame = with_aggregations(frame)
        frame = with_members(frame)  # a panel's members as configurations of their own
        check_reference(frame, reference)
        groups_of(frame, intersect)  # fail early on mismatched item sets
    groups = compute_all(frame, reference, resamples, seed, intersect) if not frame.empty else []
    data = {
        "schema": REPORT_SCHEMA,
        "bootstrap": bootstrap_settings(resamples, seed),
        "input": loaded.summary(),
        "options": {"reference": reference, "intersect": intersect, "aggregations": aggregations},
        "groups": groups,
    }
    return frame, groups, data


def error_log_line(entry: dict[str, Any]) -> str:
    """One line on a log read with status error (`LoadResult.error_logs`)."""
    return (
        f"read {entry['log']} with status error ({entry['cause']}): its {entry['samples']} scored samples are "
        f"in the tables, {entry['error_items']} with verdict error (counted in the error rate)"
        + _named(entry.get("error_item_ids") or [])
        + "; `inspect eval-retry` on the log re-runs exactly those"
    )


def partial_log_line(entry: dict[str, Any]) -> str:
    """One line on a log missing samples of its dataset (`LoadResult.partial_logs`)."""
    cut, missing, unplaced = entry["interrupted"], entry["missing"], entry["unplaced"]
    placed = len(missing) - len(unplaced)
    where = f"; {placed} of them are error items of its configuration" if placed else ""
    if unplaced:
        where += f"; {len(unplaced)} are in no table (no other log names their item)"
    return (
        f"read {entry['log']} ({entry['cause']}): {entry['finished']} of {entry['expected']} "
        "samples finished"
        + (f", {len(cut)} cut off (error items)" + _named(cut) if cut else "")
        + f", {len(missing)} missing"
        + _named(missing)
        + where
        + "; `inspect eval-retry` on the log (or the same eval-set or audit command) runs them"
    )


def _named(ids: list[str], most: int = 10) -> str:
    """`: a, b, c` (at most `most` ids, then how many more), or nothing."""
    if not ids:
        return ""
    more = f" and {len(ids) - most} more" if len(ids) > most else ""
    return ": " + ", ".join(ids[:most]) + more


def reaggregated_line(note: dict[str, str]) -> str:
    """One line on a sample whose stored verdict is read otherwise (`LoadResult.reaggregated`)."""
    return (
        f"sample {note['sample_id']!r} (item {note['item_id']}) of {note['log']}: {note['reason']}"
    )


def summary_markdown(data: dict[str, Any], files: dict[str, Any], tables_md: list[str]) -> str:
    """One Markdown page: settings, input accounting, every table and links to the figures."""
    b = data["bootstrap"]
    inp = data["input"]
    lines = [
        "# judgeaudit report",
        "",
        f"Intervals ({b['confidence']:.0%}): Clopper-Pearson for shares of 0/1 outcomes, a continuity-corrected score "
        "interval for soft accuracy, Tango's continuity-corrected score interval for the paired differences of those "
        "(on item id, exact McNemar p-value); the percentile bootstrap over items for the rest (macro-F1, F1, "
        f"agreement; B = {b['resamples']}, seed {b['seed']}). Each interval's method is in `report.json`; their "
        "measured coverage is in docs/methods/intervals.md.",
        "",
        f"Input: {inp['logs_read']} log(s), {inp['rows']} scored samples; skipped {len(inp['skipped_logs'])} log(s) "
        f"and {len(inp['skipped_samples'])} sample(s).",
    ]
    for s in inp["skipped_logs"]:
        lines.append(f"- skipped `{s['log']}`: {s['reason']}")
    for e in inp["error_logs"]:
        lines.append(f"- {error_log_line(e)}")
    for e in inp.get("partial_logs", []):
        lines.append(f"- {partial_log_line(e)}")
    for s in inp["skipped_samples"]:
        lines.append(f"- skipped sample `{s['sample_id']}` of `{s['log']}`: {s['reason']}")
    for note in inp.get("reaggregated", []):
        lines.append(f"- {reaggregated_line(note)}")
    for g in data["groups"]:
        inter = g["intersection"]
        if inter.get("format_apart"):
            lines.append(f"- {g['kind']}: {inter['format_apart']}")
        if inter.get("intersection"):
            lines.append(
                f"- {g['kind']} on {g['dataset']}: compared on the intersection of item sets "
                f"({inter['items_kept']} kept, dropped: {', '.join(inter['items_dropped'])})"
            )
    lines.append("")
    for md in tables_md:
        lines += [md, ""]
    for name, paths in files.get("figures", {}).items():
        lines += [f"![{name}]({Path(paths['png']).name})", ""]
    return "\n".join(lines)


def build_report(
    logdir: str | Path,
    out: str | Path | None = None,
    reference: str | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    intersect: bool = False,
    aggregations: bool = True,
    figures: bool = True,
) -> Report:
    """Read the logs under `logdir`, compute every metric, write tables, figures and report.json to `out`.

    `out` is locked while it is written (`files.locked_output_dir`) and the outputs are moved in
    with report.json last (`files.staged_outputs`).
    """
    loaded = load_frame(logdir)
    if loaded.frame.empty:
        raise ReportInputError(
            f"no judgeaudit results under {str(logdir)!r} ({len(loaded.skipped_logs)} log(s) skipped: "
            + "; ".join(f"{s['log']}: {s['reason']}" for s in loaded.skipped_logs[:5])
            + ")"
        )
    frame, groups, data = compute_report(
        loaded, reference, resamples, seed, intersect, aggregations
    )
    out_dir = Path(out) if out is not None else Path(logdir) / "report"
    with locked_output_dir(out_dir), staged_outputs(out_dir, "report.json") as staging:
        files = write_outputs(frame, groups, data, staging, figures)
        files = relocate_paths(files, staging, out_dir)
        data["files"] = {k: v for k, v in files.items() if k != "report_json"}
        atomic_write_text(
            staging / "report.json",
            json.dumps(jsonable(data), indent=2, sort_keys=False, default=str) + "\n",
        )
    return Report(frame, groups, data, files)


def write_outputs(
    frame: pd.DataFrame,
    groups: list[dict[str, Any]],
    data: dict[str, Any],
    out_dir: Path,
    figures: bool = True,
) -> dict[str, Any]:
    """Write tables, figures, report.md and items.csv into `out_dir`; the paths written (report.json's to come)."""
    files: dict[str, Any] = {"tables": {}, "figures": {}}
    tables_md: list[str] = []
    for table in [*all_tables(groups), *all_panel_tables(groups)]:
        files["tables"][table.name] = write_table(table, out_dir)
        tables_md.append(Path(files["tables"][table.name]["markdown"]).read_text(encoding="utf-8"))
    if figures:
        files["figures"] = all_figures(groups, out_dir)
    atomic_write_text(out_dir / "report.md", summary_markdown(data, files, tables_md))
    files["summary"] = str(out_dir / "report.md")
    frame_path = out_dir / "items.csv"
    atomic_write_text(
        frame_path,
        frame.drop(columns=["calls", "human", "scores", "panel"], errors="ignore").to_csv(
            index=False
        ),
    )
    files["items"] = str(frame_path)
    files["report_json"] = str(out_dir / "report.json")
    return files
