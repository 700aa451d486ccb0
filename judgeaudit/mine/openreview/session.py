"""The openreview-py client and the one retry layer its requests go through.

Credentials: optional ``OPENREVIEW_USERNAME`` / ``OPENREVIEW_PASSWORD`` from the environment
only, passed to the client and never logged; error messages are scrubbed of both values.

Retries: openreview-py mounts a urllib3 ``Retry`` on its session (total=8, connect=1,
backoff_factor=1 up to 120 s with jitter, 429/500/502/503/504 retried, Retry-After respected,
each retry printed to stdout with the response body) and sets no request timeout, so a stalled
server hangs it forever and a tenacity layer on top would multiply the attempts (up to 8 x N).
:class:`Session` therefore re-mounts the client's session for ``http(s)://`` with an adapter that
does no retries and applies ``RetryPolicy.timeout``; tenacity is the single retry layer.
Transient failures (HTTP 408/429/5xx, timeouts, connection errors) are retried with exponential
backoff plus jitter, waiting at least the server's Retry-After (capped at ``max_retry_after``);
any other HTTP error stops at once with a ``FetchError`` naming venue, request, URL and status.
The login that openreview-py performs inside its constructor still goes through its own adapter
(POST is not status-retried there; one connection retry), and is wrapped in the same policy.
"""

from __future__ import annotations

import email.utils
import logging
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

import requests
from requests.adapters import HTTPAdapter
from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception_type,
    stop_after_attempt,
    wait_exponential,
    wait_random,
)

log = logging.getLogger(__name__)

DEFAULT_BASEURL = "https://api2.openreview.net"
V1_BASEURL = "https://api.openreview.net"  # API v1 (venues up to ICLR 2023)
TRANSIENT_STATUS = frozenset({408, 429, 500, 502, 503, 504})
ENV_USERNAME = "OPENREVIEW_USERNAME"
ENV_PASSWORD = "OPENREVIEW_PASSWORD"

T = TypeVar("T")


class FetchError(RuntimeError):
    """A fetch stopped; the message names venue, request and cause."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class RetryPolicy:
    """How transient request failures are retried (tenacity) and timed out."""

    attempts: int = 8
    initial_wait: float = 1.0
    max_wait: float = 120.0
    jitter: float = 1.0
    max_retry_after: float = 600.0
    timeout: float = 180.0
    sleep: Callable[[float], None] = time.sleep


class _Transient(Exception):
    """A failure worth retrying; carries the server's Retry-After in seconds."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class _TimeoutAdapter(HTTPAdapter):
    """HTTP adapter without urllib3 retries that applies a default timeout."""

    def __init__(self, timeout: float) -> None:
        super().__init__(max_retries=0)
        self.timeout = timeout

    def send(self, request: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        """Send with the default timeout when the caller gave none."""
        if kwargs.get("timeout") is None:
            kwargs["timeout"] = self.timeout
        return super().send(request, **kwargs)


def parse_retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or HTTP date), or None."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    current = datetime.now(UTC).timestamp() if now is None else now
    return max(0.0, when.timestamp() - current)


class Session:
    """Runs openreview-py calls under one tenacity policy and counts requests."""

    def __init__(
        self, venue_id: str, baseurl: str, policy: RetryPolicy, secrets: Iterable[str]
    ) -> None:
        self.venue_id = venue_id
        self.baseurl = baseurl
        self.policy = policy
        self.secrets = [s for s in secrets if s]
        self.requests = 0
        self.retries = 0
        self._last: requests.Response | None = None

    def instrument(self, client: Any) -> None:
        """Take over the client's transport: no urllib3 retries, a timeout, a response hook."""
        adapter = _TimeoutAdapter(self.policy.timeout)
        client.session.mount("http://", adapter)
        client.session.mount("https://", adapter)
        hooks = client.session.hooks.setdefault("response", [])
        hooks[:] = [h for h in hooks if not isinstance(getattr(h, "__self__", None), Session)]
        hooks.append(self._on_response)

    def _on_response(
        self, response: requests.Response, *args: Any, **kwargs: Any
    ) -> requests.Response:
        """Remember the latest response (status and headers classify a failure)."""
        self._last = response
        return response

    def scrub(self, text: str) -> str:
        """`text` with every credential value replaced by ***."""
        for secret in self.secrets:
            text = text.replace(secret, "***")
        return text

    def call(self, what: str, fn: Callable[[], T]) -> T:
        """Run `fn` (one HTTP request) with retries; raise FetchError when it cannot succeed."""
        policy = self.policy
        retrying = Retrying(
            stop=stop_after_attempt(policy.attempts),
            wait=self._wait,
            retry=retry_if_exception_type(_Transient),
            sleep=policy.sleep,
            before_sleep=lambda state: self._before_sleep(what, state),
            reraise=True,
        )
        try:
            return retrying(self._attempt, what, fn)
        except _Transient as exc:
            raise FetchError(
                self.scrub(
                    f"OpenReview venue {self.venue_id}: {what} still failing after "
                    f"{policy.attempts} attempts ({exc}); the cache is consistent, "
                    "re-run the same fetch to resume"
                )
            ) from None

    def _attempt(self, what: str, fn: Callable[[], T]) -> T:
        """One request; failures become _Transient (retry) or FetchError (stop)."""
        from openreview import OpenReviewException

        self._last = None
        self.requests += 1
        try:
            return fn()
        except requests.exceptions.SSLError as exc:  # a ConnectionError, but retrying will not help
            raise FetchError(
                self.scrub(f"OpenReview venue {self.venue_id}: {what}: TLS error: {exc}")
            ) from None
        except (
            requests.Timeout,
            requests.ConnectionError,
            requests.exceptions.ChunkedEncodingError,
            requests.exceptions.ContentDecodingError,
            requests.exceptions.JSONDecodeError,
        ) as exc:
            raise _Transient(f"{type(exc).__name__}: {self.scrub(str(exc))}") from None
        except requests.RequestException as exc:
            raise FetchError(
                self.scrub(
                    f"OpenReview venue {self.venue_id}: {what} failed: {type(exc).__name__}: {exc}"
                )
            ) from None
        except OpenReviewException as exc:
            error = (
                exc.args[0] if exc.args and isinstance(exc.args[0], dict) else {"message": str(exc)}
            )
            response = self._last
            status = response.status_code if response is not None else error.get("status")
            url = response.url if response is not None else self.baseurl
            detail = (
                f"HTTP {status} {error.get('name', 'Error')}: {error.get('message', '')}".strip()
            )
            if isinstance(status, int) and status in TRANSIENT_STATUS:
                retry_after = (
                    parse_retry_after(response.headers.get("Retry-After"))
                    if response is not None
                    else None
                )
                raise _Transient(self.scrub(f"{detail} ({url})"), retry_after) from None
            raise FetchError(
                self.scrub(
                    f"OpenReview venue {self.venue_id}: {what} failed permanently: {detail} (url {url})"
                ),
                status=status if isinstance(status, int) else None,
            ) from None

    def _wait(self, state: RetryCallState) -> float:
        """Exponential backoff with jitter, at least the server's capped Retry-After."""
        policy = self.policy
        backoff = (
            wait_exponential(multiplier=policy.initial_wait, max=policy.max_wait)
            + wait_random(0, policy.jitter)
        )(state)
        exc = state.outcome.exception() if state.outcome is not None else None
        retry_after = getattr(exc, "retry_after", None)
        if retry_after is not None:
            return max(backoff, min(float(retry_after), policy.max_retry_after))
        return backoff

    def _before_sleep(self, what: str, state: RetryCallState) -> None:
        """Count and log a retry (no credentials reach the message)."""
        self.retries += 1
        exc = state.outcome.exception() if state.outcome is not None else None
        wait = state.next_action.sleep if state.next_action is not None else 0.0
        log.warning(
            "%s failed (%s); retry %d/%d in %.1f s",
            what,
            exc,
            state.attempt_number,
            self.policy.attempts - 1,
            wait,
        )


def env_secrets() -> list[str]:
    """The credential values in the environment (to scrub from messages), empty ones left out."""
    return [s for s in (os.environ.get(ENV_PASSWORD), os.environ.get(ENV_USERNAME)) if s]


def make_client(baseurl: str, session: Session, *, api: int = 2) -> Any:
    """An openreview-py client for `baseurl` (API v2's OpenReviewClient, or v1's Client for `api=1`),
    logged in when the environment has credentials."""
    from openreview import Client
    from openreview.api import OpenReviewClient

    make = Client if api == 1 else OpenReviewClient
    username = os.environ.get(ENV_USERNAME) or None
    password = os.environ.get(ENV_PASSWORD) or None
    if not (username or password):
        return make(baseurl=baseurl)  # anonymous: the constructor sends no request
    return session.call(
        "POST /login (credentials from OPENREVIEW_USERNAME/OPENREVIEW_PASSWORD)",
        lambda: make(baseurl=baseurl, username=username, password=password),
    )
