"""Judges' model calls under the one rule set for replies, whatever the Inspect provider.

`guarded(model)` wraps the provider of an Inspect `Model` (once per instance) so that every call
it makes follows `judgeaudit.providers.replies`: a transient failure or malformed reply (429,
5xx, a stall past the attempt's time, a body that is not JSON or no chat completion, no choices,
no message, more choices than asked) is retried with backoff within the call's budget, then
raised as one line that Inspect does not retry again; a permanent failure (rejected or missing
key, no access, unknown model, payment) is raised at once and stops that model for the rest of
the run; a request the provider rejects as it is (too large for the context, another 4xx) is
raised at once. The wrapper raises instead of returning such replies, so Inspect never stores
them in its cache (it caches only what a provider returns). A content-policy rejection is
returned as a reply stopped by the content filter (the judge records it as `invalid`).
Providers that already follow the rules inside their own retry loop (ours: `litellm/`, flag
`retries_replies`) get one attempt here, only the checks. Final replies that hold no verdict are
returned as they are: the judge records them as `invalid`. An in-process engine (flag
`queued_in_process`: calls wait in its own queue) gets no time limit here, only the checks and
the count of retries.

Public Inspect API only: the wrapper sits on the `ModelAPI` instance's `generate` and
`should_retry`, the two methods every provider implements. One more reach, by duck typing: an
SDK client the provider keeps as `client` with a `max_retries` (the OpenAI SDK's, under
`openai/`) is set to retry nothing, so the rule set's budget is the only one
(`no_sdk_retries`).
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
    gave_up,
    last_attempt,
    malformed,
    plain,
    retrying,
    unsupported,
    verdictless,
    with_fix,
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


def check_output(output: ModelOutput, asked: int | None = None) -> None:
    """Raise when a returned output is not a final reply: malformed (retried) or a failed request
    (`asked`: the choices the request asked for)."""
    reason = malformed(output, asked)
    if reason is not None:
        raise MalformedReply(reason)
    if verdictless(output) is not None:
        return
    if output.stop_reason == "model_length":
        detail = output.error or output.completion
        raise RejectedRequest(
            with_fix(f"request too large for the model's context: {plain(detail)}")
        )
    if output.error:
        raise RejectedRequest(plain(str(output.error)))


def no_sdk_retries(api: Any) -> None:
    """Leave retrying to the rule set: an SDK client under an Inspect provider (the OpenAI SDK
    under `openai/` retries 408/409/429/5xx and dropped connections twice, with its own waits,
    inside each attempt) retries nothing, unless the model arguments set `max_retries`."""
    client: Any = getattr(api, "client", None)
    if "max_retries" in (getattr(api, "model_args", None) or {}):
        return
    retries = getattr(client, "max_retries", None)
    if isinstance(retries, int) and not isinstance(retries, bool) and retries > 0:
        client.max_retries = 0


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
        asked = config.num_choices or 1
        start = time.monotonic()
        attempts = 0
        no_sdk_retries(api)

        def log_retry(state: RetryCallState) -> None:
            failed = state.outcome.exception() if state.outcome else None
            cause = classify(failed).cause if failed is not None else "unknown"
            logger.info(
                f"{key}: attempt {state.attempt_number} failed ({cause}); "
                f"retrying in {state.upcoming_sleep:.1f} s"
            )

        async def attempt_once() -> Any:
            nonlocal attempts
            attempts += 1
            left = max(timeout - (time.monotonic() - start), 0.1)
            per_attempt = min(left, config.attempt_timeout) if config.attempt_timeout else left
            try:
                with anyio.fail_after(None if untimed else per_attempt):
                    result = await original_generate(input, tools, tool_choice, config)
            except TimeoutError as ex:
                if str(ex):  # the provider's own timeout, with its own words
                    raise
                raise TimeoutError(
                    f"no complete reply within the attempt's {per_attempt:.1f} s"
                ) from None
            output = result[0] if isinstance(result, tuple) else result
            if isinstance(output, Exception):
                raise output
            check_output(output, asked)
            return result

        try:
            # a provider that retries inside gets its one attempt outside the retry loop, whose
            # frames doubled the cost of the traceback Inspect renders for each failed call
            if own_retries:
                return await attempt_once()
            async for attempt in retrying(
                retries, timeout, before_sleep=log_retry, extra_stop=StopWhenStopped(key)
            ):
                with attempt:
                    return await attempt_once()
        except ProviderCallError as ex:
            if isinstance(ex, PermanentFailure) or own_retries:
                if isinstance(ex, PermanentFailure):
                    STOPS.stop(key, str(ex))
                raise
            elapsed = time.monotonic() - start
            raise type(ex)(gave_up(classify(ex), attempts, elapsed, timeout)) from None
        except Exception as ex:
            if unsupported(last_attempt(ex)):
                raise last_attempt(ex) from None
            failure = classify(ex)
            if failure.kind == "permanent":
                line = fix_for(failure.cause, key)
                STOPS.stop(key, line)
                raise PermanentFailure(line) from None
            if failure.kind == "rejected":
                raise RejectedRequest(with_fix(failure.cause)) from None
            if failure.kind == "filtered":  # a final reply: the judge records it as `invalid`
                return ModelOutput.from_content(
                    model.api.model_name, "", stop_reason="content_filter", error=failure.cause
                )
            elapsed = time.monotonic() - start
            raise ProviderCallError(gave_up(failure, attempts, elapsed, timeout)) from None
        raise AssertionError("unreachable: tenacity returns or raises")  # pragma: no cover

    def should_retry(ex: Exception) -> bool | RetryDecision:
        if isinstance(ex, ProviderCallError):  # the rule set has decided (its budget is used up)
            return RetryDecision.no()
        return original_should_retry(ex)

    api.generate = generate  # type: ignore[method-assign]
    api.should_retry = should_retry  # type: ignore[method-assign]
    setattr(api, _MARK, True)
    return model
