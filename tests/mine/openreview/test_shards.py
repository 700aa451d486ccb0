"""Reading the raw shard cache (`judgeaudit.mine.openreview.shards`): counted skips, clear errors, the snapshot hash."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.raw_notes import VENUE, review, submission, write_cache

from judgeaudit.mine.openreview.shards import CacheError, cache_hash, iter_notes
from judgeaudit.mine.summary import RunSummary


def test_bad_lines_are_counted_skips_with_locations(tmp_path: Path) -> None:
    cache = write_cache(
        tmp_path / "c",
        [
            submission("P1"),
            review("R1", "P1"),
            b"{not json\n",
            b"[1, 2]\n",
            b"\n",
            json.dumps(
                {
                    "id": "X",
                    "forum": "P1",
                    "invitations": [f"{VENUE}/Submission1/-/Official_Review"],
                }
            ).encode()
            + b"\n",
            {"forum": "P1", "content": {"x": {"value": 1}}},
            b'{"id": "T", "content": {"title"',  # truncated last line, no newline
        ],
    )
    summary = RunSummary()
    notes = list(iter_notes(cache, summary))
    assert [n.note["id"] for n in notes] == ["P1", "R1"]
    reasons = {r: n for (stage, r), n in summary.skips.items() if stage == "cache"}
    assert reasons == {
        "invalid JSON (JSONDecodeError)": 1,
        "line is not a JSON object": 1,
        "blank line": 1,
        "note without content": 1,
        "note without an id": 1,
        "truncated line (no newline, JSON ends early)": 1,
    }
    assert summary.examples[("cache", "invalid JSON (JSONDecodeError)")] == ["notes-00.jsonl.gz:3"]


def test_truncated_gzip_is_reported_not_raised(tmp_path: Path) -> None:
    cache = write_cache(tmp_path / "c", [submission(f"P{i}") for i in range(200)])
    path = cache / "notes-00.jsonl.gz"
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    summary = RunSummary()
    notes = list(iter_notes(cache, summary))
    assert 0 < len(notes) < 200
    assert any(r.startswith("unreadable rest of gzip file") for (_, r) in summary.skips)


def test_missing_or_empty_cache_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(CacheError, match="does not exist"):
        list(iter_notes(tmp_path / "nope"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(CacheError, match=r"no notes-\*\.jsonl\.gz files"):
        list(iter_notes(tmp_path / "empty"))


def test_cache_hash_changes_with_content(tmp_path: Path) -> None:
    a = write_cache(tmp_path / "a", [submission("P1")])
    b = write_cache(tmp_path / "b", [submission("P2")])
    assert cache_hash(a) == cache_hash(a)
    assert cache_hash(a) != cache_hash(b)
