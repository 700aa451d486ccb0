"""llama.cpp's own OpenAI-compatible HTTP server (from the xllamacpp wheel) with a GGUF, on 127.0.0.1.

The real server, not a stand-in: `xllamacpp.Server` runs llama.cpp's C++ server in this process.
Prints `listening <base URL>` once it answers, then serves until stdin closes or it is terminated.
Gemma 270M is a base model: under its own chat template it usually ends its turn at once, so the
server gets a plain `### User` / `### Assistant` template.

Run: `python tests/servers/llama_server.py --model MODEL.gguf --alias gpt-4o-mini [--n-ctx 1024]`;
tests start it with `llama_server(log_dir)`, which yields its /v1 base URL.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

PLAIN_TEMPLATE = (
    "{% for m in messages %}### {{ m['role'] | capitalize }}\n{{ m['content'] }}\n\n{% endfor %}"
    "{% if add_generation_prompt %}### Assistant\n{% endif %}"
)


def main() -> int:
    """Start the server, print its address, serve until stdin closes."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", required=True)
    parser.add_argument("--alias", required=True)
    parser.add_argument("--n-ctx", type=int, default=1024)
    parser.add_argument("--threads", type=int, default=max(1, (os.cpu_count() or 2) // 2))
    args = parser.parse_args()
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = args.model
    params.model_alias = [args.alias]
    params.hostnames = ["127.0.0.1"]
    params.port = 0  # a free port, read back from listening_address
    params.n_ctx = args.n_ctx
    params.n_parallel = 1
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    params.use_jinja = True
    params.chat_template = PLAIN_TEMPLATE
    server = xllamacpp.Server(params)
    base = str(server.listening_address).rstrip("/")
    deadline = time.monotonic() + 120
    while True:
        try:
            with urllib.request.urlopen(f"{base}/health", timeout=2):
                break
        except OSError:
            if time.monotonic() > deadline:
                print(f"llama.cpp server at {base} did not answer /health", file=sys.stderr)
                return 1
            time.sleep(0.2)
    print(f"listening {base}", flush=True)
    sys.stdin.read()  # serve until the parent closes our stdin (or terminates us)
    del server
    return 0


@contextmanager
def llama_server(log_dir: Path, *, n_ctx: int = 1024, alias: str = "gpt-4o-mini") -> Iterator[str]:
    """Run this script with the Gemma GGUF in a child process; yield its /v1 base URL; stop it on exit."""
    import pytest

    from judgeaudit.providers.gguf import gemma_gguf

    log = log_dir / "server.log"
    cmd = [
        sys.executable,
        __file__,
        "--model",
        str(gemma_gguf()),
        "--alias",
        alias,
        "--n-ctx",
        str(n_ctx),
    ]
    with open(log, "wb") as err:
        proc = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, text=True
        )
    try:
        assert proc.stdout is not None
        line = (
            proc.stdout.readline()
        )  # "listening <url>" once /health answers (the script gives up after 120 s)
        if not line.startswith("listening "):
            pytest.fail(
                f"llama.cpp server did not start: {log.read_text(errors='replace')[-2000:]}"
            )
        yield line.split()[1] + "/v1"
    finally:
        if proc.stdin is not None:
            proc.stdin.close()
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


if __name__ == "__main__":
    raise SystemExit(main())
