"""The local provider's settings read from the environment (no model is loaded here)."""

from __future__ import annotations

import pytest

from judgeaudit.providers.local_llama import THREADS_ENV, threads_from_env


@pytest.mark.parametrize(
    ("value", "threads"),
    [
        ("1", 1),
        ("3", 3),
        (" 2 ", 2),
        ("", None),
        ("0", None),
        ("-1", None),
        ("two", None),
        ("1.5", None),
        ("²", None),  # a digit to str.isdigit, not a number to int()
    ],
)
def test_the_thread_count_is_a_positive_integer_or_unset(
    monkeypatch: pytest.MonkeyPatch, value: str, threads: int | None
) -> None:
    monkeypatch.setenv(THREADS_ENV, value)
    assert threads_from_env() == threads


def test_no_variable_means_the_engine_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(THREADS_ENV, raising=False)
    assert threads_from_env() is None
