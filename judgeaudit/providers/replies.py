"""The one rule set for provider replies: what is retried, what fails at once, what holds no verdict.

Every provider path goes through these rules: our `litellm/` provider inside its own retry loop,
and every other Inspect provider (`openai/` with a base URL, the local engine, ...) through
`judgeaudit.providers.guard`, which judges wrap their model in.

- **Transient** (retried with backoff within the call's budget, then an `error` call with a
  one-line cause): HTTP 429 (waiting at least its `Retry-After`), 408, 409, 425 and every 5xx
  (529 "overloaded" included); timeouts; refused, reset or dropped connections; a body that is
  not valid JSON; a 200 with no choices, a choice with no message, or an empty message (no text,
  no refusal, no reasoning, no tool call, finish `stop`); a provider that raised while reading
  such a reply.
- **Permanent for the run** (not retried; the first failure is remembered, and every later call
  of this process to the same model fails at once with the same line and is never sent):
  401/403 or a rejected key, a missing key, an unknown model (404), a quota used up. The line
  says what to fix.
- **Rejected request** (not retried, this call only): a request too large for the model's
  context (or HTTP 413), and any other 4xx.
- **Final replies that hold no verdict** (`verdictless`): cut at the length limit, stopped by a
  content filter, a refusal, reasoning only, an unexpected tool call. These are answers, so the
  judge records them as `invalid`, each with its own reason; they are not retried.

Budget: `DEFAULT_MAX_RETRIES` retries after the first attempt and `DEFAULT_TIMEOUT` seconds for
the whole call (waits included) unless Inspect's `--max-retries` / `--timeout` (or the litellm
provider's `-M max_retries=` / `-M timeout=`) say otherwise; each attempt gets the time left
(or `--attempt-timeout` when smaller). Backoff: exponential with jitter from `initial_wait`
seconds up to `max_wait` (defaults 1 s and 20 s; environment `JUDGEAUDIT_RETRY_INITIAL_WAIT`,
`JUDGEAUDIT_RETRY_MAX_WAIT`, `JUDGEAUDIT_RETRY_JITTER` change them), never shorter than a
429's `Retry-After`.
"""

from __future__ import annotations

import email.utils
import json
import os
import re
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

import anyio
from inspect_ai.model import ContentReasoning, ContentText, ModelOutput
from tenacity import AsyncRetrying, RetryCallState, stop_after_attempt, stop_before_delay
from tenacity.wait import wait_base

from judgeaudit.errors import error_line
from judgeaudit.providers.failures import ProviderCallError, exception_chain, last_attempt

DEFAULT_MAX_RETRIES = 3
DEFAULT_TIMEOUT = 120.0
Kind = Literal["transient", "permanent", "rejected"]
TRANSIENT_STATUS = frozenset({408, 409, 425})
# How a backoff wait is spent (tests and benchmarks may record the waits instead of sleeping).
retry_sleep: Callable[[float], Awaitable[None]] = anyio.sleep

_MISSING_KEY = re.compile(
    r"missing credentials|api_key client option must be set|no api key|api key (is )?(missing|required|not set)"
    r"|OPENAI_API_KEY",
    re.IGNORECASE,
)
_CONTEXT = re.compile(
    r"context[ _]length|context window|maximum context|too many tokens|prompt is too long"
    r"|input is too long|reduce the length",
    re.IGNORECASE,
)
_QUOTA = re.compile(r"exceeded your current quota|insufficient_quota|billing", re.IGNORECASE)
# Exceptions raised while reading a reply's body or shape (a provider tripping on a malformed
# reply): JSON errors are ValueErrors; attribute/type/key/index errors come from missing fields.
_READ_ERRORS = (ValueError, AttributeError, TypeError, KeyError, IndexError)
# Class names of transport failures of the HTTP clients providers use (httpx, aiohttp, openai, litellm).
_TIMEOUT_NAMES = frozenset(
    {
        "Timeout",
        "APITimeoutError",
        "TimeoutException",
        "ReadTimeout",
        "ConnectTimeout",
        "WriteTimeout",
        "PoolTimeout",
        "ServerTimeoutError",
        "AttemptTimeoutError",
    }
)
_CONNECTION_NAMES = frozenset(
    {
        "APIConnectionError",
        "ConnectError",
        "ReadError",
        "WriteError",
        "RemoteProtocolError",
        "NetworkError",
        "ProtocolError",
        "ClientConnectorError",
        "ServerDisconnectedError",
        "ClientOSError",
        "ClientPayloadError",
        "IncompleteRead",
        "ServiceUnavailableError",
    }
)


class MalformedReply(ProviderCallError):
    """A 200 reply that holds no usable answer (no choices, no message, nothing in it): transient."""


class PermanentFailure(ProviderCallError):
    """A failure no retry can fix (the message says what to fix)."""


class RejectedRequest(ProviderCallError):
    """A request the provider will not serve as it is (too large for the context, another 4xx)."""


@dataclass(frozen=True)
class Failure:
    """How the rule set reads one failed attempt: its kind, a one-line cause, any Retry-After."""

    kind: Kind
    cause: str
    retry_after: float | None = None

    @property
    def retry(self) -> bool:
        """Whether another attempt may succeed."""
        return self.kind == "transient"


def plain(text: str) -> str:
    """`text` on one line without console markup (`[bold][blue]...[/blue][/bold]`)."""
    return error_line(Exception(text)) if text else ""


def status_of(exc: BaseException) -> int | None:
    """The HTTP status an exception carries (its own `status_code`, or its response's)."""
    for attr in ("status_code", "status"):
        value = getattr(exc, attr, None)
        if isinstance(value, int) and 100 <= value < 600:
            return value
    response = getattr(exc, "response", None)
    value = getattr(response, "status_code", None)
    return value if isinstance(value, int) else None


def retry_after(exc: BaseException, now: float | None = None) -> float | None:
    """Seconds a 429/503 asks to wait (`retry-after-ms`, `Retry-After` seconds or HTTP date)."""
    headers = getattr(getattr(exc, "response", None), "headers", None)
    if headers is None:
        headers = getattr(exc, "headers", None) or getattr(exc, "litellm_response_headers", None)
    if not headers:
        return None
    try:
        ms = headers.get("retry-after-ms")
        if ms is not None:
            return max(float(ms) / 1000, 0.0)
        value = headers.get("retry-after")
    except (AttributeError, ValueError, TypeError):
        return None
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(str(value)) if value else None
        if parsed is None:
            return None
        return max(parsed.timestamp() - (now if now is not None else time.time()), 0.0)


def unsupported(exc: BaseException) -> bool:
    """A provider's refusal of what the call asks for (tools, a feature it lacks): the caller's to
    handle, never retried and passed on as raised."""
    return isinstance(exc, NotImplementedError) or (
        isinstance(exc, ValueError) and "not supported" in str(exc).lower()
    )


def classify(exc: BaseException) -> Failure:
    """The rule set's reading of a failed attempt (see the module docstring)."""
    exc = last_attempt(exc)
    if isinstance(exc, PermanentFailure):
        return Failure("permanent", plain(str(exc)))
    if isinstance(exc, MalformedReply):
        return Failure("transient", plain(str(exc)))
    if isinstance(exc, RejectedRequest):
        return Failure("rejected", plain(str(exc)))
    text = plain(str(exc)) or type(exc).__name__
    if isinstance(exc, TimeoutError) or type(exc).__name__ in _TIMEOUT_NAMES:
        return Failure("transient", f"no response in time ({type(exc).__name__}: {text})")
    chain = list(exception_chain(exc))
    names = {type(link).__name__ for link in chain}
    status = next((s for s in map(status_of, chain) if s is not None), None)
    if _MISSING_KEY.search(text) and status in (None, 400, 401, 403, 500):
        return Failure("permanent", f"no API key: {text}")
    if status in (401, 403) or "AuthenticationError" in names or "PermissionDeniedError" in names:
        return Failure("permanent", f"the API key was rejected (HTTP {status or 401}): {text}")
    if status == 429 or "RateLimitError" in names:
        if _QUOTA.search(text):
            return Failure("permanent", f"quota used up (HTTP 429): {text}")
        return Failure("transient", f"rate limited (HTTP 429): {text}", retry_after(exc))
    if (
        "ContextWindowExceededError" in names
        or status == 413
        or (status == 400 and _CONTEXT.search(text))
    ):
        return Failure("rejected", f"request too large for the model's context: {text}")
    if status == 404 or "NotFoundError" in names:
        return Failure("permanent", f"unknown model or endpoint (HTTP 404): {text}")
    if status is not None and (status in TRANSIENT_STATUS or status >= 500):
        return Failure("transient", f"HTTP {status}: {text}", retry_after(exc))
    if status is not None and 400 <= status < 500:
        return Failure("rejected", f"request rejected (HTTP {status}): {text}")
    if names & _TIMEOUT_NAMES or any(isinstance(link, TimeoutError) for link in chain):
        return Failure("transient", f"no response in time ({type(exc).__name__}: {text})")
    if names & _CONNECTION_NAMES or any(isinstance(link, ConnectionError) for link in chain):
        root = chain[-1]
        return Failure("transient", f"{type(root).__name__}: {plain(str(root))}")
    if (
        any(isinstance(link, json.JSONDecodeError) for link in chain)
        or "APIResponseValidationError" in names
    ):
        return Failure("transient", f"reply body is not valid JSON: {text}")
    if unsupported(exc):
        return Failure("rejected", f"{type(exc).__name__}: {text}")
    if isinstance(exc, ProviderCallError):  # a provider's own one-line cause, kept as it says
        return Failure("rejected", text)
    if isinstance(exc, _READ_ERRORS):
        return Failure("transient", f"malformed reply ({type(exc).__name__}: {text})")
    return Failure("rejected", f"{type(exc).__name__}: {text}")


def malformed(output: ModelOutput) -> str | None:
    """Why a returned output holds no usable reply (then retried), or None when it is a reply."""
    if not output.choices:
        return "reply with no choices"
    message = output.choices[0].message
    if message is None:
        return "reply with no message"
    if verdictless(output) is not None:
        return None
    if not output.completion.strip() and output.choices[0].stop_reason in ("stop", "unknown"):
        return "reply with an empty message"
    return None


def _refusal(output: ModelOutput) -> str | None:
    content = output.choices[0].message.content
    if isinstance(content, list):
        for part in content:
            if isinstance(part, ContentText) and part.refusal:
                return part.text
    refusal = (output.choices[0].message.metadata or {}).get("refusal")
    return str(refusal) if refusal else None


def verdictless(output: ModelOutput) -> str | None:
    """The reason a final reply holds no verdict (recorded as `invalid`), or None.

    Cut at the length limit, stopped by a content filter, a refusal, reasoning only, a tool call
    where an answer was due; each has its own reason. A reply with no choices is `malformed`."""
    if not output.choices:
        return None
    choice = output.choices[0]
    stop = choice.stop_reason
    refusal = _refusal(output)
    if refusal is not None:
        return f"refusal: {plain(refusal)[:200]}"
    if stop == "content_filter":
        return "stopped by the provider's content filter"
    if stop == "max_tokens":
        return "truncated at the length limit (finish_reason length): the answer is incomplete"
    if choice.message.tool_calls and not output.completion.strip():
        names = ", ".join(call.function for call in choice.message.tool_calls)
        return f"unexpected tool call ({names}) instead of an answer"
    content = choice.message.content
    if (
        isinstance(content, list)
        and any(isinstance(part, ContentReasoning) for part in content)
        and not output.completion.strip()
    ):
        return "reasoning only, no answer after it"
    return None


def _env_float(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, default))
    except ValueError:
        return default


@dataclass(frozen=True)
class Backoff:
    """Backoff waits: exponential from `initial` s (doubling, at most `maximum`) plus `jitter`."""

    initial: float = 1.0
    maximum: float = 20.0
    jitter: float = 1.0

    @classmethod
    def from_env(cls) -> Backoff:
        """The waits the environment sets (`JUDGEAUDIT_RETRY_*`), else the defaults."""
        return cls(
            _env_float("JUDGEAUDIT_RETRY_INITIAL_WAIT", cls.initial),
            _env_float("JUDGEAUDIT_RETRY_MAX_WAIT", cls.maximum),
            _env_float("JUDGEAUDIT_RETRY_JITTER", cls.jitter),
        )


class WaitHonouringRetryAfter(wait_base):
    """Tenacity wait: the exponential backoff, but never less than the failure's Retry-After."""

    def __init__(self, backoff: Backoff, classify: Callable[[BaseException], Failure]) -> None:
        self.backoff, self.classify = backoff, classify

    def __call__(self, retry_state: RetryCallState) -> float:
        """Seconds to wait before the next attempt."""
        import random

        b = self.backoff
        wait = min(b.initial * 2 ** (retry_state.attempt_number - 1), b.maximum)
        wait += random.uniform(0, b.jitter) if b.jitter > 0 else 0.0
        failed = retry_state.outcome.exception() if retry_state.outcome else None
        after = self.classify(failed).retry_after if failed is not None else None
        return max(wait, after) if after is not None else wait


def retrying(
    max_retries: int,
    timeout: float,
    classify: Callable[[BaseException], Failure] = classify,
    before_sleep: Callable[[RetryCallState], None] | None = None,
    extra_stop: Any = None,
) -> AsyncRetrying:
    """The retry loop of one call: transient failures only, `max_retries` retries, `timeout` s overall."""
    stop = stop_after_attempt(max_retries + 1) | stop_before_delay(timeout)
    if extra_stop is not None:
        stop = stop | extra_stop
    return AsyncRetrying(
        stop=stop,
        wait=WaitHonouringRetryAfter(Backoff.from_env(), classify),
        retry=_retry_if(classify),
        before_sleep=before_sleep,
        sleep=lambda seconds: retry_sleep(seconds),
        reraise=True,
    )


def _retry_if(classify: Callable[[BaseException], Failure]) -> Any:
    from tenacity import retry_if_exception

    return retry_if_exception(lambda ex: classify(ex).retry)


@dataclass(frozen=True)
class Stopped:
    """A model stopped for the run by a permanent failure: its one-line cause."""

    cause: str

    def message(self) -> str:
        """The line a later call fails with (it is not sent)."""
        return f"{self.cause} (not tried: an earlier call of this run failed the same way)"


class RunStops:
    """Models stopped for this process by a permanent failure (thread-safe; one instance, `STOPS`)."""

    def __init__(self) -> None:
        self._stopped: dict[str, Stopped] = {}
        self._lock = threading.Lock()

    def get(self, model: str) -> Stopped | None:
        """The stop on `model`, if any."""
        with self._lock:
            return self._stopped.get(model)

    def stop(self, model: str, cause: str) -> bool:
        """Stop `model` with `cause`; True when this is the first stop (the one to report)."""
        with self._lock:
            if model in self._stopped:
                return False
            self._stopped[model] = Stopped(cause)
            return True

    def reset(self) -> None:
        """Forget every stop (tests; a new run in the same process)."""
        with self._lock:
            self._stopped.clear()


STOPS = RunStops()


def fix_for(cause: str, model: str) -> str:
    """The one line of a permanent failure, ending with what to fix."""
    lower = cause.lower()
    if lower.startswith("no api key") or lower.startswith("the api key was rejected"):
        hint = "set the provider's API key (e.g. OPENAI_API_KEY) or pass -M api_key=..."
    elif lower.startswith("unknown model"):
        hint = "check the model name and the base URL"
    elif lower.startswith("quota"):
        hint = "add credit or raise the quota with the provider"
    else:
        hint = ""
    return f"{model}: {cause}" + (f" -- fix: {hint}" if hint else "")
