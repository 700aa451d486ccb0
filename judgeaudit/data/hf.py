"""Contract items <-> Hugging Face `datasets` (explicit Features, save_to_disk, parquet)."""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from judgeaudit.data.contract import Item, PairItem, PointItem
from judgeaudit.data.jsonl import read_items, write_items
from judgeaudit.data.validate import ContractError, Kind, Problem, parse_item
from judgeaudit.files import atomic_open

# Annotations name the HF types as Any: at the repository root the top-level `datasets/`
# folder (our bundled sets) shadows the Hugging Face library for mypy and `python -m`.
HFDataset = Any
HFDatasetDict = Any
HFFeatures = Any

SPLIT_STEMS: tuple[str, ...] = ("pairwise", "pointwise", "pairwise_plan", "pointwise_plan")


def hf_datasets() -> ModuleType:
    """The Hugging Face `datasets` module (imported lazily: it is slow to import)."""
    return importlib.import_module("datasets")


def _idea_features() -> dict[str, Any]:
    hfd = hf_datasets()
    Seq, Value = hfd.Sequence, hfd.Value

    return {
        "idea_id": Value("string"),
        "text": Value("string"),
        "format": Value("string"),
        "source": Value("string"),
        "area": Value("string"),
        "label": Value("string"),
        "generator": Value("string"),
        "title": Value("string"),
        "evidence": {
            "rating_mean": Value("float64"),
            "contribution_mean": Value("float64"),
            "review_count": Value("int64"),
            "positive_signals": Seq(Value("string")),
            "negative_signals": Seq(Value("string")),
            "similar_papers": Seq(Value("string")),
        },
        "original_text": Value("string"),
        "provenance": {
            "dataset": Value("string"),
            "source_id": Value("string"),
            "forum": Value("string"),
        },
    }


def pair_features() -> HFFeatures:
    """Explicit Features of a pairwise row (nullable strings/numbers, lists of strings)."""
    hfd = hf_datasets()
    Features, Value = hfd.Features, hfd.Value

    return Features(
        {
            "pair_id": Value("string"),
            "setup": Value("string"),
            "area": Value("string"),
            "idea_a": _idea_features(),
            "idea_b": _idea_features(),
            "gold": Value("string"),
        }
    )


def point_features() -> HFFeatures:
    """Explicit Features of a pointwise row."""
    hfd = hf_datasets()
    Features, Value = hfd.Features, hfd.Value

    return Features(
        {
            "item_id": Value("string"),
            "setup": Value("string"),
            "idea": _idea_features(),
            "gold": Value("string"),
        }
    )


def features_for(kind: Kind) -> HFFeatures:
    """The Features of one item kind."""
    return pair_features() if kind == "pairwise" else point_features()


def split_kind(split: str) -> Kind:
    """Item kind of a split/file stem such as `pairwise_plan` (ValueError if neither)."""
    if split.startswith("pairwise"):
        return "pairwise"
    if split.startswith("pointwise"):
        return "pointwise"
    raise ValueError(f"split {split!r} is neither pairwise* nor pointwise*")


def items_to_dataset(items: Sequence[Item], kind: Kind | None = None) -> HFDataset:
    """One `datasets.Dataset` of same-kind items, with the explicit Features."""
    if kind is None:
        if not items:
            raise ValueError("cannot tell the kind of an empty item list; pass kind")
        kind = "pairwise" if isinstance(items[0], PairItem) else "pointwise"
    want = PairItem if kind == "pairwise" else PointItem
    wrong = [i for i, item in enumerate(items) if not isinstance(item, want)]
    if wrong:
        raise TypeError(
            f"{kind} dataset got {len(wrong)} item(s) of another kind (first at index {wrong[0]})"
        )
    import pyarrow as pa

    hfd = hf_datasets()
    features = features_for(kind)
    # an Arrow table built against the Features' schema is ~7x faster than Dataset.from_list
    table = pa.Table.from_pylist([item.to_dict() for item in items], schema=features.arrow_schema)
    return hfd.Dataset(table, info=hfd.DatasetInfo(features=features))


def _group(items: Sequence[Item]) -> dict[str, list[Item]]:
    groups: dict[str, list[Item]] = {}
    for item in items:
        kind = "pairwise" if isinstance(item, PairItem) else "pointwise"
        plan = (
            item.idea_a.format == "plan"
            if isinstance(item, PairItem)
            else item.idea.format == "plan"
        )
        groups.setdefault(kind + ("_plan" if plan else ""), []).append(item)
    return groups


def to_dataset_dict(
    source: str | Path | Mapping[str, Sequence[Item]] | Sequence[Item],
) -> HFDatasetDict:
    """A DatasetDict with one split per file: from a set directory, a split->items map, or items."""
    DatasetDict = hf_datasets().DatasetDict

    splits: Mapping[str, Sequence[Item]]
    if isinstance(source, str | Path):
        set_dir = Path(source)
        paths = sorted(
            p for p in set_dir.glob("*.jsonl") if p.name.startswith(("pairwise", "pointwise"))
        )
        if not paths:
            raise FileNotFoundError(f"no pairwise*/pointwise* JSONL files in {set_dir}")
        splits = {p.stem: read_items(p, split_kind(p.stem)) for p in paths}
    elif isinstance(source, Mapping):
        splits = source
    else:
        splits = _group(source)
    return DatasetDict(
        {name: items_to_dataset(list(items), split_kind(name)) for name, items in splits.items()}
    )


def dataset_to_items(ds: HFDataset, kind: Kind, name: str = "<dataset>") -> list[Item]:
    """Contract items from a Dataset's rows, validated like JSONL (row numbers start at 1)."""
    items: list[Item] = []
    problems: list[Problem] = []
    for number, row in enumerate(ds.to_list(), start=1):
        item, row_problems = parse_item(row, kind, name, number)
        problems.extend(row_problems)
        if item is not None:
            items.append(item)
    if problems:
        raise ContractError(problems)
    return items


def dataset_dict_to_items(dd: HFDatasetDict) -> dict[str, list[Item]]:
    """Split name -> contract items (strict)."""
    return {
        name: dataset_to_items(ds, split_kind(name), f"split {name}") for name, ds in dd.items()
    }


def save_to_disk(dd: HFDatasetDict, path: str | Path) -> Path:
    """Save with `DatasetDict.save_to_disk`; return the directory."""
    out = Path(path)
    dd.save_to_disk(str(out))
    return out


def load_from_disk(path: str | Path) -> dict[str, list[Item]]:
    """Items of every split of a `save_to_disk` directory."""
    hfd = hf_datasets()
    DatasetDict, hf_load = hfd.DatasetDict, hfd.load_from_disk

    loaded = hf_load(str(path))
    if not isinstance(loaded, DatasetDict):
        raise ValueError(f"{path} holds a single Dataset, expected a DatasetDict with named splits")
    return dataset_dict_to_items(loaded)


def to_parquet(dd: HFDatasetDict, out_dir: str | Path) -> dict[str, Path]:
    """One `<split>.parquet` per split (Features kept in the parquet schema metadata)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths: dict[str, Path] = {}
    for name, ds in dd.items():
        path = out / f"{name}.parquet"
        with atomic_open(path, "wb") as fh:
            ds.to_parquet(fh)
        paths[name] = path
    return paths


def read_parquet_dataset(path: str | Path) -> HFDataset:
    """A Dataset read from one of our parquet files with its explicit Features."""
    import pyarrow.parquet as pq

    hfd = hf_datasets()
    p = Path(path)
    features = features_for(split_kind(p.stem))
    # read directly (no copy into the HF cache); a schema mismatch raises here, naming the file
    try:
        table = pq.read_table(p).cast(features.arrow_schema)
    except (
        ValueError,
        TypeError,
    ) as exc:  # pyarrow's ArrowInvalid/ArrowTypeError derive from these
        raise ValueError(
            f"{p}: parquet columns do not match the judgeaudit features: {exc}"
        ) from exc
    return hfd.Dataset(table, info=hfd.DatasetInfo(features=features))


def read_parquet(out_dir: str | Path) -> dict[str, list[Item]]:
    """Items of every `<split>.parquet` in a directory."""
    paths = sorted(Path(out_dir).glob("*.parquet"))
    if not paths:
        raise FileNotFoundError(f"no *.parquet files in {out_dir}")
    return {
        p.stem: dataset_to_items(read_parquet_dataset(p), split_kind(p.stem), str(p)) for p in paths
    }


def write_jsonl_set(splits: Mapping[str, Sequence[Item]], set_dir: str | Path) -> dict[str, Path]:
    """Write each split as `<split>.jsonl` in canonical form; return the paths."""
    out = Path(set_dir)
    paths = {name: out / f"{name}.jsonl" for name in splits}
    for name, items in splits.items():
        write_items(paths[name], items)
    return paths
