"""Semantic Scholar and OpenAlex backends against a local fake server (the real APIs are unreachable here).

The backend code under test is the real one (httpx client, tenacity retries, Retry-After,
key handling); only the remote service is replaced by `tests/servers/scholarly_fake.py`.
"""

from __future__ import annotations

import asyncio
import logging

import pytest
from servers.scholarly_fake import FakePaper, FakeState, serve

from judgeaudit.retrieval.backends import (
    BackendError,
    OpenAlex,
    SemanticScholar,
    abstract_from_inverted_index,
    make_backend,
    parse_retry_after,
)

PAPERS = [
    FakePaper(
        "P1",
        "Graph neural networks for molecules",
        "We learn molecular graphs with message passing.",
        "2021-03-01",
    ),
    FakePaper(
        "P2",
        "Diffusion models for molecule generation",
        "Score-based diffusion over 3D molecular graphs.",
        "2025-10-01",
    ),
    FakePaper("P3", "Undated molecular graphs note", "Molecular graphs without a date.", None),
    FakePaper("P4", "Molecular graph transformers", None, "2020-05-05"),
    FakePaper("P5", "Protein folding", "Structure prediction of proteins.", "2019-01-01"),
]


class Sleeps:
    """Records every sleep instead of waiting (keeps the tests fast and shows what was waited)."""

    def __init__(self) -> None:
        self.calls: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


def run(coro):
    return asyncio.run(coro)


@pytest.mark.parametrize("cls", [SemanticScholar, OpenAlex])
def test_search_returns_documents_ranked_with_abstracts(cls) -> None:
    state = FakeState(list(PAPERS))
    with serve(state) as url:
        result = run(cls(api_key="", base_url=url, min_interval=0).search("molecular graphs", k=5))
    ids = [d.doc_id for d in result.documents]
    assert ids[0] == "P1" and "P5" not in ids
    assert result.skipped_no_abstract == 1  # P4 has no abstract: counted, not returned
    doc = result.documents[0]
    assert (
        doc.abstract == "We learn molecular graphs with message passing." and doc.date.year == 2021
    )


@pytest.mark.parametrize("cls", [SemanticScholar, OpenAlex])
def test_date_cutoff_is_sent_and_rechecked(cls) -> None:
    state = FakeState(list(PAPERS))
    with serve(state) as url:
        result = run(
            cls(api_key="", base_url=url, min_interval=0).search(
                "molecular graphs", k=5, cutoff="2025-09-20"
            )
        )
    assert "P2" not in [d.doc_id for d in result.documents]
    params = state.requests[-1]["params"]
    sent = params.get("publicationDateOrYear") or params.get("filter")
    assert sent.endswith("2025-09-19")  # strictly before the cutoff day


def test_recheck_drops_late_and_undated_papers_the_server_let_through() -> None:
    """A server that ignores the date filter cannot leak later or undated papers through."""
    state = FakeState(list(PAPERS))
    with serve(state) as url:
        backend = OpenAlex(api_key="", base_url=url, min_interval=0)
        original = backend.http.get_json

        async def without_filter(path, params, headers=None):
            params = {
                k: v for k, v in params.items() if k != "filter"
            }  # the server now sees no cutoff
            return await original(path, params, headers)

        backend.http.get_json = without_filter  # type: ignore[method-assign]
        result = run(backend.search("molecular graphs", k=5, cutoff="2021-01-01"))
    assert [
        d.doc_id for d in result.documents
    ] == []  # P1 (2021-03) and P2 (2025) are after the cutoff
    assert result.after_cutoff == 2 and result.skipped_no_date == 1  # P3 has no date


def test_retries_429_with_retry_after_then_succeeds() -> None:
    state = FakeState(list(PAPERS), failures=[(429, "2"), (503, None)])
    sleeps = Sleeps()
    with serve(state) as url:
        backend = SemanticScholar(
            api_key="", base_url=url, min_interval=0, sleep=sleeps, backoff=0.5
        )
        result = run(backend.search("protein", k=2))
    assert [d.doc_id for d in result.documents] == ["P5"]
    assert len(state.requests) == 3
    assert sleeps.calls == [2.0, 1.0]  # Retry-After honoured, then exponential backoff (0.5 * 2)


def test_gives_up_after_max_attempts_with_a_clear_error() -> None:
    state = FakeState(list(PAPERS), failures=[(500, None)] * 10)
    with serve(state) as url:
        backend = OpenAlex(api_key="", base_url=url, min_interval=0, sleep=Sleeps(), max_attempts=3)
        with pytest.raises(BackendError, match=r"/works: HTTP 500"):
            run(backend.search("protein", k=2))
    assert len(state.requests) == 3


def test_client_errors_are_not_retried() -> None:
    state = FakeState(list(PAPERS), s2_key="right")
    with serve(state) as url:
        with pytest.raises(BackendError, match="HTTP 403"):
            run(
                SemanticScholar(
                    api_key="wrong", base_url=url, min_interval=0, sleep=Sleeps()
                ).search("protein")
            )
    assert len(state.requests) == 1


def test_requests_are_spaced_by_the_minimum_interval() -> None:
    state = FakeState(list(PAPERS))
    sleeps = Sleeps()
    with serve(state) as url:
        backend = OpenAlex(api_key="", base_url=url, min_interval=30.0, sleep=sleeps)

        async def two() -> None:
            await backend.search("protein", k=1)
            await backend.search("molecular", k=1)

        run(two())
    assert len(sleeps.calls) == 1 and 29.0 < sleeps.calls[0] <= 30.0


def test_keys_come_from_the_environment_and_never_reach_logs_or_errors(monkeypatch, caplog) -> None:
    s2_key, oa_key = "s2-SECRET-123", "oa-SECRET-456"
    monkeypatch.setenv("S2_API_KEY", s2_key)
    monkeypatch.setenv("OPENALEX_API_KEY", oa_key)
    monkeypatch.setenv("OPENALEX_MAILTO", "someone@example.org")
    state = FakeState(list(PAPERS), s2_key=s2_key, openalex_key=oa_key, failures=[(503, "0")])
    caplog.set_level(logging.DEBUG)
    # Other libraries loaded earlier in the session (Inspect, litellm) quieten httpx's logger;
    # force it on so the redaction of what httpx logs is really exercised.
    caplog.set_level(logging.DEBUG, logger="httpx")
    monkeypatch.setattr(logging.getLogger("httpx"), "disabled", False)
    with serve(state) as url:
        s2, oa = (
            SemanticScholar(base_url=url, min_interval=0),
            OpenAlex(base_url=url, min_interval=0, sleep=Sleeps()),
        )
        assert run(s2.search("protein", k=1)).documents  # the key was sent and accepted
        assert run(oa.search("protein", k=1)).documents
        state.openalex_key = "rotated"
        with pytest.raises(BackendError) as err:
            run(oa.search("protein", k=1))
    assert state.requests[1]["headers"].get("x-api-key") == s2_key
    assert state.requests[-1]["params"]["api_key"] == oa_key
    assert state.requests[-1]["params"]["mailto"] == "someone@example.org"
    text = caplog.text + str(err.value) + repr(s2) + repr(oa)
    assert "HTTP Request" in caplog.text  # httpx did log the request URLs...
    assert s2_key not in text and oa_key not in text  # ...with the key redacted


def test_parse_retry_after_forms() -> None:
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:10 GMT", now=1445412480.0) == 10.0
    assert parse_retry_after("99999") == 60.0
    assert parse_retry_after("soon") is None and parse_retry_after(None) is None


def test_inverted_index_and_factory() -> None:
    assert abstract_from_inverted_index({"b": [1], "a": [0, 2]}) == "a b a"
    assert (
        make_backend("s2").name == "semantic_scholar"
        and make_backend("openalex").name == "openalex"
    )
    with pytest.raises(ValueError, match="unknown search backend"):
        make_backend("google")
