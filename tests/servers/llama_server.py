"""llama-cpp-python's own OpenAI-compatible server running the Gemma GGUF, for tests (`python -m llama_cpp.server`).

The server serves the model under the alias `gpt-4o-mini` (so litellm's bundled price map prices the real
token counts) with the plain `alpaca` chat format (Gemma 270M is a base model; under Gemma's own chat
template it usually ends its turn at once, leaving no output tokens).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def _free_port() -> int:
    """An unused TCP port on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def llama_server(log_dir: Path, *, n_ctx: int = 1024) -> Iterator[str]:
    """Start the server with a context of `n_ctx` tokens; yield its /v1 base URL; stop it on exit."""
    from judgeaudit.providers.gguf import gemma_gguf

    port = _free_port()
    log = log_dir / "server.log"
    cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(gemma_gguf()), "--model_alias", "gpt-4o-mini",
           "--chat_format", "alpaca", "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx),
           "--n_threads", str(max(1, (os.cpu_count() or 2) // 2))]
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"llama_cpp.server did not start: {log.read_text(errors='replace')[-2000:]}")
                time.sleep(0.5)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
