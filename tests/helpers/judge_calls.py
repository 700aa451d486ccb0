"""Test helpers: a judge's model against a local OpenAI-compatible stand-in, through litellm or
Inspect's `openai/`, guarded as judges guard it; judge calls made as the prompted judge makes them."""

from __future__ import annotations

import asyncio
from typing import Any

from inspect_ai.model import CachePolicy, ChatMessageUser, GenerateConfig, Model, get_model

from judgeaudit.judges.llm.prompted import record_from_output
from judgeaudit.judges.verdicts import CallRecord, failed_call
from judgeaudit.providers.guard import guarded

KEY = "sk-test-dummy-key-0000"
PROVIDERS = ("litellm", "openai")


def model(provider: str, url: str, **config: Any) -> Model:
    """A judge's model through `provider`, guarded as judges guard it (1 retry, 6 s per call)."""
    settings = GenerateConfig(**{"max_retries": 1, "timeout": 6, **config})
    if provider == "litellm":
        m = get_model("litellm/openai/x", api_base=url, api_key=KEY, config=settings)
    else:
        m = get_model("openai/x", base_url=url, api_key=KEY, responses_api=False, config=settings)
    return guarded(m)


def judge_many(
    m: Model,
    prompts: list[str],
    cache: bool | CachePolicy = False,
    at_once: int = 1,
    own: dict[str, Model] | None = None,
) -> list[CallRecord]:
    """Judge calls as the prompted judge makes them, in one event loop, at most `at_once` in flight
    (started in prompt order; 1: one after another): a failed call is an `error` record. The records
    are in prompt order; `own` gives some prompts a model of their own (another budget)."""
    from judgeaudit.judges.records import error_text

    async def one(prompt: str) -> CallRecord:
        judge = (own or {}).get(prompt, m)
        try:
            output = await judge.generate([ChatMessageUser(content=prompt)], cache=cache)
        except Exception as exc:  # noqa: BLE001 (what judge_call does)
            return failed_call("ab", 0, error_text(exc, judge))
        return record_from_output("pairwise", "ab", 0, output)

    async def all_of() -> list[CallRecord]:
        gate = asyncio.Semaphore(at_once)

        async def gated(prompt: str) -> CallRecord:
            async with gate:
                return await one(prompt)

        return list(await asyncio.gather(*(gated(p) for p in prompts)))

    return asyncio.run(all_of())


def judge_once(m: Model, prompt: str, cache: bool | CachePolicy = False) -> CallRecord:
    """One judge call (`judge_many` of one prompt)."""
    return judge_many(m, [prompt], cache)[0]
