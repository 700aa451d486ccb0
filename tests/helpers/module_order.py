"""Longest modules first: the order in which xdist's `--dist loadscope` hands out test modules.

loadscope keeps a module on one worker and, by default, hands modules out largest test count
first, so the one-test end-to-end modules (test_readme, the audit batteries' single long tests)
came last and one worker ran them while the other had nothing left. With `--no-loadscope-reorder`
(pyproject addopts) modules go out in collection order, which `by_cost` sets: heaviest first by
the seconds each module took in a full run (`module_costs.json`), the short ones filling the
end (longest-processing-time-first scheduling). Only the order changes, never which tests run; a
module missing from the file (new, renamed) counts as `UNKNOWN_COST` and keeps its collection place
among those. Refresh the file after large changes (see its `measured` entry for how).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

COSTS_FILE = Path(__file__).resolve().parents[1] / "module_costs.json"
UNKNOWN_COST = 1.0  # seconds assumed for a module the file does not list


def module_costs(path: Path = COSTS_FILE) -> dict[str, float]:
    """Module path (as in node ids, e.g. `tests/test_readme.py`) -> seconds its tests took in a full run."""
    return {
        str(k): float(v) for k, v in json.loads(path.read_text(encoding="utf-8"))["seconds"].items()
    }


def by_cost(items: Sequence[pytest.Item], costs: dict[str, float]) -> list[pytest.Item]:
    """The items with the costliest modules first; a stable sort, so each module's tests stay together
    and in their order, and modules of equal cost keep their collection order."""
    return sorted(items, key=lambda item: -costs.get(item.nodeid.split("::", 1)[0], UNKNOWN_COST))
