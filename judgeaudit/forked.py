"""Work fanned out over forked worker processes: each worker is a copy of the parent, so it reads
the items (and everything they refer to) from its own memory and only the results are sent back.

Python threads do not share parsing or numpy-light Python work (the interpreter lock), so the
report's long loops (reading logs, computing groups, drawing figures) use processes. Forking is
only available on POSIX platforms; elsewhere, with one usable core, or with one item the work
runs in the calling process, in the same order, with the same results.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import signal
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

# The work of the running `fork_map` (one at a time): a worker calls it with an item's index.
_WORK: Callable[[int], Any] | None = None

__all__ = ["fork_map", "usable_cores"]


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the platform tells it)."""
    if hasattr(os, "sched_getaffinity"):
        return max(len(os.sched_getaffinity(0)), 1)
    return os.cpu_count() or 1


def _start_worker() -> None:
    """Worker initializer: Ctrl-C (SIGINT to the whole process group) is the parent's to handle; the
    worker's BLAS uses one thread (the workers already use the cores; more threads than cores spin,
    which costs CPU time and gains nothing); the objects it inherits are left out of its garbage
    collections (`gc.freeze`: they are the parent's, and scanning them is most of a collection)."""
    from threadpoolctl import threadpool_limits

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threadpool_limits(limits=1)
    gc.freeze()


def _run(index: int) -> Any:
    """A worker's job: the running `fork_map`'s function on the item at `index`."""
    assert _WORK is not None, "fork_map's work is set before its workers fork"
    return _WORK(index)


def fork_map(fn: Callable[[T], R], items: Sequence[T], workers: int) -> Iterator[R]:
    """`fn` of each item, in order, computed in up to `workers` forked processes (in this process
    when `workers` < 2, there is one item, or the platform cannot fork). Not re-entrant: one at a
    time. On Ctrl-C the items not yet started are cancelled and KeyboardInterrupt is re-raised."""
    global _WORK
    if workers < 2 or len(items) < 2 or "fork" not in multiprocessing.get_all_start_methods():
        yield from map(fn, items)
        return
    if _WORK is not None:
        raise RuntimeError("fork_map is already running")
    _WORK = lambda index: fn(items[index])  # noqa: E731 - read by the forked workers
    try:
        with ProcessPoolExecutor(
            max_workers=min(workers, len(items)),
            mp_context=multiprocessing.get_context("fork"),
            initializer=_start_worker,
        ) as pool:
            try:
                yield from pool.map(_run, range(len(items)))
            except KeyboardInterrupt:
                pool.shutdown(wait=False, cancel_futures=True)
                raise
    finally:
        _WORK = None
