"""Judges against a provider that fails the way hosted APIs do, through litellm and Inspect's `openai/`.

The provider is `tests/servers/flaky_openai.py`, a fault-injecting OpenAI-compatible server on
127.0.0.1 (a test double for hosted APIs, unreachable here); litellm, Inspect, its `openai/`
provider, its cache and `eval_retry` are the real ones. Backoff waits are short in tests
(`tests/conftest.py`), so these runs are about the protocol, not the waiting.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.inspect_runs import unit
from helpers.items import FIXTURES
from helpers.judge_calls import KEY, PROVIDERS, judge_many, judge_once, model
from inspect_ai import eval, eval_retry
from inspect_ai.log import EvalLog
from inspect_ai.model import CachePolicy, get_model
from servers.flaky_openai import PERMANENT, TRANSIENT, VERDICTLESS, FlakyOpenAIServer, answer_for

from judgeaudit.providers.guard import guarded
from judgeaudit.providers.replies import STOPS

TINY = str(FIXTURES / "tiny_judge")
# what a verdict-less reply is recorded as (each its own reason)
REASONS = {
    "length": "truncated at the length limit",
    "content_filter": "content filter",
    "refusal": "refusal: I can't help with that.",
    "reasoning": "reasoning only",
    "tool_call": "unexpected tool call (search)",
}
PERMANENT_CAUSES = {
    "401": "the API key was rejected (HTTP 401)",
    "404": "unknown model or endpoint (HTTP 404)",
    "400_context": "request too large for the model's context",
}
STALL_TIMEOUT = 2  # seconds: the stall call's own budget (the stall, 8 s, outlasts it)
# faults the OpenAI SDK under Inspect's `openai/` retries itself, with its own backoff
SDK_RETRIED = ("429", "500", "503", "529", "stall", "reset")


@pytest.fixture(scope="module")
def server() -> Iterator[FlakyOpenAIServer]:
    """One stand-in for the module; each prompt names its fault (`<fault>`), all its attempts get it."""
    script = {f"<{f}>": [f] * 8 for f in (*TRANSIENT, *VERDICTLESS, *PERMANENT)}
    script.update({f"<once {f}>": [f] for f in TRANSIENT})
    script["<once stall>"] = ["stall"]
    with FlakyOpenAIServer(script=script, stall_seconds=8) as srv:
        yield srv


@pytest.mark.parametrize("provider", PROVIDERS)
def test_every_fault_and_shape(provider: str, server: FlakyOpenAIServer) -> None:
    """Transient once: retried into the clean answer. Transient always: an `error` call with one
    line. Verdict-less: `invalid` with its own reason. Permanent: `error` at once, one request."""
    m = model(provider, server.url)
    assert guarded(m) is m  # the judges' wrapper, installed once
    once = [f for f in TRANSIENT if f != "stall"]  # a stall uses up the call's time: no retry fits
    stuck = [f for f in TRANSIENT if not (provider == "openai" and f in SDK_RETRIED)]
    # (the OpenAI SDK under `openai/` retries those itself, with its own backoff: litellm covers them)
    # a stall first: it waits out its call's budget while the other calls run
    stuck.sort(key=lambda f: f != "stall")
    prompts = [f"<{f}> Idea A or Idea B?" for f in stuck]
    prompts += ["<clean> Idea A or Idea B?"]
    prompts += [f"<once {f}> Idea A or Idea B?" for f in once]
    prompts += [f"<{f}> Idea A or Idea B?" for f in REASONS]
    stall = {"<stall> Idea A or Idea B?": model(provider, server.url, timeout=STALL_TIMEOUT)}
    records = dict(zip(prompts, judge_many(m, prompts, at_once=4, own=stall), strict=True))
    clean = records["<clean> Idea A or Idea B?"]
    assert clean.verdict in ("a", "b") and clean.error is None
    for fault in once:  # retried into the answer a clean server gives that prompt
        got = records[f"<once {fault}> Idea A or Idea B?"]
        expected = answer_for(f"<once {fault}> Idea A or Idea B?")[-1].lower()
        assert (got.verdict, got.error) == (expected, None), (fault, got)
    for fault in stuck:
        got = records[f"<{fault}> Idea A or Idea B?"]
        assert got.verdict == "error" and got.error and "\n" not in got.error, (fault, got)
    for fault, reason in REASONS.items():
        got = records[f"<{fault}> Idea A or Idea B?"]
        assert got.verdict == "invalid" and reason in (got.reason or ""), (fault, got)
    for fault, cause in PERMANENT_CAUSES.items():
        STOPS.reset()
        before = server.served[fault]
        got = judge_once(m, f"<{fault}> Idea A or Idea B?")
        assert got.verdict == "error" and cause in (got.error or ""), (fault, got)
        assert server.served[fault] == before + 1, f"{fault} was retried"


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_permanent_failure_stops_the_model_once_per_run(
    provider: str, server: FlakyOpenAIServer
) -> None:
    """After a rejected key, later calls of the run fail at once with the same line, never sent."""
    m = model(provider, server.url)
    first = judge_once(m, "<401> Idea A or Idea B?")
    assert first.error and "fix: set the provider's API key" in first.error
    sent = sum(server.served.values())
    later = judge_once(m, "<clean> another Idea A or Idea B?")
    assert later.verdict == "error" and "not tried: an earlier call of this run" in (
        later.error or ""
    )
    assert sum(server.served.values()) == sent


@pytest.mark.parametrize("provider", PROVIDERS)
def test_malformed_replies_are_never_cached(
    provider: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A call that ended on a malformed reply leaves nothing in Inspect's cache: once the provider
    recovers the same call reaches it and is answered; that answer is cached."""
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    prompt = "<bad> Idea A or Idea B?"
    with FlakyOpenAIServer(script={"<bad>": ["empty_choices", "cut"]}) as srv:
        m = model(provider, srv.url)
        policy = CachePolicy(expiry=None)
        assert judge_once(m, prompt, policy).verdict == "error"  # 2 attempts, both malformed
        answered = judge_once(m, prompt, policy)  # the provider recovered
        assert answered.verdict in ("a", "b")
        sent = srv.served["ok"]
        assert judge_once(m, prompt, policy) == answered and srv.served["ok"] == sent  # cached


def test_missing_key_is_one_line_before_any_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """`litellm/openai/...` without a key stops at once, naming the variable; Inspect's own `openai/`
    message reaches the user without its console markup."""
    from judgeaudit.errors import error_line
    from judgeaudit.providers.litellm_api import LiteLLMAPI, MissingKeyError

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(
        MissingKeyError, match=r"^litellm/openai/gpt-4o-mini: no API key: set OPENAI_API_KEY"
    ):
        LiteLLMAPI("openai/gpt-4o-mini")
    with pytest.raises(Exception) as raised:
        get_model("openai/gpt-4o-mini")
    line = error_line(raised.value)
    assert "OPENAI_API_KEY" in line and "[bold]" not in line and "[/blue]" not in line


def _verdicts(log: EvalLog) -> dict[str, str]:
    return {str(s.id): unit(log, s)["verdict"] for s in log.samples or []}


def test_eval_retry_fills_exactly_the_errored_items(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An outage on one item errors that sample only (error item, named); after the provider
    recovers, `eval_retry` re-runs it and the verdicts equal a clean run's, item for item."""
    from judgeaudit.judges.tasks import novelty_pairwise
    from judgeaudit.report.build import compute_report
    from judgeaudit.report.frame import load_frame

    monkeypatch.setenv("OPENAI_API_KEY", KEY)  # eval_retry starts the model again from the log

    def run(srv: FlakyOpenAIServer, logs: str) -> EvalLog:
        return eval(
            novelty_pairwise(dataset=TINY, both_orders=True, cache=False, resamples=200),
            model="openai/x",
            model_base_url=srv.url,
            model_args={"responses_api": False, "max_retries": 0},
            log_dir=str(tmp_path / logs),
            display="none",
            limit=3,
            max_retries=1,
            retry_on_error=0,
        )[0]

    with FlakyOpenAIServer() as srv:
        clean = _verdicts(run(srv, "clean"))
    marker = "online matching market"  # an idea of the first pair: its calls all get 503
    with FlakyOpenAIServer(script={marker: ["503"] * 2}) as srv:
        flaky = run(srv, "flaky")
        assert flaky.status == "error"
        errored = [str(s.id) for s in flaky.samples or [] if s.error]
        assert len(errored) == 1 and _verdicts(flaky)[errored[0]] == "error"
        loaded = load_frame(tmp_path / "flaky")
        _, _, data = compute_report(loaded, resamples=200)
        entry = data["input"]["error_logs"][0]
        assert entry["error_items"] == 1 and len(entry["error_item_ids"]) == 1
        full = [c for name, c in data["groups"][0]["configs"].items() if "agg=" not in name]
        assert [c["error_items"] for c in full] == [1]  # counted in the error rate
        sent = dict(srv.served)
        retried = eval_retry(flaky, log_dir=str(tmp_path / "flaky"), display="none")[0]
        resent = sum(srv.served.values()) - sum(sent.values())
    assert retried.status == "success"
    assert _verdicts(retried) == clean
    assert resent == 2  # only the errored item's two calls (both orders) went out again


@pytest.mark.slow
def test_a_killed_eval_set_resumes_with_no_item_lost_or_duplicated(tmp_path: Path) -> None:
    """`inspect eval-set` through `openai/` killed (SIGKILL) mid-grid, then the same command again:
    every item once, the verdicts of an uninterrupted run, and the calls answered before the kill
    that completed their samples are not all sent again."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from judgeaudit.report.frame import load_frame

    logs = tmp_path / "logs"
    with FlakyOpenAIServer(delay=0.3) as srv:
        command = [
            sys.executable, "-m", "inspect_ai", "eval-set", "judgeaudit/novelty_pairwise",
            "-T", f"dataset={TINY}", "-T", "cache=false", "-T", "resamples=200",
            "--model", "openai/x", "--model-base-url", srv.url, "-M", "responses_api=false",
            "--log-dir", str(logs), "--max-connections", "1", "--max-samples", "1",
            "--display", "none",
        ]  # fmt: skip
        env = {**os.environ, "OPENAI_API_KEY": KEY}
        # run outside the checkout: there `judgeaudit/...` could be read as a path, not a task
        child = subprocess.Popen(command, env=env, start_new_session=True, cwd=tmp_path)
        deadline = time.monotonic() + 60
        while sum(srv.served.values()) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        os.killpg(child.pid, signal.SIGKILL)
        child.wait()
        before = sum(srv.served.values())
        assert 3 <= before < 6, "killed mid-grid"
        done = subprocess.run(
            command, env=env, capture_output=True, text=True, timeout=120, cwd=tmp_path
        )
        after = sum(srv.served.values())
    assert done.returncode == 0, done.stderr[-2000:]
    frame = load_frame(logs).frame
    assert sorted(frame["item_id"]) == sorted(set(frame["item_id"])) and len(frame) == 6
    assert set(frame["verdict"]) <= {"a", "b"}
    assert after - before <= 6
