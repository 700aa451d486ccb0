"""Read a raw OpenReview cache (`notes-*.jsonl.gz`, API v2 notes) as one streaming pass of valid notes.

Every line is accounted for: truncated gzip members, shards that are not regular files, corrupt,
non-object, too deeply nested or invalid-Unicode lines (a lone surrogate escape), notes without an
id and notes without content are counted skips with a reason. Duplicated notes (the same id more than once, e.g. an edited review
crawled twice) are resolved by `Latest`: the version with the latest `mdate` wins (ties: the later
occurrence in file order, since a re-fetch appends), every other copy is a counted skip. The
consumer (the parser) applies `Latest` while it builds its light records, so the raw notes are
never all held in memory.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import math
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

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


NOT_A_FILE = "shard is not a regular file (directory, broken link or device)"


def _shards(cache_dir: str | Path) -> tuple[list[Path], list[Path]]:
    """(regular shard files, other entries named like shards), both in name order."""
    root = Path(cache_dir)
    if not root.exists():
        raise CacheError(f"raw cache directory {root} does not exist")
    if not root.is_dir():
        raise CacheError(f"raw cache path {root} is not a directory")
    found = sorted(root.glob(PATTERN))
    files = [p for p in found if p.is_file()]
    return files, [p for p in found if p not in files]


def cache_files(cache_dir: str | Path) -> list[Path]:
    """The cache's regular note files in name order; CacheError naming the directory if there are none."""
    files, others = _shards(cache_dir)
    if not files:
        extra = f" ({len(others)} entries named like shards are not regular files)" if others else ""
        raise CacheError(f"no {PATTERN} files in {Path(cache_dir)}{extra}: not a raw OpenReview cache "
                         "(fetch first, or check --source)")
    return files


def cache_hash(cache_dir: str | Path) -> str:
    """SHA-256 over the names and bytes of the cache's note files (the snapshot hash); CacheError if one is unreadable."""
    h = hashlib.sha256()
    for path in cache_files(cache_dir):
        h.update(path.name.encode() + b"\0")
        try:
            with open(path, "rb") as fh:
                for chunk in iter(lambda: fh.read(1 << 20), b""):
                    h.update(chunk)
        except OSError as exc:
            raise CacheError(f"raw cache shard {path} cannot be read ({type(exc).__name__}: {exc.strerror or exc})") from exc
    return h.hexdigest()


def _raw_lines(path: Path, summary: RunSummary | None) -> Iterator[tuple[int, bytes]]:
    number = 0
    try:
        with gzip.open(path, "rb") as fh:
            for number, raw in enumerate(fh, start=1):  # noqa: B007
                if summary is not None:
                    summary.lines_read += 1
                yield number, raw
    except (EOFError, OSError, zlib.error) as exc:
        if summary is not None:
            summary.skip(STAGE, f"unreadable rest of gzip file ({type(exc).__name__})",
                         f"{path.name}:{number + 1}", lines=0)


MAX_FAST_BRACKETS = 512
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def _decode(raw: bytes) -> tuple[dict[str, Any] | None, str]:
    text = raw.strip()
    if not text:
        return None, "blank line"
    note = None
    # orjson is the fast path; anything it refuses (NaN, big ints, ...) gets the stdlib's verdict. Lines that
    # could nest deeply never reach orjson (it can crash the interpreter on very deep nesting).
    if text.count(b"[") + text.count(b"{") < MAX_FAST_BRACKETS:
        try:
            note = orjson.loads(text)
        except orjson.JSONDecodeError:
            note = None
    if note is not None and not _SURROGATE_ESCAPE.search(text):
        return _check_note(note)
    try:
        note = json.loads(text)
    except UnicodeDecodeError:
        return None, "line is not valid UTF-8"
    except RecursionError:
        return None, "JSON nested too deeply"
    except ValueError as exc:  # JSONDecodeError, or an integer with more digits than Python converts
        if not raw.endswith(b"\n"):
            return None, "truncated line (no newline, JSON ends early)"
        if isinstance(exc, json.JSONDecodeError):
            return None, "invalid JSON (JSONDecodeError)"
        return None, "invalid JSON (number too long to convert)"
    if _SURROGATE_ESCAPE.search(text):
        try:  # escapes of surrogates are valid JSON, but a lone one cannot be written as UTF-8
            json.dumps(note, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            return None, "invalid Unicode (a lone surrogate escape) in a string"
    return _check_note(note)


def _check_note(note: Any) -> tuple[dict[str, Any] | None, str]:
    if not isinstance(note, dict):
        return None, "line is not a JSON object"
    if not isinstance(note.get("id"), str) or not note["id"]:
        return None, "note without an id"
    content = note.get("content")
    if not isinstance(content, dict) or not content:
        return None, "note without content"
    return note, ""


MAX_TIMESTAMP = 10**15  # milliseconds; anything larger (or non-finite) is not a timestamp


def timestamp(value: Any) -> int | None:
    """A note timestamp (ms) as int, or None if it is missing, not a finite number or out of range."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if not 0 <= value <= MAX_TIMESTAMP:
        return None
    return int(value)


def _mdate(note: dict[str, Any]) -> int:
    for key in ("mdate", "tmdate", "cdate", "tcdate"):
        value = timestamp(note.get(key))
        if value is not None:
            return value
    return 0


def iter_notes(cache_dir: str | Path, summary: RunSummary | None = None) -> Iterator[Located]:
    """Yield every decodable note with content, in file order (duplicates included: see `Latest`)."""
    files, others = _shards(cache_dir)
    for path in others:
        if summary is not None:
            summary.skip(STAGE, NOT_A_FILE, path.name, lines=0)
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
