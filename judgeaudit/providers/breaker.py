"""Fail fast on a dead endpoint: a small per-process circuit breaker for connection-level failures.

A call whose retries are used up on a *connection-level* failure (connection refused, host name
not resolved, network or host unreachable: nothing answered) marks its endpoint down with that
call's one-line cause. For `OPEN_SECONDS` after that, every later call to the same endpoint in
this process fails at once with the same cause and a note that it was not tried, instead of
spending its own retries and backoff (about 10 s per call with the default `-M max_retries=3`);
a call already retrying stops after its next failed attempt. Rate limits, 5xx answers and
timeouts never trip it: a server answered, or may only be slow. When the window has passed the
next call is tried again (and marks the endpoint down again if it still fails); a successful
call clears the mark. `-M fail_fast=false` turns the breaker off for a model (every call then
retries on its own).
"""

from __future__ import annotations

import errno
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tenacity.stop import stop_base

from judgeaudit.providers.failures import exception_chain

OPEN_SECONDS = 300.0
# OS errors that mean nothing could be reached at all.
_UNREACHABLE = frozenset(
    {errno.ECONNREFUSED, errno.ENETUNREACH, errno.EHOSTUNREACH, errno.EADDRNOTAVAIL}
)
# Connect failures of the HTTP clients litellm uses (httpx, aiohttp), by class name: a connect
# *timeout* is a different class in both (httpx.ConnectTimeout, aiohttp ServerTimeoutError).
_CONNECT_ERRORS = frozenset({"ConnectError", "ClientConnectorError", "ClientConnectorDNSError"})


def connection_failure(exc: BaseException) -> bool:
    """Whether a failed call never reached a server: refused, DNS or unreachable somewhere in its chain."""
    for link in exception_chain(exc):
        if isinstance(link, ConnectionRefusedError | socket.gaierror):
            return True
        if isinstance(link, OSError) and link.errno in _UNREACHABLE:
            return True
        if type(link).__name__ in _CONNECT_ERRORS:
            return True
    return False


@dataclass(frozen=True)
class Down:
    """Why an endpoint is marked down, and since when (monotonic seconds)."""

    cause: str
    attempts: int
    since: float

    def message(self) -> str:
        """The one-line cause of a call that was not tried."""
        return (
            f"{self.cause} (not tried: an earlier call to this endpoint gave up after {self.attempts} "
            f"attempt{'s' if self.attempts != 1 else ''}; -M fail_fast=false tries every call)"
        )


class Breaker:
    """Endpoints marked down in this process (thread-safe; one instance, `BREAKER`)."""

    def __init__(
        self, open_seconds: float = OPEN_SECONDS, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._open_seconds = open_seconds
        self._clock = clock
        self._down: dict[str, Down] = {}
        self._lock = threading.Lock()

    def down(self, endpoint: str) -> Down | None:
        """The mark on `endpoint` while its window lasts, else None."""
        with self._lock:
            mark = self._down.get(endpoint)
            if mark is not None and self._clock() - mark.since >= self._open_seconds:
                del self._down[endpoint]
                return None
            return mark

    def trip(self, endpoint: str, cause: str, attempts: int) -> None:
        """Mark `endpoint` down with the one-line `cause` of a call that gave up after `attempts`."""
        with self._lock:
            self._down[endpoint] = Down(cause, attempts, self._clock())

    def clear(self, endpoint: str) -> None:
        """A call to `endpoint` succeeded: it is not down."""
        with self._lock:
            self._down.pop(endpoint, None)

    def reset(self) -> None:
        """Forget every mark."""
        with self._lock:
            self._down.clear()

    def stop_when_down(self, endpoint: str) -> StopWhenDown:
        """A tenacity stop condition: stop retrying once `endpoint` is marked down (by another call)."""
        return StopWhenDown(self, endpoint)


class StopWhenDown(stop_base):
    """Tenacity stop: true once the endpoint is marked down (another call found it dead meanwhile)."""

    def __init__(self, breaker: Breaker, endpoint: str) -> None:
        self.breaker, self.endpoint = breaker, endpoint

    def __call__(self, retry_state: Any) -> bool:
        """Whether to stop retrying now."""
        return self.breaker.down(self.endpoint) is not None


BREAKER = Breaker()


def fail_fast_arg(value: Any) -> bool:
    """The `-M fail_fast=` model argument (true/false, yes/no, 1/0); a clear error otherwise."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "yes", "1", "on"):
        return True
    if text in ("false", "no", "0", "off"):
        return False
    raise ValueError(f"-M fail_fast must be true or false, got {value!r}")
