"""The local model's call queue (`call_queue.py`): one call at a time, longest shared prefix next,
identical keyed calls run once, and cancellation never loses the model slot. Real threads run the
work; the work is a recorder (no model needed to test the order)."""

from __future__ import annotations

import threading
import time

import anyio

from judgeaudit.providers.call_queue import CallQueue, common_prefix


def test_common_prefix() -> None:
    assert common_prefix("", "abc") == 0
    assert common_prefix("abcdef", "abcxyz") == 3
    assert common_prefix("abc", "abc") == 3
    assert common_prefix("abc", "abcd") == 3
    assert common_prefix("x" * 1000 + "a", "x" * 1000 + "b") == 1000


class Recorder:
    """Work that records which prompt ran, and whether two ever ran at once."""

    def __init__(self, seconds: float = 0.02) -> None:
        self.order: list[str] = []
        self.active = 0
        self.overlap = False
        self.lock = threading.Lock()
        self.seconds = seconds

    def work(self, prompt: str) -> str:
        with self.lock:
            self.active += 1
            self.overlap = self.overlap or self.active > 1
        time.sleep(self.seconds)
        with self.lock:
            self.active -= 1
            self.order.append(prompt)
        return prompt.upper()


def test_calls_run_one_at_a_time_longest_shared_prefix_first() -> None:
    queue, rec = CallQueue(), Recorder()
    prompts = ["zzz first", "aaa one", "zzz second", "aaa two", "zzz third"]

    async def main() -> list[str]:
        results: list[str] = [""] * len(prompts)

        async def one(i: int) -> None:
            results[i] = await queue.run(prompts[i], lambda: rec.work(prompts[i]))

        async with anyio.create_task_group() as tg:
            for i in range(len(prompts)):
                tg.start_soon(one, i)
                await anyio.sleep(0)  # queue them in this order
        return results

    results = anyio.run(main)
    assert results == [p.upper() for p in prompts]
    assert not rec.overlap
    # the first arrival runs at once; then the "zzz" calls (sharing its prefix) before the "aaa" ones
    assert rec.order == ["zzz first", "zzz second", "zzz third", "aaa one", "aaa two"]
    assert (queue.runs, queue.shared) == (5, 0)


def test_identical_keyed_calls_run_once() -> None:
    queue, rec = CallQueue(), Recorder()

    async def main() -> list[str]:
        out: list[str] = []

        async def one(prompt: str, key: str | None) -> None:
            out.append(await queue.run(prompt, lambda: rec.work(prompt), key))

        async with anyio.create_task_group() as tg:
            for prompt, key in [("p", "k1"), ("p", "k1"), ("q", None), ("q", None), ("p", "k2")]:
                tg.start_soon(one, prompt, key)
        return out

    out = anyio.run(main)
    assert sorted(out) == ["P", "P", "P", "Q", "Q"]
    assert sorted(rec.order) == ["p", "p", "q", "q"]  # k1 once, k2 once, unkeyed calls each
    assert (queue.runs, queue.shared) == (4, 1)


def test_errors_reach_every_caller_and_free_the_model() -> None:
    queue = CallQueue()

    def boom() -> str:
        time.sleep(0.01)
        raise ValueError("bad prompt")

    async def main() -> list[str]:
        seen: list[str] = []

        async def one() -> None:
            try:
                await queue.run("p", boom, "same")
            except ValueError as ex:
                seen.append(str(ex))

        async with anyio.create_task_group() as tg:
            tg.start_soon(one)
            tg.start_soon(one)
        seen.append(await queue.run("q", lambda: "ok"))
        return seen

    assert anyio.run(main) == ["bad prompt", "bad prompt", "ok"]


def test_a_cancelled_caller_leaves_the_queue_working() -> None:
    queue, rec = CallQueue(), Recorder(seconds=0.05)

    async def main() -> tuple[list[str], bool]:
        done: list[str] = []
        cancelled = False

        async def one(prompt: str) -> None:
            done.append(await queue.run(prompt, lambda: rec.work(prompt)))

        async with anyio.create_task_group() as tg:
            tg.start_soon(one, "a")
            await anyio.sleep(0.01)
            with anyio.move_on_after(0.01) as scope:  # gives up while queued behind "a"
                await queue.run("b", lambda: rec.work("b"))
            cancelled = scope.cancelled_caught
            tg.start_soon(one, "c")
        return done, cancelled

    done, cancelled = anyio.run(main)
    assert cancelled and done == ["A", "C"] and rec.order == ["a", "c"]


def test_a_twin_of_a_cancelled_call_runs_it_itself() -> None:
    queue, rec = CallQueue(), Recorder(seconds=0.05)

    async def main() -> str:
        result = ""

        async def first() -> None:
            with anyio.move_on_after(0.02):  # gives up while queued behind "x"
                await queue.run("p", lambda: rec.work("p"), "key")

        async def twin() -> None:
            nonlocal result
            result = await queue.run("p", lambda: rec.work("p"), "key")

        async with anyio.create_task_group() as tg:
            tg.start_soon(queue.run, "x", lambda: rec.work("x"))  # holds the model for 50 ms
            await anyio.sleep(0.01)
            tg.start_soon(first)
            await anyio.sleep(0.005)
            tg.start_soon(twin)  # waits on the queued first call, which is then cancelled
        return result

    assert anyio.run(main) == "P"
    assert rec.order == ["x", "p"]
