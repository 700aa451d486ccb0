"""The `judgeaudit` command line: one subcommand per pipeline stage."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from judgeaudit.offline import apply_offline_defaults

# Each module exposes `register(subparsers)`, adding its subcommand(s) with a handler
# stored as `func` in the parsed namespace. Modules load lazily-light: heavy imports
# happen inside handlers so `judgeaudit --help` stays fast.
COMMAND_MODULES: tuple[str, ...] = (
    "judgeaudit.data.commands",
    "judgeaudit.mine.commands",
    "judgeaudit.report.commands",
    "judgeaudit.audit.commands",
)


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser with every registered subcommand."""
    parser = argparse.ArgumentParser(
        prog="judgeaudit",
        description="Study and vet novelty judges: mine gold labels from OpenReview, "
        "validate and convert datasets, report statistics from Inspect logs, audit a judge.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:
                continue
            raise
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the process exit code."""
    apply_offline_defaults()
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
