"""Manifest and dataset card of a set directory (real files in a temp dir)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from huggingface_hub import DatasetCard

from judgeaudit.data.card import read_card_header, size_category, write_card
from judgeaudit.data.manifest import read_manifest, verify_manifest, write_manifest
from judgeaudit.data.validate import ContractError
from judgeaudit.files import sha256_file


def test_manifest_counts_and_hashes(set_dir: Path) -> None:
    path = write_manifest(
        set_dir,
        source={"snapshot": "openreview-2026-11-01", "venue": "ICLR"},
        command="judgeaudit mine --out x",
        extra={"seed": 7},
    )
    assert path == set_dir / "manifest.json"
    m = read_manifest(set_dir)
    assert set(m["files"]) == {"pairwise.jsonl", "pointwise.jsonl", "pairwise_plan.jsonl"}
    pw = m["files"]["pairwise.jsonl"]
    assert pw["items"] == 4
    assert pw["by_gold"] == {"a": 2, "b": 2}
    assert pw["by_area"] == {"learning theory": 2, "optimization": 2}
    assert pw["by_setup"] == {"human_generated": 1, "human_only": 3}
    assert pw["ideas"]["by_label"] == {"not_novel": 4, "novel": 4}
    assert pw["ideas"]["by_source"] == {"generated": 1, "human": 7}
    assert pw["ideas"]["by_generator"] == {"backbone-model": 1}
    assert pw["sha256"] == sha256_file(set_dir / "pairwise.jsonl")
    assert m["files"]["pointwise.jsonl"]["by_gold"] == {"not_novel": 2, "novel": 2}
    assert m["files"]["pairwise_plan.jsonl"]["ideas"]["by_format"] == {"plan": 4}
    assert m["source"]["snapshot"] == "openreview-2026-11-01"
    assert m["build_command"] == "judgeaudit mine --out x"
    assert m["seed"] == 7
    assert verify_manifest(set_dir) == []


def test_manifest_detects_changed_and_unlisted_files(set_dir: Path) -> None:
    write_manifest(set_dir, source={}, command="c")
    p = set_dir / "pointwise.jsonl"
    p.write_bytes(p.read_bytes().replace(b"item0", b"itemX"))
    (set_dir / "pairwise_plan.jsonl").rename(set_dir / "pointwise_plan.jsonl")
    fields = {pr.field for pr in verify_manifest(set_dir)}
    assert fields == {
        "files.pointwise.jsonl.sha256",
        "files.pairwise_plan.jsonl",
        "files.pointwise_plan.jsonl",
    }


def test_manifest_refuses_broken_set_and_keeps_old_manifest(set_dir: Path) -> None:
    write_manifest(set_dir, source={}, command="first")
    before = (set_dir / "manifest.json").read_bytes()
    with (set_dir / "pointwise.jsonl").open("a") as fh:
        fh.write('{"item_id": "broken"}\n')
    with pytest.raises(ContractError) as err:
        write_manifest(set_dir, source={}, command="second")
    assert "pointwise.jsonl:5" in str(err.value)
    assert (set_dir / "manifest.json").read_bytes() == before
    assert not [p for p in set_dir.iterdir() if p.name.endswith(".tmp")]


def test_manifest_extra_cannot_override_reserved_keys(set_dir: Path) -> None:
    with pytest.raises(ValueError, match="files"):
        write_manifest(set_dir, source={}, command="c", extra={"files": {}})


def test_card_has_valid_hf_header(set_dir: Path) -> None:
    write_manifest(set_dir, source={}, command="c")
    path = write_card(
        set_dir,
        pretty_name="Demo set",
        summary="A tiny demo.",
        sections={"Source": "Made up for tests.", "Limitations": "Tiny."},
    )
    header = read_card_header(path)
    assert header["license"] == "cc-by-4.0"
    assert header["task_categories"] == ["text-classification"]
    assert header["size_categories"] == ["n<1K"]
    configs = {c["config_name"]: c for c in header["configs"]}
    assert set(configs) == {"pairwise", "pointwise", "pairwise_plan"}
    assert configs["pairwise"]["data_files"] == [{"split": "test", "path": "pairwise.jsonl"}]
    assert configs["pairwise"].get("default") is True
    assert sum(bool(c.get("default")) for c in header["configs"]) == 1
    # huggingface_hub parses the same header (offline) into its card data model
    card = DatasetCard.load(path)
    assert card.data.license == "cc-by-4.0"
    assert card.data.pretty_name == "Demo set"
    text = path.read_text(encoding="utf-8")
    assert "## Source\n\nMade up for tests." in text
    assert "| `pairwise.jsonl` | 4 |" in text
    assert "## Fields" in text


def test_card_hf_datasets_loads_configs(set_dir: Path) -> None:
    """The card's `configs` point `datasets.load_dataset` at the right files (local, offline)."""
    import datasets

    write_card(set_dir, pretty_name="Demo", summary="s", sections={})
    ds = datasets.load_dataset(
        str(set_dir), "pointwise", split="test", cache_dir=str(set_dir.parent / "hf-cache")
    )
    assert ds.num_rows == 4
    assert json.loads(json.dumps(ds[0]["idea"]))["idea_id"] == "q0"


def test_card_needs_data(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no \\*.jsonl"):
        write_card(tmp_path, pretty_name="x", summary="y", sections={})


@pytest.mark.parametrize(
    ("n", "bucket"), [(0, "n<1K"), (999, "n<1K"), (1000, "1K<n<10K"), (20_000_000, "n>10M")]
)
def test_size_category(n: int, bucket: str) -> None:
    assert size_category(n) == bucket


def test_verify_card(set_dir: Path) -> None:
    from judgeaudit.data.card import verify_card

    assert [p.message for p in verify_card(set_dir)] == [
        "no README.md dataset card in the set directory"
    ]
    write_card(set_dir, pretty_name="Demo", summary="s", sections={})
    assert verify_card(set_dir) == []
    (set_dir / "pairwise_plan.jsonl").rename(set_dir / "pointwise_plan.jsonl")
    got = sorted((p.field, p.message) for p in verify_card(set_dir))
    assert got == [
        ("configs", "pointwise_plan.jsonl is not listed in any config"),
        ("configs.1.data_files", "no such data file: 'pairwise_plan.jsonl'"),
    ]
    (set_dir / "README.md").write_text("# no header\n", encoding="utf-8")
    assert "no YAML header" in verify_card(set_dir)[0].message
