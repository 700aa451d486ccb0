"""The `judgeaudit report` command line: its arguments and help; the handler (`report.commands`) loads when it runs."""

from __future__ import annotations

from typing import Any

from judgeaudit.cli_args import Handler, add_bootstrap_args


def register(subparsers: Any) -> None:
    """Add the `report` subcommand."""
    p = subparsers.add_parser(
        "report",
        help="statistics, tables and figures from Inspect logs of the judge tasks",
        description="Read every Inspect log under LOGDIR (any mix of tasks, judges, prompt variants, probes, "
        "datasets), compute per-configuration metrics with 95% intervals (exact Clopper-Pearson for "
        "rates such as accuracy, Tango's score interval for paired differences in accuracy against a "
        "reference, a seeded percentile bootstrap over items for macro-F1 and agreement), and write Markdown/CSV/LaTeX tables, PNG/SVG figures and report.json.",
    )
    p.add_argument("logdir", help="directory holding Inspect logs (searched recursively)")
    p.add_argument(
        "--reference",
        default=None,
        help="reference: a configuration (MODEL · VARIANT) or a variant as the report prints them "
        "(each model's own run of it), or task args as key=value[,key=value] matched with the "
        "task's defaults (e.g. prompt=reference); default: the variant run by most models",
    )
    p.add_argument("--out", default=None, help="output directory (default: LOGDIR/report)")
    add_bootstrap_args(p, "seed of the bootstrap intervals")
    p.add_argument(
        "--intersect",
        action="store_true",
        help="compare configurations on the items they all share (stated in the output) instead of failing",
    )
    p.add_argument(
        "--no-aggregations",
        action="store_true",
        help="do not add k=1 / one-order aggregations recomputed from the stored calls",
    )
    p.add_argument("--no-figures", action="store_true", help="write tables and report.json only")
    p.add_argument(
        "--adjudication",
        default=None,
        metavar="FILE",
        help="an adjudication.json (`judgeaudit adjudicate import`) shown as a section of report.md",
    )
    p.set_defaults(func=Handler("judgeaudit.report.commands", "handle"))
