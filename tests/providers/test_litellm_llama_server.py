"""`litellm/openai/...` against llama-cpp-python's own OpenAI-compatible server running the Gemma GGUF.

The real thing end to end: a real HTTP server on 127.0.0.1 generating with a real model, litellm,
and Inspect. The server serves the model under the alias `gpt-4o-mini` so that litellm's bundled
price map prices the real token counts, with the plain `alpaca` chat format (Gemma 270M is a base
model; under Gemma's own chat template it usually ends its turn at once, leaving no output tokens).
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.log import read_eval_log
from inspect_ai.scorer import includes
from inspect_ai.solver import generate

pytestmark = [
    pytest.mark.local_llm,
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("llama_cpp") is None
        or importlib.util.find_spec("sse_starlette") is None,
        reason="needs llama-cpp-python with its server extras (pip install 'judgeaudit[local]')",
    ),
]


def _free_port() -> int:
    """An unused TCP port on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Start `python -m llama_cpp.server` with the Gemma GGUF; yield its /v1 base URL."""
    from judgeaudit.providers.gguf import gemma_gguf

    port = _free_port()
    log = tmp_path_factory.mktemp("llama_server") / "server.log"
    cmd = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(gemma_gguf()),
        "--model_alias",
        "gpt-4o-mini",
        "--chat_format",
        "alpaca",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        "1024",
        "--n_threads",
        str(max(1, (os.cpu_count() or 2) // 2)),
    ]
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
                    pytest.fail(
                        f"llama_cpp.server did not start: {Path(log).read_text(errors='replace')[-2000:]}"
                    )
                time.sleep(0.5)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_tokens_and_cost_from_real_server_reach_the_log(llama_server: str, tmp_path: Path) -> None:
    """Real token counts from the server, priced by litellm's map, are summed in the Inspect log."""
    import litellm

    task = Task(
        dataset=[Sample(id="s0", input="Name one prime number.", target="")],
        solver=generate(),
        scorer=includes(),
    )
    log = eval(
        task,
        model="litellm/openai/gpt-4o-mini",
        model_args={"api_base": llama_server, "api_key": "sk-local-not-checked"},
        log_dir=str(tmp_path),
        display="none",
        max_tokens=12,
        temperature=0.0,
        seed=1,
    )[0]
    log = read_eval_log(log.location)
    assert log.status == "success", log.error
    usage = log.stats.model_usage["litellm/openai/gpt-4o-mini"]
    assert usage.input_tokens > 3 and 0 < usage.output_tokens <= 12
    price = litellm.model_cost["gpt-4o-mini"]
    expected = (
        usage.input_tokens * price["input_cost_per_token"]
        + usage.output_tokens * price["output_cost_per_token"]
    )
    assert usage.total_cost == pytest.approx(expected)
    assert log.samples and log.samples[0].output.completion.strip()
