"""A `sys.excepthook` link that turns a refused task option into one line under `inspect eval` / `eval-set`.

Inspect builds our tasks inside its task group, so a `TaskOptionError` reaches the interpreter
wrapped in an ExceptionGroup and Inspect's own hook prints the whole traceback (~250 lines). Inspect's
clean-message error type is private, so instead the registry module chains this hook in front of
whatever hook is installed: a task option error prints `error: <message>` and exits 2; every other
exception goes to the hook it replaced, unchanged.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import TracebackType

from judgeaudit.judges.option_checks import TaskOptionError

EXIT_TASK_OPTION = 2
ExceptHook = Callable[[type[BaseException], BaseException, TracebackType | None], object]


def find_option_error(exc: BaseException | None) -> TaskOptionError | None:
    """The first TaskOptionError in `exc`, its exception groups and its cause/context chains, or None."""
    pending: list[BaseException] = [exc] if exc is not None else []
    seen: set[int] = set()
    while pending:
        current = pending.pop(0)
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, TaskOptionError):
            return current
        if isinstance(current, BaseExceptionGroup):
            pending.extend(current.exceptions)
        pending.extend(e for e in (current.__cause__, current.__context__) if e is not None)
    return None


class OptionErrorHook:
    """The chained hook: one line and exit 2 for a task option error, else the previous hook."""

    def __init__(self, previous: ExceptHook) -> None:
        self.previous = previous

    def __call__(self, exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        """Handle one uncaught exception."""
        option_error = find_option_error(exc)
        if option_error is None:
            self.previous(exc_type, exc, tb)
            return
        print(f"error: {' '.join(str(option_error).split())}", file=sys.stderr, flush=True)
        sys.exit(EXIT_TASK_OPTION)


_installed: list[OptionErrorHook] = []


def install_option_error_hook() -> None:
    """Chain the hook in front of the current `sys.excepthook`, once per process (later calls do nothing)."""
    if not _installed:
        _installed.append(OptionErrorHook(sys.excepthook))
        sys.excepthook = _installed[0]
