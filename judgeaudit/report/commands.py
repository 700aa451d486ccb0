"""`judgeaudit report LOGDIR`: tables, figures and report.json from Inspect logs."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from judgeaudit.cli_args import (
    UsageError,
    add_bootstrap_args,
    check_bootstrap_args,
    input_dir,
    output_dir,
)
from judgeaudit.errors import UserError
from judgeaudit.report.build import build_report, error_log_line


def register(subparsers: Any) -> None:
    """Add the `report` subcommand."""
    p = subparsers.add_parser(
        "report",
        help="statistics, tables and figures from Inspect logs of the judge tasks",
        description="Read every Inspect log under LOGDIR (any mix of tasks, judges, prompt variants, probes, "
        "datasets), compute per-configuration metrics with percentile bootstrap intervals and paired "
        "differences against a reference, and write Markdown/CSV/LaTeX tables, PNG/SVG figures and report.json.",
    )
    p.add_argument("logdir", help="directory holding Inspect logs (searched recursively)")
    p.add_argument("--reference", default=None,
                   help="reference: a configuration (MODEL · VARIANT) or a variant as the report prints them "
                   "(each model's own run of it), or task args as key=value[,key=value] matched with the "
                   "task's defaults (e.g. prompt=reference); default: the variant run by most models")
    p.add_argument("--out", default=None, help="output directory (default: LOGDIR/report)")
    add_bootstrap_args(p, "bootstrap seed")
    p.add_argument("--intersect", action="store_true",
                   help="compare configurations on the items they all share (stated in the output) instead of failing")
    p.add_argument("--no-aggregations", action="store_true",
                   help="do not add k=1 / one-order aggregations recomputed from the stored calls")
    p.add_argument("--no-figures", action="store_true", help="write tables and report.json only")
    p.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    """Run the report; errors about the input are printed, not raised."""
    try:
        check_bootstrap_args(args)
        input_dir("LOGDIR", args.logdir)
        if args.out is not None:
            output_dir("--out", args.out)
    except UsageError as exc:
        print(f"judgeaudit report: {exc}", file=sys.stderr)
        return 2
    try:
        report = build_report(args.logdir, args.out, args.reference, args.resamples, args.seed,
                              args.intersect, not args.no_aggregations, not args.no_figures)
    except (UserError, FileNotFoundError) as exc:
        print(f"judgeaudit report: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 1
    inp = report.data["input"]
    print(f"read {inp['logs_read']} log(s), {inp['rows']} scored samples; skipped {len(inp['skipped_logs'])} log(s), "
          f"{len(inp['skipped_samples'])} sample(s)")
    for s in inp["skipped_logs"]:
        print(f"  skipped {s['log']}: {s['reason']}")
    for e in inp["error_logs"]:
        print(f"  {error_log_line(e)}")
    for g in report.groups:
        inter = g["intersection"]
        note = f" (intersection: {inter['items_kept']} items kept, {len(inter['items_dropped'])} dropped)" if inter.get("intersection") else ""
        print(f"{g['kind']} on {g['dataset']}: {len(g['configs'])} configurations, {g['n_items']} items{note}")
    print(f"wrote {report.files['report_json']} and {len(report.files['tables'])} tables, {len(report.files['figures'])} figures")
    return 0
