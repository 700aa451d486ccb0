"""Checks of command-line values shared by the subcommands: each problem is one line naming the option."""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from judgeaudit.errors import UserError
from judgeaudit.stats.defaults import DEFAULT_RESAMPLES, DEFAULT_SEED


class UsageError(UserError, ValueError):
    """A command-line value the command cannot use; `str()` is the one line to print."""


@dataclass(frozen=True)
class Handler:
    """A subcommand's handler named by its module and function, imported only when the command runs.

    The argument parser of every command is built for each start, `--help` included; naming the
    handler instead of importing it keeps Inspect, pandas and the miner out of the commands that
    do not run them.
    """

    module: str
    function: str

    def load(self) -> Callable[[argparse.Namespace], int]:
        """The handler function, its module imported."""
        return cast(
            Callable[[argparse.Namespace], int],
            getattr(importlib.import_module(self.module), self.function),
        )

    def __call__(self, args: argparse.Namespace) -> int:
        """Run the handler on the parsed arguments; returns the exit code."""
        return self.load()(args)


def at_least(flag: str, value: int | None, least: int) -> None:
    """Refuse an integer option below `least` (None, the option's unset default, passes)."""
    if value is not None and value < least:
        raise UsageError(f"{flag} must be at least {least}, got {value}")


def output_dir(flag: str, path: str | Path) -> Path:
    """`path` as an output directory: refused when it, or a parent of it, is an existing non-directory."""
    out = Path(path)
    if out.exists() and not out.is_dir():
        raise UsageError(f"{flag} {out}: exists and is not a directory")
    blocking = next((p for p in out.parents if p.exists() and not p.is_dir()), None)
    if blocking is not None:
        raise UsageError(f"{flag} {out}: {blocking} is a file, not a directory")
    return out


def input_dir(flag: str, path: str | Path) -> Path:
    """`path` as an existing input directory."""
    given = Path(path)
    if not given.exists():
        raise UsageError(f"{flag} {given}: no such directory")
    if not given.is_dir():
        raise UsageError(f"{flag} {given}: not a directory")
    return given


def add_bootstrap_args(parser: argparse.ArgumentParser, seed_help: str) -> None:
    """The `--resamples` and `--seed` options of the commands that bootstrap intervals (report, audit)."""
    parser.add_argument(
        "--resamples",
        type=int,
        default=DEFAULT_RESAMPLES,
        help=f"bootstrap resamples B (default: {DEFAULT_RESAMPLES})",
    )
    parser.add_argument(
        "--seed", type=int, default=DEFAULT_SEED, help=f"{seed_help} (default: {DEFAULT_SEED})"
    )


def check_bootstrap_args(args: argparse.Namespace) -> None:
    """Refuse `--resamples` below 1 and a negative `--seed` (one line naming the option)."""
    at_least("--resamples", args.resamples, 1)
    at_least("--seed", args.seed, 0)


def key_values(pairs: list[str], flag: str) -> dict[str, str]:
    """`key=value` strings of a repeatable option as a dict; a clear error names the flag and the bad pair."""
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"{flag} expects key=value, got {pair!r}")
        out[key] = value
    return out


def task_options(pairs: list[str]) -> dict[str, Any]:
    """-T key=value pairs; values read as YAML scalars, as `inspect eval -T` does (5, true, text)."""
    import yaml

    out: dict[str, Any] = {}
    for key, value in key_values(pairs, "-T").items():
        try:
            out[key.replace("-", "_")] = yaml.safe_load(value)
        except yaml.YAMLError:
            out[key.replace("-", "_")] = value
    return out
