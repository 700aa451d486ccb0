"""Soak: judge calls at high concurrency through a provider failing a share of first attempts.

Runs N judge calls (the prompted judge's own `judge_call`, so the reply rules, the provider
guard, Inspect's model layer and the provider are the real ones) at C concurrent connections
against `tests/servers/flaky_openai.py` (a stand-in for a hosted OpenAI-compatible API on
127.0.0.1), first with every first attempt answered, then with a share of first attempts failing
in the ways hosted APIs fail (429 with Retry-After, 500, 503, 529, a stall past the attempt's
time, a body cut mid-JSON, a dropped connection, a 200 with no choices / no message / empty
message) or answering without a verdict (cut at the length limit, content filter, refusal,
reasoning only, a tool call). Counts:

- calls lost: a call with no record at all (must be 0);
- verdicts from failed or verdict-less replies: a verdict where the first attempt held no verdict,
  or a verdict other than the clean run's for the same call (must be 0);
- internal exceptions: anything raised out of a judge call (must be 0);
- errors: calls that ended `error` (transient faults hit only first attempts, so 0 expected);
- the wall time of the flaky run over the clean run's.

Backoff is shortened (`JUDGEAUDIT_RETRY_INITIAL_WAIT` etc., printed) so the soak measures the
protocol rather than the waiting; the stall is longer than the attempt timeout.

    python tests/benchmarks/bench_flaky_provider.py [--calls 5000] [--concurrency 50] \
        [--rate 0.3] [--provider litellm|openai]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
BACKOFF = {
    "JUDGEAUDIT_RETRY_INITIAL_WAIT": "0.05",
    "JUDGEAUDIT_RETRY_MAX_WAIT": "0.5",
    "JUDGEAUDIT_RETRY_JITTER": "0.05",
}
for name, value in BACKOFF.items():
    os.environ.setdefault(name, value)

from servers.flaky_openai import TRANSIENT, VERDICTLESS, FlakyOpenAIServer  # noqa: E402

KEY = "sk-bench-dummy-0000"


def prompts(n: int) -> list[str]:
    """N distinct pairwise prompts."""
    return [
        f"Which is more novel, Idea A or Idea B? Case {i}: idea A {i * 7} vs idea B {i * 13}."
        for i in range(n)
    ]


async def run(
    url: str, provider: str, texts: list[str], concurrency: int, attempt: int
) -> tuple[list[Any], list[str], float]:
    """(records, internal exceptions, seconds) of one judge call per prompt."""
    from inspect_ai.model import ChatMessageUser, GenerateConfig, get_model

    from judgeaudit.judges.llm.prompted import judge_call

    config = GenerateConfig(
        max_connections=concurrency, attempt_timeout=attempt, timeout=60, max_retries=4
    )
    if provider == "litellm":
        model = get_model(
            "litellm/openai/x",
            api_base=url,
            api_key=KEY,
            config=config,
            max_connections=concurrency,
        )
    else:
        model = get_model(
            "openai/x", base_url=url, api_key=KEY, responses_api=False, max_retries=0, config=config
        )
    gate = asyncio.Semaphore(concurrency)
    crashes: list[str] = []

    async def one(text: str) -> Any:
        async with gate:
            try:
                record, _ = await judge_call(
                    model, "pairwise", "ab", 0, ChatMessageUser(content=text), None, False
                )
                return record
            except BaseException as exc:  # noqa: BLE001 - counted: must never happen
                crashes.append(f"{type(exc).__name__}: {exc}"[:200])
                return None

    start = time.perf_counter()
    records = await asyncio.gather(*(one(t) for t in texts))
    return list(records), crashes, time.perf_counter() - start


def main() -> None:
    """Run clean, then flaky; print the counts and the wall-time ratio."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument("--rate", type=float, default=0.3)
    parser.add_argument("--provider", choices=("litellm", "openai"), default="litellm")
    parser.add_argument("--attempt-timeout", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    texts = prompts(args.calls)
    mix = [f for f in (*TRANSIENT, *VERDICTLESS)]
    print(
        f"{args.calls} calls, {args.concurrency} concurrent, provider {args.provider}, "
        f"{args.rate:.0%} of first attempts faulty ({', '.join(mix)}); attempt timeout "
        f"{args.attempt_timeout} s, stall 3 s; backoff {BACKOFF}"
    )
    with FlakyOpenAIServer() as clean_srv:
        clean, clean_crashes, clean_s = asyncio.run(
            run(clean_srv.url, args.provider, texts, args.concurrency, args.attempt_timeout)
        )
    with FlakyOpenAIServer(rate=args.rate, mix=mix, seed=args.seed, stall_seconds=3.0) as srv:
        flaky, crashes, flaky_s = asyncio.run(
            run(srv.url, args.provider, texts, args.concurrency, args.attempt_timeout)
        )
        served = dict(srv.served)
        first = {}
        for text in texts:  # what each call's first attempt got (the schedule is deterministic)
            import hashlib
            import json

            key = hashlib.sha256(
                json.dumps([[{"role": "user", "content": text}], None, "x"]).encode()
            ).hexdigest()
            first[text] = srv.fault_for(text, key, 1)
    lost = sum(r is None for r in flaky) + sum(r is None for r in clean)
    wrong = 0
    outcomes: Counter[str] = Counter()
    for text, c, f in zip(texts, clean, flaky, strict=True):
        if c is None or f is None:
            continue
        fault = first[text]
        outcomes[f"{fault}->{f.verdict}"] += 1
        if fault in VERDICTLESS and f.verdict != "invalid":
            wrong += 1
        elif f.verdict not in ("invalid", "error") and f.verdict != c.verdict:
            wrong += 1
    errors = sum(1 for r in flaky if r is not None and r.verdict == "error")
    print(f"served: {served}")
    print(f"outcomes (first attempt -> recorded verdict): {dict(sorted(outcomes.items()))}")
    print(f"calls lost: {lost}")
    print(f"verdicts from failed or verdict-less replies: {wrong}")
    print(f"internal exceptions: {len(clean_crashes) + len(crashes)} {crashes[:3]}")
    print(f"error calls (flaky run): {errors}")
    print(f"wall time: clean {clean_s:.1f} s, flaky {flaky_s:.1f} s, ratio {flaky_s / clean_s:.2f}")


if __name__ == "__main__":
    main()
