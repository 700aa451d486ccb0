"""The dataset card: README.md with a Hugging Face YAML header (license, configs, sizes)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from judgeaudit.data.manifest import MANIFEST_NAME, read_manifest
from judgeaudit.data.validate import Problem
from judgeaudit.files import atomic_write_text

CARD_NAME = "README.md"
DEFAULT_LICENSE = "cc-by-4.0"  # OpenReview reviews and abstracts are published under CC BY 4.0
DEFAULT_TAGS: tuple[str, ...] = (
    "novelty",
    "llm-as-a-judge",
    "peer-review",
    "openreview",
    "judgeaudit",
)
SPLIT = "test"  # every file is an evaluation set; one config per file, one split each

_FIELDS_TEXT = """\
Every line is one JSON object. Pairwise files hold `pair_id`, `setup` (`human_only` |
`human_generated` | `ai_only`), `area`, `idea_a`, `idea_b` and `gold` (`a` | `b`: the more novel idea).
Pointwise files hold `item_id`, `setup`, `idea` and `gold` (`novel` | `not_novel`).
An idea has `idea_id`, `text`, `format` (`abstract` | `plan`), `source` (`human` |
`generated`), `generator` (model id or null), `area`, `title` (may be null), `label`,
`evidence` (`rating_mean`, `contribution_mean`, `review_count`, `positive_signals`,
`negative_signals`, `similar_papers`), `original_text` (may be null) and `provenance`
(`dataset`, `source_id`, `forum`). Check a file with `judgeaudit validate PATH`.
"""


def size_category(n: int) -> str:
    """The Hugging Face `size_categories` bucket for n rows."""
    bounds = [
        (1_000, "n<1K"),
        (10_000, "1K<n<10K"),
        (100_000, "10K<n<100K"),
        (1_000_000, "100K<n<1M"),
        (10_000_000, "1M<n<10M"),
    ]
    for bound, label in bounds:
        if n < bound:
            return label
    return "n>10M"


def card_header(
    set_dir: Path,
    *,
    pretty_name: str,
    license: str = DEFAULT_LICENSE,
    tags: tuple[str, ...] = DEFAULT_TAGS,
) -> dict[str, Any]:
    """The YAML header dict: one config per `*.jsonl` file (split `test`), sizes from line counts."""
    paths = sorted(Path(set_dir).glob("*.jsonl"))
    if not paths:
        raise FileNotFoundError(f"no *.jsonl files in {set_dir}: write the data before the card")
    configs: list[dict[str, Any]] = []
    largest = 0
    for index, path in enumerate(paths):
        with path.open("rb") as fh:
            largest = max(largest, sum(1 for line in fh if line.strip()))
        config: dict[str, Any] = {
            "config_name": path.stem,
            "data_files": [{"split": SPLIT, "path": path.name}],
        }
        if path.stem == "pairwise" or (index == 0 and not any(p.stem == "pairwise" for p in paths)):
            config["default"] = True
        configs.append(config)
    return {
        "license": license,
        "language": ["en"],
        "pretty_name": pretty_name,
        "size_categories": [size_category(largest)],
        "task_categories": ["text-classification"],
        "tags": list(tags),
        "configs": configs,
    }


def _files_table(set_dir: Path) -> str:
    try:
        manifest = read_manifest(set_dir)
    except (FileNotFoundError, json.JSONDecodeError):
        return ""
    rows = ["| file | items | gold | setup | areas |", "|---|---|---|---|---|"]
    for name, stats in manifest.get("files", {}).items():
        gold = ", ".join(
            f"{k}: {v}" for k, v in (stats.get("by_gold") or stats.get("by_label") or {}).items()
        )
        setup = ", ".join(f"{k}: {v}" for k, v in stats.get("by_setup", {}).items())
        rows.append(
            f"| `{name}` | {stats.get('items', 0)} | {gold} | {setup} | {len(stats.get('by_area', {}))} |"
        )
    return (
        "\n".join(rows)
        + f"\n\nCounts, content hashes, source snapshot and build command: `{MANIFEST_NAME}`.\n"
    )


def render_card(
    set_dir: Path,
    *,
    pretty_name: str,
    summary: str,
    sections: dict[str, str],
    license: str = DEFAULT_LICENSE,
    tags: tuple[str, ...] = DEFAULT_TAGS,
) -> str:
    """The full README.md text: YAML header, title, summary, files table, fields, then `sections`."""
    header = card_header(set_dir, pretty_name=pretty_name, license=license, tags=tags)
    parts = [
        "---\n" + yaml.safe_dump(header, sort_keys=False, allow_unicode=True) + "---\n",
        f"# {pretty_name}\n",
        summary.strip() + "\n",
    ]
    table = _files_table(set_dir)
    if table and "Files" not in sections:
        parts.append("## Files\n\n" + table)
    if "Fields" not in sections:
        parts.append("## Fields\n\n" + _FIELDS_TEXT)
    for title, body in sections.items():
        parts.append(f"## {title}\n\n{body.strip()}\n")
    return "\n".join(parts)


def write_card(
    set_dir: Path,
    *,
    pretty_name: str,
    summary: str,
    sections: dict[str, str],
    license: str = DEFAULT_LICENSE,
    tags: tuple[str, ...] = DEFAULT_TAGS,
) -> Path:
    """Write the set's README.md dataset card atomically (write the manifest first for counts)."""
    text = render_card(
        set_dir,
        pretty_name=pretty_name,
        summary=summary,
        sections=sections,
        license=license,
        tags=tags,
    )
    path = Path(set_dir) / CARD_NAME
    atomic_write_text(path, text)
    return path


def read_card_header(path: Path) -> dict[str, Any]:
    """The parsed YAML header of a dataset card (ValueError if it has none)."""
    text = Path(path).read_text(encoding="utf-8")
    if not text.startswith("---\n"):
        raise ValueError(f"{path}: dataset card has no YAML header (must start with '---')")
    end = text.find("\n---\n", 4)
    if end < 0:
        raise ValueError(f"{path}: dataset card YAML header is not closed with '---'")
    data = yaml.safe_load(text[4:end])
    if not isinstance(data, dict):
        raise ValueError(f"{path}: dataset card YAML header is not a mapping")
    return data


def verify_card(set_dir: Path) -> list[Problem]:
    """Problems with a set's card: no/invalid YAML header, configs naming missing or omitting JSONL files."""
    path = Path(set_dir) / CARD_NAME
    name = str(path)
    if not path.is_file():
        return [Problem(name, 0, "", "no README.md dataset card in the set directory")]
    try:
        header = read_card_header(path)
    except (ValueError, yaml.YAMLError, UnicodeDecodeError) as exc:
        return [Problem(name, 1, "", str(exc))]
    problems = [
        Problem(name, 1, key, "missing from the YAML header")
        for key in ("license", "configs")
        if key not in header
    ]
    listed: set[str] = set()
    for index, config in enumerate(header.get("configs") or []):
        files = config.get("data_files") if isinstance(config, dict) else None
        if not isinstance(files, list):
            problems.append(
                Problem(name, 1, f"configs.{index}.data_files", "expected a list of {split, path}")
            )
            continue
        for entry in files:
            rel = entry.get("path") if isinstance(entry, dict) else None
            if not isinstance(rel, str) or not (Path(set_dir) / rel).is_file():
                problems.append(
                    Problem(name, 1, f"configs.{index}.data_files", f"no such data file: {rel!r}")
                )
            else:
                listed.add(rel)
    for jsonl in sorted(Path(set_dir).glob("*.jsonl")):
        if jsonl.name not in listed:
            problems.append(
                Problem(name, 1, "configs", f"{jsonl.name} is not listed in any config")
            )
    problems.extend(_files_table_problems(set_dir, path))
    return problems


def _files_table_problems(set_dir: Path, path: Path) -> list[Problem]:
    """The card's *Files* table must be the one the manifest renders (a card left from another build is refused)."""
    expected = _files_table(set_dir)
    text = path.read_text(encoding="utf-8")
    start = text.find("\n## Files\n\n")
    if not expected or start < 0:
        return []
    line = text[:start].count("\n") + 2
    body = text[start + len("\n## Files\n\n") :]
    if not body.startswith(expected):
        return [
            Problem(
                str(path),
                line,
                "Files",
                f"the card's file counts disagree with {MANIFEST_NAME} (card and manifest come from different builds)",
            )
        ]
    return []
