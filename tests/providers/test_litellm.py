"""The `litellm/<model>` provider driven through real Inspect evals against local servers.

Hosted APIs are unreachable here, so the OpenAI side is `tests/servers/openai_recorded.py`
(a stdlib server replaying OpenAI-shaped chat-completion JSON on 127.0.0.1): a test double
for the remote endpoint only; litellm, its price map and Inspect are the real ones.
"""

from __future__ import annotations

import logging
import zipfile
from pathlib import Path
from typing import Any

import pytest
from helpers.inspect_runs import unit
from helpers.items import FIXTURES
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.model import CachePolicy
from inspect_ai.scorer import match
from inspect_ai.solver import generate
from servers.openai_recorded import RecordedOpenAIServer, Reply, chat_completion, error_body

PLANTED_ENV_KEY = "sk-planted-ENV-7f3a9c1e5b2d4a6f"
PLANTED_ARG_KEY = "sk-planted-ARG-0b1c2d3e4f5a6b7c"


def _task(n: int = 2) -> Task:
    """Tiny task: one generate per sample."""
    samples = [
        Sample(id=f"s{i}", input=f"Which idea is more novel? case {i}", target="A")
        for i in range(n)
    ]
    return Task(dataset=samples, solver=generate(), scorer=match())


def _run(
    srv: RecordedOpenAIServer,
    tmp_path: Path,
    model: str = "openai/gpt-4o-mini",
    *,
    api_key: str | None = "sk-test-key-123456",
    **eval_kwargs: Any,
) -> EvalLog:
    """Run the tiny task against the recorded server; return the log as read back from disk."""
    model_args: dict[str, Any] = {"api_base": srv.url}
    if api_key:
        model_args["api_key"] = api_key
    eval_kwargs.setdefault("task", _task())
    log = eval(
        eval_kwargs.pop("task"),
        model=f"litellm/{model}",
        model_args=model_args,
        log_dir=str(tmp_path / "logs"),
        display="none",
        retry_on_error=0,
        **eval_kwargs,
    )[0]
    assert log.location
    return read_eval_log(log.location)


def _log_text(log: EvalLog) -> str:
    """Everything the log file holds, as text: the raw JSON file, or every part of a .eval archive.

    .eval members may be zstd-compressed (which `zipfile` cannot read), so the archive is read
    back through Inspect in full and serialised; member names are added from the zip directory.
    """
    path = Path(log.location)
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            names = "\n".join(z.namelist())
        return names + "\n" + read_eval_log(str(path)).model_dump_json()
    return path.read_text(encoding="utf-8")


def _expected_cost(model: str, prompt: int, completion: int) -> float:
    """Cost straight from litellm's bundled price map entry (independent of the provider code)."""
    import litellm

    entry = litellm.model_cost[model]
    return prompt * entry["input_cost_per_token"] + completion * entry["output_cost_per_token"]


def test_tokens_and_cost_reach_the_log(tmp_path: Path) -> None:
    """Usage and USD cost from litellm's price map are summed by Inspect into the stored log."""
    with RecordedOpenAIServer() as srv:
        log = _run(srv, tmp_path)
    assert log.status == "success", log.error
    usage = log.stats.model_usage["litellm/openai/gpt-4o-mini"]
    assert (usage.input_tokens, usage.output_tokens, usage.total_tokens) == (84, 14, 98)
    assert usage.total_cost == pytest.approx(2 * _expected_cost("gpt-4o-mini", 42, 7))
    assert log.samples
    for sample in log.samples:
        sample_usage = sample.model_usage["litellm/openai/gpt-4o-mini"]
        assert sample_usage.total_cost == pytest.approx(_expected_cost("gpt-4o-mini", 42, 7))
        assert sample.output.completion == "Verdict: A"
        assert sample.scores and sample.scores["match"].value == "C"
    # the key reached the server (so litellm really used it) ...
    assert srv.requests[0]["headers"]["authorization"] == "Bearer sk-test-key-123456"


def test_custom_registered_price(tmp_path: Path) -> None:
    """A model name litellm does not know is priced once registered with `litellm.register_model`."""
    import litellm

    litellm.register_model(
        {
            "openai/judgeaudit-test-model": {
                "input_cost_per_token": 1e-6,
                "output_cost_per_token": 2e-6,
                "litellm_provider": "openai",
                "mode": "chat",
            }
        }
    )
    with RecordedOpenAIServer() as srv:
        log = _run(srv, tmp_path, model="openai/judgeaudit-test-model", task=_task(1))
    usage = log.stats.model_usage["litellm/openai/judgeaudit-test-model"]
    assert usage.total_cost == pytest.approx(42 * 1e-6 + 7 * 2e-6)


def test_cached_calls_cost_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A second identical run is served from Inspect's cache: no request, no usage, no cost."""
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    with RecordedOpenAIServer() as srv:
        first = _run(srv, tmp_path, cache=CachePolicy(expiry=None))
        assert len(srv.requests) == 2
        second = _run(srv, tmp_path, cache=CachePolicy(expiry=None))
        assert len(srv.requests) == 2, "cache hit must not reach the server"
    assert first.stats.model_usage["litellm/openai/gpt-4o-mini"].total_cost
    cost2 = sum((u.total_cost or 0.0) for u in second.stats.model_usage.values())
    assert cost2 == 0.0
    assert second.samples and all(s.output.completion == "Verdict: A" for s in second.samples)


def test_inspect_retries_rate_limits_litellm_does_not(
    tmp_path: Path, retry_waits: list[float]
) -> None:
    """A 429 is retried by the provider's bounded retries (one extra request, after one backoff wait of
    1-2 s, recorded rather than slept), never by litellm or the OpenAI SDK."""
    with RecordedOpenAIServer() as srv:
        srv.script.append(
            Reply(429, error_body("Rate limit reached", "requests", "rate_limit_exceeded"))
        )
        log = _run(srv, tmp_path, task=_task(1))
    assert log.status == "success", log.error
    assert len(srv.requests) == 2
    assert len(retry_waits) == 1 and 1.0 <= retry_waits[0] <= 2.0


def test_no_hidden_retries_below_inspect(tmp_path: Path) -> None:
    """With Inspect's `max_retries=0` (it takes the place of `-M max_retries`), a 429 fails after one
    request: litellm/the SDK retried nothing."""
    with RecordedOpenAIServer() as srv:
        srv.script.append(
            Reply(429, error_body("Rate limit reached", "requests", "rate_limit_exceeded"))
        )
        log = _run(srv, tmp_path, task=_task(1), max_retries=0)
    assert log.status == "error"
    assert len(srv.requests) == 1


def test_bad_request_is_not_retried(tmp_path: Path) -> None:
    """A 400 fails the sample after exactly one request."""
    with RecordedOpenAIServer() as srv:
        srv.script.append(Reply(400, error_body("bad field 'foo'", "invalid_request_error")))
        log = _run(srv, tmp_path, task=_task(1))
    assert log.status == "error"
    assert len(srv.requests) == 1
    assert "bad field" in (log.error.message if log.error else "")


@pytest.mark.parametrize(
    ("via", "log_format"), [("env", "json"), ("model_arg", "json"), ("model_arg", "eval")]
)
def test_planted_key_never_reaches_the_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, via: str, log_format: str
) -> None:
    """A key from the environment or `-M api_key=`, echoed back by a 401, is absent from log and errors."""
    key = PLANTED_ENV_KEY if via == "env" else PLANTED_ARG_KEY
    if via == "env":
        monkeypatch.setenv("OPENAI_API_KEY", key)
    with RecordedOpenAIServer() as srv:
        srv.script.append(Reply(200, chat_completion("Verdict: B", "gpt-4o-mini")))
        # an OpenAI-style 401 quotes the key back, as the real API does for a wrong key
        srv.script.append(
            Reply(
                401,
                error_body(
                    f"Incorrect API key provided: {key}.",
                    "invalid_request_error",
                    "invalid_api_key",
                ),
            )
        )
        log = _run(
            srv,
            tmp_path,
            api_key=None if via == "env" else key,
            log_level="debug",
            log_format=log_format,
            fail_on_error=False,
        )
        sent = {r["headers"].get("authorization") for r in srv.requests}
    assert sent == {f"Bearer {key}"}, "the planted key must really have been used"
    text = _log_text(log)
    assert key not in text
    assert "<redacted>" in text, "the echoed key should show up redacted"
    assert log.samples and any(s.error for s in log.samples)
    for sample in log.samples:
        if sample.error:
            assert key not in sample.error.message and key not in sample.error.traceback


def test_reasoning_effort_dropped_for_non_reasoning_model(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """gpt-4o-mini cannot reason: reasoning_effort is not sent, a warning is logged, the run succeeds."""
    with RecordedOpenAIServer() as srv, caplog.at_level(logging.WARNING):
        log = _run(srv, tmp_path, task=_task(1), reasoning_effort="high")
    assert log.status == "success", log.error
    assert "reasoning_effort" not in srv.requests[0]["body"]
    meta = log.samples[0].output.metadata["litellm"]
    assert meta["dropped_params"] == {"reasoning_effort": "high"}
    assert meta["reasoning_effort_sent"] is None
    assert any("does not support reasoning" in r.getMessage() for r in caplog.records)
    logged = [e for e in log.samples[0].events if e.event == "logger"]
    assert any("does not support reasoning" in e.message.message for e in logged)


def test_reasoning_effort_sent_for_reasoning_model(tmp_path: Path) -> None:
    """o3-mini can reason: reasoning_effort goes over the wire and is recorded as sent."""
    with RecordedOpenAIServer() as srv:
        log = _run(srv, tmp_path, model="openai/o3-mini", task=_task(1), reasoning_effort="low")
    assert log.status == "success", log.error
    assert srv.requests[0]["body"].get("reasoning_effort") == "low"
    meta = log.samples[0].output.metadata["litellm"]
    assert meta["reasoning_effort_sent"] == "low" and meta["dropped_params"] == {}


def test_generate_config_is_mapped(tmp_path: Path) -> None:
    """temperature, max_tokens, seed, top_p and stop reach the wire under OpenAI names."""
    with RecordedOpenAIServer() as srv:
        _run(
            srv,
            tmp_path,
            task=_task(1),
            temperature=0.3,
            max_tokens=17,
            seed=5,
            top_p=0.9,
            stop_seqs=["\n\n"],
        )
    body = srv.requests[0]["body"]
    assert (body["temperature"], body["max_tokens"], body["seed"], body["top_p"]) == (
        0.3,
        17,
        5,
        0.9,
    )
    assert body["stop"] == ["\n\n"]


def test_context_overflow_fails_the_call_at_once(tmp_path: Path) -> None:
    """A context-length 400 is a request no retry can fix: one request, then the sample fails with
    a cause naming the context (an error, so nothing is cached)."""
    with RecordedOpenAIServer() as srv:
        srv.script.append(
            Reply(
                400,
                error_body(
                    "This model's maximum context length is 128000 tokens.",
                    "invalid_request_error",
                    "context_length_exceeded",
                ),
            )
        )
        log = _run(srv, tmp_path, task=_task(1))
    assert log.status == "error" and log.error is not None
    assert "request too large for the model's context" in log.error.message
    assert "maximum context length" in log.error.message
    assert len(srv.requests) == 1


def test_judge_task_through_litellm(tmp_path: Path) -> None:
    """novelty_pairwise (both orders) over litellm: every call parsed, tokens and cost in the log."""
    from judgeaudit.judges.tasks import novelty_pairwise

    fixture = FIXTURES / "tiny_judge"

    def answer(request: dict[str, Any]) -> str:
        return "The first idea adds a new mechanism.\nVerdict: A"

    with RecordedOpenAIServer(default_content=answer) as srv:
        task = novelty_pairwise(dataset=str(fixture), both_orders=True, cache=False, resamples=200)
        log = _run(srv, tmp_path, task=task, limit=3)
    assert log.status == "success", log.error
    assert len(srv.requests) == 6  # 3 pairs x 2 orders
    usage = log.stats.model_usage["litellm/openai/gpt-4o-mini"]
    assert (usage.input_tokens, usage.output_tokens) == (6 * 42, 6 * 7)
    assert usage.total_cost == pytest.approx(6 * _expected_cost("gpt-4o-mini", 42, 7))
    for sample in log.samples or []:
        score = next(iter((sample.scores or {}).values()))
        calls = (score.metadata or {})["calls"]
        assert [c["parse"] for c in calls] == ["strict", "strict"]
        assert score.answer == "tie"  # "A" in both orders maps back to a and b


def test_response_schema_becomes_response_format(tmp_path: Path) -> None:
    """A GenerateConfig response_schema is sent as OpenAI's json_schema response_format."""
    from inspect_ai.model import ResponseSchema
    from inspect_ai.util import JSONSchema

    schema = ResponseSchema(
        name="verdict",
        json_schema=JSONSchema(type="object", properties={"verdict": JSONSchema(type="string")}),
        strict=True,
    )
    with RecordedOpenAIServer(default_content=lambda request: '{"verdict": "A"}') as srv:
        _run(srv, tmp_path, task=_task(1), response_schema=schema)
    fmt = srv.requests[0]["body"]["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["name"] == "verdict"
    assert fmt["json_schema"]["strict"] is True
    assert fmt["json_schema"]["schema"]["properties"]["verdict"] == {"type": "string"}


def test_custom_price_from_model_args(tmp_path: Path) -> None:
    """`-M input_cost_per_token=... -M output_cost_per_token=...` prices an unknown model name."""
    with RecordedOpenAIServer() as srv:
        log = eval(
            _task(1),
            model="litellm/openai/judgeaudit-unpriced",
            model_args={
                "api_base": srv.url,
                "api_key": "sk-test-key-123456",
                "input_cost_per_token": 3e-6,
                "output_cost_per_token": 5e-6,
            },
            log_dir=str(tmp_path),
            display="none",
        )[0]
    usage = read_eval_log(log.location).stats.model_usage["litellm/openai/judgeaudit-unpriced"]
    assert usage.total_cost == pytest.approx(42 * 3e-6 + 7 * 5e-6)


def _closed_port() -> str:
    """A loopback URL nothing listens on (a port bound, then released)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def test_closed_port_fails_the_judge_sample_with_a_one_line_cause(
    tmp_path: Path, retry_waits: list[float]
) -> None:
    """A refused connection is retried `-M max_retries` times (after a backoff wait, recorded rather than
    slept), then the judged item is `error` and the sample (so the eval) errors with
    `connection refused at <url>`, never a RetryError."""
    from judgeaudit.judges.tasks import novelty_pairwise

    url = _closed_port()
    log = eval(
        novelty_pairwise(cache=False),
        model="litellm/openai/gpt-4o-mini",
        model_args={"api_base": url, "api_key": "sk-test-key-123456", "max_retries": 1},
        log_dir=str(tmp_path / "logs"),
        display="none",
        limit=1,
    )[0]
    assert log.status == "error" and log.samples
    sample = log.samples[0]
    cause = f"connection refused at {url} (gave up after 2 attempts in "
    assert (
        sample.error is not None
        and f"could not judge: 1 of 1 calls failed: {cause}" in sample.error.message
    )
    assert "RetryError" not in sample.error.message and "\n" not in sample.error.message
    meta = unit(log, sample)
    assert meta["verdict"] == "error" and meta["calls"][0]["error"].startswith(cause)
    assert len(retry_waits) == 1 and 1.0 <= retry_waits[0] <= 2.0


def test_a_call_that_outlives_the_timeout_gives_up(tmp_path: Path) -> None:
    """`-M timeout=` bounds the whole call: a server slower than it fails the sample after one
    attempt (no time left for another), with a cause naming the endpoint."""
    with RecordedOpenAIServer() as srv:
        srv.script.extend(
            Reply(200, chat_completion("late", "gpt-4o-mini"), delay=4.0) for _ in range(3)
        )
        log = eval(
            _task(1),
            model="litellm/openai/gpt-4o-mini",
            model_args={"api_base": srv.url, "api_key": "sk-test-key-123456", "timeout": 1.5},
            log_dir=str(tmp_path / "logs"),
            display="none",
            retry_on_error=0,
        )[0]
        requests = len(srv.requests)
    assert log.status == "error" and log.error is not None
    assert f"no response from {srv.url} in time" in log.error.message
    assert requests == 1


@pytest.mark.parametrize(
    "args", [{"max_retries": -1}, {"max_retries": 1.5}, {"timeout": 0}, {"timeout": "soon"}]
)
def test_bad_retry_limits_are_one_clear_error(args: dict[str, Any]) -> None:
    from judgeaudit.providers.litellm_api import LiteLLMAPI

    with pytest.raises(ValueError, match=r"^litellm provider: .*-M max_retries.*-M timeout"):
        LiteLLMAPI("openai/gpt-4o-mini", **args)
