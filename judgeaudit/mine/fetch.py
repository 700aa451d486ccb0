"""Resumable fetch of one OpenReview venue (API v2) into a raw note cache.

The cache is a directory of ``notes-NN.jsonl.gz`` shards, one API v2 note JSON per
line, grouped by forum: each submission note is followed by its replies (reviews,
comments, withdrawal and desk-rejection notes). It has the shape of the shared
snapshot (``/work/shared/data/openreview/<venue>/``) so every later mining step
reads a fetched cache and the snapshot the same way. Beside the shards lives
``fetch-state.json``: the fetch's checkpoint (cursors, the forums in each shard,
counts). Readers should only glob ``notes-*.jsonl.gz``.

How the venue is fetched (one request per page of submissions, not per forum):

1. ``GET /groups?id=<venue>`` reads the venue group's ``submission_id``,
   ``withdrawn_venue_id`` and ``desk_rejected_venue_id`` (defaults
   ``<venue>/-/Submission``, ``<venue>/Withdrawn_Submission``,
   ``<venue>/Desk_Rejected_Submission``). A missing group is an unknown venue.
2. Three *streams* are paged with ``sort=id`` and an ``after=<last id>`` cursor
   (the cursor openreview-py's own ``get_all_notes`` uses). The main stream is the
   submission invitation (OpenReview keeps withdrawn and desk-rejected papers under
   it) with ``details=replies``, so a page of up to ``page_size`` submissions
   arrives with every reply in their forums: ~20 requests for ICLR 2026, where
   per-forum ``get_notes(forum=...)`` would take ~20,000. The two safety-net streams
   list ``content.venueid`` = withdrawn and = desk-rejected *without* replies (small
   pages); a forum already cached is skipped and counted as a duplicate, and only a
   forum the main stream missed is fetched again by id with ``details=replies``.
3. A stream ends on an empty page. A venue whose streams hold no submission at
   all is reported as unknown.

Resumability: after each page the shards it touched are rewritten (gzip, mtime 0,
temp file + rename), then the state file is replaced atomically. The state is the
truth: on resume, forums a shard holds beyond its state entry (a crash between the
two writes) are dropped, shards the state does not know are deleted, and paging
restarts at the stream's saved cursor, so no note is lost or duplicated and an
interrupted fetch ends byte-identical to an uninterrupted one (given the same server
data: a forum cached before an interruption is kept as it was then). A cache whose state
says ``complete`` is answered from the state without constructing a client.

Retries: openreview-py mounts a urllib3 ``Retry`` on its session (total=8,
connect=1, backoff_factor=1 up to 120 s with jitter, 429/500/502/503/504 retried,
Retry-After respected, each retry printed to stdout with the response body) and
sets no request timeout, so a stalled server hangs it forever and a tenacity layer
on top would multiply the attempts (up to 8 x N). ``fetch_venue`` therefore
re-mounts the client's session for ``http(s)://`` with an adapter that does no
retries and applies ``RetryPolicy.timeout``; tenacity is the single retry layer.
Transient failures (HTTP 408/429/5xx, timeouts, connection errors) are retried
with exponential backoff plus jitter, waiting at least the server's Retry-After
(capped at ``max_retry_after``); any other HTTP error stops at once with a
``FetchError`` naming venue, request, URL and status. The login that
openreview-py performs inside its constructor still goes through its own adapter
(POST is not status-retried there; one connection retry), and is wrapped in the
same tenacity policy.

Credentials: optional ``OPENREVIEW_USERNAME`` / ``OPENREVIEW_PASSWORD`` from the
environment, passed to the client and never logged; error messages are scrubbed
of both values.
"""

from __future__ import annotations

import email.utils
import functools
import gzip
import json
import logging
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import requests
from requests.adapters import HTTPAdapter
from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception_type,
    stop_after_attempt,
    wait_exponential,
    wait_random,
)

from judgeaudit.files import atomic_open, atomic_write_text

log = logging.getLogger(__name__)

DEFAULT_BASEURL = "https://api2.openreview.net"
STATE_FILE = "fetch-state.json"
STATE_FORMAT = "judgeaudit-openreview-fetch"
STATE_VERSION = 1
SHARD_GLOB = "notes-*.jsonl.gz"
DEFAULT_SHARD_SIZE = 2500  # forums per shard: ~12 MB of JSON, like the shared snapshot
FINAL_GZIP_LEVEL = 6  # finished shards: ~12 MB each, like the snapshot
DRAFT_GZIP_LEVEL = 1  # the growing shard, rewritten after every page: ~4x faster to write
TRANSIENT_STATUS = frozenset({408, 429, 500, 502, 503, 504})
ENV_USERNAME = "OPENREVIEW_USERNAME"
ENV_PASSWORD = "OPENREVIEW_PASSWORD"

T = TypeVar("T")


class FetchError(RuntimeError):
    """A fetch stopped; the message names venue, request and cause."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class UnknownVenueError(FetchError):
    """The venue does not exist on the server or has no visible submissions."""


class InjectedCrash(RuntimeError):
    """Raised by ``crash_after`` to simulate a killed process (tests only)."""


@dataclass(frozen=True)
class RetryPolicy:
    """How transient request failures are retried (tenacity) and timed out."""

    attempts: int = 8
    initial_wait: float = 1.0
    max_wait: float = 120.0
    jitter: float = 1.0
    max_retry_after: float = 600.0
    timeout: float = 180.0
    sleep: Callable[[float], None] = time.sleep


@dataclass
class FetchSummary:
    """What a fetch did: cache contents and this run's request counts."""

    venue_id: str
    cache_dir: str
    submissions: int
    replies_by_type: dict[str, int]
    shards: int
    requests: int
    retries: int
    resumed_from: int | None
    duplicates_skipped: int
    duplicate_replies: int
    non_submissions_skipped: int
    complete: bool
    elapsed_s: float = 0.0
    streams: list[str] = field(default_factory=list)

    @property
    def replies(self) -> int:
        """Total replies in the cache."""
        return sum(self.replies_by_type.values())

    @property
    def notes(self) -> int:
        """Total notes (submissions and replies) in the cache."""
        return self.submissions + self.replies

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary, totals included."""
        out = asdict(self)
        out["replies"] = self.replies
        out["notes"] = self.notes
        return out

    def lines(self) -> list[str]:
        """Human-readable summary lines for the CLI."""
        resumed = (
            "fresh start"
            if self.resumed_from is None
            else f"resumed with {self.resumed_from} forums cached"
        )
        out = [
            f"venue {self.venue_id} -> {self.cache_dir} ({'complete' if self.complete else 'INCOMPLETE'}, {resumed})",
            f"submissions {self.submissions}, replies {self.replies}, notes {self.notes}, shards {self.shards}",
        ]
        out += [f"  {kind}: {n}" for kind, n in sorted(self.replies_by_type.items())]
        out.append(
            f"requests {self.requests}, retries {self.retries}, duplicate forums skipped "
            f"{self.duplicates_skipped}, duplicated replies dropped {self.duplicate_replies}, "
            f"non-submission notes skipped {self.non_submissions_skipped}, {self.elapsed_s:.1f} s"
        )
        return out


def reply_type(note: dict[str, Any]) -> str:
    """Kind of a reply from its invitation, e.g. ``Official_Review``."""
    for invitation in note.get("invitations") or []:
        suffix = str(invitation).rsplit("/-/", 1)[-1]
        if "/-/" in str(invitation) and suffix != "Edit":
            return suffix
    return "unknown"


def shard_name(index: int) -> str:
    """File name of shard `index` (``notes-00.jsonl.gz``)."""
    return f"notes-{index:02d}.jsonl.gz"


# --------------------------------------------------------------------------- HTTP layer


class _Transient(Exception):
    """A failure worth retrying; carries the server's Retry-After in seconds."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class _TimeoutAdapter(HTTPAdapter):
    """HTTP adapter without urllib3 retries that applies a default timeout."""

    def __init__(self, timeout: float) -> None:
        super().__init__(max_retries=0)
        self.timeout = timeout

    def send(self, request: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        """Send with the default timeout when the caller gave none."""
        if kwargs.get("timeout") is None:
            kwargs["timeout"] = self.timeout
        return super().send(request, **kwargs)


def parse_retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or HTTP date), or None."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    current = datetime.now(UTC).timestamp() if now is None else now
    return max(0.0, when.timestamp() - current)


class _Session:
    """Runs openreview-py calls under one tenacity policy and counts requests."""

    def __init__(
        self, venue_id: str, baseurl: str, policy: RetryPolicy, secrets: Iterable[str]
    ) -> None:
        self.venue_id = venue_id
        self.baseurl = baseurl
        self.policy = policy
        self.secrets = [s for s in secrets if s]
        self.requests = 0
        self.retries = 0
        self._last: requests.Response | None = None

    def instrument(self, client: Any) -> None:
        """Take over the client's transport: no urllib3 retries, a timeout, a response hook."""
        adapter = _TimeoutAdapter(self.policy.timeout)
        client.session.mount("http://", adapter)
        client.session.mount("https://", adapter)
        hooks = client.session.hooks.setdefault("response", [])
        hooks[:] = [h for h in hooks if not isinstance(getattr(h, "__self__", None), _Session)]
        hooks.append(self._on_response)

    def _on_response(
        self, response: requests.Response, *args: Any, **kwargs: Any
    ) -> requests.Response:
        """Remember the latest response (status and headers classify a failure)."""
        self._last = response
        return response

    def scrub(self, text: str) -> str:
        """`text` with every credential value replaced by ***."""
        for secret in self.secrets:
            text = text.replace(secret, "***")
        return text

    def call(self, what: str, fn: Callable[[], T]) -> T:
        """Run `fn` (one HTTP request) with retries; raise FetchError when it cannot succeed."""
        policy = self.policy
        retrying = Retrying(
            stop=stop_after_attempt(policy.attempts),
            wait=self._wait,
            retry=retry_if_exception_type(_Transient),
            sleep=policy.sleep,
            before_sleep=lambda state: self._before_sleep(what, state),
            reraise=True,
        )
        try:
            return retrying(self._attempt, what, fn)
        except _Transient as exc:
            raise FetchError(
                self.scrub(
                    f"OpenReview venue {self.venue_id}: {what} still failing after "
                    f"{policy.attempts} attempts ({exc}); the cache is consistent, "
                    "re-run the same fetch to resume"
                )
            ) from None

    def _attempt(self, what: str, fn: Callable[[], T]) -> T:
        """One request; failures become _Transient (retry) or FetchError (stop)."""
        from openreview import OpenReviewException

        self._last = None
        self.requests += 1
        try:
            return fn()
        except requests.exceptions.SSLError as exc:  # a ConnectionError, but retrying will not help
            raise FetchError(
                self.scrub(f"OpenReview venue {self.venue_id}: {what}: TLS error: {exc}")
            ) from None
        except (
            requests.Timeout,
            requests.ConnectionError,
            requests.exceptions.ChunkedEncodingError,
            requests.exceptions.ContentDecodingError,
            requests.exceptions.JSONDecodeError,
        ) as exc:
            raise _Transient(f"{type(exc).__name__}: {self.scrub(str(exc))}") from None
        except requests.RequestException as exc:
            raise FetchError(
                self.scrub(
                    f"OpenReview venue {self.venue_id}: {what} failed: {type(exc).__name__}: {exc}"
                )
            ) from None
        except OpenReviewException as exc:
            error = (
                exc.args[0] if exc.args and isinstance(exc.args[0], dict) else {"message": str(exc)}
            )
            response = self._last
            status = response.status_code if response is not None else error.get("status")
            url = response.url if response is not None else self.baseurl
            detail = (
                f"HTTP {status} {error.get('name', 'Error')}: {error.get('message', '')}".strip()
            )
            if isinstance(status, int) and status in TRANSIENT_STATUS:
                retry_after = (
                    parse_retry_after(response.headers.get("Retry-After"))
                    if response is not None
                    else None
                )
                raise _Transient(self.scrub(f"{detail} ({url})"), retry_after) from None
            raise FetchError(
                self.scrub(
                    f"OpenReview venue {self.venue_id}: {what} failed permanently: {detail} (url {url})"
                ),
                status=status if isinstance(status, int) else None,
            ) from None

    def _wait(self, state: RetryCallState) -> float:
        """Exponential backoff with jitter, at least the server's capped Retry-After."""
        policy = self.policy
        backoff = (
            wait_exponential(multiplier=policy.initial_wait, max=policy.max_wait)
            + wait_random(0, policy.jitter)
        )(state)
        exc = state.outcome.exception() if state.outcome is not None else None
        retry_after = getattr(exc, "retry_after", None)
        if retry_after is not None:
            return max(backoff, min(float(retry_after), policy.max_retry_after))
        return backoff

    def _before_sleep(self, what: str, state: RetryCallState) -> None:
        """Count and log a retry (no credentials reach the message)."""
        self.retries += 1
        exc = state.outcome.exception() if state.outcome is not None else None
        wait = state.next_action.sleep if state.next_action is not None else 0.0
        log.warning(
            "%s failed (%s); retry %d/%d in %.1f s",
            what,
            exc,
            state.attempt_number,
            self.policy.attempts - 1,
            wait,
        )


def _make_client(baseurl: str, session: _Session) -> Any:
    """An OpenReviewClient for `baseurl`, logged in when the environment has credentials."""
    from openreview.api import OpenReviewClient

    username = os.environ.get(ENV_USERNAME) or None
    password = os.environ.get(ENV_PASSWORD) or None
    if not (username or password):
        return OpenReviewClient(baseurl=baseurl)  # anonymous: the constructor sends no request
    return session.call(
        "POST /login (credentials from OPENREVIEW_USERNAME/OPENREVIEW_PASSWORD)",
        lambda: OpenReviewClient(baseurl=baseurl, username=username, password=password),
    )


# --------------------------------------------------------------------------- notes


_SUBMISSION_FIELDS: tuple[tuple[str, str], ...] = (
    ("id", "id"),
    ("forum", "forum"),
    ("replyto", "replyto"),
    ("number", "number"),
    ("cdate", "cdate"),
    ("pdate", "pdate"),
    ("odate", "odate"),
    ("mdate", "mdate"),
    ("tcdate", "tcdate"),
    ("tmdate", "tmdate"),
    ("ddate", "ddate"),
    ("invitations", "invitations"),
    ("parent_invitations", "parentInvitations"),
    ("domain", "domain"),
    ("readers", "readers"),
    ("nonreaders", "nonreaders"),
    ("writers", "writers"),
    ("signatures", "signatures"),
    ("license", "license"),
    ("external_id", "externalId"),
    ("external_ids", "externalIds"),
    ("content", "content"),
)


def note_to_api_json(note: Any) -> dict[str, Any]:
    """API v2 JSON of an openreview-py Note, keeping the fields ``Note.to_json`` drops.

    ``Note.to_json()`` omits ``number``, ``domain``, ``tcdate`` and ``tmdate``; the cache
    keeps every field the API sent that ``Note.from_json`` retained (``details`` aside).
    """
    out: dict[str, Any] = {}
    for attr, key in _SUBMISSION_FIELDS:
        value = getattr(note, attr, None)
        if value is not None:
            out[key] = value
    return out


def _forum_notes(note: Any, venue_id: str) -> tuple[list[dict[str, Any]], int]:
    """The submission followed by its replies; also the number of duplicate replies dropped."""
    submission = note_to_api_json(note)
    details = note.details if isinstance(note.details, dict) else {}
    if "replies" not in details:
        raise FetchError(
            f"OpenReview venue {venue_id}: the response for submission {note.id} has no "
            "details.replies (the server ignored details=replies); refusing to cache it without replies"
        )
    notes = [submission]
    seen = {note.id}
    duplicates = 0
    for reply in details["replies"] or []:
        if not isinstance(reply, dict) or "id" not in reply:
            raise FetchError(
                f"OpenReview venue {venue_id}: malformed reply in forum {note.id}: {str(reply)[:200]}"
            )
        if reply.get("forum") != note.id:
            raise FetchError(
                f"OpenReview venue {venue_id}: reply {reply['id']} listed under forum {note.id} "
                f"belongs to forum {reply.get('forum')}"
            )
        if reply["id"] in seen:
            duplicates += int(reply["id"] != note.id)
            continue
        seen.add(reply["id"])
        notes.append(reply)
    return notes, duplicates


def _encode(note: dict[str, Any]) -> bytes:
    """One cache line: the note as UTF-8 JSON plus a newline."""
    return (json.dumps(note, ensure_ascii=False) + "\n").encode("utf-8")


def _write_shard(path: Path, lines: list[bytes], level: int) -> int:
    """Write a gzip shard atomically and deterministically (mtime 0); return its size."""
    with atomic_open(path, "wb") as raw:
        with gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="", compresslevel=level) as gz:
            for line in lines:
                gz.write(line)
    return path.stat().st_size


def _write_state(path: Path, state: dict[str, Any]) -> None:
    """Replace the checkpoint file atomically."""
    atomic_write_text(path, json.dumps(state, ensure_ascii=False, indent=1) + "\n")


# --------------------------------------------------------------------------- cache


class _Cache:
    """The on-disk cache and its checkpoint; the state file is the source of truth."""

    def __init__(self, cache_dir: Path, state: dict[str, Any], resumed: bool) -> None:
        self.dir = cache_dir
        self.state = state
        self.resumed = resumed
        self.forum_ids: set[str] = {f for shard in state["shards"] for f in shard["forums"]}
        self._lines: dict[int, list[bytes]] = {}
        self._dirty: set[int] = set()

    @classmethod
    def open(cls, cache_dir: Path, venue_id: str, baseurl: str, shard_size: int) -> _Cache:
        """Load (and repair after a crash) or start the cache in `cache_dir`."""
        cache_dir.mkdir(parents=True, exist_ok=True)
        for tmp in [*cache_dir.glob(".notes-*.tmp"), *cache_dir.glob(f".{STATE_FILE}.*.tmp")]:
            tmp.unlink(missing_ok=True)
        state_path = cache_dir / STATE_FILE
        if not state_path.exists():
            stray = sorted(p.name for p in cache_dir.glob(SHARD_GLOB))
            if stray:
                raise FetchError(
                    f"{cache_dir} holds note shards ({', '.join(stray[:3])}...) but no {STATE_FILE}: "
                    "it is not a fetch cache (a snapshot?); fetch into an empty directory"
                )
            state = {
                "format": STATE_FORMAT,
                "version": STATE_VERSION,
                "venue_id": venue_id,
                "baseurl": baseurl,
                "shard_size": shard_size,
                "streams": None,
                "shards": [],
                "counts": {
                    "submissions": 0,
                    "replies_by_type": {},
                    "duplicates_skipped": 0,
                    "duplicate_replies": 0,
                    "non_submissions_skipped": 0,
                },
                "complete": False,
            }
            return cls(cache_dir, state, resumed=False)
        try:
            state = json.loads(state_path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise FetchError(
                f"{state_path}: unreadable fetch state ({exc}); delete {cache_dir} to refetch"
            ) from None
        if state.get("format") != STATE_FORMAT or state.get("version") != STATE_VERSION:
            raise FetchError(
                f"{state_path}: not a version-{STATE_VERSION} {STATE_FORMAT} state file"
            )
        if state["venue_id"] != venue_id:
            raise FetchError(
                f"{cache_dir} is a cache of venue {state['venue_id']!r}, not {venue_id!r}"
            )
        if state["baseurl"] != baseurl:
            raise FetchError(
                f"{cache_dir} was fetched from {state['baseurl']}, not {baseurl}; use the same server "
                "or a new directory"
            )
        if state["shard_size"] != shard_size:
            log.warning(
                "%s: keeping the cache's shard size %d (asked %d)",
                cache_dir,
                state["shard_size"],
                shard_size,
            )
        cache = cls(cache_dir, state, resumed=True)
        cache._repair()
        return cache

    def _repair(self) -> None:
        """Make the files agree with the state after an interrupted run; check a complete one."""
        shards = self.state["shards"]
        complete = bool(self.state["complete"])
        listed = {s["file"] for s in shards}
        for path in sorted(self.dir.glob(SHARD_GLOB)):
            if path.name in listed:
                continue
            if complete:
                log.warning("%s is not part of the fetched cache (not in %s)", path, STATE_FILE)
            else:
                log.info("removing %s: written after the last checkpoint", path)
                path.unlink()
        for index, shard in enumerate(shards):
            path = self.dir / shard["file"]
            if not path.exists():
                raise FetchError(
                    f"{path} is listed in {STATE_FILE} but missing; delete {self.dir} to refetch"
                )
            if complete or index < len(shards) - 1:  # final shards are never rewritten
                if path.stat().st_size != shard["bytes"]:
                    raise FetchError(
                        f"{path} changed since it was written ({path.stat().st_size} bytes, "
                        f"{shard['bytes']} recorded); delete {self.dir} to refetch"
                    )
                continue
            self._load_open_shard(index, path, shard)

    def _load_open_shard(self, index: int, path: Path, shard: dict[str, Any]) -> None:
        """Load the growing shard, keeping only the forums its checkpoint lists."""
        by_forum: dict[str, list[bytes]] = {}
        try:
            with gzip.open(path, "rb") as fh:
                for line in fh:
                    forum = json.loads(line)["forum"]
                    by_forum.setdefault(forum, []).append(line)
        except (OSError, EOFError, json.JSONDecodeError, KeyError) as exc:
            raise FetchError(
                f"{path}: unreadable shard ({exc}); delete {self.dir} to refetch"
            ) from None
        missing = [f for f in shard["forums"] if f not in by_forum]
        if missing:
            raise FetchError(
                f"{path} lacks forums its checkpoint lists ({missing[:3]}); delete {self.dir} to refetch"
            )
        lines = [line for f in shard["forums"] for line in by_forum[f]]
        self._lines[index] = lines
        if len(by_forum) != len(shard["forums"]) or path.stat().st_size != shard["bytes"]:
            self._dirty.add(index)  # forums written after the last checkpoint: rewrite without them

    @property
    def forums(self) -> int:
        """Forums in the cache."""
        return len(self.forum_ids)

    def add_forum(self, notes: list[dict[str, Any]]) -> None:
        """Append one forum (submission first) to the open shard, in memory."""
        shards = self.state["shards"]
        if not shards or len(shards[-1]["forums"]) >= self.state["shard_size"]:
            if shards and len(shards) - 1 not in self._dirty:
                self._lines.pop(len(shards) - 1, None)  # full, written, final
            shards.append({"file": shard_name(len(shards)), "forums": [], "notes": 0, "bytes": 0})
            self._lines[len(shards) - 1] = []
        index = len(shards) - 1
        shards[index]["forums"].append(notes[0]["id"])
        shards[index]["notes"] += len(notes)
        self._lines[index].extend(_encode(n) for n in notes)
        self._dirty.add(index)
        self.forum_ids.add(notes[0]["id"])
        counts = self.state["counts"]
        counts["submissions"] += 1
        for reply in notes[1:]:
            kind = reply_type(reply)
            counts["replies_by_type"][kind] = counts["replies_by_type"].get(kind, 0) + 1

    def checkpoint(self, *, final: bool = False) -> None:
        """Write the touched shards, then the state (the commit point).

        A shard is compressed at ``FINAL_GZIP_LEVEL`` once it is full (or, with `final`, when the
        fetch completes) and at the cheap ``DRAFT_GZIP_LEVEL`` while it is still growing, so the
        rewrites of the open shard cost little and the finished files do not depend on where a
        run was interrupted.
        """
        shards = self.state["shards"]
        last = len(shards) - 1
        size = self.state["shard_size"]
        if final and shards and len(shards[last]["forums"]) < size:
            self._dirty.add(last)
        for index in sorted(self._dirty):
            shard = shards[index]
            done = final or len(shard["forums"]) >= size
            level = FINAL_GZIP_LEVEL if done else DRAFT_GZIP_LEVEL
            shard["bytes"] = _write_shard(self.dir / shard["file"], self._lines[index], level)
            if index < last:
                del self._lines[index]  # full and final: no longer needed in memory
        self._dirty.clear()
        _write_state(self.dir / STATE_FILE, self.state)


# --------------------------------------------------------------------------- fetch


def _content_value(group: Any, key: str) -> str | None:
    """A group content value (API v2 wraps values as ``{"value": ...}``), or None."""
    content = getattr(group, "content", None) or {}
    value = content.get(key)
    if isinstance(value, dict):
        value = value.get("value")
    return str(value) if value else None


def _resolve_streams(client: Any, session: _Session, venue_id: str) -> list[dict[str, Any]]:
    """The note queries covering every submission of the venue, from its group."""

    def get_group() -> Any:
        try:
            return client.get_group(venue_id)
        except IndexError:  # the server answered an unknown id with an empty list
            raise UnknownVenueError(
                f"unknown OpenReview venue {venue_id!r} at {session.baseurl}: no such group "
                "(empty answer). Venue ids look like ICLR.cc/2026/Conference",
                status=404,
            ) from None

    try:
        group = session.call(f"GET /groups id={venue_id}", get_group)
    except FetchError as exc:
        if exc.status == 404 and not isinstance(exc, UnknownVenueError):
            raise UnknownVenueError(
                f"unknown OpenReview venue {venue_id!r} at {session.baseurl}: no such group (HTTP 404). "
                "Venue ids look like ICLR.cc/2026/Conference",
                status=404,
            ) from None
        raise
    submission = _content_value(group, "submission_id") or f"{venue_id}/-/Submission"
    withdrawn = _content_value(group, "withdrawn_venue_id") or f"{venue_id}/Withdrawn_Submission"
    desk_rejected = (
        _content_value(group, "desk_rejected_venue_id") or f"{venue_id}/Desk_Rejected_Submission"
    )
    # `replies`: page with details=replies (the main stream), or list submissions only and
    # fetch replies just for forums the main stream missed (the safety-net streams)
    return [
        {
            "name": "submissions",
            "query": {"invitation": submission},
            "replies": True,
            "after": None,
            "done": False,
        },
        {
            "name": "withdrawn",
            "query": {"content": {"venueid": withdrawn}},
            "replies": False,
            "after": None,
            "done": False,
        },
        {
            "name": "desk_rejected",
            "query": {"content": {"venueid": desk_rejected}},
            "replies": False,
            "after": None,
            "done": False,
        },
    ]


def _refetch_with_replies(client: Any, session: _Session, note_id: str, venue_id: str) -> Any:
    """One submission again, with ``details=replies`` (for a forum a safety-net stream found)."""
    found = session.call(
        f"GET /notes id={note_id} details=replies",
        functools.partial(client.get_notes, id=note_id, details="replies"),
    )
    if len(found) != 1:
        raise FetchError(
            f"OpenReview venue {venue_id}: submission {note_id} was listed but GET /notes "
            f"id={note_id} returned {len(found)} notes"
        )
    return found[0]


def _describe(query: dict[str, Any]) -> str:
    """A query as ``key=value`` text (``content.venueid=...`` for nested content)."""
    parts = []
    for key, value in query.items():
        if isinstance(value, dict):
            parts += [f"{key}.{k}={v}" for k, v in value.items()]
        else:
            parts.append(f"{key}={value}")
    return " ".join(parts)


def _summary(
    cache: _Cache, venue_id: str, session: _Session | None, resumed_from: int | None, started: float
) -> FetchSummary:
    """The summary of `cache` with this run's request counts (none without a session)."""
    counts = cache.state["counts"]
    return FetchSummary(
        venue_id=venue_id,
        cache_dir=str(cache.dir),
        submissions=counts["submissions"],
        replies_by_type=dict(sorted(counts["replies_by_type"].items())),
        shards=len(cache.state["shards"]),
        requests=session.requests if session else 0,
        retries=session.retries if session else 0,
        resumed_from=resumed_from,
        duplicates_skipped=counts["duplicates_skipped"],
        duplicate_replies=counts["duplicate_replies"],
        non_submissions_skipped=counts["non_submissions_skipped"],
        complete=bool(cache.state["complete"]),
        elapsed_s=round(time.monotonic() - started, 3),
        streams=[_describe(s["query"]) for s in cache.state["streams"] or []],
    )


def cached_summary(cache_dir: Path) -> FetchSummary | None:
    """The summary recorded in a fetch cache's state (no request), or None when it has no state."""
    path = Path(cache_dir) / STATE_FILE
    if not path.exists():
        return None
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise FetchError(f"{path}: unreadable fetch state ({exc})") from None
    if state.get("format") != STATE_FORMAT:
        raise FetchError(f"{path}: not a {STATE_FORMAT} state file")
    cache = _Cache(Path(cache_dir), state, resumed=True)
    return _summary(cache, state["venue_id"], None, cache.forums, time.monotonic())


def fetch_venue(
    venue_id: str,
    cache_dir: Path,
    *,
    baseurl: str = DEFAULT_BASEURL,
    client: Any | None = None,
    page_size: int = 1000,
    shard_size: int = DEFAULT_SHARD_SIZE,
    progress: bool = True,
    crash_after: int | None = None,
    retry: RetryPolicy | None = None,
) -> FetchSummary:
    """Fetch every submission of `venue_id` with its replies into `cache_dir`, resuming if interrupted.

    `client` is an ``openreview.api.OpenReviewClient`` (built for `baseurl`, with optional
    credentials from ``OPENREVIEW_USERNAME``/``OPENREVIEW_PASSWORD``, when None); its session
    transport is taken over as described in the module docstring. `shard_size` counts forums
    per ``notes-NN.jsonl.gz`` shard. `crash_after` raises :class:`InjectedCrash` once that many
    notes have been received in this run (before they are checkpointed), to test resumption.
    Raises :class:`FetchError` (or :class:`UnknownVenueError`) on permanent failures.
    """
    if page_size < 1 or shard_size < 1:
        raise ValueError(
            f"page_size and shard_size must be positive (got {page_size}, {shard_size})"
        )
    started = time.monotonic()
    if client is not None:
        baseurl = str(client.baseurl)  # requests go where the given client points
    policy = retry or RetryPolicy()
    cache_dir = Path(cache_dir)
    cache = _Cache.open(cache_dir, venue_id, baseurl, shard_size)
    resumed_from = cache.forums if cache.resumed else None
    if cache.state["complete"]:
        log.info("%s: cache of %s is complete; nothing to fetch", cache_dir, venue_id)
        return _summary(cache, venue_id, None, resumed_from, started)

    secrets = [os.environ.get(ENV_PASSWORD) or "", os.environ.get(ENV_USERNAME) or ""]
    session = _Session(venue_id, baseurl, policy, secrets)
    if client is None:
        client = _make_client(baseurl, session)
    session.instrument(client)

    if cache.state["streams"] is None:
        cache.state["streams"] = _resolve_streams(client, session, venue_id)
        cache.checkpoint()

    from tqdm import tqdm

    bar = tqdm(
        total=None,
        initial=cache.forums,
        unit="forum",
        desc=f"fetch {venue_id}",
        disable=not progress,
    )
    received = 0
    try:
        for stream in cache.state["streams"]:
            while not stream["done"]:
                want_count = (
                    progress and stream["name"] == "submissions" and stream["after"] is None
                )
                query = dict(stream["query"], sort="id", limit=page_size, after=stream["after"])
                if stream["replies"]:
                    query["details"] = "replies"
                what = f"GET /notes {_describe(stream['query'])} after={stream['after']}"
                page = session.call(
                    what,
                    functools.partial(client.get_notes, **query, with_count=want_count or None),
                )
                if want_count and isinstance(page, tuple):
                    page, total = page
                    bar.total = total
                    bar.refresh()
                if not page:
                    stream["done"] = True
                    cache.checkpoint()
                    break
                for note in page:
                    if note.forum and note.forum != note.id:
                        log.warning(
                            "%s returned %s, a reply in forum %s, not a submission; skipped",
                            what,
                            note.id,
                            note.forum,
                        )
                        cache.state["counts"]["non_submissions_skipped"] += 1
                        continue
                    if note.id in cache.forum_ids:
                        cache.state["counts"]["duplicates_skipped"] += 1
                        continue
                    if not stream["replies"]:
                        note = _refetch_with_replies(client, session, note.id, venue_id)
                    notes, dup_replies = _forum_notes(note, venue_id)
                    if dup_replies:
                        log.warning("forum %s: %d duplicated replies dropped", note.id, dup_replies)
                        cache.state["counts"]["duplicate_replies"] += dup_replies
                    for _ in notes:
                        received += 1
                        if crash_after is not None and received >= crash_after:
                            raise InjectedCrash(f"injected crash after {received} notes")
                    cache.add_forum(notes)
                    bar.update(1)
                stream["after"] = page[-1].id
                cache.checkpoint()
    finally:
        bar.close()

    if cache.forums == 0:
        raise UnknownVenueError(
            f"OpenReview venue {venue_id!r} at {baseurl} has no visible submissions "
            f"(queried {'; '.join(_describe(s['query']) for s in cache.state['streams'])})"
        )
    cache.state["complete"] = True
    cache.state["completed_at"] = datetime.now(UTC).isoformat(timespec="seconds")
    cache.checkpoint(final=True)
    summary = _summary(cache, venue_id, session, resumed_from, started)
    log.info(
        "fetched %s: %d submissions, %d replies", venue_id, summary.submissions, summary.replies
    )
    return summary


__all__ = [
    "DEFAULT_BASEURL",
    "FetchError",
    "FetchSummary",
    "InjectedCrash",
    "RetryPolicy",
    "UnknownVenueError",
    "cached_summary",
    "fetch_venue",
    "note_to_api_json",
    "parse_retry_after",
    "reply_type",
    "shard_name",
]
