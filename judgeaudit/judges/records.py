"""Call records of a judged unit, from judge solver to scorer: one writer, one reader.

Every judge solver (prompted, retrieval, agentic, rubric, metric, ...) leaves its per-call
records and its plan on its answer message, the last assistant message, under `RECORD_KEY`
(`leave_records`): Inspect logs a message's metadata once, a store change up to three times. The
record (`{"calls": [...], "plan": {...}}`) travels as one JSON string: Inspect copies, diffs and
walks message metadata node by node several times per sample, and a string is one node. A call
whose raw reply is the message's text carries `raw` None there (the reply is logged once, as the
message); the scorer's records have it back. The `novelty` scorer reads them with `judge_records`.

A call that failed (no answer, verdict `error`) is an error of the sample, not a verdict:
after leaving the records `leave_records` raises `CallsFailed` with a one-line cause, so Inspect
marks the sample as errored (and the eval's status as `error`, which `inspect eval-set` retries).
The judge tasks set `score_on_error`, so the errored sample is still scored from its records
and the log keeps every call.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from inspect_ai.model import ChatMessageAssistant, Model
from inspect_ai.solver import TaskState

from judgeaudit.protocol import ERROR
from judgeaudit.providers.failures import failure_text, one_line
from judgeaudit.providers.secrets import Redactor, env_secrets

RECORD_KEY = "judgeaudit:judge"
MAX_ERROR_CHARS = 500


def judge_plan(prompt: str, orders: Sequence[str], k: int) -> dict[str, Any]:
    """The plan the scorer reads beside the calls: prompt name, presented orders, calls per order."""
    return {"prompt": prompt, "orders": list(orders), "k": k}


class CallsFailed(RuntimeError):
    """Model calls of a sample failed (after the provider's retries): the message is one line,
    `could not judge: N of M calls failed: <cause>` (or `N of M calls failed: <cause>` when
    other calls still answered)."""


def failure_summary(calls: Sequence[dict[str, Any]]) -> str | None:
    """One line on the failed calls among `calls` (the first failed call's cause), or None."""
    failed = [c for c in calls if c["verdict"] == ERROR]
    if not failed:
        return None
    head = "could not judge: " if len(failed) == len(calls) else ""
    return f"{head}{len(failed)} of {len(calls)} calls failed: {failed[0].get('error') or 'no cause recorded'}"


def leave_records(
    state: TaskState,
    calls: list[dict[str, Any]],
    prompt: str,
    orders: Sequence[str],
    k: int,
    answer: str | None = None,
    summary: Callable[[Sequence[dict[str, Any]]], str | None] = failure_summary,
) -> None:
    """Put the call records and plan on the judge's answer message: a new one with text `answer`
    when given (or when the conversation does not end with an assistant message), else the last.
    Then raise `CallsFailed` when any call failed (see the module docstring), with the line
    `summary` gives (a panel's names its members)."""
    last = state.messages[-1] if state.messages else None
    if answer is None and isinstance(last, ChatMessageAssistant):
        last.metadata = {
            **(last.metadata or {}),
            RECORD_KEY: _record_text(calls, last.text, prompt, orders, k),
        }
    else:
        record = _record_text(calls, answer or "", prompt, orders, k)
        state.messages.append(
            ChatMessageAssistant(content=answer or "", metadata={RECORD_KEY: record})
        )
    failed = summary(calls)
    if failed is not None:
        raise CallsFailed(failed)


def _record_text(
    calls: list[dict[str, Any]], text: str, prompt: str, orders: Sequence[str], k: int
) -> str:
    """The record as the message carries it (JSON): a call's `raw` is None when it is the message's
    own text (the raw reply is logged once, as the answer; `judge_records` puts it back)."""
    carried = [{**call, "raw": None} if call.get("raw") == text else call for call in calls]
    return json.dumps({"calls": carried, "plan": judge_plan(prompt, orders, k)}, ensure_ascii=False)


def judge_records(state: TaskState) -> tuple[list[dict[str, Any]] | None, dict[str, Any] | None]:
    """(calls, plan) a judge solver left for the scorer on its last assistant message, or (None, None);
    a call whose `raw` is None on the message has the message's text as its raw reply."""
    for message in reversed(state.messages):
        if isinstance(message, ChatMessageAssistant):
            carried = (message.metadata or {}).get(RECORD_KEY)
            if carried is not None:
                record = (
                    json.loads(carried) if isinstance(carried, str) else carried
                )  # a dict: an older log
                text = message.text
                calls = [
                    call if call.get("raw") is not None else {**call, "raw": text}
                    for call in record["calls"]
                ]
                return calls, record["plan"]
            break
    return None, None


def error_text(exc: BaseException, model: Model) -> str:
    """The one-line cause of a failed call (the last attempt behind a retry wrapper, see
    `providers.failures.failure_text`), known secrets redacted, cut to a bounded length."""
    redactor = Redactor(env_secrets())
    redactor.add(getattr(model.api, "api_key", None))
    return bounded(redactor.text(failure_text(exc)))


def bounded(text: str) -> str:
    """`text` on one line, cut to `MAX_ERROR_CHARS`."""
    text = one_line(text)
    return text if len(text) <= MAX_ERROR_CHARS else text[:MAX_ERROR_CHARS] + "..."
