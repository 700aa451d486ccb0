"""The errors about the user's input and how each is printed: one `error: ...` line, exit 2."""

from __future__ import annotations

import re

EXIT_USER_ERROR = 2
# Exit code of `judgeaudit audit` when it could not judge (failed calls, or a battery that did not
# complete): apart from 0 (a verdict), 2 (bad input) and 1 (any other failure).
EXIT_COULD_NOT_JUDGE = 3
# Console markup some libraries put in their messages (`No [bold][blue]OPENAI_API_KEY[/blue][/bold]`).
_MARKUP = re.compile(
    r"\[/?(?:bold|italic|underline|dim|blue|red|green|yellow|cyan|magenta|white)\]"
)


class UserError(Exception):
    """A value, option or file given by the user that cannot be used; `str()` is the one line to print."""


def error_line(exc: BaseException) -> str:
    """One line for a user-facing error: the path and the OS reason for file errors, else the message."""
    if isinstance(exc, OSError) and exc.filename is not None:
        text = f"{exc.filename}: {exc.strerror or exc}"
    elif isinstance(exc, KeyError) and exc.args:
        text = str(exc.args[0])
    else:
        text = str(exc) or type(exc).__name__
    return " ".join(_MARKUP.sub("", text).split())
