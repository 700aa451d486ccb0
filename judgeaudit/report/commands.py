"""`judgeaudit report LOGDIR`: tables, figures and report.json from Inspect logs (arguments: `report.cli`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from judgeaudit.cli_args import (
    check_bootstrap_args,
    input_dir,
    output_dir,
)
from judgeaudit.report.adjudication import (
    append_section,
    read_summary,
    render_markdown,
)
from judgeaudit.report.build import (
    build_report,
    error_log_line,
    partial_log_line,
    reaggregated_line,
)


def handle(args: argparse.Namespace) -> int:
    """Run the report and print what it read and wrote; bad input raises a `UserError` (exit 2)."""
    check_bootstrap_args(args)
    input_dir("LOGDIR", args.logdir)
    if args.out is not None:
        output_dir("--out", args.out)
    adjudication = read_summary(args.adjudication) if args.adjudication else None
    report = build_report(
        args.logdir,
        args.out,
        args.reference,
        args.resamples,
        args.seed,
        args.intersect,
        not args.no_aggregations,
        not args.no_figures,
    )
    if adjudication is not None:  # the expert's reading of the judge's errors, after the tables
        append_section(Path(report.files["summary"]), render_markdown(adjudication))
    inp = report.data["input"]
    print(
        f"read {inp['logs_read']} log(s), {inp['rows']} scored samples; skipped {len(inp['skipped_logs'])} log(s), "
        f"{len(inp['skipped_samples'])} sample(s)"
    )
    for s in inp["skipped_logs"]:
        print(f"  skipped {s['log']}: {s['reason']}")
    for e in inp["error_logs"]:
        print(f"  {error_log_line(e)}")
    for e in inp.get("partial_logs", []):
        print(f"  {partial_log_line(e)}")
    for note in inp.get("reaggregated", []):
        print(f"  {reaggregated_line(note)}")
    for g in report.groups:
        inter = g["intersection"]
        if inter.get("format_apart"):
            print(f"  {g['kind']}: {inter['format_apart']}")
        note = (
            f" (intersection: {inter['items_kept']} items kept, {len(inter['items_dropped'])} dropped)"
            if inter.get("intersection")
            else ""
        )
        print(
            f"{g['kind']} on {g['dataset']}: {len(g['configs'])} configurations, {g['n_items']} items{note}"
        )
    print(
        f"wrote {report.files['report_json']} and {len(report.files['tables'])} tables, {len(report.files['figures'])} figures"
    )
    return 0
