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

# Every cache and log directory points into this process's private tmp dir (see session_caches.py).
from session_caches import CACHE_ENV, SESSION_CACHES  # noqa: E402, F401

# isort: split
import pytest  # noqa: E402
from module_order import by_cost, module_costs  # noqa: E402
from real_items import search_set  # noqa: E402, F401  (fixture: a small search corpus + one pair / one point)

from judgeaudit.data.contract import Evidence, Idea, PairItem, PointItem, Provenance  # noqa: E402
from judgeaudit.data.jsonl import write_items  # noqa: E402

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def make_idea(
    idea_id: str,
    label: str,
    *,
    area: str = "learning theory",
    text: str | None = None,
    source: str = "human",
    generator: str | None = None,
    fmt: str = "abstract",
    title: str | None = "A title",
    rich: bool = True,
) -> Idea:
    """A valid Idea; `rich` fills every optional field, otherwise they stay null/empty."""
    evidence = (
        Evidence(
            rating_mean=7.5 if label == "novel" else 2.25,
            contribution_mean=3.25 if label == "novel" else 1.5,
            review_count=4,
            positive_signals=("«first» to show this — naïve bound 🚀",) if label == "novel" else (),
            negative_signals=() if label == "novel" else ("done before in 2019", "incremental"),
            similar_papers=("Smith et al. 2020",) if label == "not_novel" else (),
        )
        if rich
        else Evidence()
    )
    return Idea(
        idea_id=idea_id,
        text=text
        or f'Idea {idea_id}: we study ∑ over graphs — with ünïcode and "quotes"\nand a newline.',
        format=fmt,  # type: ignore[arg-type]
        source=source,  # type: ignore[arg-type]
        area=area,
        label=label,  # type: ignore[arg-type]
        generator=generator,
        title=title if rich else None,
        evidence=evidence,
        original_text=("Original: " + idea_id) if rich else None,
        provenance=Provenance(
            dataset="unit-test", source_id=idea_id, forum=f"forum{idea_id}" if rich else None
        ),
    )


def make_pairs(n: int = 4, *, fmt: str = "abstract") -> list[PairItem]:
    """n valid pairs over two areas, gold balanced between a and b; every other pair sparse."""
    pairs = []
    for i in range(n):
        area = "learning theory" if i % 2 == 0 else "optimization"
        rich = i % 2 == 0
        novel = make_idea(f"n{i}", "novel", area=area, fmt=fmt, rich=rich)
        plain = make_idea(
            f"p{i}",
            "not_novel",
            area=area,
            fmt=fmt,
            rich=rich,
            source="generated" if i == 3 else "human",
            generator="backbone-model" if i == 3 else None,
        )
        gold = "a" if i % 2 == 0 else "b"
        a, b = (novel, plain) if gold == "a" else (plain, novel)
        setup = "human_generated" if i == 3 else "human_only"
        pairs.append(
            PairItem(pair_id=f"pair{i}", setup=setup, area=area, idea_a=a, idea_b=b, gold=gold)
        )  # type: ignore[arg-type]
    return pairs


def make_points(n: int = 4, *, fmt: str = "abstract") -> list[PointItem]:
    """n valid pointwise items alternating novel / not_novel; every other item sparse."""
    points = []
    for i in range(n):
        label = "novel" if i % 2 == 0 else "not_novel"
        idea = make_idea(f"q{i}", label, fmt=fmt, rich=i % 2 == 0)
        points.append(PointItem(item_id=f"item{i}", setup="human_only", idea=idea, gold=label))  # type: ignore[arg-type]
    return points


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
    """Costliest modules first, for xdist's loadscope (tests/module_order.py)."""
    items[:] = by_cost(items, module_costs())


def pytest_collection_finish(session: pytest.Session) -> None:
    """Move what collection built (modules, parametrised cases) out of the cyclic collector's reach:
    every later full collection then skips it (about 5% of the audit batteries' time)."""
    gc.collect()
    gc.freeze()
