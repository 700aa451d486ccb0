"""Fixtures of the provider tests: each test is a new run for the reply rules' permanent-failure stops."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from judgeaudit.providers.replies import STOPS


@pytest.fixture(autouse=True)
def _fresh_stops() -> Iterator[None]:
    """Each test starts a new 'run': no model stopped by an earlier test's permanent failure."""
    STOPS.reset()
    yield
    STOPS.reset()
