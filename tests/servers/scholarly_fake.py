"""A local stand-in for the Semantic Scholar and OpenAlex search APIs (127.0.0.1 only).

The real services are unreachable here, so tests run the real backend code (httpx,
tenacity) against this server. It serves `/graph/v1/paper/search` and `/works` in the
shape of the public APIs, ranks its papers by shared query words, applies the date
filters the APIs document, can require an API key, and can be scripted to fail the first
requests with 429/503 (with or without Retry-After). Every request is recorded.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse


@dataclass
class FakePaper:
    """One paper the fake APIs know: id, title, abstract, ISO publication date (may be None)."""

    paper_id: str
    title: str
    abstract: str | None
    date: str | None


@dataclass
class FakeState:
    """Server configuration and the requests it has seen."""

    papers: list[FakePaper]
    s2_key: str | None = None
    openalex_key: str | None = None
    failures: list[tuple[int, str | None]] = field(
        default_factory=list
    )  # (status, Retry-After) per request
    requests: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def _ranked(state: FakeState, query: str, to_date: str | None) -> list[FakePaper]:
    q = _words(query)
    scored = []
    for i, p in enumerate(state.papers):
        if to_date is not None and (p.date is None or p.date > to_date):
            continue
        overlap = len(q & _words(p.title + " " + (p.abstract or "")))
        if overlap:
            scored.append((-overlap, i, p))
    return [p for _, _, p in sorted(scored)]


def _inverted(text: str | None) -> dict[str, list[int]] | None:
    if text is None:
        return None
    index: dict[str, list[int]] = {}
    for pos, word in enumerate(text.split()):
        index.setdefault(word, []).append(pos)
    return index


class _Handler(BaseHTTPRequestHandler):
    state: FakeState

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        return

    def _send(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802 - http.server naming
        url = urlparse(self.path)
        params = {k: v[0] for k, v in parse_qs(url.query).items()}
        with self.state.lock:
            self.state.requests.append(
                {"path": url.path, "params": params, "headers": dict(self.headers)}
            )
            failure = self.state.failures.pop(0) if self.state.failures else None
        if failure is not None:
            status, retry_after = failure
            self._send(
                status,
                {"message": "scripted failure"},
                {"Retry-After": retry_after} if retry_after else None,
            )
            return
        if url.path == "/graph/v1/paper/search":
            self._s2(params)
        elif url.path == "/works":
            self._openalex(params)
        else:
            self._send(404, {"error": "not found"})

    def _s2(self, params: dict[str, str]) -> None:
        if self.state.s2_key is not None and self.headers.get("x-api-key") != self.state.s2_key:
            self._send(403, {"message": "Forbidden"})
            return
        window = params.get("publicationDateOrYear", "")
        to_date = window.split(":", 1)[1] or None if ":" in window else None
        limit = int(params.get("limit", "10"))
        papers = _ranked(self.state, params.get("query", ""), to_date)
        data = [
            {
                "paperId": p.paper_id,
                "title": p.title,
                "abstract": p.abstract,
                "publicationDate": p.date,
                "year": int(p.date[:4]) if p.date else None,
            }
            for p in papers[:limit]
        ]
        self._send(200, {"total": len(papers), "offset": 0, "data": data})

    def _openalex(self, params: dict[str, str]) -> None:
        if self.state.openalex_key is not None and params.get("api_key") != self.state.openalex_key:
            self._send(401, {"error": "Invalid API key"})
            return
        to_date = None
        for clause in params.get("filter", "").split(","):
            if clause.startswith("to_publication_date:"):
                to_date = clause.split(":", 1)[1]
        per_page = int(params.get("per-page", "25"))
        papers = _ranked(self.state, params.get("search", ""), to_date)
        results = [
            {
                "id": f"https://openalex.org/{p.paper_id}",
                "title": p.title,
                "display_name": p.title,
                "publication_date": p.date,
                "publication_year": int(p.date[:4]) if p.date else None,
                "abstract_inverted_index": _inverted(p.abstract),
            }
            for p in papers[:per_page]
        ]
        self._send(200, {"meta": {"count": len(papers)}, "results": results})


@contextmanager
def serve(state: FakeState) -> Iterator[str]:
    """Run the fake APIs on 127.0.0.1 (free port) in a thread; yield the base URL."""
    handler = type("Handler", (_Handler,), {"state": state})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
