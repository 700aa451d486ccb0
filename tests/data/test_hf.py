"""JSONL <-> Hugging Face datasets round trips (real `datasets`, real files in a temp dir)."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgeaudit.data import hf
from judgeaudit.data.jsonl import read_items
from judgeaudit.data.validate import ContractError


def _jsonl_bytes(d: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(d.glob("*.jsonl"))}


def test_save_to_disk_round_trip_is_byte_identical(set_dir: Path, tmp_path: Path) -> None:
    dd = hf.to_dataset_dict(set_dir)
    assert sorted(dd) == ["pairwise", "pairwise_plan", "pointwise"]
    assert dd["pairwise"].num_rows == 4
    hf.save_to_disk(dd, tmp_path / "disk")
    back = hf.load_from_disk(tmp_path / "disk")
    hf.write_jsonl_set(back, tmp_path / "again")
    assert _jsonl_bytes(tmp_path / "again") == _jsonl_bytes(set_dir)


def test_parquet_round_trip_is_byte_identical(set_dir: Path, tmp_path: Path) -> None:
    paths = hf.to_parquet(hf.to_dataset_dict(set_dir), tmp_path / "pq")
    assert sorted(p.name for p in paths.values()) == [
        "pairwise.parquet",
        "pairwise_plan.parquet",
        "pointwise.parquet",
    ]
    back = hf.read_parquet(tmp_path / "pq")
    hf.write_jsonl_set(back, tmp_path / "again")
    assert _jsonl_bytes(tmp_path / "again") == _jsonl_bytes(set_dir)


def test_features_round_trip_exactly(set_dir: Path, tmp_path: Path) -> None:
    import datasets

    dd = hf.to_dataset_dict(set_dir)
    assert dd["pairwise"].features == hf.pair_features()
    assert dd["pointwise"].features == hf.point_features()
    hf.save_to_disk(dd, tmp_path / "disk")
    loaded = datasets.load_from_disk(str(tmp_path / "disk"))
    for name in dd:
        assert loaded[name].features == dd[name].features
    hf.to_parquet(dd, tmp_path / "pq")
    # the parquet schema metadata alone (no features passed) restores the same Features
    plain = datasets.Dataset.from_parquet(
        str(tmp_path / "pq" / "pointwise.parquet"), cache_dir=str(tmp_path / "c")
    )
    assert plain.features == hf.point_features()


def test_nullable_fields_empty_lists_and_unicode_survive(set_dir: Path, tmp_path: Path) -> None:
    hf.save_to_disk(hf.to_dataset_dict(set_dir), tmp_path / "disk")
    points = hf.load_from_disk(tmp_path / "disk")["pointwise"]
    original = read_items(set_dir / "pointwise.jsonl")
    assert points == original
    sparse = points[1].idea  # type: ignore[union-attr]
    assert sparse.title is None and sparse.generator is None and sparse.original_text is None
    assert sparse.evidence.rating_mean is None and sparse.evidence.review_count is None
    assert sparse.evidence.positive_signals == () and sparse.provenance.forum is None
    rich = points[0].idea  # type: ignore[union-attr]
    assert rich.evidence.positive_signals == ("«first» to show this — naïve bound 🚀",)
    assert "ünïcode" in rich.text and "\n" in rich.text


def test_items_sequence_grouped_into_splits(pairs, points) -> None:  # type: ignore[no-untyped-def]
    dd = hf.to_dataset_dict([*pairs, *points])
    assert {k: v.num_rows for k, v in dd.items()} == {"pairwise": 4, "pointwise": 4}


def test_wrong_kind_and_bad_split_name_rejected(pairs, points) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(TypeError, match="pairwise dataset got 1 item"):
        hf.items_to_dataset([*pairs, points[0]], "pairwise")
    with pytest.raises(ValueError, match="neither pairwise"):
        hf.to_dataset_dict({"train": pairs})


def test_rows_breaking_the_contract_are_reported_with_row_and_field(pairs) -> None:  # type: ignore[no-untyped-def]
    ds = hf.items_to_dataset(pairs)
    ds = ds.map(lambda row, i: {"gold": "c" if i == 2 else row["gold"]}, with_indices=True)
    with pytest.raises(ContractError) as err:
        hf.dataset_to_items(ds, "pairwise", "split pairwise")
    assert [(p.line, p.field) for p in err.value.problems] == [(3, "gold")]


def test_hf_library_found_even_from_repository_root() -> None:
    """At the checkout root `python -c` puts the top-level `datasets/` folder first on sys.path."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    code = "import datasets; print(hasattr(datasets, 'DatasetDict'))"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["True"], (
        "the checkout's datasets/ folder shadows Hugging Face datasets"
    )


def test_parquet_with_foreign_columns_is_a_clear_error(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"pair_id": ["x"], "other": [1]}), tmp_path / "pairwise.parquet")
    with pytest.raises(ValueError, match="pairwise.parquet: parquet columns do not match"):
        hf.read_parquet(tmp_path)


def test_a_mined_sets_labelled_pool_is_not_an_item_split(set_dir: Path) -> None:
    """A mined set's labelled.jsonl (labelled ideas, not judge items) stays out of the DatasetDict."""
    (set_dir / "labelled.jsonl").write_text(
        '{"idea_id": "x", "label": "novel"}\n', encoding="utf-8"
    )
    assert sorted(hf.to_dataset_dict(set_dir)) == ["pairwise", "pairwise_plan", "pointwise"]


def test_an_ai_only_set_round_trips_and_keeps_both_generators(tmp_path: Path) -> None:
    """The release excerpt's AI-only pairs: JSONL -> DatasetDict -> parquet -> JSONL, byte for byte."""
    from judgeaudit.data.convert.novelty_judge_bench import convert_strict

    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "novelty_judge_bench" / "published"
    [claude] = [f for f in convert_strict(fixture).files if f.set_path == "ai_only/claude"]
    hf.write_jsonl_set({"pairwise": claude.items}, tmp_path / "set")
    back = hf.read_parquet(
        hf.to_parquet(hf.to_dataset_dict(tmp_path / "set"), tmp_path / "pq")["pairwise"].parent
    )
    assert {p.setup for p in back["pairwise"]} == {"ai_only"}
    assert {(p.idea_a.generator, p.idea_b.generator) for p in back["pairwise"]} >= {
        ("claude-opus-4-5", "claude-sonnet-4-5")
    }
    hf.write_jsonl_set(back, tmp_path / "again")
    assert _jsonl_bytes(tmp_path / "again") == _jsonl_bytes(tmp_path / "set")
