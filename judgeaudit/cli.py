"""The `judgeaudit` command line: one subcommand per pipeline stage."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from judgeaudit.errors import EXIT_MEANINGS, ExitCode, UserError, error_line
from judgeaudit.offline import apply_offline_defaults

# Each module exposes `register(subparsers)`, adding its subcommand(s) with their arguments and a
# `cli_args.Handler` stored as `func` in the parsed namespace. These modules import no more than
# argparse needs: a handler's module (Inspect, pandas, the miner) is imported only when its command
# runs, so `--help` and argument errors start in a fraction of a second
# (tests/cli/test_startup_imports.py, tests/benchmarks/bench_startup.py).
COMMAND_MODULES: tuple[str, ...] = (
    "judgeaudit.data.cli",
    "judgeaudit.mine.cli",
    "judgeaudit.report.cli",
    "judgeaudit.audit.cli",
    "judgeaudit.study.cli",
    "judgeaudit.audit.adjudicate_cli",
)


PARSER_PROG = "parser_prog"  # namespace field: the prog of the innermost (sub)command parsed


class OneLineParser(argparse.ArgumentParser):
    """argparse's parser whose usage errors are one line naming the command and the option (exit 2).

    Subcommand parsers are made by `add_subparsers`, which uses the parent's class: every command,
    `mine generate` and `mine plan` included, gets this behaviour without registering it.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.set_defaults(**{PARSER_PROG: self.prog})

    def error(self, message: str) -> NoReturn:
        """Print `error: PROG: MESSAGE` and exit 2 (argparse prints the usage block first)."""
        self.exit(2, f"error: {self.prog}: {' '.join(message.split())}\n")

    def parse_args(  # type: ignore[override]
        self,
        args: Sequence[str] | None = None,
        namespace: argparse.Namespace | None = None,
    ) -> argparse.Namespace:
        """Parse like argparse; an unknown argument is reported against the subcommand it followed."""
        parsed, extra = self.parse_known_args(args, namespace)
        if extra:
            prog = getattr(parsed, PARSER_PROG, self.prog)
            self.exit(2, f"error: {prog}: unrecognized arguments: {' '.join(extra)}\n")
        return parsed


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser with every registered subcommand."""
    parser = OneLineParser(
        prog="judgeaudit",
        description="Study and vet novelty judges: mine gold labels from OpenReview, "
        "validate and convert datasets, report statistics from Inspect logs, audit a judge.",
        epilog="exit status of every command: "
        + "; ".join(f"{code:d} {meaning}" for code, meaning in EXIT_MEANINGS.items())
        + ". An error is one line: error: judgeaudit <command>: <what is wrong>.",
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


def command_parsers(
    parser: argparse.ArgumentParser, prefix: str = ""
) -> dict[str, argparse.ArgumentParser]:
    """Every (sub)command's parser by its name, nested ones as 'mine generate'."""
    found: dict[str, argparse.ArgumentParser] = {}
    for action in parser._actions:  # argparse has no public accessor for its subparsers
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found[f"{prefix}{name}"] = sub
                found.update(command_parsers(sub, f"{prefix}{name} "))
    return found


# Errors about the user's input: our own (UserError and its subclasses, each carrying its exit code)
# and file errors (a path the user gave, exit 2). Each becomes one line
# `error: judgeaudit <command>: <what is wrong>`, naming the option, path or file at fault. A
# ValueError/KeyError that is not ours is a bug: one line saying so (exit 1). Anything else keeps
# its traceback. JUDGEAUDIT_TRACEBACK=1 re-raises all.
USER_ERRORS: tuple[type[BaseException], ...] = (UserError, OSError)
INTERNAL_ERRORS: tuple[type[BaseException], ...] = (ValueError, KeyError)
TRACEBACK_ENV = "JUDGEAUDIT_TRACEBACK"


def internal_error_line(exc: BaseException) -> str:
    """One line for an unexpected ValueError/KeyError: a bug, with how to see its traceback."""
    return (
        f"internal error (a bug, please report it): {type(exc).__name__}: {error_line(exc)}; "
        f"rerun with {TRACEBACK_ENV}=1 for the traceback"
    )


def command_error_line(command: str, text: str) -> str:
    """The one format of every command's error: `error: judgeaudit <command>: <text>`."""
    return f"error: {command}: {text}"


def exit_code_of(exc: BaseException) -> ExitCode:
    """The exit code of a user-facing error: its own for a `UserError`, bad input for a file error."""
    return exc.exit_code if isinstance(exc, UserError) else ExitCode.BAD_INPUT


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the process exit code (the table: `ExitCode`)."""
    apply_offline_defaults()
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return ExitCode.BAD_INPUT
    command = getattr(args, PARSER_PROG, f"judgeaudit {args.command}")
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print(f"{command}: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except USER_ERRORS as exc:
        if os.environ.get(TRACEBACK_ENV) == "1":
            raise
        print(command_error_line(command, error_line(exc)), file=sys.stderr)
        return exit_code_of(exc)
    except INTERNAL_ERRORS as exc:
        if os.environ.get(TRACEBACK_ENV) == "1":
            raise
        print(command_error_line(command, internal_error_line(exc)), file=sys.stderr)
        return ExitCode.INTERNAL


if __name__ == "__main__":
    sys.exit(main())
