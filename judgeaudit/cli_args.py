"""Checks of command-line values shared by the subcommands: each problem is one line naming the option."""

from __future__ import annotations

from pathlib import Path

from judgeaudit.errors import UserError


class UsageError(UserError, ValueError):
    """A command-line value the command cannot use; `str()` is the one line to print."""


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
