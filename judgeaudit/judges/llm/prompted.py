"""The prompted judge solver: k calls per presented order, each its own generate, parsed per call.

Every call is a separate `generate` with its own cache scope (base seed, call index) and
generation seed (`call_seed(seed, call_index)`), so the k calls of one item are never served
by one cache entry, while the same (model, prompt, config, call index) in another
configuration is. A probe arm may set its own base seed (the `repeat` probe does).
A call that fails (provider error after its retries, timeout, refused connection, missing
model) becomes an `error` call with its one-line cause; the other calls still run, and then the
sample errors with that cause (`judgeaudit.judges.records.leave_records`). A refusal is an
answer outside the protocol: `invalid`, with the reason. The per-call records and the plan
reach the scorer on the judge's answer message (`judgeaudit.judges.records`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Coroutine, Sequence
from typing import Any

from inspect_ai import Task
from inspect_ai.model import (
    CachePolicy,
    ChatMessageUser,
    GenerateConfig,
    Model,
    ModelOutput,
    get_model,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import LimitExceededError, collect

from judgeaudit.fence import fenced_texts
from judgeaudit.judges.build import judge_task
from judgeaudit.judges.llm.retrieval import retrieve_prior_work
from judgeaudit.judges.options import TaskOptionError
from judgeaudit.judges.parse import parse_verdict
from judgeaudit.judges.prompts import PromptPlan, call_prompt, load_template, plan_calls
from judgeaudit.judges.records import bounded, error_text, leave_records
from judgeaudit.judges.verdicts import DEFAULT_SPLIT_RULE, CallRecord, Order, failed_call, map_back
from judgeaudit.providers.guard import guarded
from judgeaudit.providers.replies import malformed, verdictless
from judgeaudit.retrieval.corpus import BUNDLED_CORPUS

INVALID = "invalid"


def call_seed(base: int, call_index: int) -> int:
    """Generation seed of call `call_index` under base seed `base` (distinct across both)."""
    digest = hashlib.sha256(f"judgeaudit:{base}:{call_index}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def record_from_output(
    kind: str, order: Order, call_index: int, output: ModelOutput, prompt: str | None = None
) -> CallRecord:
    """Parse one model output into a CallRecord, by the rule set for replies
    (`providers.replies`): an output with no usable reply (no choices, an empty message) or one the
    provider marks as failed is an `error` call with a one-line cause; a final reply that holds no
    verdict (cut at the length limit, filtered, refused, reasoning only, a tool call) is `invalid`
    with its own reason; anything else is parsed. Text repeating `prompt` (the call's prompt, when
    given) or one of its fenced idea texts is not read as the verdict. Never raises on a reply."""
    no_reply = malformed(output)
    raw = output.completion if output.choices else ""
    if no_reply is not None:
        return failed_call(order, call_index, no_reply, raw)
    reason = verdictless(output)
    if reason is not None:
        return CallRecord(order, INVALID, INVALID, raw, "failed", call_index, None, reason)
    if output.error or output.stop_reason == "model_length":
        cause = output.error or f"request too large for the model's context: {raw}"
        return failed_call(order, call_index, bounded(cause), raw)
    parsed = parse_verdict(raw, kind, ideas=fenced_texts(prompt) if prompt else (), prompt=prompt)
    verdict = map_back(parsed.verdict, order)
    return CallRecord(
        order, parsed.verdict, verdict, raw, parsed.path, call_index, None, parsed.reason
    )


async def judge_call(
    model: Model,
    kind: str,
    order: Order,
    call_index: int,
    prompt: str | ChatMessageUser,
    seed: int | None,
    cache: bool,
) -> tuple[CallRecord, ModelOutput | None]:
    """One generate for one (order, call index), sending `prompt` (a message as it is: the sample's
    input message, logged once for both); an exception (the call failed after the provider's
    retries) becomes an `error` record with its one-line cause."""
    message = prompt if isinstance(prompt, ChatMessageUser) else ChatMessageUser(content=prompt)
    text = message.text
    config = (
        GenerateConfig(seed=call_seed(seed, call_index)) if seed is not None else GenerateConfig()
    )
    scopes = {"judgeaudit_call": str(call_index), "judgeaudit_seed": str(seed)}
    policy: CachePolicy | bool = CachePolicy(scopes=scopes) if cache else False
    try:
        output = await guarded(model).generate([message], config=config, cache=policy)
    except LimitExceededError:
        raise
    except Exception as exc:  # recorded; the sample errors once all its calls are recorded
        return failed_call(order, call_index, error_text(exc, model)), None
    return record_from_output(kind, order, call_index, output, prompt=text), output


def _prompt_message(state: TaskState, text: str) -> ChatMessageUser:
    """The message of the first call's prompt, sent as it is and kept as the conversation's first
    message: the sample's input message itself when it already is that prompt (a lean sample,
    `prompts.input_prompt`; logged once), else the input message with the prompt in its place
    (same id and source: one change logged)."""
    first = state.messages[0] if state.messages else None
    if isinstance(first, ChatMessageUser):
        return first if first.content == text else first.model_copy(update={"content": text})
    return ChatMessageUser(content=text)


def plan_messages(
    kind: str, state: TaskState, prompt: str, both_orders: bool
) -> tuple[str, tuple[Order, ...], list[ChatMessageUser]]:
    """(prompt name, presented orders, one prompt message per order) of a sample: the first order's
    message is the conversation's first message (`_prompt_message`), another order's its own."""
    name, orders = plan_calls(kind, state.metadata, prompt, both_orders)
    messages: list[ChatMessageUser] = []
    for order in orders:
        # the first call's prompt is the input of a lean sample (`judges.prompts.input_prompt`)
        text = call_prompt(
            kind, name, state.metadata, order, None if messages else state.input_text
        )
        messages.append(ChatMessageUser(content=text) if messages else _prompt_message(state, text))
    return name, orders, messages


def base_seed(state: TaskState, seed: int | None) -> int | None:
    """The base seed of a sample's calls: its probe arm's own (the `repeat` probe sets one), else the task's."""
    arm_seed = state.metadata.get("seed")
    return arm_seed if arm_seed is not None else seed


def call_jobs(
    model: Model,
    kind: str,
    orders: Sequence[Order],
    messages: Sequence[ChatMessageUser],
    k: int,
    seed: int | None,
    cache: bool,
) -> list[Coroutine[Any, Any, tuple[CallRecord, ModelOutput | None]]]:
    """The k calls per presented order of one model, not yet awaited (`judge_call` each)."""
    return [
        judge_call(model, kind, order, call_index, message, seed, cache)
        for order, message in zip(orders, messages, strict=True)
        for call_index in range(k)
    ]


@solver
def novelty_judge(
    kind: str,
    prompt: str = "reference",
    k: int = 1,
    both_orders: bool = False,
    seed: int | None = None,
    cache: bool = True,
) -> Solver:
    """Ask the model k times per presented order and record every call's verdict."""
    if k < 1:
        raise TaskOptionError(f"k must be at least 1, got {k}")
    load_template(kind, prompt)  # fail at task construction on an unknown prompt

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        name, orders, messages = plan_messages(kind, state, prompt, both_orders)
        jobs = call_jobs(get_model(), kind, orders, messages, k, base_seed(state, seed), cache)
        # One call needs no concurrency (and no extra transcript spans); several run together.
        results = [await jobs[0]] if len(jobs) == 1 else await collect(*jobs)
        state.messages = list(messages[:1])
        first_output = results[0][1]
        if first_output is not None:
            state.output = first_output
        answer = first_output.completion if first_output is not None else ""
        leave_records(state, [record.to_dict() for record, _ in results], name, orders, k, answer)
        return state

    return solve


def prompted_task(
    kind: str,
    judge: str,
    dataset: str,
    *,
    idea_format: str,
    probe: str | None,
    seed: int,
    resamples: int,
    prompt: str = "reference",
    k: int = 1,
    both_orders: bool = False,
    cache: bool = True,
    split_rule: str = DEFAULT_SPLIT_RULE,
    retrieval: int = 0,
    retrieval_corpus: str = BUNDLED_CORPUS,
) -> Task:
    """Catalog factory of `prompted`: the judge prompt, k calls per order; with `retrieval` > 0 the
    top-k prior work per idea is placed before the ideas (judge `retrieval` in the records)."""
    if retrieval < 0:
        raise TaskOptionError(f"retrieval must be >= 0 (0 = no retrieval), got {retrieval}")
    judge_solver = novelty_judge(
        kind, prompt=prompt, k=k, both_orders=both_orders, seed=seed, cache=cache
    )
    if retrieval:
        return judge_task(
            kind,
            "retrieval",
            dataset,
            [retrieve_prior_work(retrieval, retrieval_corpus), judge_solver],
            idea_format=idea_format,
            probe=probe,
            seed=seed,
            resamples=resamples,
            split_rule=split_rule,
            metadata={"retrieval": retrieval, "prompt": prompt},
        )
    return judge_task(
        kind,
        judge,
        dataset,
        judge_solver,
        idea_format=idea_format,
        probe=probe,
        seed=seed,
        resamples=resamples,
        split_rule=split_rule,
        metadata={"retrieval": 0, "prompt": prompt},
        prompt_plan=PromptPlan(kind, prompt, both_orders),
    )
