"""Crash-safe file writes (temporary sibling, fsync, rename) and locked, manifest-last output directories."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, Any

from judgeaudit.errors import UserError


@contextmanager
def atomic_open(path: str | Path, mode: str = "w", encoding: str | None = "utf-8") -> Iterator[IO]:
    """Open a temp file next to `path`; on success rename it over `path`, on error delete it."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    # mkstemp creates 0600; give the final file the usual permissions (0666 minus umask).
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)
    try:
        binary = "b" in mode
        with os.fdopen(
            fd, mode, encoding=None if binary else encoding, newline=None if binary else "\n"
        ) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_text(path: str | Path, text: str) -> None:
    """Write `text` to `path` atomically (UTF-8, LF newlines)."""
    with atomic_open(path, "w") as fh:
        fh.write(text)


def sha256_file(path: str | Path) -> str:
    """Hex SHA-256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


# --- output directories: one writer at a time, outputs moved into place manifest-last -------------

LOCK_NAME = ".judgeaudit.lock"
STAGING_PREFIX = ".staging-"
LOCK_WAIT_ENV = "JUDGEAUDIT_LOCK_WAIT"
LOCK_WAIT_SECONDS = 60.0
# Temporary names this package writes (atomic_open: `.<name>.<random>.tmp`; older figure writes:
# `.<name>.<random>.png|svg`): a killed run may leave them behind.
_TEMP_NAME = re.compile(r"^\..+\.[A-Za-z0-9_]{8}\.(tmp|png|svg)$")


class OutputDirError(UserError, ValueError):
    """An output directory that cannot be written (a file in its place, a bad lock setting)."""


class OutputBusyError(OutputDirError):
    """Another run holds the lock of an output directory."""


def lock_wait_seconds() -> float:
    """How long a run waits for another run's lock on its output directory (env JUDGEAUDIT_LOCK_WAIT, default 60 s)."""
    value = os.environ.get(LOCK_WAIT_ENV)
    if value is None:
        return LOCK_WAIT_SECONDS
    try:
        return max(float(value), 0.0)
    except ValueError:
        raise OutputDirError(f"{LOCK_WAIT_ENV}={value!r} is not a number of seconds") from None


def clean_leftovers(out_dir: str | Path) -> list[Path]:
    """Remove what a killed run left in `out_dir`: staging directories and hidden temporary files."""
    out = Path(out_dir)
    removed: list[Path] = []
    if not out.is_dir():
        return removed
    for entry in out.iterdir():
        if entry.is_dir() and entry.name.startswith(STAGING_PREFIX):
            shutil.rmtree(entry, ignore_errors=True)
            removed.append(entry)
        elif entry.is_file() and _TEMP_NAME.match(entry.name):
            entry.unlink(missing_ok=True)
            removed.append(entry)
    return removed


@contextmanager
def locked_output_dir(out_dir: str | Path, what: str = "--out") -> Iterator[Path]:
    """Hold `out_dir`'s lock (waiting up to `lock_wait_seconds()`), clean a killed run's leftovers, yield the dir.

    A second run on the same directory waits for the first; when the wait runs out it fails
    with one line (OutputBusyError) naming the directory. The lock file exists only while held.
    """
    from filelock import FileLock, Timeout

    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise OutputDirError(f"{what} {str(out)!r} is a file, not a directory")
    out.mkdir(parents=True, exist_ok=True)
    wait = lock_wait_seconds()
    lock = FileLock(str(out / LOCK_NAME), timeout=wait, thread_local=False, is_singleton=False)
    try:
        lock.acquire()
    except Timeout:
        raise OutputBusyError(
            f"{what} {str(out)!r} is being written by another run (waited {wait:g} s, {LOCK_WAIT_ENV} sets the wait); "
            "let it finish or choose another directory"
        ) from None
    try:
        clean_leftovers(out)
        yield out
    finally:
        # Remove the lock file while still holding it, then release: a run already waiting on this
        # file then locks an unlinked file, which filelock (4.0 on) detects and retries on a fresh
        # one, so no two runs ever hold the directory at once and no lock file stays behind.
        with suppress(OSError):
            (out / LOCK_NAME).unlink()
        lock.release()


def _files_under(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file())


@contextmanager
def staged_outputs(out_dir: str | Path, manifest: str) -> Iterator[Path]:
    """Yield a hidden staging directory inside `out_dir`; on success move its files into `out_dir`.

    The old `manifest` (e.g. report.json) is removed first and the new one moved in last, so
    a manifest on disk always lists files of the same run; files the old manifest's run wrote
    and this run does not are removed. On error the staging directory is deleted and
    `out_dir` keeps its previous outputs. Hold `locked_output_dir(out_dir)` around it.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=out))
    try:
        yield staging
        new = _files_under(staging)
        if not (staging / manifest).is_file():
            raise FileNotFoundError(f"staged outputs in {staging} lack their manifest {manifest}")
        previous = _previous_outputs(out, manifest)
        (out / manifest).unlink(missing_ok=True)
        keep = {out / p.relative_to(staging) for p in new}
        for stale in previous - keep:
            stale.unlink(missing_ok=True)
        for path in new:
            if path.name == manifest and path.parent == staging:
                continue
            target = out / path.relative_to(staging)
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(path, target)
        os.replace(staging / manifest, out / manifest)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _previous_outputs(out: Path, manifest: str) -> set[Path]:
    """Files inside `out` that the previous manifest (a JSON file of nested path strings) lists."""
    path = out / manifest
    if not path.is_file():
        return set()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError):
        return set()
    found: set[Path] = set()

    def walk(obj: object) -> None:
        if isinstance(obj, dict):
            for v in obj.values():
                walk(v)
        elif isinstance(obj, list):
            for v in obj:
                walk(v)
        elif isinstance(obj, str) and obj:
            p = Path(obj)
            p = p if p.is_absolute() else out / p
            if p.parent.resolve() == out.resolve() and p.name != manifest and p.is_file():
                found.add(p)

    walk(data.get("files", {}) if isinstance(data, dict) else {})
    return found


def relocate_paths(obj: Any, staging: Path, out: Path) -> Any:
    """`obj` (nested dicts/lists of path strings) with paths under `staging` rewritten to `out`."""
    if isinstance(obj, dict):
        return {k: relocate_paths(v, staging, out) for k, v in obj.items()}
    if isinstance(obj, list):
        return [relocate_paths(v, staging, out) for v in obj]
    if isinstance(obj, str) and obj.startswith(str(staging)):
        return str(out / Path(obj).relative_to(staging))
    return obj
