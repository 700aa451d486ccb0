"""Judges against a hostile provider, through litellm and Inspect's `openai/`: nothing it returns
makes a judge raise or becomes a verdict.

The provider is `tests/servers/hostile_openai.py`, a misbehaving OpenAI-compatible server on
127.0.0.1 (a test double for hosted APIs and proxies, unreachable here), written apart from
`flaky_openai.py` with faults of its own; litellm, Inspect, its `openai/` provider, its cache and
hooks are the real ones. Each fault goes through a judge's real call path (the guarded model and
`record_from_output`, as `judge_call` makes it) on one prompt; one small Inspect eval runs a mix.
Backoff waits are short in tests (`tests/conftest.py`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.inspect_runs import unit
from helpers.items import FIXTURES
from helpers.judge_calls import KEY, PROVIDERS, judge_many, judge_once, model
from inspect_ai import eval
from inspect_ai.log import EvalLog
from inspect_ai.model import CachePolicy
from servers.flaky_openai import answer_for
from servers.hostile_openai import (
    FAULTS,
    OK_SHAPE,
    PERMANENT,
    TRANSIENT,
    VERDICTLESS,
    HostileOpenAIServer,
)

from judgeaudit.judges.verdicts import CallRecord
from judgeaudit.providers.guard import guarded
from judgeaudit.providers.replies import STOPS

TIMEOUT = 10  # seconds per call: room for a loaded machine (no fault but the drip uses it up)
DRIP_TIMEOUT = 2  # the slowloris call's own budget: the drip (10 s) outlasts any
AT_ONCE = 4  # calls in flight at a time (each prompt is its own call, with its own fault)
# well-formed replies the provider's own parser cannot read (litellm's and Inspect's, not ours):
# they are malformed replies, retried, then an `error`, never a verdict
UNREADABLE = {
    "litellm": {"content_parts", "usage_bad"},
    "openai": {"content_parts", "usage_bad"},
}
# transient, but no retry fits the call's budget: the stall uses it up, the wait asked is past it
NO_RETRY_FITS = {"slowloris": "no response in time", "long_429": "asked to wait 3600 s"}
REASONS = {
    "tool_bad_args": "unexpected tool call (search)",
    "refusal_and_content": "refusal: I won't judge this.",
    "400_policy": "content filter",
}
# permanent: (what the line says, what it says to fix, whether the model stops for the run)
PERMANENT_LINES = {
    "401_key": ("the API key was rejected (HTTP 401)", "set the provider's API key", True),
    "402": ("payment required (HTTP 402)", "add credit", True),
    "403_model": ("no access to the model (HTTP 403)", "check the model name", True),
    "404_html": ("unknown model or endpoint (HTTP 404)", "check the model name", True),
    "400_ctx_anthropic": ("request too large for the model's context", "shorten", False),
    "400_ctx_vllm": ("request too large for the model's context", "shorten", False),
    "413": ("request too large for the model's context", "shorten", False),
    "422": ("request rejected (HTTP 422)", "check the request", False),
    "418": ("request rejected (HTTP 418)", "check the request", False),
}
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_HTTP = re.compile(r"HTTP (\d{3})")


def test_the_tables_cover_every_fault() -> None:
    """Every fault of the stand-in has its expected ending here (a new fault cannot go untested)."""
    assert set(REASONS) == set(VERDICTLESS) and set(PERMANENT_LINES) == set(PERMANENT)
    assert set(NO_RETRY_FITS) <= set(TRANSIENT) and len(FAULTS) >= 40


@pytest.fixture(scope="module")
def server() -> Iterator[HostileOpenAIServer]:
    """One hostile stand-in for the module; each prompt names its fault."""
    with HostileOpenAIServer(drip_interval=0.5, drip_limit=10) as srv:
        yield srv


def assert_clean_line(fault: str, record: CallRecord) -> None:
    """An `error` call whose cause is one plain line: no traceback, path, key or control
    character, and no HTTP status the server did not send."""
    cause = record.error or ""
    assert record.verdict == "error" and cause, (fault, record)
    for bad in ("Traceback", 'File "', ".py", KEY, "site-packages"):
        assert bad not in cause, (fault, bad, cause)
    assert not _CONTROL.search(cause), (fault, cause)
    sent = fault.split("_")[0]
    for status in _HTTP.findall(cause):
        assert status == sent or (fault == "long_429" and status == "429"), (fault, cause)


def _prompt(fault: str, once: bool = False, tag: str = "") -> str:
    """The prompt that gets `fault` (`tag`: the same fault again, as a new call)."""
    return f"<{'once ' if once else ''}{fault}> {tag}Idea A or Idea B?"


def _expected(prompt: str) -> str:
    return answer_for(prompt)[-1].lower()


@pytest.mark.parametrize("provider", PROVIDERS)
def test_every_hostile_fault(
    provider: str,
    server: HostileOpenAIServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Odd but whole replies: the verdict. Transient faults once: retried into the verdict; on
    every attempt: an `error` with one clean line after exactly the budget's 2 requests (the SDK
    under `openai/` retries nothing of its own). Verdict-less replies: `invalid` with their own
    reason. Run with Inspect's cache on, then again (one attempt a call): every call that failed
    reaches the server again (nothing malformed was cached), every answered one does not."""
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    m = model(provider, server.url, timeout=TIMEOUT)
    assert guarded(m) is m  # the judges' wrapper, installed once
    policy = CachePolicy(expiry=None)
    once = [f for f in TRANSIENT if f not in NO_RETRY_FITS]

    def ask(fault: str, once: bool = False) -> str:  # this provider's own calls
        return _prompt(fault, once, tag=f"{provider}: ")

    # the faults no retry fits first: the slowloris drip uses up its call's budget while the others run
    prompts = [ask(f) for f in NO_RETRY_FITS]
    prompts += [ask(f) for f in OK_SHAPE]
    prompts += [ask(f, once=True) for f in once]
    prompts += [ask(f) for f in TRANSIENT if f not in NO_RETRY_FITS]
    prompts += [ask(f) for f in VERDICTLESS]
    before = server.served.copy()
    drip = {ask("slowloris"): model(provider, server.url, timeout=DRIP_TIMEOUT)}
    records = dict(zip(prompts, judge_many(m, prompts, policy, AT_ONCE, drip), strict=True))
    sent = {f: server.served[f] - before[f] for f in FAULTS}
    for fault in OK_SHAPE:
        got = records[ask(fault)]
        if fault in UNREADABLE[provider]:
            assert_clean_line(fault, got)
            assert "malformed reply" in (got.error or ""), (fault, got)
        else:
            assert (got.verdict, got.error) == (_expected(ask(fault)), None), (fault, got)
    for fault in once:
        prompt = ask(fault, once=True)
        assert (records[prompt].verdict, records[prompt].error) == (_expected(prompt), None), (
            fault,
            records[prompt],
        )
    for fault in TRANSIENT:
        got = records[ask(fault)]
        assert_clean_line(fault, got)
        if fault in NO_RETRY_FITS:
            assert NO_RETRY_FITS[fault] in (got.error or ""), (fault, got)
        else:  # the once-prompt's 1 faulty request, then this prompt's 2 attempts
            assert sent[fault] == 3, (fault, sent[fault], got)
    for fault, reason in REASONS.items():
        got = records[ask(fault)]
        assert got.verdict == "invalid" and reason in (got.reason or ""), (fault, got)
    # again, same cache: failed calls are sent again, answered ones come from the cache (one
    # attempt each is enough to show it: Inspect's cache key leaves the retry budget out)
    again = [p for p in prompts if not p.startswith(("<slowloris>", "<long_429>"))]
    before_prompt = {p: server.sent(p) for p in again}
    m = model(provider, server.url, timeout=TIMEOUT, max_retries=0)
    second = dict(zip(again, judge_many(m, again, policy, at_once=AT_ONCE), strict=True))
    for prompt in again:
        resent, first = server.sent(prompt) - before_prompt[prompt], records[prompt]
        if first.verdict == "error":
            assert resent > 0 and second[prompt].verdict == "error", (prompt, second[prompt])
        elif first.verdict == "invalid":  # a final reply (Inspect does not cache a filtered one)
            assert second[prompt].reason == first.reason, (prompt, second[prompt])
        else:
            assert resent == 0 and second[prompt] == first, (prompt, second[prompt])


@pytest.mark.parametrize("provider", PROVIDERS)
def test_permanent_faults_fail_at_once_with_what_to_fix(
    provider: str, server: HostileOpenAIServer
) -> None:
    """Each permanent fault: one request, an `error` whose line says what to fix. A rejected key,
    payment or model stops the model for the run (a later call is not sent); a request the
    provider rejects as it is (too large, invalid) fails that call only."""
    m = model(provider, server.url, timeout=TIMEOUT)
    for fault, (says, fix, stops) in PERMANENT_LINES.items():
        STOPS.reset()
        before = sum(server.served.values())
        got = judge_once(m, _prompt(fault))
        assert_clean_line(fault, got)
        assert says in (got.error or "") and f"fix: {fix}" in (got.error or ""), (fault, got)
        assert sum(server.served.values()) == before + 1, f"{fault} was retried"
        later = judge_once(m, f"after {fault}: Idea A or Idea B?")
        if stops:
            assert later.verdict == "error" and "not tried" in (later.error or ""), (fault, later)
            assert sum(server.served.values()) == before + 1, f"{fault}: a later call was sent"
        else:
            assert later.verdict in ("a", "b"), (fault, later)


TINY = str(FIXTURES / "tiny_judge")


def _eval(srv: HostileOpenAIServer, logs: Path, cache: bool, limit: int, **kw: int) -> EvalLog:
    from judgeaudit.judges.tasks import novelty_pairwise

    return eval(
        novelty_pairwise(dataset=TINY, cache=cache, resamples=200),
        model="openai/x",
        model_base_url=srv.url,
        model_args={"responses_api": False, "api_key": KEY},
        log_dir=str(logs),
        display="none",
        limit=limit,
        max_retries=1,
        timeout=TIMEOUT,
        retry_on_error=0,
        **kw,
    )[0]


def test_an_eval_over_a_mix_then_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A real Inspect eval through `openai/`: a rejected key costs one request for the whole run,
    and the next run in the process tries again (the stop is scoped to its run by Inspect's hooks).
    Then a mix with the cache on: a reply of JSON `[]` once and two disagreeing choices once are
    retried into verdicts, an HTML page on every attempt errors its item; run again, only the
    errored item's call reaches the server (nothing malformed was cached)."""
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    with HostileOpenAIServer(always="401_key") as srv:
        for run in (1, 2):
            # one call at a time: calls already in flight when the first 401 comes back are sent
            log = _eval(srv, tmp_path / f"key{run}", cache=False, limit=2, max_connections=1)
            assert log.status == "error" and srv.served["401_key"] == run, (run, srv.served)
            errors = [str(s.error.message) for s in log.samples or [] if s.error]
            assert len(errors) == 2 and all("fix: set the provider's API key" in e for e in errors)
    script = {
        "online matching market": ["body_list"],  # pair0
        "graph pooling": ["html_200"] * 9,  # pair1
        "token merging": ["dup_choices"],  # pair2
    }
    with HostileOpenAIServer(script=script) as srv:
        first = _eval(srv, tmp_path / "mix1", cache=True, limit=3)
        assert srv.served == {"body_list": 1, "html_200": 2, "dup_choices": 1, "ok": 2}
        errored = [s.error.message for s in first.samples or [] if s.error]
        assert len(errored) == 1 and "malformed reply" in errored[0], errored
        again = _eval(srv, tmp_path / "mix2", cache=True, limit=3)
        assert srv.served == {"body_list": 1, "html_200": 4, "dup_choices": 1, "ok": 2}
    verdicts = [[unit(log, s)["verdict"] for s in log.samples or []] for log in (first, again)]
    assert (
        verdicts[0] == verdicts[1] and verdicts[0][1] == "error" and "error" not in verdicts[0][::2]
    )


def test_a_cause_is_one_plain_line() -> None:
    """Traceback text, source paths, terminal escapes and control characters never reach a cause;
    a URL stays whole."""
    from judgeaudit.providers.replies import plain

    leaked = (
        "Invalid response object Traceback (most recent call last):\n"
        '  File "/srv/app/main.py", line 3, in f\n    boom()\nKeyError: x'
    )
    assert plain(leaked) == "Invalid response object"
    assert plain("\x1b[31mboom\x1b[0m\r\nat /srv/gw/app.py\x00 \u202eok") == "boom at app.py ok"
    assert plain("at http://127.0.0.1:8/v1/x.py") == "at http://127.0.0.1:8/v1/x.py"


@pytest.mark.parametrize(
    ("headers", "wait"),
    [
        ({"Retry-After": "2"}, 2.0),
        ({"retry-after-ms": "40"}, 0.04),
        ({"Retry-After": "Thu, 01 Jan 1970 00:00:10 GMT"}, 5.0),  # 10 s after the epoch, at 5
        ({"Retry-After": "soon, maybe"}, None),
        ({"Retry-After": "nan", "retry-after-ms": "inf"}, None),
        ({"retry-after-ms": "-5"}, 0.0),
    ],
)
def test_retry_after_reads_what_it_can_and_never_raises(
    headers: dict[str, str], wait: float | None
) -> None:
    """Seconds, milliseconds and HTTP dates are read; garbage and infinities are no wait at all."""
    import httpx

    from judgeaudit.providers.replies import retry_after

    response = httpx.Response(429, headers=headers)
    exc = httpx.HTTPStatusError("429", request=httpx.Request("POST", "http://x"), response=response)
    assert retry_after(exc, now=5.0) == wait
