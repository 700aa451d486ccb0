"""Shared pytest fixtures: small valid contract items and set directories; removal of the private caches (session_caches.py)."""

from __future__ import annotations

import gc
import os
import shutil
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
# No internet here: make huggingface_hub / datasets fail fast instead of retrying the network.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.pop("OPENREVIEW_USERNAME", None)
os.environ.pop("OPENREVIEW_PASSWORD", None)
# Audit batteries without Inspect's realtime sample buffer (nobody watches them live; a fifth less
# overhead per instant planted/mockllm answer). tests/audit/test_battery.py checks both settings.
os.environ.setdefault("JUDGEAUDIT_LOG_REALTIME", "0")
# Backoff between retries of a transient provider failure (`judgeaudit.providers.replies`): short in
# tests (the protocol is under test, not the waiting); `retry_waits` restores the defaults.
RETRY_WAIT_ENV = {
    "JUDGEAUDIT_RETRY_INITIAL_WAIT": "0.01",
    "JUDGEAUDIT_RETRY_MAX_WAIT": "0.05",
    "JUDGEAUDIT_RETRY_JITTER": "0",
}
for _name, _value in RETRY_WAIT_ENV.items():
    os.environ.setdefault(_name, _value)
os.environ.setdefault(
    "INSPECT_EVAL_NO_LOG_REALTIME", "1"
)  # the same for `inspect eval` / `eval-set` runs
# The local model's decode and prompt threads: one per test worker. With its default (prompts on every
# core) two xdist workers running it at once oversubscribe the cores, and llama.cpp's spinning threads
# spent 2.5x the CPU on tests/providers/test_llama_engine.py (86 against 34 CPU-s on a loaded machine).
os.environ.setdefault("JUDGEAUDIT_LOCAL_THREADS", "1")
# The same for the BLAS and OpenMP pools of numpy, scipy and torch (set before any of them is imported):
# two workers on two cores, each with a pool as wide as the machine, spin against each other.
for _pool in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_pool, "1")

# Every cache and log directory points into this process's private tmp dir (see session_caches.py).
from helpers.session_caches import CACHE_ENV, SESSION_CACHES  # noqa: E402, F401

# isort: split
import pytest  # noqa: E402
from helpers.items import FIXTURES, make_idea, make_pairs, make_points  # noqa: E402, F401
from helpers.module_order import by_cost, module_costs  # noqa: E402
from helpers.real_items import search_set  # noqa: E402, F401  (fixture: a small search corpus + one pair / one point)

from judgeaudit.data.contract import PairItem, PointItem  # noqa: E402
from judgeaudit.data.jsonl import write_items  # noqa: E402


@pytest.fixture
def pairs() -> list[PairItem]:
    """Four valid pair items."""
    return make_pairs()


@pytest.fixture
def points() -> list[PointItem]:
    """Four valid point items."""
    return make_points()


@pytest.fixture
def set_dir(tmp_path: Path) -> Path:
    """A set directory with pairwise, pointwise and pairwise_plan JSONL files."""
    d = tmp_path / "demo_set"
    write_items(d / "pairwise.jsonl", make_pairs())
    write_items(d / "pointwise.jsonl", make_points())
    write_items(d / "pairwise_plan.jsonl", make_pairs(2, fmt="plan"))
    return d


@pytest.fixture
def retry_waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The providers' backoff waits, recorded instead of slept (the rule set's injectable clock,
    `providers.replies.retry_sleep`)."""
    from judgeaudit.providers import replies

    for name in RETRY_WAIT_ENV:
        monkeypatch.delenv(name, raising=False)
    waits: list[float] = []

    async def record(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr(replies, "retry_sleep", record)
    return waits


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove this process's private cache root (each xdist worker and the controller have their own)."""
    shutil.rmtree(SESSION_CACHES, ignore_errors=True)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Costliest modules first, for xdist's loadscope (tests/helpers/module_order.py)."""
    items[:] = by_cost(items, module_costs())


def pytest_collection_finish(session: pytest.Session) -> None:
    """Move what collection built (modules, parametrised cases) out of the cyclic collector's reach:
    every later full collection then skips it (about 5% of the audit batteries' time)."""
    gc.collect()
    gc.freeze()
