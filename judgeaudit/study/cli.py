"""The `judgeaudit study` command line: its arguments and help; the handlers (`study.commands`) load
when they run."""

from __future__ import annotations

import argparse
from typing import Any

from judgeaudit.cli_args import Handler
from judgeaudit.study import DEFAULT_OUTPUT_TOKENS


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--dataset",
        action="append",
        default=[],
        metavar="SET",
        help="a set to run the study on: Human-Only, or a Human+Generated set (one per ideation "
        "backbone); a bundled name or a directory; repeatable (default: every bundled set)",
    )
    p.add_argument(
        "-T",
        dest="task_options",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="task option for the cells that take it, e.g. -T both_orders=true (pairwise cells), "
        "-T k=5 (default k=3); repeatable",
    )
    p.add_argument("--limit", type=int, default=None, help="judge only the first N items per cell")


def _estimate_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--model", required=True, help="comma-separated Inspect models, e.g. openai/gpt-4o-mini,..."
    )
    p.add_argument(
        "--batch",
        action="store_true",
        help="price at the batch price (litellm's batch prices, else half the standard price)",
    )
    p.add_argument(
        "--output-tokens",
        type=int,
        default=DEFAULT_OUTPUT_TOKENS,
        help=f"output tokens assumed per call, reasoning included (default {DEFAULT_OUTPUT_TOKENS})",
    )


def register(subparsers: Any) -> None:
    """Add the `study` subcommand and its `run`, `estimate` and `tasks` subcommands."""
    p = subparsers.add_parser(
        "study",
        help="the reference study's protocol in one command: run it, estimate its cost, list its tasks",
        description="The reference configuration (k = 3, high reasoning effort) and its controlled "
        "changes (P1-P5, plans, retrieval), pairwise and pointwise, on Human-Only and every "
        "Human+Generated set, as one resumable Inspect eval set.",
    )
    sub = p.add_subparsers(dest="study_command", metavar="COMMAND", required=True)

    run = sub.add_parser(
        "run",
        help="print the cost estimate per judge, then run (or resume) the study as one eval set",
        description="Print the estimated cost per judge, then run every cell of the study on the "
        "given sets as one Inspect eval set; running it again resumes what did not finish.",
    )
    _estimate_args(run)
    _common(run)
    run.add_argument("--log-dir", required=True, help="the eval set's log directory (resumable)")
    run.add_argument(
        "--batch-size",
        type=int,
        default=None,
        help="with --batch: requests per batch (Inspect's default otherwise)",
    )
    run.add_argument("--max-connections", type=int, default=None, help="concurrent model calls")
    run.add_argument(
        "--display", default="plain", help="Inspect display: plain, rich, none (default: plain)"
    )
    run.set_defaults(func=Handler("judgeaudit.study.commands", "handle_run"))

    est = sub.add_parser(
        "estimate",
        help="the cost per judge of a study run, before it runs",
        description="The calls, tokens and USD a study run would cost per judge: prompts rendered "
        "and counted, priced with litellm's price map (the batch price with --batch).",
    )
    _estimate_args(est)
    _common(est)
    est.add_argument(
        "--cost-config",
        default=None,
        metavar="FILE",
        help="also write the prices as an Inspect --model-cost-config file (YAML)",
    )
    est.add_argument("--json", action="store_true", help="print the estimate as JSON")
    est.set_defaults(func=Handler("judgeaudit.study.commands", "handle_estimate"))

    tasks = sub.add_parser(
        "tasks",
        help="the registered study tasks (judgeaudit/study_*), for `inspect eval-set $(...)`",
        description="Print the registered task names of the study's cells that apply to a set, "
        "one per line, for `inspect eval-set $(judgeaudit study tasks --dataset SET) ...`.",
    )
    tasks.add_argument(
        "--dataset",
        default=None,
        metavar="SET",
        help="only the cells that apply to this set (no plan cells for a set without plan files)",
    )
    tasks.set_defaults(func=Handler("judgeaudit.study.commands", "handle_tasks"))
