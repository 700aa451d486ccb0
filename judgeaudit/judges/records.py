"""Call records of a judged unit, from judge solver to scorer: one writer, one reader.

Every judge solver (prompted, retrieval, agentic, rubric, metric, ...) leaves its per-call
records and its plan on its answer message, the last assistant message, under `RECORD_KEY`
(`{"calls": [...], "plan": {...}}`; `leave_records`): Inspect logs a message's metadata once, a store change
up to three times. The `novelty` scorer reads them back with `judge_records`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from inspect_ai.model import ChatMessageAssistant, Model
from inspect_ai.solver import TaskState

from judgeaudit.providers.secrets import Redactor, env_secrets

RECORD_KEY = "judgeaudit:judge"
MAX_ERROR_CHARS = 500


def judge_plan(prompt: str, orders: Sequence[str], k: int) -> dict[str, Any]:
    """The plan the scorer reads beside the calls: prompt name, presented orders, calls per order."""
    return {"prompt": prompt, "orders": list(orders), "k": k}


def leave_records(state: TaskState, calls: list[dict[str, Any]], prompt: str, orders: Sequence[str], k: int,
                  answer: str | None = None) -> None:
    """Put the call records and plan on the judge's answer message: a new one with text `answer`
    when given (or when the conversation does not end with an assistant message), else the last."""
    record = {"calls": calls, "plan": judge_plan(prompt, orders, k)}
    last = state.messages[-1] if state.messages else None
    if answer is None and isinstance(last, ChatMessageAssistant):
        last.metadata = {**(last.metadata or {}), RECORD_KEY: record}
        return
    state.messages.append(ChatMessageAssistant(content=answer or "", metadata={RECORD_KEY: record}))


def judge_records(state: TaskState) -> tuple[list[dict[str, Any]] | None, dict[str, Any] | None]:
    """(calls, plan) a judge solver left for the scorer on its last assistant message, or (None, None)."""
    for message in reversed(state.messages):
        if isinstance(message, ChatMessageAssistant):
            record = (message.metadata or {}).get(RECORD_KEY)
            if record is not None:
                return record["calls"], record["plan"]
            break
    return None, None


def error_text(exc: BaseException, model: Model) -> str:
    """Type and message of a provider error, with known secrets redacted, cut to a bounded length."""
    redactor = Redactor(env_secrets())
    redactor.add(getattr(model.api, "api_key", None))
    text = redactor.text(f"{type(exc).__name__}: {exc}")
    return text if len(text) <= MAX_ERROR_CHARS else text[:MAX_ERROR_CHARS] + "..."
