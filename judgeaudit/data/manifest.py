"""The set manifest: per-file counts, content hashes, source snapshot and build command."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from judgeaudit import __version__
from judgeaudit.data.contract import Item, PairItem, item_ideas
from judgeaudit.data.jsonl import check_file
from judgeaudit.data.labelled import check_labelled_file, is_labelled_file, labelled_stats
from judgeaudit.data.validate import ContractError, Problem
from judgeaudit.files import atomic_write_text, sha256_file

MANIFEST_NAME = "manifest.json"
MANIFEST_VERSION = 1


def _sorted_counts(counter: Counter[str]) -> dict[str, int]:
    return {key: counter[key] for key in sorted(counter)}


def file_stats(items: list[Item]) -> dict[str, Any]:
    """Counts of one file's items: total, by area, by gold, by setup, and of the ideas inside."""
    ideas = [idea for item in items for idea in item_ideas(item)]
    return {
        "kind": "pairwise" if items and isinstance(items[0], PairItem) else "pointwise",
        "items": len(items),
        "by_area": _sorted_counts(Counter(item.area for item in items)),
        "by_gold": _sorted_counts(Counter(item.gold for item in items)),
        "by_setup": _sorted_counts(Counter(item.setup for item in items)),
        "ideas": {
            "total": len(ideas),
            "unique": len({idea.idea_id for idea in ideas}),
            "by_label": _sorted_counts(Counter(idea.label for idea in ideas)),
            "by_source": _sorted_counts(Counter(idea.source for idea in ideas)),
            "by_format": _sorted_counts(Counter(idea.format for idea in ideas)),
            "by_generator": _sorted_counts(
                Counter(idea.generator for idea in ideas if idea.generator)
            ),
        },
    }


def build_manifest(
    set_dir: Path,
    *,
    source: dict[str, Any],
    command: str,
    extra: dict[str, Any] | None = None,
    name: str | None = None,
) -> dict[str, Any]:
    """The manifest dict for a set directory; raises ContractError if any JSONL file is broken.

    `name` is the set's name (default: the directory's), for a set built in a staging directory.
    """
    set_dir = Path(set_dir)
    paths = sorted(set_dir.glob("*.jsonl"))
    if not paths:
        raise ContractError([Problem(str(set_dir), 0, "", "no *.jsonl files in the set directory")])
    files: dict[str, Any] = {}
    problems: list[Problem] = []
    for path in paths:
        stats: dict[str, Any]
        if is_labelled_file(path):
            rows, file_problems = check_labelled_file(path)
            stats = labelled_stats(rows)
        else:
            items, file_problems = check_file(path)
            stats = file_stats(items)
        problems.extend(file_problems)
        stats["sha256"] = sha256_file(path)
        stats["bytes"] = path.stat().st_size
        files[path.name] = stats
    if problems:
        raise ContractError(problems)

    manifest: dict[str, Any] = {
        "manifest_version": MANIFEST_VERSION,
        "name": name or set_dir.name,
        "judgeaudit_version": __version__,
        "build_command": command,
        "source": source,
        "files": files,
    }
    if extra:
        clash = set(extra) & set(manifest)
        if clash:
            raise ValueError(f"extra manifest keys clash with reserved keys: {sorted(clash)}")
        manifest.update(extra)
    return manifest


def write_manifest(
    set_dir: Path,
    *,
    source: dict[str, Any],
    command: str,
    extra: dict[str, Any] | None = None,
    name: str | None = None,
) -> Path:
    """Write `manifest.json` for every `*.jsonl` in `set_dir` atomically; return its path."""
    manifest = build_manifest(set_dir, source=source, command=command, extra=extra, name=name)
    path = Path(set_dir) / MANIFEST_NAME
    atomic_write_text(
        path, json.dumps(manifest, indent=2, ensure_ascii=False, sort_keys=False) + "\n"
    )
    return path


def read_manifest(set_dir: Path) -> dict[str, Any]:
    """The parsed `manifest.json` of a set directory (FileNotFoundError if absent)."""
    path = Path(set_dir) / MANIFEST_NAME
    return dict(json.loads(path.read_text(encoding="utf-8")))


def verify_manifest(set_dir: Path) -> list[Problem]:
    """Problems where the set's files disagree with its manifest (hashes, missing/unlisted files)."""
    set_dir = Path(set_dir)
    mpath = set_dir / MANIFEST_NAME
    try:
        manifest = read_manifest(set_dir)
    except FileNotFoundError:
        return [Problem(str(mpath), 0, "", "no manifest.json in the set directory")]
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        return [Problem(str(mpath), 0, "", f"manifest is not valid JSON: {exc}")]
    files = manifest.get("files")
    if not isinstance(files, dict):
        return [Problem(str(mpath), 0, "files", "manifest has no 'files' object")]
    problems: list[Problem] = []
    present = {p.name for p in set_dir.glob("*.jsonl")}
    for name in sorted(set(files) | present):
        if name not in files:
            problems.append(
                Problem(
                    str(mpath), 0, f"files.{name}", "file present but not listed in the manifest"
                )
            )
        elif name not in present:
            problems.append(
                Problem(str(mpath), 0, f"files.{name}", "listed in the manifest but missing")
            )
        elif sha256_file(set_dir / name) != files[name].get("sha256"):
            problems.append(
                Problem(
                    str(mpath),
                    0,
                    f"files.{name}.sha256",
                    "content hash differs from the manifest (file changed after the build)",
                )
            )
    return problems
