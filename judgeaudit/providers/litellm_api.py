"""Inspect model provider `litellm/<litellm model>`: async litellm calls, USD cost, bounded retries.

Retries: a transient failure (rate limit, 5xx, timeout, refused or dropped connection) is
retried here, with exponential backoff and jitter (first wait about `RETRY_INITIAL_WAIT` s,
doubling, at most `RETRY_MAX_WAIT` s), at most `-M max_retries=` times (default
`DEFAULT_MAX_RETRIES`) and never past `-M timeout=` seconds for the whole call, retries and
waits included (default `DEFAULT_TIMEOUT`); each attempt gets the time left (or Inspect's
`--attempt-timeout`, when smaller). Inspect's `--max-retries` / `--timeout`, when given, take
the place of the `-M` values. Other failures (400, 401, 404 ...) are not retried. litellm and
the OpenAI SDK retry nothing themselves, and Inspect does not retry a call we gave up on: the
call fails with a `LiteLLMCallError` whose message is one redacted line naming the cause and the
endpoint, e.g. `connection refused at http://127.0.0.1:9/v1 (gave up after 4 attempts in 7.3 s)`.
Fail fast (`judgeaudit.providers.breaker`): once a call has given up on a connection-level failure
(refused, DNS, unreachable; not a 429/5xx or timeout), later calls to the same endpoint in the
process fail at once with the same cause for a while, unless `-M fail_fast=false`.

What was actually sent is recorded twice: in the model call record (`ModelEvent.call.request`,
credentials masked) and in `ModelOutput.metadata["litellm"]`:
`{"sent_params": {...}, "dropped_params": {...}, "reasoning_effort_sent": str | None,
"cost_usd": float | None}`. `reasoning_effort` for a model litellm says cannot reason is
dropped with a logged warning (never an error) and shows up under `dropped_params`.

Tool calling (OpenAI-style, which litellm translates for other providers): Inspect `ToolInfo`s
go out as `tools` (`{"type": "function", "function": {name, description, parameters}}`, the
parameters being the tool's JSON schema), the `ToolChoice` as `tool_choice` (`"auto"`,
`"none"`, `"any"` -> `"required"`, a `ToolFunction` -> `{"type": "function", "function":
{"name": ...}}`). Assistant messages carry their `tool_calls` (arguments as JSON text) and
tool results go back as `{"role": "tool", "tool_call_id", "name", "content"}`, a failed tool
call as the text `Error: <message>`. Tool calls in a response become Inspect `ToolCall`s with
`stop_reason="tool_calls"`; arguments that are not a JSON object give a `ToolCall` with
`parse_error` set, which Inspect reports back to the model instead of running the tool.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import time
from dataclasses import replace
from typing import Any

from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
    Content,
    ContentReasoning,
    ContentText,
    GenerateConfig,
    ModelAPI,
    ModelCall,
    ModelOutput,
    ModelUsage,
    RetryDecision,
    StopReason,
)
from inspect_ai.tool import ToolCall, ToolChoice, ToolFunction, ToolInfo
from tenacity import RetryCallState

from judgeaudit.errors import UserError
from judgeaudit.providers.breaker import BREAKER, connection_failure, fail_fast_arg
from judgeaudit.providers.failures import ProviderCallError, exception_chain
from judgeaudit.providers.replies import (
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT,
    STOPS,
    MalformedReply,
    PermanentFailure,
    classify,
    fix_for,
    gave_up,
    malformed,
    plain,
    status_of,
    with_fix,
)
from judgeaudit.providers.replies import retrying as replies_retrying
from judgeaudit.providers.secrets import Redactor, env_secrets, install_log_filter
from judgeaudit.providers.transcript import message_text

logger = logging.getLogger(__name__)

DEFAULT_MAX_CONNECTIONS = 10
DEFAULT_CONFIG = GenerateConfig()
# Loggers litellm writes to; a redacting filter is attached to each.
LITELLM_LOGGERS = ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy", "litellm")

# One process-wide redactor: every key any litellm provider instance has seen.
REDACTOR = Redactor()

_FINISH_REASONS: dict[str, StopReason] = {
    "stop": "stop",
    "length": "max_tokens",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "content_filter": "content_filter",
}


class MissingKeyError(UserError):
    """The model needs an API key that is neither given nor in the environment."""


class LiteLLMCallError(ProviderCallError):
    """A litellm call failed for good; the message is the redacted one-line cause and the
    original exception is not chained."""

    def __init__(
        self, message: str, kind: str, status_code: int | None, retry: RetryDecision
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.status_code = status_code
        self.retry = retry


class BatchNotSupported(UserError, ValueError):
    """Batch mode asked of the litellm provider, which does not batch; the message is one line."""


def refuse_batch(model_name: str) -> BatchNotSupported:
    """The one-line refusal of batch mode for `litellm/<model_name>`, naming the native provider to use."""
    return BatchNotSupported(
        f"--batch: the litellm/ provider does not batch; run {model_name} with Inspect's own "
        f"provider for it instead (e.g. --model {model_name}), which batches at the batch price"
    )


def import_litellm() -> Any:
    """Import litellm with its bundled (offline) price map, its own retries and telemetry off."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.telemetry = False
    litellm.suppress_debug_info = True  # no "Give Feedback" banners printed on every error
    litellm.num_retries = 0
    install_log_filter(REDACTOR, LITELLM_LOGGERS)
    return litellm


_WARNED: set[str] = set()


def log_first_warning(message: str) -> None:
    """Log `message` as a warning the first time in this process, at INFO after that.

    Keeps the console readable; every affected call is recorded anyway in its output metadata
    (`dropped_params`) and model call record.
    """
    if message in _WARNED:
        logger.info(message)
    else:
        _WARNED.add(message)
        logger.warning(message)


def classify_retry(ex: BaseException, litellm: Any = None) -> RetryDecision:
    """Inspect retry decision for a failed litellm attempt, by the one rule set (`providers.replies`)."""
    failure = classify(ex)
    if not failure.retry:
        return RetryDecision.no()
    if status_of(ex) == 429:
        return RetryDecision.rate_limit(failure.retry_after)
    return RetryDecision.transient(failure.retry_after)


def failure_cause(ex: BaseException, litellm: Any, endpoint: str) -> str:
    """One line naming why a litellm call failed and where (unredacted: redact before use)."""
    chain = list(exception_chain(ex))
    text = plain(str(ex))
    if (
        any(isinstance(e, ConnectionRefusedError) for e in chain)
        or "connection refused" in text.lower()
    ):
        return f"connection refused at {endpoint}"
    if isinstance(ex, litellm.Timeout) or any(isinstance(e, TimeoutError) for e in chain):
        return f"no response from {endpoint} in time ({text})"
    if (
        isinstance(ex, litellm.APIConnectionError)
        and not isinstance(ex, MalformedReply)
        and any(isinstance(e, ConnectionError) for e in chain)
    ):
        root = chain[-1]
        return f"cannot connect to {endpoint}: {type(root).__name__}: {plain(str(root))}"
    return f"{classify(ex).cause} at {endpoint}"


def retry_limits(max_retries: Any, timeout: Any) -> tuple[int, float]:
    """Checked `-M max_retries=` (whole number >= 0) and `-M timeout=` (seconds > 0)."""
    try:
        retries, seconds = int(max_retries), float(timeout)
    except (TypeError, ValueError):
        raise ValueError(
            f"litellm provider: -M max_retries must be a whole number and -M timeout a number of "
            f"seconds, got max_retries={max_retries!r}, timeout={timeout!r}"
        ) from None
    if retries < 0 or retries != float(max_retries) or not seconds > 0:
        raise ValueError(
            f"litellm provider: need -M max_retries >= 0 (whole) and -M timeout > 0, "
            f"got max_retries={max_retries!r}, timeout={timeout!r}"
        )
    return retries, seconds


def messages_to_litellm(messages: list[ChatMessage]) -> list[dict[str, Any]]:
    """Inspect chat messages as OpenAI-style dicts (text, assistant tool calls, tool results)."""
    out: list[dict[str, Any]] = []
    for i, m in enumerate(messages):
        if not isinstance(
            m, ChatMessageSystem | ChatMessageUser | ChatMessageAssistant | ChatMessageTool
        ):
            raise ValueError(f"litellm provider: message {i} has unsupported role {m.role!r}")
        try:
            text = message_text(m, i)
        except ValueError as exc:
            raise ValueError(f"litellm provider: {exc}") from None
        if isinstance(m, ChatMessageTool):
            out.append(
                {
                    "role": "tool",
                    "tool_call_id": m.tool_call_id or "",
                    "name": m.function or "",
                    "content": f"Error: {m.error.message}" if m.error else text,
                }
            )
        elif isinstance(m, ChatMessageAssistant) and m.tool_calls:
            out.append(
                {
                    "role": "assistant",
                    "content": text or None,
                    "tool_calls": [tool_call_to_litellm(call) for call in m.tool_calls],
                }
            )
        else:
            out.append({"role": m.role, "content": text})
    return out


def tool_call_to_litellm(call: ToolCall) -> dict[str, Any]:
    """One Inspect tool call as an OpenAI-style `tool_calls` entry (arguments as JSON text)."""
    return {
        "id": call.id,
        "type": "function",
        "function": {"name": call.function, "arguments": json.dumps(call.arguments)},
    }


def tools_to_litellm(tools: list[ToolInfo]) -> list[dict[str, Any]]:
    """Inspect tool definitions as OpenAI-style function tools (parameters = the tool's JSON schema)."""
    return [
        {
            "type": "function",
            "function": {
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.parameters.model_dump(exclude_none=True),
            },
        }
        for tool in tools
    ]


def tool_choice_to_litellm(choice: ToolChoice) -> str | dict[str, Any]:
    """Inspect tool choice as OpenAI's `tool_choice` ("any" is OpenAI's "required")."""
    if isinstance(choice, ToolFunction):
        return {"type": "function", "function": {"name": choice.name}}
    if choice == "any":
        return "required"
    if choice in ("auto", "none"):
        return choice
    raise ValueError(f"litellm provider: unknown tool_choice {choice!r}")


def tool_call_from_litellm(call: Any, index: int) -> ToolCall:
    """An Inspect ToolCall from a response's tool call; bad arguments set `parse_error`, never dropped."""
    function = getattr(call, "function", None)
    name = str(getattr(function, "name", None) or "")
    raw = getattr(function, "arguments", None)
    call_id = str(getattr(call, "id", None) or f"call_{index}")
    text = raw if isinstance(raw, str) else json.dumps(raw) if raw is not None else ""
    error: str | None = None
    arguments: dict[str, Any] = {}
    if not name:
        error = f"tool call {index} names no function (arguments: {text[:200]!r})"
    elif text.strip():
        try:
            parsed = json.loads(text)
        except json.JSONDecodeError as exc:
            error = f"arguments of tool call {name!r} are not valid JSON ({exc}): {text[:500]!r}"
        else:
            if isinstance(parsed, dict):
                arguments = parsed
            else:
                error = f"arguments of tool call {name!r} must be a JSON object, got {text[:500]!r}"
    return ToolCall(id=call_id, function=name, arguments=arguments, parse_error=error)


def config_to_params(config: GenerateConfig) -> dict[str, Any]:
    """The GenerateConfig fields we map to litellm keyword arguments (unset ones omitted)."""
    params: dict[str, Any] = {
        "temperature": config.temperature,
        "max_tokens": config.max_tokens,
        "top_p": config.top_p,
        "seed": config.seed,
        "stop": config.stop_seqs,
        "n": config.num_choices,
        "reasoning_effort": config.reasoning_effort,
        "timeout": config.attempt_timeout,
    }
    if config.extra_body:
        params["extra_body"] = config.extra_body
    if config.response_schema is not None:
        schema = config.response_schema
        json_schema: dict[str, Any] = {
            "name": schema.name,
            "schema": schema.json_schema.model_dump(exclude_none=True),
        }
        if schema.description:
            json_schema["description"] = schema.description
        if schema.strict is not None:
            json_schema["strict"] = schema.strict
        params["response_format"] = {"type": "json_schema", "json_schema": json_schema}
    return {k: v for k, v in params.items() if v is not None}


def usage_from_response(response: Any, cost: float | None) -> ModelUsage | None:
    """Inspect usage (cached input tokens split out, as Inspect counts them) from a litellm response."""
    usage = getattr(response, "usage", None)
    if usage is None:
        return None
    prompt = int(getattr(usage, "prompt_tokens", 0) or 0)
    completion = int(getattr(usage, "completion_tokens", 0) or 0)
    prompt_details = getattr(usage, "prompt_tokens_details", None)
    completion_details = getattr(usage, "completion_tokens_details", None)
    cached = getattr(prompt_details, "cached_tokens", None) if prompt_details else None
    reasoning = (
        getattr(completion_details, "reasoning_tokens", None) if completion_details else None
    )
    return ModelUsage(
        input_tokens=prompt - int(cached or 0),
        output_tokens=completion,
        total_tokens=int(getattr(usage, "total_tokens", 0) or prompt + completion),
        input_tokens_cache_read=cached,
        reasoning_tokens=reasoning,
        total_cost=cost,
    )


def choices_from_response(response: Any, model: str) -> list[ChatCompletionChoice]:
    """Inspect choices (text, any reasoning text, any tool calls) from a litellm response."""
    choices: list[ChatCompletionChoice] = []
    for choice in response.choices:
        message = choice.message
        text = message.content or ""
        reasoning = getattr(message, "reasoning_content", None)
        refusal = getattr(message, "refusal", None)
        content: str | list[Content] = text
        if reasoning or refusal:
            content = [ContentText(text=text)] if text else []
            if reasoning:
                content.insert(0, ContentReasoning(reasoning=reasoning))
            if refusal:
                content.append(ContentText(text=str(refusal), refusal=True))
        raw_calls = getattr(message, "tool_calls", None) or []
        tool_calls = [tool_call_from_litellm(call, i) for i, call in enumerate(raw_calls)]
        stop: StopReason = (
            "tool_calls"
            if tool_calls
            else _FINISH_REASONS.get(choice.finish_reason or "", "unknown")
        )
        choices.append(
            ChatCompletionChoice(
                message=ChatMessageAssistant(
                    content=content, model=model, source="generate", tool_calls=tool_calls or None
                ),
                stop_reason=stop,
            )
        )
    return choices


def check_response(response: Any, model: str, asked: int = 1) -> None:
    """Raise `MalformedReply` (retried) when a 200 response holds no usable reply
    (`replies.malformed`; `asked`: the choices the request asked for)."""
    choices = getattr(response, "choices", None)
    if not choices:
        raise MalformedReply("reply with no choices")
    if any(getattr(choice, "message", None) is None for choice in choices):
        raise MalformedReply("reply with no message")
    output = ModelOutput(model=model, choices=choices_from_response(response, model))
    reason = malformed(output, asked)
    if reason is not None:
        raise MalformedReply(reason)


class LiteLLMAPI(ModelAPI):
    """`litellm/<model>`: e.g. `litellm/openai/gpt-4o-mini`, `litellm/anthropic/claude-...`.

    Model args (`-M`): `api_key`, `api_base` (or Inspect's `--model-base-url`), `max_connections`,
    `max_retries` (retries of a transient failure, default 3), `timeout` (seconds for a whole
    call, retries included, default 120; see the module docstring) and `fail_fast` (default true:
    a dead endpoint fails later calls at once, `judgeaudit.providers.breaker`); anything else is passed to
    `litellm.acompletion` as is (for example `custom_llm_provider` or `input_cost_per_token`).
    Keys otherwise come from the provider's usual environment variable, read by litellm.
    """

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = DEFAULT_CONFIG,
        api_base: str | None = None,
        max_connections: int = DEFAULT_MAX_CONNECTIONS,
        max_retries: int = DEFAULT_MAX_RETRIES,
        timeout: float = DEFAULT_TIMEOUT,
        fail_fast: bool | str = True,
        **model_args: Any,
    ) -> None:
        if config.batch:  # Inspect's batch mode needs its own providers' batch endpoints
            raise refuse_batch(model_name)
        super().__init__(
            model_name=model_name, base_url=base_url or api_base, api_key=api_key, config=config
        )
        self._max_connections = int(max_connections)
        self._max_retries, self._timeout = retry_limits(max_retries, timeout)
        try:
            self._fail_fast = fail_fast_arg(fail_fast)
        except ValueError as exc:
            raise ValueError(f"litellm provider: {exc}") from None
        self.model_args = model_args
        REDACTOR.add(api_key, *env_secrets())
        self._litellm = import_litellm()
        missing = self.missing_keys()
        if missing:
            raise MissingKeyError(
                f"litellm/{model_name}: no API key: set {' or '.join(missing)} in the environment "
                f"(or pass -M api_key=...)"
            )

    retries_replies = True  # retries transient replies itself (`providers.guard` adds no loop)

    def missing_keys(self) -> list[str]:
        """The key variables litellm needs for this model and cannot find (none when a key was given)."""
        if self.api_key or self.model_args.get("api_key"):
            return []
        try:
            found = self._litellm.validate_environment(
                model=self.model_name, api_base=self.base_url
            )
        except Exception:  # a provider litellm cannot check: leave it to the first call
            return []
        return [k for k in found.get("missing_keys") or [] if k.endswith(("_KEY", "_TOKEN"))]

    def max_connections(self) -> int:
        """Concurrent requests per connection key (override with `-M max_connections=`)."""
        return self._max_connections

    def connection_key(self) -> str:
        """One pool per (key, endpoint, model); the key enters only as a short hash."""
        key = self.initial_api_key or ""
        digest = hashlib.sha256(key.encode()).hexdigest()[:12] if key else "env"
        return f"{digest}:{self.base_url or ''}:{self.model_name}"

    def should_retry(self, ex: Exception) -> bool | RetryDecision:
        """Retry what litellm classified as a rate limit or transient failure; nothing else."""
        if isinstance(ex, LiteLLMCallError):
            return ex.retry
        return classify_retry(ex, self._litellm)

    def is_auth_failure(self, ex: Exception) -> bool:
        """401s are authentication failures."""
        return isinstance(ex, LiteLLMCallError) and ex.status_code == 401

    def supports_reasoning(self) -> bool:
        """Whether litellm's model map says this model accepts `reasoning_effort`."""
        try:
            return bool(self._litellm.supports_reasoning(model=self.model_name))
        except Exception:  # unknown model: litellm cannot tell, so treat as not reasoning
            return False

    def resolve_params(self, config: GenerateConfig) -> tuple[dict[str, Any], dict[str, Any]]:
        """(params to send, params dropped) for this config; drops `reasoning_effort` when unsupported."""
        params = config_to_params(config)
        dropped: dict[str, Any] = {}
        if "reasoning_effort" in params and not self.supports_reasoning():
            dropped["reasoning_effort"] = params.pop("reasoning_effort")
            log_first_warning(
                f"litellm/{self.model_name} does not support reasoning (per litellm's model map): "
                f"reasoning_effort={dropped['reasoning_effort']!r} was not sent"
            )
        return params, dropped

    def cost(self, response: Any) -> float | None:
        """USD cost from litellm's bundled price map, or from `-M input_cost_per_token=`/
        `output_cost_per_token=` when given (None if the model has no price)."""
        custom = {
            k: float(self.model_args[k])
            for k in ("input_cost_per_token", "output_cost_per_token")
            if k in self.model_args
        }
        try:
            return float(
                self._litellm.completion_cost(
                    completion_response=response,
                    model=self.model_name,
                    custom_cost_per_token=custom or None,
                )
            )
        except Exception:
            log_first_warning(f"litellm has no price for {self.model_name!r}; cost not recorded")
            return None

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput | tuple[ModelOutput | Exception, ModelCall]:
        """One `litellm.acompletion` call; errors re-raised redacted for Inspect's retry logic."""
        params, dropped = self.resolve_params(config)
        request: dict[str, Any] = {
            "model": self.model_name,
            "messages": messages_to_litellm(input),
            **params,
            **self.model_args,
        }
        if tools:
            request["tools"] = tools_to_litellm(tools)
            request["tool_choice"] = tool_choice_to_litellm(tool_choice)
        if self.base_url:
            request["api_base"] = self.base_url
        model_call = ModelCall.create(REDACTOR.data(request), None)  # returned with the output
        stopped = STOPS.get(self.run_key())
        if stopped is not None:  # a permanent failure earlier in this run: do not send it again
            model_call.set_error({"error": stopped.message(), "status_code": None})
            raise LiteLLMCallError(stopped.message(), "Stopped", None, RetryDecision.no())
        down = BREAKER.down(self.endpoint()) if self._fail_fast else None
        if (
            down is not None
        ):  # the endpoint gave no answer to an earlier call: do not wait for it again
            model_call.set_error({"error": down.message(), "status_code": None})
            raise LiteLLMCallError(down.message(), "EndpointDown", None, RetryDecision.no())
        try:
            response = await self._complete(request, config)
        except Exception as ex:
            attempts, seconds, budget = getattr(ex, "gave_up", (1, 0.0, self._timeout))
            cause = REDACTOR.text(failure_cause(ex, self._litellm, self.endpoint()))
            failure = classify(ex)
            message = gave_up(replace(failure, cause=cause), attempts, seconds, budget)
            if failure.kind == "rejected":
                message = with_fix(message)
            status = getattr(ex, "status_code", None)
            model_call.set_error({"error": message, "status_code": status})
            if self._fail_fast and connection_failure(ex):
                BREAKER.trip(self.endpoint(), cause, attempts)
            if failure.kind == "permanent":
                message = REDACTOR.text(
                    fix_for(f"{failure.cause} at {self.endpoint()}", self.run_key())
                )
                STOPS.stop(self.run_key(), message)
                model_call.set_error({"error": message, "status_code": status})
                raise PermanentFailure(message) from None
            if failure.kind == "filtered":  # a final reply: the judge records it as `invalid`
                return ModelOutput.from_content(
                    self.model_name, "", stop_reason="content_filter", error=message
                ), model_call
            raise LiteLLMCallError(  # retries are used up: Inspect must not retry it again
                message,
                type(ex).__name__,
                status if isinstance(status, int) else None,
                RetryDecision.no(),
            ) from None
        model_call.set_response(REDACTOR.data(response.model_dump()))
        BREAKER.clear(self.endpoint())
        cost = self.cost(response)
        output = ModelOutput(
            model=getattr(response, "model", None) or self.model_name,
            choices=choices_from_response(response, self.model_name),
            usage=usage_from_response(response, cost),
            metadata={
                "litellm": {
                    "sent_params": REDACTOR.data(
                        {k: v for k, v in request.items() if k not in ("messages", "tools")}
                    ),
                    "dropped_params": dropped,
                    "reasoning_effort_sent": params.get("reasoning_effort"),
                    "cost_usd": cost,
                }
            },
        )
        return output, model_call

    def run_key(self) -> str:
        """The name a permanent failure stops for the run: provider, model and endpoint."""
        return f"litellm/{self.model_name} at {self.endpoint()}"

    def endpoint(self) -> str:
        """Where calls go, for error messages: the base URL, else litellm's default for the model."""
        return self.base_url or f"litellm/{self.model_name}'s default endpoint"

    async def _complete(self, request: dict[str, Any], config: GenerateConfig) -> Any:
        """`_acompletion` with the bounded retries of the module docstring; the last failure is
        raised as is (never a tenacity `RetryError`), with `gave_up` = (attempts, seconds, budget) on it."""
        retries = config.max_retries if config.max_retries is not None else self._max_retries
        timeout = float(config.timeout) if config.timeout is not None else self._timeout
        start = time.monotonic()
        attempts = 0

        def log_retry(state: RetryCallState) -> None:
            failed = state.outcome.exception() if state.outcome else None
            cause = failure_cause(failed, self._litellm, self.endpoint()) if failed else "unknown"
            logger.info(
                REDACTOR.text(
                    f"litellm/{self.model_name}: attempt {state.attempt_number} failed "
                    f"({cause}); retrying in {state.upcoming_sleep:.1f} s"
                )
            )

        retrying = replies_retrying(
            retries,
            timeout,
            before_sleep=log_retry,
            extra_stop=BREAKER.stop_when_down(self.endpoint()) if self._fail_fast else None,
        )
        try:
            async for attempt in retrying:
                with attempt:
                    attempts += 1
                    left = max(timeout - (time.monotonic() - start), 0.1)
                    per_attempt = (
                        min(left, config.attempt_timeout) if config.attempt_timeout else left
                    )
                    response = await self._acompletion({**request, "timeout": per_attempt})
                    check_response(response, self.model_name, request.get("n") or 1)
                    return response
        except Exception as ex:
            ex.gave_up = (attempts, time.monotonic() - start, timeout)  # type: ignore[attr-defined]
            raise
        raise AssertionError("unreachable: tenacity returns or raises")  # pragma: no cover

    async def _acompletion(self, request: dict[str, Any]) -> Any:
        """The litellm call itself, with credentials added here so they stay out of records."""
        return await self._litellm.acompletion(
            **request,
            **({"api_key": self.api_key} if self.api_key else {}),
            num_retries=0,
            max_retries=0,
        )
