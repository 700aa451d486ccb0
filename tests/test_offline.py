"""`mockllm/model` works with networking impossible and no user set-up (judgeaudit/offline.py).

The proof runs the real commands (`inspect eval`, `judgeaudit mine generate`) in a child
process whose sockets cannot reach the network (a `sitecustomize` guard: only loopback
connects are allowed), with TIKTOKEN_CACHE_DIR unset and a fresh TMPDIR (tiktoken's default
download cache), and mockllm's outputs unscripted (so no output carries `usage`).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai.log import list_eval_logs, read_eval_log

from judgeaudit import offline

GUARD = """\
import socket

_LOOPBACK = ("127.0.0.1", "::1", "localhost")
_connect, _connect_ex, _getaddrinfo = socket.socket.connect, socket.socket.connect_ex, socket.getaddrinfo


def _check(sock, address):
    if sock.family in (socket.AF_INET, socket.AF_INET6) and address[0] not in _LOOPBACK:
        raise OSError(f"network disabled by the offline test (connect to {address[0]})")


def connect(self, address):
    _check(self, address)
    return _connect(self, address)


def connect_ex(self, address):
    _check(self, address)
    return _connect_ex(self, address)


def getaddrinfo(host, *args, **kwargs):
    if host not in _LOOPBACK and host is not None:
        raise socket.gaierror(f"network disabled by the offline test (lookup of {host})")
    return _getaddrinfo(host, *args, **kwargs)


socket.socket.connect, socket.socket.connect_ex, socket.getaddrinfo = connect, connect_ex, getaddrinfo
"""


@pytest.fixture
def offline_env(tmp_path: Path) -> dict[str, str]:
    """Environment of a child process that cannot reach the network and has no tiktoken set-up."""
    guard_dir = tmp_path / "guard"
    guard_dir.mkdir()
    (guard_dir / "sitecustomize.py").write_text(GUARD, encoding="utf-8")
    fresh_tmp = tmp_path / "tmp"
    fresh_tmp.mkdir()
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("TIKTOKEN_CACHE_DIR", "CUSTOM_TIKTOKEN_CACHE_DIR")
    }
    env.update(PYTHONPATH=str(guard_dir), TMPDIR=str(fresh_tmp), NO_COLOR="1")
    return env


def _run(argv: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=300)


def test_the_guard_blocks_the_network(offline_env: dict[str, str], tmp_path: Path) -> None:
    probe = "import urllib.request; urllib.request.urlopen('https://openaipublic.blob.core.windows.net', timeout=5)"
    done = _run([sys.executable, "-c", probe], offline_env, tmp_path)
    assert done.returncode != 0 and "network disabled by the offline test" in done.stderr


def test_inspect_eval_with_mockllm_runs_offline(
    offline_env: dict[str, str], tmp_path: Path
) -> None:
    logs = tmp_path / "logs"
    done = _run(
        [
            sys.executable,
            "-m",
            "inspect_ai",
            "eval",
            "judgeaudit/novelty_pairwise",
            "--model",
            "mockllm/model",
            "--limit",
            "2",
            "--log-dir",
            str(logs),
            "--display",
            "none",
            "--log-format",
            "json",
        ],
        offline_env,
        tmp_path,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    [info] = list_eval_logs(str(logs))
    log = read_eval_log(info)
    assert log.status == "success", log.error
    assert log.samples and len(log.samples) == 2
    assert all(s.error is None for s in log.samples), [
        s.error.message for s in log.samples if s.error
    ]
    assert all(
        s.output.usage is not None for s in log.samples
    )  # mockllm counted the tokens offline


def test_mine_generate_with_mockllm_runs_offline(
    offline_env: dict[str, str], tmp_path: Path
) -> None:
    done = _run(
        [
            sys.executable,
            "-m",
            "judgeaudit.cli",
            "mine",
            "generate",
            "--model",
            "mockllm/model",
            "--limit",
            "1",
            "--out",
            str(tmp_path / "out"),
            "--cache",
            str(tmp_path / "cache"),
            "--no-progress",
        ],
        offline_env,
        tmp_path,
    )
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    assert "network disabled" not in done.stderr + done.stdout
    assert "model calls: " in done.stdout or "no pair could be generated" in done.stderr, (
        done.stderr
    )


def test_user_setting_is_kept(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(offline, "_applied", False)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    offline.apply_offline_defaults()
    assert os.environ["TIKTOKEN_CACHE_DIR"] == str(tmp_path)


def test_unset_points_at_litellms_bundled_tokenizers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(offline, "_applied", False)
    monkeypatch.delenv("TIKTOKEN_CACHE_DIR", raising=False)
    offline.apply_offline_defaults()
    path = Path(os.environ["TIKTOKEN_CACHE_DIR"])
    assert path == offline.litellm_tokenizer_dir() and path.is_dir() and any(path.iterdir())
