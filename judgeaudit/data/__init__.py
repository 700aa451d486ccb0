"""The data contract (Idea, PairItem, PointItem) and its file formats."""

from judgeaudit.data.contract import Evidence, Idea, Item, PairItem, PointItem, Provenance
from judgeaudit.data.jsonl import check_file, read_items, read_pairs, read_points, write_items
from judgeaudit.data.validate import ContractError, Problem

__all__ = [
    "ContractError",
    "Evidence",
    "Idea",
    "Item",
    "PairItem",
    "PointItem",
    "Problem",
    "Provenance",
    "check_file",
    "read_items",
    "read_pairs",
    "read_points",
    "write_items",
]
