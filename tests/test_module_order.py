"""tests/helpers/module_order.py: costliest modules first, each module's tests together and in their order."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from helpers.module_order import UNKNOWN_COST, by_cost, module_costs


def _items(*nodeids: str) -> list[Any]:
    return [SimpleNamespace(nodeid=n) for n in nodeids]


def test_costliest_module_first_and_each_module_kept_whole() -> None:
    items = _items(
        "t/a.py::x",
        "t/a.py::y",
        "t/b.py::x",
        "t/c.py::C::x",
        "t/c.py::C::y",
        "t/new.py::x",
        "t/d.py::x",
    )
    costs = {"t/a.py": 0.5, "t/b.py": 9.0, "t/c.py": 3.0, "t/d.py": UNKNOWN_COST}
    ordered = [i.nodeid for i in by_cost(items, costs)]
    assert ordered == [
        "t/b.py::x",
        "t/c.py::C::x",
        "t/c.py::C::y",
        "t/new.py::x",
        "t/d.py::x",
        "t/a.py::x",
        "t/a.py::y",
    ]


def test_the_measured_costs_name_test_modules_by_their_node_id_path() -> None:
    costs = module_costs()
    assert len(costs) > 50 and all(cost >= 0 for cost in costs.values())
    assert all(path.startswith("tests/") and path.endswith(".py") for path in costs)
    assert "tests/test_readme.py" in costs
