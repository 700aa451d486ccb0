"""The data contract (Idea, PairItem, PointItem) and its file formats.

Every name below is imported from its module on first use (`judgeaudit.lazy`), so the command line's
argument parser (`judgeaudit.data.cli`) loads none of them.
"""

from typing import TYPE_CHECKING

from judgeaudit.lazy import lazy_names

if TYPE_CHECKING:
    from judgeaudit.data.card import write_card
    from judgeaudit.data.contract import Evidence, Idea, Item, PairItem, PointItem, Provenance
    from judgeaudit.data.jsonl import check_file, read_items, read_pairs, read_points, write_items
    from judgeaudit.data.manifest import read_manifest, verify_manifest, write_manifest
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
    "read_manifest",
    "read_points",
    "verify_manifest",
    "write_card",
    "write_items",
    "write_manifest",
]

__getattr__ = lazy_names(__name__, __all__, ("card", "contract", "jsonl", "manifest", "validate"))
