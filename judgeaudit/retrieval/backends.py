"""Scholarly search backends: Semantic Scholar Graph API and OpenAlex works search.

Keys come from the environment (`S2_API_KEY`; `OPENALEX_API_KEY` and `OPENALEX_MAILTO`)
or the constructor, and never reach logs or error messages: errors name the endpoint
path and status only, and any registered secret is redacted from `httpx` log records.
Requests are spaced by a minimum interval per backend, and 429 / 5xx / transport errors
are retried with tenacity, honouring `Retry-After` when the server sends it.
A date cutoff is passed to the API and re-checked on every returned document; documents
without a usable date are skipped and counted when a cutoff is set.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import Any

import httpx
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception_type, stop_after_attempt

from judgeaudit.retrieval.corpus import Document, to_millis
from judgeaudit.retrieval.index import Cutoff

S2_BASE_URL = "https://api.semanticscholar.org"
OPENALEX_BASE_URL = "https://api.openalex.org"
MAX_RETRY_AFTER = 60.0
_SECRETS: set[str] = set()


class BackendError(RuntimeError):
    """A search request failed for good (bad status, exhausted retries, malformed reply)."""


class RetryableError(BackendError):
    """A 429, 5xx or transport failure; `retry_after` is the server's Retry-After in seconds, if any."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class _RedactSecrets(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if any(s in message for s in _SECRETS):
            for secret in _SECRETS:
                message = message.replace(secret, "[REDACTED]")
            record.msg, record.args = message, None
        return True


_REDACTOR = _RedactSecrets()


def register_secret(secret: str | None) -> None:
    """Redact `secret` from httpx/httpcore log records from now on."""
    if secret:
        _SECRETS.add(secret)
        for name in ("httpx", "httpcore"):
            logger = logging.getLogger(name)
            if _REDACTOR not in logger.filters:
                logger.addFilter(_REDACTOR)


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or HTTP date), capped; None if absent/bad."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        seconds = when.timestamp() - (time.time() if now is None else now)
    return max(0.0, min(seconds, MAX_RETRY_AFTER))


@dataclass
class BackendResult:
    """Documents from one backend search and what was dropped on the way (counted)."""

    backend: str
    query: str
    documents: list[Document]
    skipped_no_date: int = 0
    after_cutoff: int = 0
    skipped_no_abstract: int = 0
    requests: int = 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary (ids and titles only)."""
        return {
            "backend": self.backend,
            "query": self.query,
            "documents": [{"id": d.doc_id, "title": d.title} for d in self.documents],
            "skipped_no_date": self.skipped_no_date,
            "after_cutoff": self.after_cutoff,
            "skipped_no_abstract": self.skipped_no_abstract,
            "requests": self.requests,
        }


def _date_millis(text: str | None, year: int | None = None) -> int | None:
    if text:
        try:
            return to_millis(text[:10])
        except ValueError:
            pass
    if isinstance(year, int) and not isinstance(year, bool) and 1000 <= year <= 9999:
        return to_millis(f"{year}-01-01")
    return None


def _day_before(cutoff_ms: int) -> str:
    return (
        (datetime.fromtimestamp(cutoff_ms / 1000, tz=UTC) - timedelta(milliseconds=1))
        .date()
        .isoformat()
    )


@dataclass
class HttpBackend:
    """Shared HTTP machinery: one async client, request spacing, tenacity retries."""

    base_url: str
    timeout: float = 30.0
    max_attempts: int = 5
    min_interval: float = 1.0
    backoff: float = 1.0
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    transport: httpx.AsyncBaseTransport | None = None
    _last: float = field(default=0.0, init=False, repr=False)
    _lock: asyncio.Lock | None = field(default=None, init=False, repr=False)
    requests: int = field(default=0, init=False)

    def _wait(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, RetryableError) and exc.retry_after is not None:
            return exc.retry_after
        return min(self.backoff * 2 ** (state.attempt_number - 1), MAX_RETRY_AFTER)

    async def _space(self) -> None:
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            gap = self.min_interval - (time.monotonic() - self._last)
            if self._last and gap > 0:
                await self.sleep(gap)
            self._last = time.monotonic()

    async def _once(
        self, client: httpx.AsyncClient, path: str, params: dict[str, Any], headers: dict[str, str]
    ) -> Any:
        await self._space()
        self.requests += 1
        try:
            response = await client.get(path, params=params, headers=headers)
        except httpx.TransportError as exc:
            raise RetryableError(
                f"{self.base_url}{path}: transport error ({type(exc).__name__})"
            ) from None
        status = response.status_code
        if status == 429 or status >= 500:
            raise RetryableError(
                f"{self.base_url}{path}: HTTP {status}",
                parse_retry_after(response.headers.get("Retry-After")),
            )
        if status != 200:
            raise BackendError(
                f"{self.base_url}{path}: HTTP {status} (check the API key and query)"
            )
        try:
            return response.json()
        except ValueError:
            raise BackendError(f"{self.base_url}{path}: reply is not JSON") from None

    async def get_json(
        self, path: str, params: dict[str, Any], headers: dict[str, str] | None = None
    ) -> Any:
        """GET base_url+path with retries on 429/5xx (Retry-After honoured) and request spacing."""
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.max_attempts),
            wait=self._wait,
            retry=retry_if_exception_type(RetryableError),
            sleep=self.sleep,
            reraise=True,
        )
        async with httpx.AsyncClient(
            base_url=self.base_url,
            timeout=self.timeout,
            transport=self.transport,
            follow_redirects=True,
        ) as client:
            async for attempt in retrying:
                with attempt:
                    return await self._once(client, path, params, headers or {})
        raise BackendError(f"{self.base_url}{path}: no attempt was made")  # pragma: no cover


class SemanticScholar:
    """Semantic Scholar Graph API `/graph/v1/paper/search` (relevance search)."""

    name = "semantic_scholar"
    FIELDS = "title,abstract,publicationDate,year"

    def __init__(
        self, api_key: str | None = None, base_url: str | None = None, **http: Any
    ) -> None:
        self._api_key = api_key if api_key is not None else os.environ.get("S2_API_KEY")
        register_secret(self._api_key)
        http.setdefault("min_interval", 1.0 if self._api_key else 3.0)
        self.http = HttpBackend(base_url or os.environ.get("S2_BASE_URL") or S2_BASE_URL, **http)

    def __repr__(self) -> str:
        return f"SemanticScholar(base_url={self.http.base_url!r}, api_key={'set' if self._api_key else 'unset'})"

    async def search(self, query: str, k: int = 10, cutoff: Cutoff = None) -> BackendResult:
        """Up to k papers for `query`, published strictly before `cutoff` when given."""
        params: dict[str, Any] = {
            "query": query,
            "limit": min(max(k, 1), 100),
            "fields": self.FIELDS,
        }
        cutoff_ms = None if cutoff is None else to_millis(cutoff)
        if cutoff_ms is not None:
            params["publicationDateOrYear"] = f":{_day_before(cutoff_ms)}"
        headers = {"x-api-key": self._api_key} if self._api_key else {}
        data = await self.http.get_json("/graph/v1/paper/search", params, headers)
        if not isinstance(data, dict) or not isinstance(data.get("data", []), list):
            raise BackendError(
                f"{self.http.base_url}/graph/v1/paper/search: unexpected reply shape"
            )
        result = BackendResult(self.name, query, [], requests=self.http.requests)
        for paper in data.get("data") or []:
            _add(
                result,
                str(paper.get("paperId") or ""),
                paper.get("title"),
                paper.get("abstract"),
                _date_millis(paper.get("publicationDate"), paper.get("year")),
                cutoff_ms,
                k,
            )
        return result


def abstract_from_inverted_index(index: dict[str, list[int]] | None) -> str:
    """Rebuild OpenAlex's `abstract_inverted_index` (word -> positions) into plain text."""
    if not index:
        return ""
    slots: dict[int, str] = {}
    for word, positions in index.items():
        for pos in positions:
            slots[int(pos)] = word
    return " ".join(slots[i] for i in sorted(slots))


class OpenAlex:
    """OpenAlex `/works` search (title, abstract and fulltext relevance)."""

    name = "openalex"

    def __init__(
        self,
        api_key: str | None = None,
        mailto: str | None = None,
        base_url: str | None = None,
        **http: Any,
    ) -> None:
        self._api_key = api_key if api_key is not None else os.environ.get("OPENALEX_API_KEY")
        self._mailto = mailto if mailto is not None else os.environ.get("OPENALEX_MAILTO")
        register_secret(self._api_key)
        http.setdefault("min_interval", 0.1)
        self.http = HttpBackend(
            base_url or os.environ.get("OPENALEX_BASE_URL") or OPENALEX_BASE_URL, **http
        )

    def __repr__(self) -> str:
        return f"OpenAlex(base_url={self.http.base_url!r}, api_key={'set' if self._api_key else 'unset'})"

    async def search(self, query: str, k: int = 10, cutoff: Cutoff = None) -> BackendResult:
        """Up to k works for `query`, published strictly before `cutoff` when given."""
        params: dict[str, Any] = {
            "search": query,
            "per-page": min(max(k, 1), 200),
            "select": "id,title,display_name,publication_date,publication_year,abstract_inverted_index",
        }
        cutoff_ms = None if cutoff is None else to_millis(cutoff)
        if cutoff_ms is not None:
            params["filter"] = f"to_publication_date:{_day_before(cutoff_ms)}"
        if self._api_key:
            params["api_key"] = self._api_key
        if self._mailto:
            params["mailto"] = self._mailto
        data = await self.http.get_json("/works", params)
        if not isinstance(data, dict) or not isinstance(data.get("results", []), list):
            raise BackendError(f"{self.http.base_url}/works: unexpected reply shape")
        result = BackendResult(self.name, query, [], requests=self.http.requests)
        for work in data.get("results") or []:
            _add(
                result,
                str(work.get("id") or "").rsplit("/", 1)[-1],
                work.get("title") or work.get("display_name"),
                abstract_from_inverted_index(work.get("abstract_inverted_index")),
                _date_millis(work.get("publication_date"), work.get("publication_year")),
                cutoff_ms,
                k,
            )
        return result


def _add(
    result: BackendResult,
    doc_id: str,
    title: Any,
    abstract: Any,
    cdate: int | None,
    cutoff_ms: int | None,
    k: int,
) -> None:
    if len(result.documents) >= k:
        return
    if (
        not doc_id
        or not isinstance(title, str)
        or not isinstance(abstract, str)
        or not abstract.strip()
    ):
        result.skipped_no_abstract += 1
        return
    if cdate is None:
        if cutoff_ms is not None:
            result.skipped_no_date += 1
            return
        cdate = 0
    if cutoff_ms is not None and cdate >= cutoff_ms:
        result.after_cutoff += 1
        return
    result.documents.append(Document(doc_id, title.strip(), abstract.strip(), cdate))


def make_backend(name: str, **kwargs: Any) -> SemanticScholar | OpenAlex:
    """A backend by name: `semantic_scholar` (alias `s2`) or `openalex`."""
    if name in ("semantic_scholar", "s2"):
        return SemanticScholar(**kwargs)
    if name == "openalex":
        return OpenAlex(**kwargs)
    raise ValueError(f"unknown search backend {name!r}: use semantic_scholar or openalex")
