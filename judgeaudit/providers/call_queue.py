"""One model, many concurrent calls: run them one at a time, in the order that reuses the most prompt.

Inspect runs samples (and the tasks of an eval-set) concurrently, but an in-process model computes
one call at a time. `CallQueue.run` queues a blocking call and runs it in a worker thread once the
model is free. When a call finishes, the next one is the queued call whose prompt shares the longest
prefix with the prompt just run (ties: the earliest queued), so the model's prefix reuse finds the most
to reuse whatever order the calls arrived in. A call given a `key` that equals the key of a call
already queued or running is not run again: it waits for that call and gets its result (the caller
gives a key only for calls whose result the request determines, e.g. seeded sampling).

One queue belongs to one event loop; the structures are touched only from that loop's thread.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

import anyio


def common_prefix(a: str, b: str) -> int:
    """Length of the longest common prefix of `a` and `b` (binary search over C-level slice compares)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        mid = (low + high + 1) // 2
        if a[:mid] == b[:mid]:
            low = mid
        else:
            high = mid - 1
    return low


@dataclass(eq=False)
class _Call:
    prompt: str
    key: Hashable | None
    go: anyio.Event = field(default_factory=anyio.Event)
    done: anyio.Event = field(default_factory=anyio.Event)
    result: Any = None
    error: BaseException | None = None


@dataclass
class CallQueue:
    """Serialised, prefix-ordered, deduplicated calls into one model (see module docstring)."""

    _waiting: list[_Call] = field(default_factory=list)
    _busy: bool = False
    _last_prompt: str = ""
    _inflight: dict[Hashable, _Call] = field(default_factory=dict)
    runs: int = 0  # calls run
    shared: int = 0  # calls answered by an identical call's run

    async def run(self, prompt: str, work: Callable[[], Any], key: Hashable | None = None) -> Any:
        """The result of `work()` (run in a worker thread when its turn comes), or of the identical call."""
        while key is not None and key in self._inflight:
            twin = self._inflight[key]
            await twin.done.wait()
            if twin.error is None:
                self.shared += 1
                return twin.result
            if not isinstance(twin.error, anyio.get_cancelled_exc_class()):
                raise twin.error
            # the twin was cancelled before it produced a result: run the call ourselves
        call = _Call(prompt, key)
        if key is not None:
            self._inflight[key] = call
        try:
            await self._turn(call)
            try:
                call.result = await anyio.to_thread.run_sync(work)
                self.runs += 1
            finally:
                self._last_prompt = prompt
                self._hand_over()
            return call.result
        except BaseException as ex:
            call.error = ex
            raise
        finally:
            call.done.set()
            if key is not None and self._inflight.get(key) is call:
                del self._inflight[key]

    async def _turn(self, call: _Call) -> None:
        """Wait until the model is ours."""
        if not self._busy:
            self._busy = True
            return
        self._waiting.append(call)
        try:
            await call.go.wait()
        except BaseException:
            if call in self._waiting:
                self._waiting.remove(call)
            else:  # we were handed the model as we were cancelled: pass it on
                self._hand_over()
            raise

    def _hand_over(self) -> None:
        """Give the model to the queued call sharing the longest prefix with the last prompt, if any."""
        if not self._waiting:
            self._busy = False
            return
        best = max(
            range(len(self._waiting)),
            key=lambda i: (common_prefix(self._last_prompt, self._waiting[i].prompt), -i),
        )
        self._waiting.pop(best).go.set()
