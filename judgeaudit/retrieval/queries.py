"""Judge-written search queries: ask a model for n search queries about an idea and parse them.

The prompt is `prompts/retrieval/query.txt`. Parsing keeps one query per non-empty line,
strips list markers and quotes, drops duplicates, and keeps at most n. A reply with no
usable line is reported as `parse="failed"` with the raw text kept; the caller decides
what to do (for example, search with the idea text itself) and counts it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from inspect_ai.model import GenerateConfig, Model, ModelUsage, get_model

from judgeaudit.resources import read_prompt

QUERY_PROMPT = "retrieval/query.txt"
MAX_QUERY_WORDS = 32
_MARKER = re.compile(r"^\s*(?:[-*•]+|\(?\d{1,2}[.):]|(?:query|q)\s*\d*\s*[:.-])\s*", re.IGNORECASE)


@dataclass
class QueryResult:
    """Queries parsed from one model reply, with the raw reply, parse status and token usage."""

    queries: list[str]
    raw: str
    parse: Literal["ok", "failed", "error"]
    error: str | None = None
    usage: ModelUsage | None = None
    dropped: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record for score metadata (usage lives in the sample's model usage)."""
        return {
            "queries": self.queries,
            "raw": self.raw,
            "parse": self.parse,
            "error": self.error,
            "dropped": self.dropped,
        }


def render_query_prompt(idea_text: str, n: int) -> str:
    """The query-writing prompt with the idea and the number of queries filled in."""
    if n < 1:
        raise ValueError(f"number of queries must be >= 1, got {n}")
    return read_prompt(QUERY_PROMPT).replace("{n}", str(n)).replace("{idea}", idea_text.strip())


def parse_queries(raw: str, n: int) -> tuple[list[str], list[str]]:
    """(kept queries, dropped lines): one query per line, markers/quotes stripped, deduplicated, at most n."""
    kept: list[str] = []
    dropped: list[str] = []
    seen: set[str] = set()
    for line in raw.splitlines():
        text = _MARKER.sub("", line).strip().strip("\"'`“”‘’").strip()
        if not text:
            continue
        words = text.split()
        if len(words) > MAX_QUERY_WORDS or text.endswith(":") or not re.search(r"[A-Za-z]", text):
            dropped.append(line)
            continue
        key = text.casefold()
        if key in seen:
            continue
        seen.add(key)
        if len(kept) < n:
            kept.append(text)
        else:
            dropped.append(line)
    return kept, dropped


async def write_queries(
    idea_text: str,
    model: str | Model | None = None,
    n: int = 3,
    config: GenerateConfig | None = None,
) -> QueryResult:
    """Ask `model` (default: the active Inspect model) for up to n search queries about an idea."""
    prompt = render_query_prompt(idea_text, n)
    llm = model if isinstance(model, Model) else get_model(model)
    try:
        output = await llm.generate(prompt, config=config or GenerateConfig())
    except Exception as exc:  # provider failure is reported, never hidden
        return QueryResult([], "", "error", error=f"{type(exc).__name__}: {exc}")
    raw = output.completion or ""
    if output.error:
        return QueryResult([], raw, "error", error=str(output.error), usage=output.usage)
    queries, dropped = parse_queries(raw, n)
    return QueryResult(
        queries, raw, "ok" if queries else "failed", usage=output.usage, dropped=dropped
    )
