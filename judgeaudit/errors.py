"""The one error type of the commands, its one printed line and the exit codes.

Every `judgeaudit` command ends with one of the exit codes below (the one table of them; the
user documentation is `docs/reference/exit-codes.md`). A command that cannot go on raises a
`UserError` (or a subclass) carrying its exit code; only `judgeaudit.cli.main` prints it, as one
line `error: judgeaudit <command>: <what is wrong>`, naming the option, path or file at fault.
"""

from __future__ import annotations

import re
from enum import IntEnum


class ExitCode(IntEnum):
    """The exit codes of every `judgeaudit` command (their meanings: `EXIT_MEANINGS`)."""

    OK = 0
    INTERNAL = 1
    BAD_INPUT = 2
    COULD_NOT_JUDGE = 3
    INTERRUPTED = 130


EXIT_MEANINGS: dict[ExitCode, str] = {
    ExitCode.OK: "success (for audit: a verdict, fit, use with care or unfit)",
    ExitCode.INTERNAL: "internal error: a bug, not your input (JUDGEAUDIT_TRACEBACK=1 shows where)",
    ExitCode.BAD_INPUT: "bad input: an option, path or file the command cannot use; nothing written",
    ExitCode.COULD_NOT_JUDGE: "could not judge: model calls failed or a run did not complete",
    ExitCode.INTERRUPTED: "interrupted (Ctrl-C)",
}
"""What each exit code means, as `judgeaudit --help` lists them."""

# Console markup some libraries put in their messages (`No [bold][blue]OPENAI_API_KEY[/blue][/bold]`).
_MARKUP = re.compile(
    r"\[/?(?:bold|italic|underline|dim|blue|red|green|yellow|cyan|magenta|white)\]"
)


class UserError(Exception):
    """A command that cannot go on because of its input; `str()` is the one line to print.

    `exit_code` is `ExitCode.BAD_INPUT` unless a subclass (or the `exit_code` argument) says
    otherwise, e.g. `ExitCode.COULD_NOT_JUDGE` when the model calls failed.
    """

    exit_code: ExitCode = ExitCode.BAD_INPUT

    def __init__(self, *args: object, exit_code: ExitCode | None = None) -> None:
        super().__init__(*args)
        if exit_code is not None:
            self.exit_code = exit_code


class ModelSetupError(UserError, ValueError):
    """A model that cannot be set up from its name and `-M` arguments (an unknown local model, a
    bad grammar, a missing key): one line in every command and under `inspect eval` too."""


def error_line(exc: BaseException) -> str:
    """One line for a user-facing error: the path and the OS reason for file errors, else the message."""
    if isinstance(exc, OSError) and exc.filename is not None:
        text = f"{exc.filename}: {exc.strerror or exc}"
    elif isinstance(exc, KeyError) and exc.args:
        text = str(exc.args[0])
    else:
        text = str(exc) or type(exc).__name__
    return " ".join(_MARKUP.sub("", text).split())


def as_user_error(exc: ValueError) -> UserError:
    """A ValueError raised on the user's input (by a parser or library) as a `UserError` (exit 2)."""
    return exc if isinstance(exc, UserError) else UserError(error_line(exc))
