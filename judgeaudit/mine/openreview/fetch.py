"""Resumable fetch of one OpenReview venue (API v2) into the raw shard cache (`openreview.shards`).

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

An API v1 venue (ICLR 2023 and earlier, `api=1`) has no group content naming its submission
invitation: the profile names it (`submission`, e.g. ``Blind_Submission``), and the one stream is
that invitation paged the same way (``sort=id``, ``after``, ``details=replies``) with openreview-py's
v1 ``Client``; its notes are cached in their v1 shape (flat content, one ``invitation``).

Resumability: the shard cache (`shards.ShardWriter`) is checkpointed after each page and the
state is the truth, so paging restarts at the stream's saved cursor after an interruption and an
interrupted fetch ends byte-identical to an uninterrupted one (given the same server data: a forum
cached before an interruption is kept as it was then). A cache whose state says ``complete`` is
answered from the state without constructing a client.

Requests, retries and credentials: `openreview.session` (one tenacity layer, no urllib3 retries,
a timeout; credentials from the environment only, never logged).
"""

from __future__ import annotations

import functools
import logging
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from judgeaudit.mine.openreview.session import (
    DEFAULT_BASEURL,
    V1_BASEURL,
    FetchError,
    RetryPolicy,
    Session,
    env_secrets,
    make_client,
)
from judgeaudit.mine.openreview.shards import DEFAULT_SHARD_SIZE, ShardWriter, read_state

log = logging.getLogger(__name__)


class UnknownVenueError(FetchError):
    """The venue does not exist on the server or has no visible submissions."""


class InjectedCrash(RuntimeError):
    """Raised by ``crash_after`` to simulate a killed process (tests only)."""


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
    ("invitation", "invitation"),  # API v1: one invitation per note
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
    """API JSON of an openreview-py Note (v2, or v1 with its one ``invitation``), keeping the fields
    ``Note.to_json`` drops.

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


# --------------------------------------------------------------------------- fetch


def _content_value(group: Any, key: str) -> str | None:
    """A group content value (API v2 wraps values as ``{"value": ...}``), or None."""
    content = getattr(group, "content", None) or {}
    value = content.get(key)
    if isinstance(value, dict):
        value = value.get("value")
    return str(value) if value else None


def _v1_streams(venue_id: str, submission: str) -> list[dict[str, Any]]:
    """An API v1 venue's one stream: its submission invitation (named by the profile), with replies."""
    query = {"invitation": f"{venue_id}/-/{submission}"}
    return [{"name": "submissions", "query": query, "replies": True, "after": None, "done": False}]


def _resolve_streams(client: Any, session: Session, venue_id: str) -> list[dict[str, Any]]:
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


def _refetch_with_replies(client: Any, session: Session, note_id: str, venue_id: str) -> Any:
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
    cache: ShardWriter,
    venue_id: str,
    session: Session | None,
    resumed_from: int | None,
    started: float,
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
    state = read_state(Path(cache_dir))
    if state is None:
        return None
    cache = ShardWriter(Path(cache_dir), state, resumed=True)
    return _summary(cache, state["venue_id"], None, cache.forums, time.monotonic())


def fetch_venue(
    venue_id: str,
    cache_dir: Path,
    *,
    baseurl: str | None = None,
    client: Any | None = None,
    page_size: int = 1000,
    shard_size: int = DEFAULT_SHARD_SIZE,
    progress: bool = True,
    crash_after: int | None = None,
    retry: RetryPolicy | None = None,
    api: int = 2,
    submission: str = "Blind_Submission",
) -> FetchSummary:
    """Fetch every submission of `venue_id` with its replies into `cache_dir`, resuming if interrupted.

    `client` is an ``openreview.api.OpenReviewClient`` (built for `baseurl`, with optional
    credentials from ``OPENREVIEW_USERNAME``/``OPENREVIEW_PASSWORD``, when None); its session
    transport is taken over as described in the module docstring. `shard_size` counts forums
    per ``notes-NN.jsonl.gz`` shard. `crash_after` raises :class:`InjectedCrash` once that many
    notes have been received in this run (before they are checkpointed), to test resumption.
    `api`: the venue's OpenReview API version (1: the v1 ``Client`` and the `submission`
    invitation suffix the venue's profile names). Raises :class:`FetchError` (or
    :class:`UnknownVenueError`) on permanent failures.
    """
    if page_size < 1 or shard_size < 1:
        raise ValueError(
            f"page_size and shard_size must be positive (got {page_size}, {shard_size})"
        )
    started = time.monotonic()
    baseurl = baseurl or (V1_BASEURL if api == 1 else DEFAULT_BASEURL)
    if client is not None:
        baseurl = str(client.baseurl)  # requests go where the given client points
    policy = retry or RetryPolicy()
    cache_dir = Path(cache_dir)
    cache = ShardWriter.open(cache_dir, venue_id, baseurl, shard_size)
    resumed_from = cache.forums if cache.resumed else None
    if cache.state["complete"]:
        log.info("%s: cache of %s is complete; nothing to fetch", cache_dir, venue_id)
        return _summary(cache, venue_id, None, resumed_from, started)

    session = Session(venue_id, baseurl, policy, env_secrets())
    if client is None:
        client = make_client(baseurl, session, api=api)
    session.instrument(client)

    if cache.state["streams"] is None:
        cache.state["streams"] = (
            _v1_streams(venue_id, submission)
            if api == 1
            else _resolve_streams(client, session, venue_id)
        )
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
]
