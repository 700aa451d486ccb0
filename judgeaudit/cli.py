"""The `judgeaudit` command line: one subcommand per pipeline stage."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

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


class OneLineParser(argparse.ArgumentParser):
    """argparse's parser whose usage errors are one line naming the command and the option (exit 2)."""

    def error(self, message: str) -> NoReturn:
        """Print `error: PROG: MESSAGE` and exit 2 (argparse prints the usage block first)."""
        self.exit(2, f"error: {self.prog}: {' '.join(message.split())}\n")


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser with every registered subcommand."""
    parser = OneLineParser(
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


# Errors about the user's input that commands may raise: each becomes one `error: ...` line (exit 2).
# Other exceptions are bugs and keep their traceback. JUDGEAUDIT_TRACEBACK=1 re-raises these too.
USER_ERRORS: tuple[type[BaseException], ...] = (OSError, ValueError, KeyError)
EXIT_ERROR = 2
EXIT_INTERRUPTED = 130


def error_line(exc: BaseException) -> str:
    """One line for a user-facing error: the path and the OS reason for file errors, else the message."""
    if isinstance(exc, OSError) and exc.filename is not None:
        text = f"{exc.filename}: {exc.strerror or exc}"
    elif isinstance(exc, KeyError) and exc.args:
        text = str(exc.args[0])
    else:
        text = str(exc) or type(exc).__name__
    return " ".join(text.split())


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the process exit code."""
    apply_offline_defaults()
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print(f"judgeaudit {args.command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except USER_ERRORS as exc:
        if os.environ.get("JUDGEAUDIT_TRACEBACK") == "1":
            raise
        print(f"error: judgeaudit {args.command}: {error_line(exc)}", file=sys.stderr)
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
