"""Read a raw OpenReview cache (`notes-*.jsonl.gz`, API v2 notes) as one streaming pass of valid notes.

Truncated gzip members, corrupt or non-object lines, notes without an id and notes without
content are counted skips. Duplicated notes (the same id more than once, e.g. an edited review
crawled twice) are resolved by `Latest`: the version with the latest `mdate` wins (ties: the later
occurrence in file order, since a re-fetch appends), every other copy is a counted skip. The
consumer (the parser) applies `Latest` while it builds its light records, so the raw notes are
never all held in memory.
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


DUPLICATE = "duplicate note id (an occurrence with a later mdate is kept)"


@dataclass(frozen=True)
class Located:
    """One note with the file (name and index in the cache) and line it came from."""

    file: str
    line: int
    note: dict[str, Any]
    file_index: int = 0

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
    """Yield every decodable note with content, in file order (duplicates included: see `Latest`)."""
    for fi, path in enumerate(cache_files(cache_dir)):
        for number, raw in _raw_lines(path, summary):
            note, reason = _decode(raw)
            if note is None:
                if summary is not None:
                    summary.skip(STAGE, reason, f"{path.name}:{number}")
                continue
            yield Located(path.name, number, note, fi)


class Latest:
    """Keeps, per note id, which occurrence is the latest version; losers are counted skips."""

    def __init__(self, summary: RunSummary | None = None) -> None:
        self.summary = summary
        self._best: dict[str, tuple[int, int, int, str]] = {}

    def offer(self, loc: Located) -> tuple[bool, str | None]:
        """(is `loc` the latest version so far, location of the version it displaces or None)."""
        key = (_mdate(loc.note), loc.file_index, loc.line, loc.where)
        note_id = loc.note["id"]
        prev = self._best.get(note_id)
        if prev is None:
            self._best[note_id] = key
            return True, None
        if key[:3] >= prev[:3]:
            self._best[note_id] = key
            self._count(prev[3])
            return True, prev[3]
        self._count(loc.where)
        return False, None

    def _count(self, where: str) -> None:
        if self.summary is not None:
            self.summary.skip(STAGE, DUPLICATE, where)


def latest_notes(cache_dir: str | Path, summary: RunSummary | None = None) -> dict[str, Located]:
    """Every note id's latest version (holds all notes in memory: for small caches and tests)."""
    latest = Latest(summary)
    out: dict[str, Located] = {}
    for loc in iter_notes(cache_dir, summary):
        accepted, _ = latest.offer(loc)
        if accepted:
            out[loc.note["id"]] = loc
    return out
