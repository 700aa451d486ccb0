"""Failed model calls as one readable line: the last attempt behind a retry wrapper, the root
cause in an exception chain, and the error type our providers raise with a ready cause."""

from __future__ import annotations

import re
from collections.abc import Iterator

from tenacity import RetryError


class ProviderCallError(RuntimeError):
    """A model call that failed for good (retries used up): the message is the one-line,
    redacted cause (e.g. `connection refused at http://127.0.0.1:9/v1 (4 attempts in 7.1 s)`)."""


def last_attempt(exc: BaseException) -> BaseException:
    """The exception of the last attempt behind tenacity `RetryError` wrappers (else `exc` itself)."""
    while isinstance(exc, RetryError):
        inner = exc.last_attempt.exception() if exc.last_attempt.failed else None
        if inner is None:
            break
        exc = inner
    return exc


def exception_chain(exc: BaseException) -> Iterator[BaseException]:
    """`exc`, then its causes and contexts in turn (each exception once)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


# Terminal escape sequences (colours, cursor moves, screen clears), then any other control
# character and the bidirectional overrides that can make a line read otherwise than it is.
_ESCAPES = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def one_line(text: str) -> str:
    """`text` with terminal escapes and control characters removed and every run of whitespace
    (newlines included) collapsed to one space."""
    return " ".join(_CONTROLS.sub("", _ESCAPES.sub("", text)).split())


def failure_text(exc: BaseException) -> str:
    """One line naming a failed call's cause: a `ProviderCallError`'s message as it is, else
    `<Type>: <message>` of the last attempt (unredacted: redact before recording it)."""
    exc = last_attempt(exc)
    if isinstance(exc, ProviderCallError):
        return one_line(str(exc))
    message = one_line(str(exc))
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__
