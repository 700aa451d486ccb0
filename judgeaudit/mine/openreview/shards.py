"""The OpenReview shard cache on disk: the only code that knows its file layout, its one writer and one reader.

Layout: a directory of ``notes-NN.jsonl.gz`` shards, one API v2 note JSON per line, grouped by
forum (each submission note followed by its replies). It has the shape of an offline snapshot
directory (one per venue), so a fetched cache and a snapshot are read the same
way. Beside the shards a fetch keeps ``fetch-state.json``: its checkpoint (cursors, the forums in
each shard, counts). Readers only glob ``notes-*.jsonl.gz``.

Writing (:class:`ShardWriter`, used by the fetch): after each page the touched shards are
rewritten (gzip, mtime 0, temp file + rename), then the state file is replaced atomically. The
state is the truth: on resume, forums a shard holds beyond its state entry (a crash between the
two writes) are dropped and shards the state does not know are deleted, so no note is lost or
duplicated and an interrupted fetch ends byte-identical to an uninterrupted one.

Reading (:func:`iter_notes`): one streaming pass of valid notes in which every line is accounted
for: truncated gzip members, shards that are not regular files, corrupt, non-object, too deeply
nested or invalid-Unicode lines (a lone surrogate escape), notes without an id and notes without
content are counted skips with a reason. Duplicated notes (the same id more than once, e.g. an
edited review crawled twice) are resolved by :class:`Latest`: the version with the latest
`mdate` wins (ties: the later occurrence in file order, since a re-fetch appends), every other
copy is a counted skip. The consumer (the parser) applies `Latest` while it builds its light
records, so the raw notes are never all held in memory.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import logging
import math
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from judgeaudit.files import atomic_open, atomic_write_text
from judgeaudit.mine.openreview.session import FetchError
from judgeaudit.mine.summary import RunSummary

log = logging.getLogger(__name__)

SHARD_GLOB = "notes-*.jsonl.gz"
STATE_FILE = "fetch-state.json"
STATE_FORMAT = "judgeaudit-openreview-fetch"
STATE_VERSION = 1
DEFAULT_SHARD_SIZE = 2500  # forums per shard: ~12 MB of JSON, like the shared snapshot
FINAL_GZIP_LEVEL = 6  # finished shards: ~12 MB each, like the snapshot
DRAFT_GZIP_LEVEL = 1  # the growing shard, rewritten after every page: ~4x faster to write


def shard_name(index: int) -> str:
    """File name of shard `index` (``notes-00.jsonl.gz``)."""
    return f"notes-{index:02d}.jsonl.gz"


def reply_type(note: dict[str, Any]) -> str:
    """Kind of a reply from its invitation, e.g. ``Official_Review``."""
    for invitation in note.get("invitations") or []:
        suffix = str(invitation).rsplit("/-/", 1)[-1]
        if "/-/" in str(invitation) and suffix != "Edit":
            return suffix
    return "unknown"


# --------------------------------------------------------------------------- writing (the fetch)


def _encode(note: dict[str, Any]) -> bytes:
    """One cache line: the note as UTF-8 JSON plus a newline."""
    return (json.dumps(note, ensure_ascii=False) + "\n").encode("utf-8")


def _write_shard(path: Path, lines: list[bytes], level: int) -> int:
    """Write a gzip shard atomically and deterministically (mtime 0); return its size."""
    with atomic_open(path, "wb") as raw:
        with gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="", compresslevel=level) as gz:
            for line in lines:
                gz.write(line)
    return path.stat().st_size


def _write_state(path: Path, state: dict[str, Any]) -> None:
    """Replace the checkpoint file atomically."""
    atomic_write_text(path, json.dumps(state, ensure_ascii=False, indent=1) + "\n")


# --------------------------------------------------------------------------- cache


class ShardWriter:
    """The on-disk cache and its checkpoint; the state file is the source of truth."""

    def __init__(self, cache_dir: Path, state: dict[str, Any], resumed: bool) -> None:
        self.dir = cache_dir
        self.state = state
        self.resumed = resumed
        self.forum_ids: set[str] = {f for shard in state["shards"] for f in shard["forums"]}
        self._lines: dict[int, list[bytes]] = {}
        self._dirty: set[int] = set()

    @classmethod
    def open(cls, cache_dir: Path, venue_id: str, baseurl: str, shard_size: int) -> ShardWriter:
        """Load (and repair after a crash) or start the cache in `cache_dir`."""
        cache_dir.mkdir(parents=True, exist_ok=True)
        for tmp in [*cache_dir.glob(".notes-*.tmp"), *cache_dir.glob(f".{STATE_FILE}.*.tmp")]:
            tmp.unlink(missing_ok=True)
        state_path = cache_dir / STATE_FILE
        if not state_path.exists():
            stray = sorted(p.name for p in cache_dir.glob(SHARD_GLOB))
            if stray:
                raise FetchError(
                    f"{cache_dir} holds note shards ({', '.join(stray[:3])}...) but no {STATE_FILE}: "
                    "it is not a fetch cache (a snapshot?); fetch into an empty directory"
                )
            state = {
                "format": STATE_FORMAT,
                "version": STATE_VERSION,
                "venue_id": venue_id,
                "baseurl": baseurl,
                "shard_size": shard_size,
                "streams": None,
                "shards": [],
                "counts": {
                    "submissions": 0,
                    "replies_by_type": {},
                    "duplicates_skipped": 0,
                    "duplicate_replies": 0,
                    "non_submissions_skipped": 0,
                },
                "complete": False,
            }
            return cls(cache_dir, state, resumed=False)
        try:
            state = json.loads(state_path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise FetchError(
                f"{state_path}: unreadable fetch state ({exc}); delete {cache_dir} to refetch"
            ) from None
        if state.get("format") != STATE_FORMAT or state.get("version") != STATE_VERSION:
            raise FetchError(
                f"{state_path}: not a version-{STATE_VERSION} {STATE_FORMAT} state file"
            )
        if state["venue_id"] != venue_id:
            raise FetchError(
                f"{cache_dir} is a cache of venue {state['venue_id']!r}, not {venue_id!r}"
            )
        if state["baseurl"] != baseurl:
            raise FetchError(
                f"{cache_dir} was fetched from {state['baseurl']}, not {baseurl}; use the same server "
                "or a new directory"
            )
        if state["shard_size"] != shard_size:
            log.warning(
                "%s: keeping the cache's shard size %d (asked %d)",
                cache_dir,
                state["shard_size"],
                shard_size,
            )
        cache = cls(cache_dir, state, resumed=True)
        cache._repair()
        return cache

    def _repair(self) -> None:
        """Make the files agree with the state after an interrupted run; check a complete one."""
        shards = self.state["shards"]
        complete = bool(self.state["complete"])
        listed = {s["file"] for s in shards}
        for path in sorted(self.dir.glob(SHARD_GLOB)):
            if path.name in listed:
                continue
            if complete:
                log.warning("%s is not part of the fetched cache (not in %s)", path, STATE_FILE)
            else:
                log.info("removing %s: written after the last checkpoint", path)
                path.unlink()
        for index, shard in enumerate(shards):
            path = self.dir / shard["file"]
            if not path.exists():
                raise FetchError(
                    f"{path} is listed in {STATE_FILE} but missing; delete {self.dir} to refetch"
                )
            if complete or index < len(shards) - 1:  # final shards are never rewritten
                if path.stat().st_size != shard["bytes"]:
                    raise FetchError(
                        f"{path} changed since it was written ({path.stat().st_size} bytes, "
                        f"{shard['bytes']} recorded); delete {self.dir} to refetch"
                    )
                continue
            self._load_open_shard(index, path, shard)

    def _load_open_shard(self, index: int, path: Path, shard: dict[str, Any]) -> None:
        """Load the growing shard, keeping only the forums its checkpoint lists."""
        by_forum: dict[str, list[bytes]] = {}
        try:
            with gzip.open(path, "rb") as fh:
                for line in fh:
                    forum = json.loads(line)["forum"]
                    by_forum.setdefault(forum, []).append(line)
        except (OSError, EOFError, json.JSONDecodeError, KeyError) as exc:
            raise FetchError(
                f"{path}: unreadable shard ({exc}); delete {self.dir} to refetch"
            ) from None
        missing = [f for f in shard["forums"] if f not in by_forum]
        if missing:
            raise FetchError(
                f"{path} lacks forums its checkpoint lists ({missing[:3]}); delete {self.dir} to refetch"
            )
        lines = [line for f in shard["forums"] for line in by_forum[f]]
        self._lines[index] = lines
        if len(by_forum) != len(shard["forums"]) or path.stat().st_size != shard["bytes"]:
            self._dirty.add(index)  # forums written after the last checkpoint: rewrite without them

    @property
    def forums(self) -> int:
        """Forums in the cache."""
        return len(self.forum_ids)

    def add_forum(self, notes: list[dict[str, Any]]) -> None:
        """Append one forum (submission first) to the open shard, in memory."""
        shards = self.state["shards"]
        if not shards or len(shards[-1]["forums"]) >= self.state["shard_size"]:
            if shards and len(shards) - 1 not in self._dirty:
                self._lines.pop(len(shards) - 1, None)  # full, written, final
            shards.append({"file": shard_name(len(shards)), "forums": [], "notes": 0, "bytes": 0})
            self._lines[len(shards) - 1] = []
        index = len(shards) - 1
        shards[index]["forums"].append(notes[0]["id"])
        shards[index]["notes"] += len(notes)
        self._lines[index].extend(_encode(n) for n in notes)
        self._dirty.add(index)
        self.forum_ids.add(notes[0]["id"])
        counts = self.state["counts"]
        counts["submissions"] += 1
        for reply in notes[1:]:
            kind = reply_type(reply)
            counts["replies_by_type"][kind] = counts["replies_by_type"].get(kind, 0) + 1

    def checkpoint(self, *, final: bool = False) -> None:
        """Write the touched shards, then the state (the commit point).

        A shard is compressed at ``FINAL_GZIP_LEVEL`` once it is full (or, with `final`, when the
        fetch completes) and at the cheap ``DRAFT_GZIP_LEVEL`` while it is still growing, so the
        rewrites of the open shard cost little and the finished files do not depend on where a
        run was interrupted.
        """
        shards = self.state["shards"]
        last = len(shards) - 1
        size = self.state["shard_size"]
        if final and shards and len(shards[last]["forums"]) < size:
            self._dirty.add(last)
        for index in sorted(self._dirty):
            shard = shards[index]
            done = final or len(shard["forums"]) >= size
            level = FINAL_GZIP_LEVEL if done else DRAFT_GZIP_LEVEL
            shard["bytes"] = _write_shard(self.dir / shard["file"], self._lines[index], level)
            if index < last:
                del self._lines[index]  # full and final: no longer needed in memory
        self._dirty.clear()
        _write_state(self.dir / STATE_FILE, self.state)


def read_state(cache_dir: Path) -> dict[str, Any] | None:
    """The fetch state recorded beside a cache's shards, or None when there is none (a snapshot)."""
    path = Path(cache_dir) / STATE_FILE
    if not path.exists():
        return None
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise FetchError(f"{path}: unreadable fetch state ({exc})") from None
    if state.get("format") != STATE_FORMAT:
        raise FetchError(f"{path}: not a {STATE_FORMAT} state file")
    return dict(state)


# --------------------------------------------------------------------------- reading (the miner)

STAGE = "cache"


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
    found = sorted(root.glob(SHARD_GLOB))
    files = [p for p in found if p.is_file()]
    return files, [p for p in found if p not in files]


def cache_files(cache_dir: str | Path) -> list[Path]:
    """The cache's regular note files in name order; CacheError naming the directory if there are none."""
    files, others = _shards(cache_dir)
    if not files:
        extra = (
            f" ({len(others)} entries named like shards are not regular files)" if others else ""
        )
        raise CacheError(
            f"no {SHARD_GLOB} files in {Path(cache_dir)}{extra}: not a raw OpenReview cache "
            "(fetch first, or check --source)"
        )
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
            raise CacheError(
                f"raw cache shard {path} cannot be read ({type(exc).__name__}: {exc.strerror or exc})"
            ) from exc
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
            summary.skip(
                STAGE,
                f"unreadable rest of gzip file ({type(exc).__name__})",
                f"{path.name}:{number + 1}",
                lines=0,
            )


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
    except (
        ValueError
    ) as exc:  # JSONDecodeError, or an integer with more digits than Python converts
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


def version_time(note: dict[str, Any]) -> int:
    """When this version of a note was written (ms): its mdate, else tmdate, cdate or tcdate; 0 if none is usable."""
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
        key = (version_time(loc.note), loc.file_index, loc.line, loc.where)
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
