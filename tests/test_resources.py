"""Locating bundled sets: a missing plan variant says how to build it (judgeaudit/resources.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.items import make_pairs

from judgeaudit.data.jsonl import write_items
from judgeaudit.resources import datasets_root, resolve_dataset_file


def test_plan_format_on_a_set_without_plans_names_the_command(tmp_path: Path) -> None:
    set_dir = tmp_path / "my set"
    write_items(set_dir / "pairwise.jsonl", make_pairs())
    with pytest.raises(FileNotFoundError) as err:
        resolve_dataset_file(str(set_dir), "pairwise", "plan")
    message = str(err.value)
    assert "\n" not in message
    assert f"dataset {str(set_dir)!r} has no pairwise_plan.jsonl" in message
    assert f"judgeaudit mine plan --dataset '{set_dir}' --model MODEL" in message


def test_bundled_main_set_without_plans() -> None:
    root = datasets_root() / "iclr2026" / "human_only"
    assert (root / "pointwise.jsonl").is_file() and not (root / "pointwise_plan.jsonl").exists()
    with pytest.raises(
        FileNotFoundError, match=r"has no pointwise_plan\.jsonl .*judgeaudit mine plan --dataset "
    ):
        resolve_dataset_file("iclr2026/human_only", "pointwise", "plan")


def test_a_set_with_plans_resolves(tmp_path: Path) -> None:
    write_items(tmp_path / "pairwise.jsonl", make_pairs())
    write_items(tmp_path / "pairwise_plan.jsonl", make_pairs(2, fmt="plan"))
    assert (
        resolve_dataset_file(str(tmp_path), "pairwise", "plan") == tmp_path / "pairwise_plan.jsonl"
    )


def test_a_missing_kind_keeps_the_plain_message(tmp_path: Path) -> None:
    write_items(tmp_path / "pairwise.jsonl", make_pairs())
    with pytest.raises(FileNotFoundError, match=r"has no pointwise_plan\.jsonl \(looked in"):
        resolve_dataset_file(str(tmp_path), "pointwise", "plan")
