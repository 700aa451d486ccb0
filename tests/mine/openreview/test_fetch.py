"""Resumable OpenReview fetch (judgeaudit.mine.openreview.fetch, .session and .shards' writer) through the real openreview-py client.

The live OpenReview API is unreachable here, so every test runs the real
``openreview.api.OpenReviewClient`` against ``tests/servers/openreview_server.py``, a
local API v2 stand-in on 127.0.0.1 serving ``tests/fixtures/openreview_small`` (40
forums cut from the ICLR 2026 snapshot). Retry waits use a recording ``sleep`` (a test
double for the clock) so backoff and Retry-After are checked without waiting for them.
"""

from __future__ import annotations

import gzip
import json
import logging
import shutil
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from servers.openreview_server import OpenReviewTestServer, load_cache_notes, venue_group

from judgeaudit.mine.openreview import shards
from judgeaudit.mine.openreview.fetch import (
    FetchError,
    FetchSummary,
    InjectedCrash,
    RetryPolicy,
    UnknownVenueError,
    cached_summary,
    fetch_venue,
)
from judgeaudit.mine.openreview.session import parse_retry_after
from judgeaudit.mine.openreview.shards import STATE_FILE, reply_type

VENUE = "ICLR.cc/2026/Conference"
FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "openreview_small"
PAGE = 7  # submissions per page
SHARD = 16  # forums per shard
PLANTED_PASSWORD = "pw-PLANTED-9c41e7"  # not a credential: a canary the stand-in server accepts, searched for in logs


def fast_policy(sleeps: list[float] | None = None, **overrides: Any) -> RetryPolicy:
    """Tiny waits; `sleeps` records every wait tenacity asks for instead of sleeping."""
    recorder = sleeps.append if sleeps is not None else (lambda _s: None)
    params: dict[str, Any] = dict(
        attempts=4, initial_wait=0.01, max_wait=0.05, jitter=0.0, timeout=5.0
    )
    params.update(overrides)
    return RetryPolicy(sleep=recorder, **params)


def run_fetch(server: OpenReviewTestServer, cache: Path, **kwargs: Any) -> FetchSummary:
    """fetch_venue with the test page/shard sizes against `server`."""
    kwargs.setdefault("retry", fast_policy())
    return fetch_venue(
        VENUE,
        cache,
        baseurl=server.baseurl,
        page_size=PAGE,
        shard_size=SHARD,
        progress=False,
        **kwargs,
    )


def shard_bytes(cache: Path) -> dict[str, bytes]:
    """Every notes shard of a cache by file name."""
    return {p.name: p.read_bytes() for p in sorted(cache.glob("notes-*.jsonl.gz"))}


def cached_notes(cache: Path) -> list[dict[str, Any]]:
    """Notes of a cache in file order."""
    return load_cache_notes(cache)


def forums_in_order(notes: list[dict[str, Any]]) -> list[str]:
    """Forum ids in the order their submissions appear."""
    return [n["id"] for n in notes if n["id"] == n["forum"]]


@pytest.fixture(autouse=True)
def _no_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENREVIEW_USERNAME", raising=False)
    monkeypatch.delenv("OPENREVIEW_PASSWORD", raising=False)


@pytest.fixture
def server() -> Iterator[OpenReviewTestServer]:
    with OpenReviewTestServer.from_cache(FIXTURE) as srv:
        yield srv


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """An uninterrupted fetch: its shard bytes, notes and request count."""
    cache = tmp_path_factory.mktemp("reference") / "cache"
    with OpenReviewTestServer.from_cache(FIXTURE) as srv:
        summary = run_fetch(srv, cache)
        requests = srv.request_count()
    notes = cached_notes(cache)
    sizes: dict[str, int] = {}
    for note in notes:
        sizes[note["forum"]] = sizes.get(note["forum"], 0) + 1
    return {
        "cache": cache,
        "bytes": shard_bytes(cache),
        "notes": notes,
        "summary": summary,
        "requests": requests,
        "forum_sizes": [sizes[f] for f in forums_in_order(notes)],
    }


# --------------------------------------------------------------------------- full fetch


def test_full_fetch_equals_fixture(reference: dict[str, Any]) -> None:
    notes = reference["notes"]
    fixture_lines = load_cache_notes(FIXTURE)
    served = {n["id"]: n for n in OpenReviewTestServer(fixture_lines).notes}

    ids = [n["id"] for n in notes]
    assert len(ids) == len(set(ids)), "a note was cached twice"
    assert set(ids) == {n["id"] for n in fixture_lines}
    for note in notes:  # every field the API sent survives, including number/domain/tcdate
        assert note == served[note["id"]]

    # forum grouping: each submission immediately followed by exactly its own replies
    expected_replies: dict[str, set[str]] = {}
    for n in served.values():
        if n["id"] != n["forum"]:
            expected_replies.setdefault(n["forum"], set()).add(n["id"])
    current, seen_forums, got_replies = None, [], {}
    for note in notes:
        if note["id"] == note["forum"]:
            current = note["id"]
            seen_forums.append(current)
            got_replies[current] = set()
        else:
            assert note["forum"] == current, f"reply {note['id']} outside its forum block"
            got_replies[current].add(note["id"])
    assert len(seen_forums) == len(set(seen_forums)) == 40
    assert got_replies == {f: expected_replies.get(f, set()) for f in seen_forums}

    summary = reference["summary"]
    kinds: dict[str, int] = {}
    for n in served.values():
        if n["id"] != n["forum"]:
            kinds[reply_type(n)] = kinds.get(reply_type(n), 0) + 1
    assert summary.complete and summary.submissions == 40
    assert summary.replies_by_type == dict(sorted(kinds.items()))
    assert summary.notes == len(served)
    assert summary.shards == 3 and sorted(reference["bytes"]) == [
        f"notes-0{i}.jsonl.gz" for i in range(3)
    ]
    assert summary.requests == reference["requests"] and summary.retries == 0
    # gzip header XFL byte: 0 for the final level 6, 4 for the draft level 1 of a growing shard
    assert [b[8] for b in reference["bytes"].values()] == [0, 0, 0]
    assert summary.resumed_from is None
    # 7 withdrawn forums come back from the venueid safety-net query and are skipped
    withdrawn = [
        n
        for n in served.values()
        if n["id"] == n["forum"] and "Withdrawn" in n["content"]["venueid"]["value"]
    ]
    assert summary.duplicates_skipped == len(withdrawn) == 7
    assert summary.duplicate_replies == 0 and summary.non_submissions_skipped == 0


def test_fixture_duplicate_id_is_served_once_as_latest_version(reference: dict[str, Any]) -> None:
    """The snapshot repeats some note ids with revised content; the API (and server) hold one."""
    lines = load_cache_notes(FIXTURE)
    by_id: dict[str, list[dict[str, Any]]] = {}
    for n in lines:
        by_id.setdefault(n["id"], []).append(n)
    repeated = {k: v for k, v in by_id.items() if len(v) > 1}
    assert repeated, "the fixture should keep the snapshot's repeated id"
    cached = {n["id"]: n for n in reference["notes"]}
    for note_id, versions in repeated.items():
        assert cached[note_id]["tmdate"] == max(v["tmdate"] for v in versions)


def test_explicit_client_is_used(
    server: OpenReviewTestServer, tmp_path: Path, reference: dict[str, Any]
) -> None:
    from openreview.api import OpenReviewClient

    client = OpenReviewClient(baseurl=server.baseurl)
    for name in ("a", "b"):
        fetch_venue(
            VENUE,
            tmp_path / name,
            client=client,
            page_size=PAGE,
            shard_size=SHARD,
            progress=False,
            retry=fast_policy(),
        )
        assert shard_bytes(tmp_path / name) == reference["bytes"]
    assert len(client.session.hooks["response"]) == 1, "instrumentation must not pile up"


def test_progress_bar_total_comes_from_count(
    server: OpenReviewTestServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    reference: dict[str, Any],
) -> None:
    fetch_venue(
        VENUE,
        tmp_path / "c",
        baseurl=server.baseurl,
        page_size=PAGE,
        shard_size=SHARD,
        progress=True,
        retry=fast_policy(),
    )
    first_notes = next(r for r in server.records if r.path == "/notes")
    assert first_notes.params.get("count") == "true"
    assert "40/40" in capsys.readouterr().err
    assert shard_bytes(tmp_path / "c") == reference["bytes"]


def test_duplicated_replies_are_dropped_and_counted(
    server: OpenReviewTestServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    reference: dict[str, Any],
) -> None:
    real = server._with_details

    def doubled(note: dict[str, Any], details: list[str]) -> dict[str, Any]:
        out = real(note, details)
        replies = out.get("details", {}).get("replies")
        if replies:
            out["details"]["replies"] = replies + replies[:1]
        return out

    monkeypatch.setattr(server, "_with_details", doubled)
    summary = run_fetch(server, tmp_path / "c")
    with_replies = len({n["forum"] for n in reference["notes"] if n["id"] != n["forum"]})
    assert summary.duplicate_replies == with_replies
    assert shard_bytes(tmp_path / "c") == reference["bytes"]


def test_reply_returned_by_a_submission_query_is_skipped_and_counted(tmp_path: Path) -> None:
    notes = [dict(n) for n in load_cache_notes(FIXTURE)]
    odd = next(n for n in notes if reply_type(n) == "Official_Comment")
    odd["content"] = {**odd["content"], "venueid": {"value": f"{VENUE}/Withdrawn_Submission"}}
    with OpenReviewTestServer(notes) as srv:
        summary = run_fetch(srv, tmp_path / "c")
        served = {n["id"]: n for n in srv.notes}
    cached = cached_notes(tmp_path / "c")
    assert summary.non_submissions_skipped == 1 and summary.submissions == 40
    assert [n["id"] for n in cached].count(odd["id"]) == 1  # kept once, inside its forum
    assert sorted(n["id"] for n in cached) == sorted(served)


def test_safety_net_stream_catches_a_withdrawn_forum_the_invitation_misses(
    tmp_path: Path, reference: dict[str, Any]
) -> None:
    """Some venues move withdrawn papers off the submission invitation; the venueid query finds them."""
    notes = [dict(n) for n in load_cache_notes(FIXTURE)]
    moved = next(
        n
        for n in notes
        if n["id"] == n["forum"] and "Withdrawn" in n["content"]["venueid"]["value"]
    )
    moved["invitations"] = [f"{VENUE}/-/Withdrawn_Submission"]
    with OpenReviewTestServer(notes) as srv:
        summary = run_fetch(srv, tmp_path / "c")
        by_id = [r.params.get("id") for r in srv.records if r.path == "/notes"]
        listing = [r for r in srv.records if r.params.get("content.venueid")]
    cached = cached_notes(tmp_path / "c")
    assert summary.submissions == 40 and summary.duplicates_skipped == 6
    assert forums_in_order(cached)[-1] == moved["id"]  # found last, by the withdrawn stream
    assert sorted(n["id"] for n in cached) == sorted(n["id"] for n in reference["notes"])
    assert {n["id"]: n for n in cached}[moved["id"]] == moved
    assert by_id.count(moved["id"]) == 1  # only the missed forum is fetched again
    assert listing and all("details" not in r.params for r in listing)


def test_cached_summary_reads_the_state(server: OpenReviewTestServer, tmp_path: Path) -> None:
    cache = tmp_path / "c"
    assert cached_summary(cache) is None
    with pytest.raises(InjectedCrash):
        run_fetch(server, cache, crash_after=60)
    partial = cached_summary(cache)
    assert partial is not None and not partial.complete
    full = run_fetch(server, cache)
    recorded = cached_summary(cache)
    assert recorded is not None and recorded.complete and recorded.requests == 0
    assert (recorded.submissions, recorded.replies_by_type, recorded.shards) == (
        full.submissions,
        full.replies_by_type,
        full.shards,
    )
    assert partial.submissions < full.submissions


def test_rerun_with_complete_cache_makes_no_request(
    server: OpenReviewTestServer, tmp_path: Path
) -> None:
    cache = tmp_path / "c"
    first = run_fetch(server, cache)
    before = shard_bytes(cache)
    server.reset()
    again = run_fetch(server, cache)
    assert server.request_count() == 0
    assert again.requests == 0 and again.complete and again.resumed_from == 40
    assert (again.submissions, again.replies_by_type) == (first.submissions, first.replies_by_type)
    assert shard_bytes(cache) == before


def test_complete_cache_files_are_checked_not_rewritten(
    server: OpenReviewTestServer, tmp_path: Path
) -> None:
    cache = tmp_path / "c"
    run_fetch(server, cache)
    server.reset()
    stray = cache / "notes-99.jsonl.gz"
    stray.write_bytes(b"someone else's file")
    run_fetch(server, cache)
    assert stray.exists(), "a complete cache must not delete files it did not write"
    last = sorted(cache.glob("notes-0*.jsonl.gz"))[-1]
    last.write_bytes(last.read_bytes()[:-10])
    with pytest.raises(FetchError, match=f"{last.name} changed since it was written"):
        run_fetch(server, cache)
    assert server.request_count() == 0


# --------------------------------------------------------------------------- resumption


def _crash_points(sizes: list[int]) -> dict[str, tuple[int, int]]:
    """crash_after values -> the forum index (0-based) whose notes are being received then."""
    cumulative = [sum(sizes[: i + 1]) for i in range(len(sizes))]
    mid = next(i for i in range(9, len(sizes)) if sizes[i] >= 3)
    return {
        "first_note": (1, 0),
        "mid_forum": (cumulative[mid - 1] + 2, mid),
        "shard_boundary": (cumulative[SHARD - 1], SHARD - 1),
        "last_note": (cumulative[-1], len(sizes) - 1),
    }


@pytest.mark.parametrize("point", ["first_note", "mid_forum", "shard_boundary", "last_note"])
def test_resume_after_crash_equals_uninterrupted(
    point: str, server: OpenReviewTestServer, tmp_path: Path, reference: dict[str, Any]
) -> None:
    crash_after, forum_index = _crash_points(reference["forum_sizes"])[point]
    cache = tmp_path / "c"
    with pytest.raises(InjectedCrash):
        run_fetch(server, cache, crash_after=crash_after)

    # what survived the crash is exactly the checkpointed pages, whole forums only
    checkpointed = (forum_index // PAGE) * PAGE
    on_disk = cached_notes(cache)
    if checkpointed % SHARD:
        assert shard_bytes(cache)[f"notes-0{checkpointed // SHARD}.jsonl.gz"][8] == 4  # draft
    assert forums_in_order(on_disk) == forums_in_order(reference["notes"])[:checkpointed]
    assert on_disk == reference["notes"][: len(on_disk)]

    resumed = run_fetch(server, cache)
    assert resumed.complete and resumed.resumed_from == checkpointed
    assert shard_bytes(cache) == reference["bytes"]
    assert (resumed.submissions, resumed.replies_by_type) == (
        reference["summary"].submissions,
        reference["summary"].replies_by_type,
    )


def test_repeated_crashes_converge(
    server: OpenReviewTestServer, tmp_path: Path, reference: dict[str, Any]
) -> None:
    """Crash every run a little after one page's worth of notes: each run checkpoints a page."""
    sizes = reference["forum_sizes"]
    largest_page = max(sum(sizes[i : i + PAGE]) for i in range(0, len(sizes), PAGE))
    cache = tmp_path / "c"
    crashes = 0
    while True:
        try:
            summary = run_fetch(server, cache, crash_after=largest_page + 1)
            break
        except InjectedCrash:
            crashes += 1
            assert crashes < 20, "the fetch makes no progress across crashes"
    assert crashes >= 3
    assert summary.complete and summary.resumed_from is not None
    assert shard_bytes(cache) == reference["bytes"]


@pytest.mark.parametrize(
    ("function", "failing_call"),
    [
        ("_write_state", 4),  # streams, page 1, page 2, page 3: shards 0 (now full) and 1 written
        ("_write_shard", 4),  # page 3: shard 0 (now full) written, shard 1 not, state not
    ],
)
def test_crash_inside_a_checkpoint(
    function: str,
    failing_call: int,
    server: OpenReviewTestServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    reference: dict[str, Any],
) -> None:
    """A crash between the file writes of one checkpoint must not add or lose forums."""
    real = getattr(shards, function)
    calls = {"n": 0}

    def crashing(*args: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == failing_call:
            raise InjectedCrash(f"killed in {function} call {failing_call}")
        return real(*args)

    cache = tmp_path / "c"
    monkeypatch.setattr(shards, function, crashing)
    with pytest.raises(InjectedCrash):
        run_fetch(server, cache)
    monkeypatch.setattr(shards, function, real)
    assert len(cached_notes(cache)) > sum(reference["forum_sizes"][: 2 * PAGE]), (
        "the crash window was not reached: shard 0 should hold more than the checkpoint"
    )
    state = json.loads((cache / STATE_FILE).read_text())
    assert [len(s["forums"]) for s in state["shards"]] == [2 * PAGE]

    resumed = run_fetch(server, cache)
    assert resumed.resumed_from == 2 * PAGE
    assert shard_bytes(cache) == reference["bytes"]


def test_stale_temp_files_are_removed(
    server: OpenReviewTestServer, tmp_path: Path, reference: dict[str, Any]
) -> None:
    cache = tmp_path / "c"
    with pytest.raises(InjectedCrash):
        run_fetch(server, cache, crash_after=30)
    (cache / ".notes-00.jsonl.gz.abc123.tmp").write_bytes(b"half-written")
    run_fetch(server, cache)
    assert not list(cache.glob(".*.tmp"))
    assert shard_bytes(cache) == reference["bytes"]


def test_refuses_a_directory_that_is_not_a_fetch_cache(
    server: OpenReviewTestServer, tmp_path: Path
) -> None:
    snapshot_like = tmp_path / "snap"
    snapshot_like.mkdir()
    shutil.copy(FIXTURE / "notes-00.jsonl.gz", snapshot_like / "notes-00.jsonl.gz")
    with pytest.raises(FetchError, match="not a fetch cache"):
        run_fetch(server, snapshot_like)
    assert server.request_count() == 0


def test_refuses_a_cache_of_another_venue(server: OpenReviewTestServer, tmp_path: Path) -> None:
    cache = tmp_path / "c"
    run_fetch(server, cache)
    with pytest.raises(FetchError, match="not 'Other.cc/2026/Conference'"):
        fetch_venue("Other.cc/2026/Conference", cache, baseurl=server.baseurl, progress=False)


def test_corrupt_open_shard_is_reported(
    server: OpenReviewTestServer, tmp_path: Path, reference: dict[str, Any]
) -> None:
    cache = tmp_path / "c"
    with pytest.raises(InjectedCrash):  # one page checkpointed, shard 0 open
        run_fetch(server, cache, crash_after=sum(reference["forum_sizes"][:PAGE]) + 2)
    (cache / "notes-00.jsonl.gz").write_bytes(gzip.compress(b'{"id": "x", "forum": "x"}\n{"trunc'))
    with pytest.raises(FetchError, match="notes-00.jsonl.gz"):
        run_fetch(server, cache)


# --------------------------------------------------------------------------- retries and errors


def test_429_with_retry_after_and_500s_are_retried(
    server: OpenReviewTestServer, tmp_path: Path, reference: dict[str, Any]
) -> None:
    server.inject(path="/notes", status=429, retry_after="7")
    server.inject(path="/notes", status=500, times=2)
    sleeps: list[float] = []
    summary = run_fetch(server, tmp_path / "c", retry=fast_policy(sleeps))
    assert summary.retries == 3 and len(sleeps) == 3
    assert sleeps[0] >= 7.0, "Retry-After was not honoured"
    assert all(s < 1.0 for s in sleeps[1:]), "500s should use the (tiny) exponential backoff"
    assert (
        server.request_count("/notes") == reference["requests"] - 1 + 3
    )  # minus /groups, plus 3 failures
    assert summary.requests == reference["requests"] + 3
    assert shard_bytes(tmp_path / "c") == reference["bytes"]


def test_retry_after_is_capped(server: OpenReviewTestServer, tmp_path: Path) -> None:
    server.inject(path="/notes", status=503, retry_after="86400")
    sleeps: list[float] = []
    run_fetch(server, tmp_path / "c", retry=fast_policy(sleeps, max_retry_after=30.0))
    assert sleeps == [30.0]


def test_parse_retry_after_forms() -> None:
    assert parse_retry_after("12") == 12.0
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:10 GMT", now=1445412480.0) == pytest.approx(
        10.0
    )
    assert parse_retry_after("garbage") is None
    assert parse_retry_after(None) is None


def test_slow_response_times_out_and_is_retried(
    server: OpenReviewTestServer, tmp_path: Path, reference: dict[str, Any]
) -> None:
    server.inject(path="/notes", delay=2.5)
    summary = run_fetch(server, tmp_path / "c", retry=fast_policy(timeout=1.0))
    # >= 1: on a loaded CI machine an ordinary page could also exceed the 1 s timeout
    assert summary.retries >= 1
    first = next(r for r in server.records if r.path == "/notes")
    assert first.params.get("after") is None and summary.requests > reference["requests"]
    assert shard_bytes(tmp_path / "c") == reference["bytes"]


def test_persistent_5xx_gives_up_cleanly_then_resumes(
    server: OpenReviewTestServer, tmp_path: Path, reference: dict[str, Any]
) -> None:
    cache = tmp_path / "c"
    with pytest.raises(InjectedCrash):
        run_fetch(server, cache, crash_after=40)
    server.inject(path="/notes", status=503, times=3)
    with pytest.raises(FetchError, match=r"still failing after 3 attempts.*HTTP 503") as info:
        run_fetch(server, cache, retry=fast_policy(attempts=3))
    assert VENUE in str(info.value) and "resume" in str(info.value)
    run_fetch(server, cache)
    assert shard_bytes(cache) == reference["bytes"]


@pytest.mark.parametrize("status", [403, 404])
def test_permanent_http_error_stops_without_retry(
    status: int, server: OpenReviewTestServer, tmp_path: Path, reference: dict[str, Any]
) -> None:
    cache = tmp_path / "c"
    server.inject(path="/notes", status=status)
    sleeps: list[float] = []
    with pytest.raises(FetchError) as info:
        run_fetch(server, cache, retry=fast_policy(sleeps))
    message = str(info.value)
    assert info.value.status == status and f"HTTP {status}" in message
    assert (
        VENUE in message
        and f"{server.baseurl}/notes" in message
        and "failed permanently" in message
    )
    assert sleeps == [] and server.request_count("/notes") == 1
    run_fetch(server, cache)  # nothing was half-written: a clean re-run completes
    assert shard_bytes(cache) == reference["bytes"]


def test_unreachable_server_gives_up_with_clear_error(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    sleeps: list[float] = []
    with pytest.raises(FetchError, match="still failing after 3 attempts") as info:
        fetch_venue(
            VENUE,
            tmp_path / "c",
            baseurl=f"http://127.0.0.1:{port}",
            progress=False,
            retry=fast_policy(sleeps, attempts=3),
        )
    assert "ConnectionError" in str(info.value) and len(sleeps) == 2


@pytest.mark.parametrize("answer", ["404", "empty"])
def test_unknown_venue(answer: str, tmp_path: Path) -> None:
    with OpenReviewTestServer.from_cache(FIXTURE, unknown_group=answer) as srv:
        with pytest.raises(
            UnknownVenueError, match=r"unknown OpenReview venue 'NoSuch.cc/2099/Conference'"
        ) as info:
            fetch_venue(
                "NoSuch.cc/2099/Conference",
                tmp_path / "c",
                baseurl=srv.baseurl,
                progress=False,
                retry=fast_policy(),
            )
        assert srv.baseurl in str(info.value)
        assert srv.request_count("/groups") == 1 and srv.request_count("/notes") == 0
    assert not list((tmp_path / "c").glob("notes-*"))


def test_venue_without_submissions(tmp_path: Path) -> None:
    notes = load_cache_notes(FIXTURE)
    empty = "Empty.cc/2026/Conference"
    with OpenReviewTestServer(notes, groups=[venue_group(VENUE), venue_group(empty)]) as srv:
        with pytest.raises(UnknownVenueError, match="has no visible submissions") as info:
            fetch_venue(
                empty, tmp_path / "c", baseurl=srv.baseurl, progress=False, retry=fast_policy()
            )
    assert f"invitation={empty}/-/Submission" in str(info.value)


def test_response_without_replies_is_refused(
    server: OpenReviewTestServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(server, "_with_details", lambda note, details: note)
    with pytest.raises(FetchError, match="no details.replies"):
        run_fetch(server, tmp_path / "c")
    assert not list((tmp_path / "c").glob("notes-*"))


# --------------------------------------------------------------------------- credentials


def test_login_from_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reference: dict[str, Any]
) -> None:
    monkeypatch.setenv("OPENREVIEW_USERNAME", "reviewer@example.org")
    monkeypatch.setenv("OPENREVIEW_PASSWORD", PLANTED_PASSWORD)
    with OpenReviewTestServer.from_cache(
        FIXTURE, credentials=("reviewer@example.org", PLANTED_PASSWORD)
    ) as srv:
        summary = run_fetch(srv, tmp_path / "c")
        records = list(srv.records)
    assert [r.path for r in records].count("/login") == 1
    assert all(r.authorized for r in records if r.path != "/login")
    assert summary.requests == len(records)
    assert shard_bytes(tmp_path / "c") == reference["bytes"]
    assert PLANTED_PASSWORD.encode() not in (tmp_path / "c" / STATE_FILE).read_bytes()


def test_password_never_reaches_errors_or_logs(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str],
) -> None:
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("OPENREVIEW_USERNAME", "reviewer@example.org")
    monkeypatch.setenv("OPENREVIEW_PASSWORD", PLANTED_PASSWORD)
    with OpenReviewTestServer.from_cache(
        FIXTURE, credentials=("reviewer@example.org", "the-right-one")
    ) as srv:
        srv.inject(
            path="/login", status=503, message=f"echoing {PLANTED_PASSWORD}"
        )  # a leaky transient error
        with pytest.raises(FetchError, match="login") as info:
            run_fetch(srv, tmp_path / "c")
    out, err = capsys.readouterr()
    for text in (str(info.value), repr(info.value), caplog.text, out, err):
        assert PLANTED_PASSWORD not in text
    assert "HTTP 400" in str(info.value) and "***" in caplog.text


# --------------------------------------------------------------------------- the stand-in server


def test_server_answers_openreview_py_paging_and_filters(server: OpenReviewTestServer) -> None:
    """The stand-in honours what openreview-py sends: after/offset/limit/count/sort/filters."""
    import requests
    from openreview.api import OpenReviewClient

    client = OpenReviewClient(baseurl=server.baseurl)
    invitation = f"{VENUE}/-/Submission"
    all_subs = client.get_all_notes(invitation=invitation)  # efficient_iterget: count + after
    ids = [n.id for n in all_subs]
    assert ids == sorted(ids) and len(ids) == 40
    first, count = client.get_notes(invitation=invitation, with_count=True, limit=5, sort="id")
    assert count == 40 and [n.id for n in first] == ids[:5]
    assert [
        n.id for n in client.get_notes(invitation=invitation, offset=35, limit=10, sort="id")
    ] == ids[35:]
    numbers = [
        n.number for n in client.get_notes(invitation=invitation, sort="number:desc", limit=3)
    ]
    assert numbers == sorted(numbers, reverse=True)
    forum = ids[0]
    in_forum = client.get_notes(forum=forum)
    assert {n.forum for n in in_forum} == {forum} and len(in_forum) == len(server.by_forum[forum])
    withdrawn = client.get_notes(content={"venueid": f"{VENUE}/Withdrawn_Submission"})
    assert len(withdrawn) == 7
    bad = requests.get(f"{server.baseurl}/notes", params={"invitaton": invitation}, timeout=5)
    assert bad.status_code == 400 and "invitaton" in bad.json()["message"]


def test_mine_refuses_an_interrupted_fetch_cache(
    server: OpenReviewTestServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Mining a half-fetched cache would silently drop forums: the CLI stops and says how to finish it."""
    from judgeaudit.cli import main

    cache = tmp_path / "cache"
    with pytest.raises(InjectedCrash):
        run_fetch(server, cache, crash_after=60)
    code = main(
        ["mine", "--source", f"snapshot:{cache}", "--out", str(tmp_path / "out"), "--no-progress"]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert "interrupted fetch" in err and "--cache" in err
    assert not (tmp_path / "out").exists()
