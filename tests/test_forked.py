"""`judgeaudit.forked.fork_map`: the work of forked worker processes, in order, as the calling
process computes it; errors raised in a worker reach the caller."""

from __future__ import annotations

import os

import pytest

from judgeaudit.forked import fork_map, usable_cores


def _square_and_pid(x: int) -> tuple[int, int]:
    return x * x, os.getpid()


def test_results_in_order_from_worker_processes() -> None:
    items = list(range(9))
    out = list(fork_map(_square_and_pid, items, workers=2))
    assert [v for v, _ in out] == [x * x for x in items]
    assert os.getpid() not in {pid for _, pid in out}  # computed in the workers
    inline = list(fork_map(_square_and_pid, items, workers=1))
    assert [v for v, _ in inline] == [x * x for x in items]
    assert {pid for _, pid in inline} == {os.getpid()}
    assert list(fork_map(_square_and_pid, [], workers=2)) == []
    assert usable_cores() >= 1


def test_the_items_are_read_in_the_workers_copy() -> None:
    """Items need not be picklable: a worker reads them from its own copy of the parent."""
    items = [lambda: 1, lambda: 2, lambda: 3]
    assert list(fork_map(lambda f: f(), items, workers=2)) == [1, 2, 3]


def test_an_error_in_a_worker_reaches_the_caller_and_the_next_map_runs() -> None:
    def fail_on_two(x: int) -> int:
        if x == 2:
            raise ValueError(f"item {x} is bad")
        return x

    with pytest.raises(ValueError, match="item 2 is bad"):
        list(fork_map(fail_on_two, [1, 2, 3], workers=2))
    assert list(fork_map(fail_on_two, [1, 3], workers=2)) == [1, 3]
