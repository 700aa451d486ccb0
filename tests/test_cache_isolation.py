"""The test session's caches are private (tests/helpers/session_caches.py): a cached Inspect run writes into the
session's tmp dir and leaves the user's home caches untouched."""

from __future__ import annotations

import os
import pwd
from pathlib import Path

from helpers.session_caches import CACHE_ENV, SESSION_CACHES
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.solver import generate

REAL_HOME = Path(pwd.getpwuid(os.getuid()).pw_dir)  # not $HOME: where the user's caches really are


def _snapshot(root: Path) -> set[tuple[str, int, int]]:
    """Every file below `root` with its size and mtime (empty when `root` does not exist)."""
    if not root.is_dir():
        return set()
    return {
        (str(p.relative_to(root)), p.stat().st_size, p.stat().st_mtime_ns)
        for p in root.rglob("*")
        if p.is_file()
    }


def test_every_cache_variable_points_into_the_session_dir() -> None:
    for name in CACHE_ENV:
        assert Path(os.environ[name]).is_relative_to(SESSION_CACHES), name
    assert not SESSION_CACHES.is_relative_to(REAL_HOME / ".cache")


def test_a_cached_inspect_run_writes_only_into_the_session_dir(tmp_path: Path) -> None:
    user_inspect = REAL_HOME / ".cache" / "inspect_ai"
    before = _snapshot(user_inspect)
    session_cache = Path(os.environ["INSPECT_CACHE_DIR"])
    cached_before = _snapshot(session_cache)
    task = Task(
        dataset=[Sample(input=f"cache isolation probe {tmp_path.name}", target="x")],
        solver=generate(cache=True),
    )
    [log] = eval(task, model="mockllm/model", log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success", log.error
    written = _snapshot(session_cache) - cached_before
    assert written, "the cached generate wrote no cache entry into the session's INSPECT_CACHE_DIR"
    assert _snapshot(user_inspect) == before
