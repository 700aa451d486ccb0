"""Contract records: to_dict is complete (every dataclass field) and JSON-ready."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from helpers.items import make_pairs, make_points


def _generic(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _generic(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, list | tuple):
        return [_generic(v) for v in value]
    return value


def test_to_dict_matches_every_field_in_order() -> None:
    for item in [*make_pairs(4), *make_points(4)]:
        fast = item.to_dict()
        assert fast == _generic(item)
        assert list(json.loads(json.dumps(fast))) == [f.name for f in dataclasses.fields(item)]


def test_item_id_and_area_properties() -> None:
    pair, point = make_pairs(1)[0], make_points(1)[0]
    assert pair.item_id == pair.pair_id == "pair0"
    assert point.area == point.idea.area
