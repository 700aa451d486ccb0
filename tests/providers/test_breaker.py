"""Fail fast on a dead endpoint (`judgeaudit.providers.breaker`): what counts as connection-level,
the breaker's window, and real Inspect evals through the litellm provider against a closed
loopback port (nothing listens there: the refusal is the real one)."""

from __future__ import annotations

import errno
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.scorer import match
from inspect_ai.solver import generate

from judgeaudit.providers.breaker import BREAKER, Breaker, connection_failure, fail_fast_arg


@pytest.fixture(autouse=True)
def fresh_breaker() -> Iterator[None]:
    """Each test starts and ends with no endpoint marked down (the breaker is process-wide)."""
    BREAKER.reset()
    yield
    BREAKER.reset()


def _chained(outer: Exception, inner: BaseException) -> Exception:
    outer.__cause__ = inner
    return outer


@pytest.mark.parametrize(
    ("exc", "expected"),
    [
        (ConnectionRefusedError(errno.ECONNREFUSED, "Connect call failed"), True),
        (_chained(RuntimeError("Connection error."), ConnectionRefusedError(111, "refused")), True),
        (socket.gaierror(-2, "Name or service not known"), True),
        (OSError(errno.ENETUNREACH, "Network is unreachable"), True),
        (OSError(errno.EHOSTUNREACH, "No route to host"), True),
        (TimeoutError("timed out"), False),
        (OSError(errno.ENOSPC, "No space left on device"), False),
        (RuntimeError("InternalServerError: 503 Service Unavailable"), False),
        (_chained(RuntimeError("rate limited"), ValueError("429")), False),
    ],
)
def test_connection_failure_means_nothing_answered(exc: BaseException, expected: bool) -> None:
    assert connection_failure(exc) is expected


def test_the_mark_lasts_its_window_and_a_success_clears_it() -> None:
    now = [100.0]
    breaker = Breaker(open_seconds=300.0, clock=lambda: now[0])
    assert breaker.down("http://x") is None
    breaker.trip("http://x", "connection refused at http://x", 4)
    mark = breaker.down("http://x")
    assert mark is not None and mark.message().startswith(
        "connection refused at http://x (not tried: "
    )
    assert "gave up after 4 attempts" in mark.message() and "-M fail_fast=false" in mark.message()
    assert breaker.down("http://other") is None  # per endpoint
    now[0] += 299.0
    assert breaker.down("http://x") is not None
    now[0] += 1.0
    assert breaker.down("http://x") is None  # the window has passed: the next call is tried
    breaker.trip("http://x", "connection refused at http://x", 1)
    breaker.clear("http://x")
    assert breaker.down("http://x") is None
    assert breaker.stop_when_down("http://x")(None) is False


@pytest.mark.parametrize(
    ("value", "expected"), [(True, True), ("false", False), ("0", False), ("yes", True)]
)
def test_fail_fast_arg(value: object, expected: bool) -> None:
    assert fail_fast_arg(value) is expected


def test_a_bad_fail_fast_value_is_one_clear_error() -> None:
    with pytest.raises(ValueError, match=r"^-M fail_fast must be true or false, got 'maybe'$"):
        fail_fast_arg("maybe")


def _closed_port() -> str:
    """A loopback URL nothing listens on (a port bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def _errors(tmp_path: Path, url: str, **model_args: object) -> list[str]:
    """Sample errors of 3 one-call samples run one call at a time against `url`."""
    task = Task(
        dataset=[Sample(id=f"s{i}", input=f"case {i}", target="A") for i in range(3)],
        solver=generate(),
        scorer=match(),
    )
    log = eval(
        task,
        model="litellm/openai/gpt-4o-mini",
        model_args={
            "api_base": url,
            "api_key": "sk-test-key-123456",
            "max_retries": 1,
            **model_args,
        },
        log_dir=str(tmp_path / "logs"),
        display="none",
        max_connections=1,
        retry_on_error=0,
        fail_on_error=False,
    )[0]
    assert log.samples is not None and len(log.samples) == 3
    return [s.error.message for s in log.samples if s.error is not None]


def test_a_dead_endpoint_fails_later_calls_at_once_with_the_same_cause(
    tmp_path: Path, retry_waits: list[float]
) -> None:
    url = _closed_port()
    errors = _errors(tmp_path, url)
    assert (
        len(retry_waits) == 1
    )  # one backoff wait (recorded, not slept): the later calls were never tried
    assert len(errors) == 3
    cause = f"connection refused at {url}"
    gave_up = [e for e in errors if f"{cause} (gave up after 2 attempts in " in e]
    not_tried = [
        e
        for e in errors
        if f"{cause} (not tried: an earlier call to this endpoint gave up after 2 attempts; "
        "-M fail_fast=false tries every call)" in e
    ]
    assert len(gave_up) == 1 and len(not_tried) == 2, errors
    assert all("\n" not in e and "RetryError" not in e for e in errors)


def test_fail_fast_false_retries_every_call(tmp_path: Path, retry_waits: list[float]) -> None:
    url = _closed_port()
    errors = _errors(tmp_path, url, fail_fast="false")
    assert len(retry_waits) == 3 and all(
        1.0 <= w <= 2.0 for w in retry_waits
    )  # one backoff per call, not slept
    assert len(errors) == 3 and all(
        f"connection refused at {url} (gave up after 2 attempts in " in e for e in errors
    )
    assert BREAKER.down(f"{url}") is None
