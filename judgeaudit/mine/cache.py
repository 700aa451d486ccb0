"""Read a raw OpenReview cache (`notes-*.jsonl.gz`, API v2 notes) as a stream of valid, de-duplicated notes.

Two streaming passes keep memory small: the first finds, for every note id, the occurrence with
the latest `mdate` (ties: the later occurrence in file order, since a re-fetch appends); the
second yields only those winners. Truncated gzip members, corrupt or non-object lines, notes
without an id or without content and the losing copies of duplicated notes are counted skips.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judgeaudit.mine.summary import RunSummary

STAGE = "cache"
PATTERN = "notes-*.jsonl.gz"


class CacheError(ValueError):
    """The cache directory cannot be read at all (missing, empty, not a raw cache)."""


@dataclass(frozen=True)
class Located:
    """One note with the file and line it came from."""

    file: str
    line: int
    note: dict[str, Any]

    @property
    def where(self) -> str:
        """`file:line` for messages."""
        return f"{self.file}:{self.line}"


def cache_files(cache_dir: str | Path) -> list[Path]:
    """The cache's note files in name order; CacheError naming the directory if there are none."""
    root = Path(cache_dir)
    if not root.exists():
        raise CacheError(f"raw cache directory {root} does not exist")
    if not root.is_dir():
        raise CacheError(f"raw cache path {root} is not a directory")
    files = sorted(root.glob(PATTERN))
    if not files:
        raise CacheError(f"no {PATTERN} files in {root}: not a raw OpenReview cache (fetch first, or check --source)")
    return files


def cache_hash(cache_dir: str | Path) -> str:
    """SHA-256 over the names and bytes of the cache's note files (the snapshot hash)."""
    h = hashlib.sha256()
    for path in cache_files(cache_dir):
        h.update(path.name.encode() + b"\0")
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
    return h.hexdigest()


def _raw_lines(path: Path, summary: RunSummary | None) -> Iterator[tuple[int, bytes]]:
    number = 0
    try:
        with gzip.open(path, "rb") as fh:
            for number, raw in enumerate(fh, start=1):  # noqa: B007
                yield number, raw
    except (EOFError, OSError, zlib.error) as exc:
        if summary is not None:
            summary.skip(STAGE, f"unreadable rest of gzip file ({type(exc).__name__}: {exc})",
                         f"{path.name}:{number + 1}")


def _decode(raw: bytes) -> tuple[dict[str, Any] | None, str]:
    text = raw.strip()
    if not text:
        return None, "blank line"
    try:
        note = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        if not raw.endswith(b"\n"):
            return None, "truncated line (no newline, JSON ends early)"
        return None, f"invalid JSON ({type(exc).__name__})"
    if not isinstance(note, dict):
        return None, "line is not a JSON object"
    if not isinstance(note.get("id"), str) or not note["id"]:
        return None, "note without an id"
    content = note.get("content")
    if not isinstance(content, dict) or not content:
        return None, "note without content"
    return note, ""


def _mdate(note: dict[str, Any]) -> int:
    for key in ("mdate", "tmdate", "cdate", "tcdate"):
        value = note.get(key)
        if isinstance(value, int | float):
            return int(value)
    return 0


def iter_notes(cache_dir: str | Path, summary: RunSummary | None = None) -> Iterator[Located]:
    """Yield every valid note once (latest `mdate` wins), in file order; skips go to `summary`."""
    files = cache_files(cache_dir)
    # Pass 1: the winning occurrence per id (decode errors are counted in pass 2 only).
    best: dict[str, tuple[int, int, int]] = {}
    for fi, path in enumerate(files):
        for number, raw in _raw_lines(path, None):
            note, _ = _decode(raw)
            if note is None:
                continue
            key = (_mdate(note), fi, number)
            prev = best.get(note["id"])
            if prev is None or key >= prev:
                best[note["id"]] = key
    # Pass 2: yield winners, count everything else.
    for fi, path in enumerate(files):
        for number, raw in _raw_lines(path, summary):
            where = f"{path.name}:{number}"
            note, reason = _decode(raw)
            if note is None:
                if summary is not None:
                    summary.skip(STAGE, reason, where)
                continue
            _, bfi, bnum = best[note["id"]]
            if (bfi, bnum) != (fi, number):
                if summary is not None:
                    summary.skip(STAGE, "duplicate note id (an occurrence with a later mdate is kept)", where)
                continue
            yield Located(path.name, number, note)
