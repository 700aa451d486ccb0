"""The one rule set for provider replies: what is retried, what fails at once, what holds no verdict.

Every provider path goes through these rules: our `litellm/` provider inside its own retry loop,
and every other Inspect provider (`openai/` with a base URL, the local engine, ...) through
`judgeaudit.providers.guard`, which judges wrap their model in. Nothing a provider returns or
raises makes a judge raise: every call ends as an answer, `invalid` or `error`.

- **Transient** (retried with backoff within the call's budget, then an `error` call with a
  one-line cause): HTTP 429 (waiting at least its `Retry-After`), 408, 409, 425 and every 5xx
  (529 "overloaded" included); timeouts, a reply that drips in slower than the attempt's time;
  refused, reset or dropped connections, a body cut short or that cannot be decoded; a body that
  is not valid JSON; a 200 that is no chat completion (JSON `null`, a list, a string, an HTML
  page, an error object), with no choices, a choice with no message, more choices than were
  asked (which one would be the answer?), or an empty message (no text, no refusal, no
  reasoning, no tool call, finish `stop`); a provider that tripped while reading a reply (a
  decoding, validation, type, attribute, key or assertion error, whatever its class): a
  *malformed reply*, whose cause names the exception's type and the module that raised it. A status a client library gives a failure of its own (litellm labels a dropped
  connection or an unreadable reply "HTTP 500", and a 200's error object by its `code`) is not
  reported as the server's: only an HTTP status error raised on a response counts as one.
- **Permanent for the run** (not retried; the first failure is remembered, and every later call
  of the run to the same model fails at once with the same line and is never sent): 401/403 or
  a rejected key, a missing key, no access to the model (403), an unknown model (404), payment
  required (402), a quota used up. The line says what to fix. A run is one Inspect `eval`,
  `eval_retry` or eval set: the stops are cleared when it ends (Inspect's hooks,
  `scope_stops_to_runs`), so a second run in the same process tries the model again. Calls
  already in flight when the first failure comes back are each sent once.
- **Rejected request** (not retried, this call only; the line says what to fix): a request too
  large for the model's context (in OpenAI's, Anthropic's or vLLM's words, or HTTP 413), and any
  other 4xx. Any other exception a provider raises (a `RuntimeError` of its own, a missing
  prerequisite) fails that call with its type and message.
- **Final replies that hold no verdict** (`verdictless`): cut at the length limit, stopped by a
  content filter (a 400 naming the content policy included), a refusal (even beside content),
  reasoning only, an unexpected tool call. These are answers, so the judge records them as
  `invalid`, each with its own reason; they are not retried.

Causes are one line (`plain`): no console markup, terminal escapes or control characters, no
traceback text or source file paths; keys are redacted where the line is recorded.

Budget: `DEFAULT_MAX_RETRIES` retries after the first attempt and `DEFAULT_TIMEOUT` seconds for
the whole call (waits included) unless Inspect's `--max-retries` / `--timeout` (or the litellm
provider's `-M max_retries=` / `-M timeout=`) say otherwise; each attempt gets the time left
(or `--attempt-timeout` when smaller). These rules are the only retries: the SDK client under
an Inspect provider retries nothing itself (`guard.no_sdk_retries`) unless `-M max_retries=`
asks it to. Backoff: exponential with jitter from `initial_wait` seconds up to `max_wait`
(defaults 1 s and 20 s; environment `JUDGEAUDIT_RETRY_INITIAL_WAIT`, `JUDGEAUDIT_RETRY_MAX_WAIT`,
`JUDGEAUDIT_RETRY_JITTER` change them), never shorter than a 429's `Retry-After`
(`retry-after-ms`, seconds or an HTTP date; one that is garbage or not finite is ignored). A
`Retry-After` past what is left of the budget ends the call at once, and its line says so
(`gave up: the provider asked to wait 3600 s, past the call's budget of 120 s`).
"""

from __future__ import annotations

import email.utils
import functools
import json
import math
import os
import re
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

import anyio
from inspect_ai.model import ContentReasoning, ContentText, ModelOutput
from tenacity import AsyncRetrying, RetryCallState, stop_after_attempt, stop_before_delay
from tenacity.wait import wait_base

from judgeaudit.errors import UserError, error_line
from judgeaudit.providers.failures import (
    ProviderCallError,
    exception_chain,
    last_attempt,
    one_line,
)

DEFAULT_MAX_RETRIES = 3
DEFAULT_TIMEOUT = 120.0
Kind = Literal["transient", "permanent", "rejected", "filtered"]
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
_NO_ACCESS = re.compile(
    r"access to (the )?model|model .*not (accessible|available|allowed)|not allowed to (use|access)"
    r"|model_not_found|does not exist or you do not have access",
    re.IGNORECASE,
)
_FILTERED = re.compile(
    r"content[ _-]?(management )?(policy|filter)|content_policy_violation|safety system"
    r"|flagged as (potentially )?(harmful|unsafe)",
    re.IGNORECASE,
)
# litellm's messages for a 200 whose body is no chat completion (it labels them HTTP 500)
_LITELLM_MALFORMED = re.compile(
    r"invalid response object|empty or invalid response|returned 'choices' that is not"
    r"|provider returned 'choices'",
    re.IGNORECASE,
)
# Exceptions raised while reading a reply's body or shape (a provider tripping on a malformed
# reply): JSON, decoding and validation errors are ValueErrors; attribute, type, key and index
# errors come from missing or mistyped fields; an assertion on the reply's type, arithmetic on a
# null count, a body that ends early. Any other exception a provider raises (a RuntimeError of
# its own, a missing prerequisite) is its own cause, not retried.
_READ_ERRORS = (
    ValueError,
    AttributeError,
    TypeError,
    LookupError,
    AssertionError,
    ArithmeticError,
    EOFError,
    RecursionError,
)
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


_TRACEBACK = re.compile(r"Traceback \(most recent call last\).*", re.DOTALL)
_FRAME = re.compile(r'File "[^"]*", line \d+(, in \S+)?')
_PY_PATH = re.compile(r"(?<![\w:/.])(?:[A-Za-z]:)?[/\\](?:[\w.-]+[/\\])+([\w.-]+\.py)\b")


def plain(text: str) -> str:
    """`text` on one line without console markup (`[bold][blue]...[/blue][/bold]`), terminal
    control characters, traceback text or source file paths (a leaked file keeps its name)."""
    if not text:
        return ""
    text = _FRAME.sub("", _TRACEBACK.sub("", text))
    return one_line(error_line(Exception(_PY_PATH.sub(r"\1", text))))


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
    """Seconds a 429/503 asks to wait (`retry-after-ms`, `Retry-After` seconds or HTTP date); None
    when it asks nothing readable (absent, garbage, not finite). Never raises."""
    headers = getattr(getattr(exc, "response", None), "headers", None)
    if headers is None:
        headers = getattr(exc, "headers", None) or getattr(exc, "litellm_response_headers", None)
    if not headers:
        return None
    try:
        lower = {str(k).lower(): v for k, v in headers.items()}
    except (AttributeError, TypeError, ValueError):
        return None
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = lower.get(name)
        if value is None:
            continue
        seconds: float | None
        try:
            seconds = float(value) / scale
        except (TypeError, ValueError):
            seconds = _http_date_wait(str(value), now)
        if seconds is not None and math.isfinite(seconds):
            return max(seconds, 0.0)
    return None


def _http_date_wait(value: str, now: float | None) -> float | None:
    """Seconds until an HTTP date (`Wed, 21 Oct 2026 07:28:00 GMT`), or None when it is not one."""
    try:
        when = email.utils.parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return when - (now if now is not None else time.time())


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
        return Failure("transient", f"no response in time ({_named(exc, text)})")
    chain = list(exception_chain(exc))
    names = {type(link).__name__ for link in chain}
    status = _status_sent(chain, text)
    if _MISSING_KEY.search(text) and status in (None, 400, 401, 403, 500):
        return Failure("permanent", f"no API key: {text}")
    if status == 403 and _NO_ACCESS.search(text):
        return Failure("permanent", f"no access to the model (HTTP 403): {text}")
    if status in (401, 403) or "AuthenticationError" in names or "PermissionDeniedError" in names:
        return Failure("permanent", f"the API key was rejected (HTTP {status or 401}): {text}")
    if status == 402:
        return Failure("permanent", f"payment required (HTTP 402): {text}")
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
    if "ContentPolicyViolationError" in names or (status == 400 and _FILTERED.search(text)):
        return Failure("filtered", f"stopped by the provider's content filter: {text}")
    if status == 404 or "NotFoundError" in names:
        return Failure("permanent", f"unknown model or endpoint (HTTP 404): {text}")
    if status is not None and (status in TRANSIENT_STATUS or status >= 500):
        return Failure("transient", f"HTTP {status}: {text}", retry_after(exc))
    if status is not None and 400 <= status < 500:
        return Failure("rejected", f"request rejected (HTTP {status}): {text}")
    if names & _TIMEOUT_NAMES or any(isinstance(link, TimeoutError) for link in chain):
        return Failure("transient", f"no response in time ({_named(exc, text)})")
    if "DecodingError" in names:
        return Failure("transient", f"reply body could not be decoded: {plain(str(chain[-1]))}")
    if _connection_failed(chain):
        root = chain[-1]
        return Failure("transient", f"{type(root).__name__}: {plain(str(root))}")
    if (
        any(isinstance(link, json.JSONDecodeError) for link in chain)
        or "APIResponseValidationError" in names
    ):
        return Failure("transient", f"reply body is not valid JSON: {text}")
    if unsupported(exc):
        return Failure("rejected", f"{type(exc).__name__}: {text}")
    if isinstance(exc, ProviderCallError | UserError):  # a provider's own one-line cause
        return Failure("rejected", text)
    if _LITELLM_MALFORMED.search(text) or "APIError" in names or _from_litellm(chain):
        # litellm's reading of a reply that is no chat completion (its "HTTP 500" is its own),
        # an API error with no HTTP status
        return Failure("transient", f"malformed reply: {text}")
    if isinstance(exc, _READ_ERRORS) or any(isinstance(link, _READ_ERRORS) for link in chain):
        # a provider tripped while reading the reply (an assertion on its shape, a missing
        # field): the reply was malformed; the line names the exception and where it came from
        return Failure("transient", f"malformed reply ({_named(exc, text, where=True)})")
    return Failure("rejected", _named(exc, text))


def _status_sent(chain: list[BaseException], text: str) -> int | None:
    """The HTTP status the server sent, as the exceptions carry it; None when the chain shows the
    status is a client library's own label (litellm calls a dropped connection or an unreadable
    reply "500", and a 200 carrying an error object the object's `code`): a connection failure,
    a body that is not JSON, or a reply it could not read, with no HTTP status error behind it."""
    status = next((s for s in map(status_of, chain) if s is not None), None)
    if status is None or any(_carries_response(link) for link in chain):
        return status
    invented = (
        _connection_failed(chain)
        or _LITELLM_MALFORMED.search(text) is not None
        or any(isinstance(link, (json.JSONDecodeError, *_READ_ERRORS)) for link in chain[1:])
        or any(type(link) is Exception for link in chain)
    )
    return None if invented else status


def _carries_response(link: BaseException) -> bool:
    """Whether `link` is an HTTP client's status error, raised on a response the server sent
    (litellm's own exception classes derive from the OpenAI SDK's and do not count)."""
    if _litellm_class(link):
        return False
    return any(cls.__name__ in ("HTTPStatusError", "APIStatusError") for cls in type(link).__mro__)


def _litellm_class(link: BaseException) -> bool:
    """Whether `link` is one of litellm's exceptions (they all derive from the OpenAI SDK's `APIError`)."""
    return type(link).__module__.split(".")[0] == "litellm"


def _from_litellm(chain: list[BaseException]) -> bool:
    """Whether litellm raised it."""
    return any(map(_litellm_class, chain))


def _connection_failed(chain: list[BaseException]) -> bool:
    names = {type(link).__name__ for link in chain}
    return bool(names & _CONNECTION_NAMES) or any(
        isinstance(link, ConnectionError) for link in chain
    )


def _named(exc: BaseException, text: str, where: bool = False) -> str:
    """`<Type>: <text>` (the text left out when it is only the type's name); with `where`, the
    type is followed by the module that raised it (`<Type> in <module>`, never a file path): the
    innermost frame outside Python's standard library, which names the reader that tripped."""
    name = type(exc).__name__
    if where:
        module = None
        tb = exc.__traceback__
        while tb is not None:
            found = tb.tb_frame.f_globals.get("__name__")
            if isinstance(found, str) and found.split(".")[0] not in sys.stdlib_module_names:
                module = found
            tb = tb.tb_next
        module = module or type(exc).__module__
        name += f" in {module}" if module and module != "builtins" else ""
    return name if text in ("", type(exc).__name__) else f"{name}: {text}"


def malformed(output: ModelOutput, asked: int | None = None) -> str | None:
    """Why a returned output holds no usable reply (then retried), or None when it is a reply;
    `asked`: the number of choices the request asked for (more than that is malformed: which
    one would be the answer?)."""
    if not output.choices:
        return "reply with no choices"
    if asked is not None and len(output.choices) > asked:
        return f"reply with {len(output.choices)} choices where {asked} was asked"
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
    """Models stopped for the current run by a permanent failure (thread-safe; one instance, `STOPS`)."""

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
        scope_stops_to_runs()
        return True

    def reset(self) -> None:
        """Forget every stop (at the end of each Inspect run, `scope_stops_to_runs`; tests)."""
        with self._lock:
            self._stopped.clear()

    def __bool__(self) -> bool:
        with self._lock:
            return bool(self._stopped)


STOPS = RunStops()


@functools.cache
def scope_stops_to_runs() -> None:
    """Forget the stops when an Inspect run ends (`eval`, `eval_retry`, each run of an eval set,
    and the eval set itself): a stop holds for the run it was found in, and a second run in the
    same process tries the model again. Registered with Inspect's public hooks at the first stop
    (so a process that never stops a model never shows Inspect's banner of hooks)."""
    from inspect_ai.hooks import EvalSetEnd, Hooks, RunEnd, hooks

    class EndOfRunClearsStops(Hooks):
        def enabled(self) -> bool:
            return bool(STOPS)

        async def on_run_end(self, data: RunEnd) -> None:
            STOPS.reset()

        async def on_eval_set_end(self, data: EvalSetEnd) -> None:
            STOPS.reset()

    hooks(
        name="judgeaudit_run_stops",
        description="judgeaudit: a model stopped by a permanent failure is stopped for its run only",
    )(EndOfRunClearsStops)


_HINTS = (
    ("no api key", "set the provider's API key (e.g. OPENAI_API_KEY) or pass -M api_key=..."),
    ("the api key was rejected", "set the provider's API key (e.g. OPENAI_API_KEY) or pass -M api_key=..."),
    ("no access to the model", "check the model name and that the key may use that model"),
    ("unknown model", "check the model name and the base URL"),
    ("quota", "add credit or raise the quota with the provider"),
    ("payment required", "add credit or raise the quota with the provider"),
    ("request too large", "shorten the prompt or use a model with a longer context"),
    ("request rejected", "check the request the provider rejected (model name, -M arguments, generate options)"),
)  # fmt: skip


def fix_hint(cause: str) -> str | None:
    """What to fix for a failure no retry can fix, by its cause (None when there is no hint)."""
    lower = cause.lower()
    return next((hint for start, hint in _HINTS if lower.startswith(start)), None)


def with_fix(cause: str) -> str:
    """`cause` ending with what to fix, when the rule set knows (` -- fix: ...`)."""
    hint = fix_hint(cause)
    return cause + (f" -- fix: {hint}" if hint and " -- fix: " not in cause else "")


def fix_for(cause: str, model: str) -> str:
    """The one line of a permanent failure: the model, the cause, what to fix."""
    return f"{model}: {with_fix(cause)}"


def gave_up(failure: Failure, attempts: int, elapsed: float, timeout: float) -> str:
    """The one line of a call that ended on a transient failure: its cause, then why it stopped
    (a wait asked past the call's budget, or the attempts made in how long)."""
    wait = failure.retry_after
    if wait is not None and elapsed + wait >= timeout:
        tries = f"{attempts} attempt{'s' if attempts != 1 else ''} in {elapsed:.1f} s"
        return (
            f"{failure.cause} (gave up: the provider asked to wait {wait:.0f} s, past the "
            f"call's budget of {timeout:g} s (--timeout); {tries})"
        )
    if attempts <= 1:
        return failure.cause
    return f"{failure.cause} (gave up after {attempts} attempts in {elapsed:.1f} s)"
