"""Judges' model calls under the one rule set for replies, whatever the Inspect provider.

`guarded(model)` wraps the provider of an Inspect `Model` (once per instance) so that every call
it makes follows `judgeaudit.providers.replies`: a transient failure or malformed reply (429,
5xx, a stall past the attempt's time, a body that is not JSON, no choices, no message) is retried
with backoff within the call's budget, then raised as one line that Inspect does not retry again;
a permanent failure (rejected or missing key, unknown model) is raised at once and stops that
model for the rest of the process; a request too large for the context is raised at once. The
wrapper raises instead of returning such replies, so Inspect never stores them in its cache (it
caches only what a provider returns). Providers that already follow the rules inside their own
retry loop (ours: `litellm/`, flag `retries_replies`) get one attempt here, only the checks.
Final replies that hold no verdict are returned as they are: the judge records them as `invalid`.
An in-process engine (flag `queued_in_process`: calls wait in its own queue) gets no time limit
here, only the checks and the count of retries.

Public Inspect API only: the wrapper sits on the `ModelAPI` instance's `generate` and
`should_retry`, the two methods every provider implements.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import anyio
from inspect_ai.model import GenerateConfig, Model, ModelOutput, RetryDecision
from tenacity import RetryCallState
from tenacity.stop import stop_base

from judgeaudit.providers.failures import ProviderCallError
from judgeaudit.providers.replies import (
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT,
    STOPS,
    MalformedReply,
    PermanentFailure,
    RejectedRequest,
    classify,
    fix_for,
    last_attempt,
    malformed,
    retrying,
    unsupported,
    verdictless,
)

logger = logging.getLogger(__name__)
_MARK = "_judgeaudit_guarded"


class StopWhenStopped(stop_base):
    """Tenacity stop: true once the model is stopped for the run (another call found a permanent failure)."""

    def __init__(self, key: str) -> None:
        self.key = key

    def __call__(self, retry_state: Any) -> bool:
        """Whether to stop retrying now."""
        return STOPS.get(self.key) is not None


def check_output(output: ModelOutput) -> None:
    """Raise when a returned output is not a final reply: malformed (retried) or a failed request."""
    reason = malformed(output)
    if reason is not None:
        raise MalformedReply(reason)
    if verdictless(output) is not None:
        return
    if output.stop_reason == "model_length":
        detail = output.error or output.completion
        raise RejectedRequest(
            f"request too large for the model's context: {' '.join(detail.split())}"
        )
    if output.error:
        raise RejectedRequest(" ".join(str(output.error).split()))


def guarded(model: Model) -> Model:
    """`model` with its provider's calls under the rule set (installed once per provider instance)."""
    api = model.api
    if getattr(api, _MARK, False):
        return model
    # looked up on each call, so the provider's own method is called as it is at that time
    instance_generate = api.__dict__.get("generate")

    def original_generate(*args: Any) -> Any:
        if instance_generate is not None:
            return instance_generate(*args)
        return type(api).generate(api, *args)

    original_should_retry = api.should_retry
    own_retries = bool(getattr(api, "retries_replies", False))
    untimed = bool(getattr(api, "queued_in_process", False))
    key = str(model)

    async def generate(input: Any, tools: Any, tool_choice: Any, config: GenerateConfig) -> Any:
        stopped = STOPS.get(key)
        if stopped is not None:
            raise PermanentFailure(stopped.message())
        retries = (
            0
            if own_retries
            else (config.max_retries if config.max_retries is not None else DEFAULT_MAX_RETRIES)
        )
        timeout = float(config.timeout) if config.timeout is not None else DEFAULT_TIMEOUT
        start = time.monotonic()
        attempts = 0

        def log_retry(state: RetryCallState) -> None:
            failed = state.outcome.exception() if state.outcome else None
            cause = classify(failed).cause if failed is not None else "unknown"
            logger.info(
                f"{key}: attempt {state.attempt_number} failed ({cause}); "
                f"retrying in {state.upcoming_sleep:.1f} s"
            )

        try:
            async for attempt in retrying(
                retries, timeout, before_sleep=log_retry, extra_stop=StopWhenStopped(key)
            ):
                with attempt:
                    attempts += 1
                    left = max(timeout - (time.monotonic() - start), 0.1)
                    per_attempt = (
                        min(left, config.attempt_timeout) if config.attempt_timeout else left
                    )
                    with anyio.fail_after(None if untimed else per_attempt):
                        result = await original_generate(input, tools, tool_choice, config)
                    output = result[0] if isinstance(result, tuple) else result
                    if isinstance(output, Exception):
                        raise output
                    check_output(output)
                    return result
        except ProviderCallError as ex:
            if isinstance(ex, PermanentFailure) or own_retries:
                if isinstance(ex, PermanentFailure):
                    STOPS.stop(key, str(ex))
                raise
            raise type(ex)(_gave_up(classify(ex).cause, attempts, start)) from None
        except Exception as ex:
            if unsupported(last_attempt(ex)):
                raise last_attempt(ex) from None
            failure = classify(ex)
            if failure.kind == "permanent":
                line = fix_for(failure.cause, key)
                STOPS.stop(key, line)
                raise PermanentFailure(line) from None
            if failure.kind == "rejected":
                raise RejectedRequest(failure.cause) from None
            raise ProviderCallError(_gave_up(failure.cause, attempts, start)) from None
        raise AssertionError("unreachable: tenacity returns or raises")  # pragma: no cover

    def should_retry(ex: Exception) -> bool | RetryDecision:
        if isinstance(ex, ProviderCallError):  # the rule set has decided (its budget is used up)
            return RetryDecision.no()
        return original_should_retry(ex)

    api.generate = generate  # type: ignore[method-assign]
    api.should_retry = should_retry  # type: ignore[method-assign]
    setattr(api, _MARK, True)
    return model


def _gave_up(cause: str, attempts: int, start: float) -> str:
    """The one line of a call that used up its retries."""
    if attempts <= 1:
        return cause
    return f"{cause} (gave up after {attempts} attempts in {time.monotonic() - start:.1f} s)"
