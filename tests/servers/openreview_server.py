"""A small OpenReview-API-v2-compatible HTTP server on 127.0.0.1 for tests (API v1 notes too).

The live API is unreachable here, so tests point the real openreview-py client at
this stand-in. It serves notes loaded from a raw cache (``notes-*.jsonl.gz``, the
shape of the shared snapshot; like the API it holds one version per note id, so a
cache line repeating an id is collapsed to the version with the latest ``tmdate``
and counted in ``collapsed_duplicates``) and answers what the client and the miner's fetch
call:

- ``GET /notes`` with ``id``, ``forum``, ``invitation`` (membership in the note's
  ``invitations``, or equal to an API v1 note's one ``invitation``), ``replyto``, ``number``, ``domain``, ``content.<field>`` (equal
  to the field's ``value``, or contained in it when it is a list), ``details``
  (``replies``: every other note of the forum; ``directReplies``; ``replyCount``),
  ``sort`` (``id``, ``number``, ``cdate``, ``mdate``, ``tcdate``, ``tmdate`` with an
  optional ``:asc``/``:desc``; default ``id``), ``after`` (id cursor: only notes with
  a larger id, sorted by id), ``offset``, ``limit`` (default and cap ``max_limit``)
  and ``count=true`` (the number of notes matching the filters, before ``after``,
  ``offset`` and ``limit``, in ``"count"``); ``trash`` and ``select`` are accepted
  and ignored (no deleted notes here; whole notes are returned), as is API v1's ``original``
  (no original notes here). Unknown parameters are a 400 error,
  so a client sending something this server does not implement fails loudly.
- ``GET /groups?id=`` for the venue groups (content ``submission_id``,
  ``withdrawn_venue_id``, ``desk_rejected_venue_id``); an unknown id is 404, or an
  empty list with ``unknown_group="empty"`` (both behaviours have been seen).
- ``POST /login`` (JSON ``id``/``password``) checked against ``credentials``;
  ``GET /profiles`` (what the client calls when built with a token).

Faults are injected per request with :meth:`OpenReviewTestServer.inject`: an error
status (429 with ``Retry-After``, 500, 403, ...) or a delay before answering (for
client timeouts). Every request is recorded (method, path, parameters, status,
whether an ``Authorization`` header came) for request counting. Passwords are never
recorded.
"""

from __future__ import annotations

import gzip
import json
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

NOTE_FILTERS = {"id", "forum", "invitation", "replyto", "number", "domain"}
NOTE_PARAMS = NOTE_FILTERS | {
    "details",
    "sort",
    "after",
    "offset",
    "limit",
    "count",
    "trash",
    "select",
    "original",
}
SORT_KEYS = {"id", "number", "cdate", "mdate", "tcdate", "tmdate"}


@dataclass
class Fault:
    """One injected misbehaviour, used for the next `times` requests whose path starts with `path`."""

    path: str = "/notes"
    status: int | None = None
    retry_after: str | None = None
    delay: float = 0.0
    times: int = 1
    message: str = "injected fault"


@dataclass(frozen=True)
class RequestRecord:
    """One request the server received."""

    method: str
    path: str
    params: dict[str, str]
    status: int
    authorized: bool


def load_cache_notes(cache_dir: Path) -> list[dict[str, Any]]:
    """Every note of a raw cache directory, shards in name order, lines in file order."""
    notes: list[dict[str, Any]] = []
    for path in sorted(Path(cache_dir).glob("notes-*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            notes.extend(json.loads(line) for line in fh if line.strip())
    return notes


def venue_group(venue_id: str) -> dict[str, Any]:
    """An API v2 venue group with the content keys a venue's submissions are found by."""
    return {
        "id": venue_id,
        "domain": venue_id,
        "readers": ["everyone"],
        "members": [],
        "content": {
            "submission_id": {"value": f"{venue_id}/-/Submission"},
            "submission_name": {"value": "Submission"},
            "withdrawn_venue_id": {"value": f"{venue_id}/Withdrawn_Submission"},
            "desk_rejected_venue_id": {"value": f"{venue_id}/Desk_Rejected_Submission"},
        },
    }


def _version(note: dict[str, Any]) -> tuple[int, int]:
    """Recency of a note version: (tmdate, mdate)."""
    return (int(note.get("tmdate") or 0), int(note.get("mdate") or 0))


def _sort_key(field: str):  # type: ignore[no-untyped-def]
    def key(note: dict[str, Any]) -> tuple[int, Any]:
        value = note.get(field)
        return (value is None, value if value is not None else 0)

    return key


class _ApiError(Exception):
    def __init__(self, status: int, name: str, message: str) -> None:
        super().__init__(message)
        self.status, self.name, self.message = status, name, message


class OpenReviewTestServer:
    """Serves notes like the OpenReview API v2 `/notes` endpoint; a context manager."""

    def __init__(
        self,
        notes: Iterable[dict[str, Any]],
        *,
        groups: Iterable[dict[str, Any]] | None = None,
        credentials: tuple[str, str] | None = None,
        max_limit: int = 1000,
        unknown_group: str = "404",
        host: str = "127.0.0.1",
    ) -> None:
        latest: dict[str, dict[str, Any]] = {}
        self.collapsed_duplicates = 0
        for note in notes:
            seen = latest.get(note["id"])
            if seen is not None:
                self.collapsed_duplicates += 1
                if _version(note) <= _version(seen):
                    continue
            latest[note["id"]] = note
        self.notes = list(latest.values())
        self.by_forum: dict[str, list[dict[str, Any]]] = {}
        for note in self.notes:
            self.by_forum.setdefault(note["forum"], []).append(note)
        if groups is None:
            groups = [
                venue_group(d) for d in sorted({n["domain"] for n in self.notes if n.get("domain")})
            ]
        self.groups = {g["id"]: g for g in groups}
        self.credentials = credentials
        self.max_limit = max_limit
        self.unknown_group = unknown_group
        self.records: list[RequestRecord] = []
        self.faults: list[Fault] = []
        self._lock = threading.Lock()
        self._tokens: set[str] = set()
        self._httpd = ThreadingHTTPServer((host, 0), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @classmethod
    def from_cache(cls, cache_dir: Path, **kwargs: Any) -> OpenReviewTestServer:
        """A server for the notes of a raw cache directory."""
        return cls(load_cache_notes(cache_dir), **kwargs)

    # ---------------------------------------------------------------- lifecycle
    @property
    def baseurl(self) -> str:
        """``http://127.0.0.1:<port>``."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> OpenReviewTestServer:
        """Serve in a daemon thread."""
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> OpenReviewTestServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ---------------------------------------------------------------- test controls
    def inject(self, **fault: Any) -> Fault:
        """Queue a fault (see :class:`Fault`); faults apply in the order queued."""
        item = Fault(**fault)
        with self._lock:
            self.faults.append(item)
        return item

    def request_count(self, path: str | None = None, method: str | None = None) -> int:
        """Requests received so far (optionally only those to `path` / with `method`)."""
        with self._lock:
            return sum(
                1
                for r in self.records
                if (path is None or r.path == path) and (method is None or r.method == method)
            )

    def reset(self) -> None:
        """Forget recorded requests and pending faults."""
        with self._lock:
            self.records.clear()
            self.faults.clear()

    def _take_fault(self, path: str) -> Fault | None:
        with self._lock:
            for fault in self.faults:
                if fault.times > 0 and path.startswith(fault.path):
                    fault.times -= 1
                    if fault.times == 0:
                        self.faults.remove(fault)
                    return fault
        return None

    def _record(self, record: RequestRecord) -> None:
        with self._lock:
            self.records.append(record)

    # ---------------------------------------------------------------- API
    def get_notes(self, params: dict[str, str]) -> dict[str, Any]:
        """The `/notes` answer for query `params`."""
        unknown = [k for k in params if k not in NOTE_PARAMS and not k.startswith("content.")]
        if unknown:
            raise _ApiError(
                400, "ValidationError", f"unknown query parameter(s): {', '.join(sorted(unknown))}"
            )
        selected = [n for n in self.notes if self._matches(n, params)]
        count = len(selected)
        sort = params.get("sort", "id")
        field, _, direction = sort.partition(":")
        if field not in SORT_KEYS or direction not in {"", "asc", "desc"}:
            raise _ApiError(400, "ValidationError", f"unsupported sort {sort!r}")
        if "after" in params:
            if field != "id" or direction == "desc":
                raise _ApiError(400, "ValidationError", "after requires sort=id ascending")
            selected = [n for n in selected if n["id"] > params["after"]]
        selected.sort(key=_sort_key(field), reverse=direction == "desc")
        offset = self._int_param(params, "offset", 0)
        limit = min(self._int_param(params, "limit", self.max_limit), self.max_limit)
        page = selected[offset : offset + limit]
        details = [d for d in params.get("details", "").split(",") if d]
        out: dict[str, Any] = {"notes": [self._with_details(n, details) for n in page]}
        if params.get("count") == "true":
            out["count"] = count
        return out

    @staticmethod
    def _int_param(params: dict[str, str], name: str, default: int) -> int:
        if name not in params:
            return default
        try:
            value = int(params[name])
        except ValueError:
            raise _ApiError(400, "ValidationError", f"{name} must be an integer") from None
        if value < 0:
            raise _ApiError(400, "ValidationError", f"{name} must be >= 0")
        return value

    @staticmethod
    def _matches(note: dict[str, Any], params: dict[str, str]) -> bool:
        for key, wanted in params.items():
            if key == "invitation":
                if wanted not in (note.get("invitations") or [note.get("invitation")]):
                    return False
            elif key == "number":
                if str(note.get("number")) != wanted:
                    return False
            elif key in NOTE_FILTERS:
                if note.get(key) != wanted:
                    return False
            elif key.startswith("content."):
                value = (note.get("content") or {}).get(key[len("content.") :], {})
                value = value.get("value") if isinstance(value, dict) else value
                if isinstance(value, list) and wanted in value:
                    continue
                if value is None or str(value) != wanted:
                    return False
        return True

    def _with_details(self, note: dict[str, Any], details: list[str]) -> dict[str, Any]:
        if not details:
            return note
        forum = self.by_forum.get(note["forum"], [])
        out: dict[str, Any] = {}
        if "replies" in details:
            out["replies"] = (
                [n for n in forum if n["id"] != note["id"]] if note["id"] == note["forum"] else []
            )
        if "directReplies" in details:
            out["directReplies"] = [n for n in forum if n.get("replyto") == note["id"]]
        if "replyCount" in details:
            out["replyCount"] = len([n for n in forum if n["id"] != note["id"]])
        return {**note, "details": out}

    def get_groups(self, params: dict[str, str]) -> dict[str, Any]:
        """The `/groups` answer: the group with `id`, or 404."""
        group = self.groups.get(params.get("id", ""))
        if group is None and self.unknown_group == "empty":
            return {"groups": []}
        if group is None:
            raise _ApiError(404, "NotFoundError", f"Group Not Found: {params.get('id', '')}")
        return {"groups": [group]}

    def login(self, body: dict[str, Any]) -> dict[str, Any]:
        """The `/login` answer: a token, or 400 for wrong credentials."""
        if (
            self.credentials is not None
            and (body.get("id"), body.get("password")) != self.credentials
        ):
            raise _ApiError(400, "Error", "Invalid username or password")
        token = f"test-token-{len(self._tokens) + 1}"
        with self._lock:
            self._tokens.add(token)
        return {"token": token, "user": {"id": "~Test_User1", "profile": {"id": "~Test_User1"}}}

    # ---------------------------------------------------------------- HTTP plumbing
    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            wbufsize = 1 << 16  # one write per response: avoids Nagle/delayed-ACK stalls

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                """Silence the per-request stderr log."""

            def do_GET(self) -> None:  # noqa: N802
                self._serve("GET")

            def do_POST(self) -> None:  # noqa: N802
                self._serve("POST")

            def _serve(self, method: str) -> None:
                split = urlsplit(self.path)
                params = dict(parse_qsl(split.query, keep_blank_values=True))
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                authorized = (self.headers.get("Authorization") or "").removeprefix(
                    "Bearer "
                ) in server._tokens
                status, payload, headers = 200, None, {}
                fault = server._take_fault(split.path)
                if fault is not None and fault.delay:
                    time.sleep(fault.delay)
                try:
                    if fault is not None and fault.status is not None:
                        if fault.retry_after is not None:
                            headers["Retry-After"] = fault.retry_after
                        raise _ApiError(fault.status, "InjectedError", fault.message)
                    payload = self._route(method, split.path, params, raw)
                except _ApiError as err:
                    status = err.status
                    payload = {"name": err.name, "message": err.message, "status": err.status}
                server._record(RequestRecord(method, split.path, params, status, authorized))
                body = json.dumps(payload).encode("utf-8")
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json; charset=utf-8")
                    self.send_header("Content-Length", str(len(body)))
                    for key, value in headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client timed out and went away

            def _route(
                self, method: str, path: str, params: dict[str, str], raw: bytes
            ) -> dict[str, Any]:
                if method == "GET" and path == "/notes":
                    return server.get_notes(params)
                if method == "GET" and path == "/groups":
                    return server.get_groups(params)
                if method == "POST" and path == "/login":
                    try:
                        body = json.loads(raw or b"{}")
                    except json.JSONDecodeError:
                        raise _ApiError(400, "ValidationError", "login body is not JSON") from None
                    return server.login(body)
                if method == "GET" and path == "/profiles":
                    return {"profiles": [{"id": "~Test_User1", "content": {"names": []}}]}
                raise _ApiError(404, "NotFoundError", f"no route {method} {path}")

        return Handler


def main(argv: list[str] | None = None) -> None:
    """Serve a raw cache directory until interrupted; prints the base URL on the first line."""
    import argparse
    import sys

    parser = argparse.ArgumentParser(description="Serve a raw OpenReview note cache like API v2.")
    parser.add_argument("cache_dir", type=Path)
    args = parser.parse_args(argv)
    server = OpenReviewTestServer.from_cache(args.cache_dir).start()
    print(server.baseurl, flush=True)
    print(
        f"{len(server.notes)} notes, {server.collapsed_duplicates} repeated ids collapsed",
        file=sys.stderr,
        flush=True,
    )
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
