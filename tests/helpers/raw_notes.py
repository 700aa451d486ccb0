"""Builders of raw OpenReview notes (API v2 JSON) and one-file shard caches, shared by the mining tests."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

VENUE = "ICLR.cc/2026/Conference"


def submission(
    forum: str, *, venueid: str = f"{VENUE}/Submission", mdate: int = 1, **content: object
) -> dict:
    """An API v2 submission note."""
    body = {
        "title": {"value": f"Paper {forum}"},
        "abstract": {"value": f"We study {forum}."},
        "primary_area": {"value": "learning theory"},
        "venueid": {"value": venueid},
    }
    body.update({k: {"value": v} for k, v in content.items()})
    return {
        "id": forum,
        "forum": forum,
        "number": 1,
        "mdate": mdate,
        "invitations": [f"{VENUE}/-/Submission"],
        "content": body,
    }


def review(
    rid: str,
    forum: str,
    *,
    rating: object = 6,
    contribution: object = 3,
    mdate: int = 1,
    **texts: str,
) -> dict:
    """An API v2 official review note."""
    content: dict = {
        "strengths": {"value": texts.get("strengths", "The idea is novel.")},
        "weaknesses": {"value": texts.get("weaknesses", "Some typos.")},
    }
    if rating is not None:
        content["rating"] = {"value": rating}
    if contribution is not None:
        content["contribution"] = {"value": contribution}
    return {
        "id": rid,
        "forum": forum,
        "replyto": forum,
        "mdate": mdate,
        "invitations": [f"{VENUE}/Submission1/-/Official_Review", f"{VENUE}/-/Edit"],
        "content": content,
    }


def write_cache(path: Path, lines: list[bytes | dict], name: str = "notes-00.jsonl.gz") -> Path:
    """A one-file raw cache from notes (dicts) and raw byte lines."""
    path.mkdir(parents=True, exist_ok=True)
    with gzip.open(path / name, "wb") as fh:
        for line in lines:
            fh.write(line if isinstance(line, bytes) else (json.dumps(line) + "\n").encode())
    return path
