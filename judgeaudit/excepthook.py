"""A `sys.excepthook` link that turns bad user input into one line under `inspect eval` / `eval-set`.

Inspect builds our tasks inside its task group, so a `TaskOptionError` (or any other of our
`UserError`s raised while a task is built: an invalid dataset file, a bad corpus) reaches the
interpreter wrapped in an ExceptionGroup and Inspect's own hook prints the whole traceback (~250
lines). Inspect's clean-message error type is private, so instead the registry module chains this
hook in front of whatever hook is installed: a user error (a provider's set-up error included: an
unknown `local/` model, a bad `-M grammar=`, an unknown planted preset) prints `error: <message>`
and exits with the error's code (2 for bad input); every other exception goes to the hook it
replaced, unchanged.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import TracebackType

from judgeaudit.errors import UserError, error_line

ExceptHook = Callable[[type[BaseException], BaseException, TracebackType | None], object]


def find_user_error(exc: BaseException | None) -> UserError | None:
    """The first UserError (task options included) in `exc`, its groups and its cause/context chains, or None."""
    pending: list[BaseException] = [exc] if exc is not None else []
    seen: set[int] = set()
    while pending:
        current = pending.pop(0)
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, UserError):
            return current
        if isinstance(current, BaseExceptionGroup):
            pending.extend(current.exceptions)
        pending.extend(e for e in (current.__cause__, current.__context__) if e is not None)
    return None


class UserErrorHook:
    """The chained hook: one line and the error's exit code for a user error, else the previous hook."""

    def __init__(self, previous: ExceptHook) -> None:
        self.previous = previous

    def __call__(
        self, exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None
    ) -> None:
        """Handle one uncaught exception."""
        user_error = find_user_error(exc)
        if user_error is None:
            self.previous(exc_type, exc, tb)
            return
        print(f"error: {error_line(user_error)}", file=sys.stderr, flush=True)
        sys.exit(int(user_error.exit_code))


_installed: list[UserErrorHook] = []


def install_user_error_hook() -> None:
    """Chain the hook in front of the current `sys.excepthook`, once per process (later calls do nothing)."""
    if not _installed:
        _installed.append(UserErrorHook(sys.excepthook))
        sys.excepthook = _installed[0]
