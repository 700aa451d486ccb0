"""Typed records from the raw cache (`judgeaudit.mine.parse`): the small snapshot fixture plus hand-made bad notes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.raw_notes import VENUE, review, submission, write_cache

from judgeaudit.mine.openreview.shards import cache_hash, iter_notes
from judgeaudit.mine.parse import (
    LATER_REVIEW_VERSION,
    STATUS_DESK_REJECTED,
    STATUS_WITHDRAWN,
    as_of_ms,
    as_of_text,
    parse_notes,
    parse_score,
    status_of,
)
from judgeaudit.mine.summary import RunSummary

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "openreview_small"


def test_fixture_reads_forty_forums_and_their_reviews() -> None:
    summary = RunSummary()
    corpus = parse_notes(iter_notes(FIXTURE, summary), summary)
    assert len(corpus.submissions) == 40
    assert sum(len(v) for v in corpus.reviews.values()) == 143
    assert all(len({r.review_id for r in v}) == len(v) for v in corpus.reviews.values())
    # the snapshot holds an edited review twice; the later version is kept and the other counted
    assert (
        summary.skips[("cache", "duplicate note id (an occurrence with a later mdate is kept)")]
        == 1
    )
    withdrawn = [f for f in corpus.submissions if status_of(corpus, f) == STATUS_WITHDRAWN]
    assert len(withdrawn) >= 5
    assert summary.notes["replies ignored: Official_Comment"] > 0


def test_duplicates_keep_the_latest_mdate_wherever_it_is(tmp_path: Path) -> None:
    cache = tmp_path / "c"
    write_cache(
        cache, [submission("P1"), review("R1", "P1", rating=8, mdate=5)], "notes-00.jsonl.gz"
    )
    write_cache(
        cache,
        [review("R1", "P1", rating=2, mdate=3), review("R1", "P1", rating=4, mdate=5)],
        "notes-01.jsonl.gz",
    )
    summary = RunSummary()
    corpus = parse_notes(iter_notes(cache, summary), summary)
    (only,) = corpus.reviews["P1"]
    assert only.rating == 4.0  # same mdate: the later occurrence in file order wins
    assert summary.total_skipped("cache") == 2


def test_reviews_as_of_read_each_review_as_it_stood_then(tmp_path: Path) -> None:
    cache = write_cache(
        tmp_path / "c",
        [
            submission(
                "P1", mdate=90
            ),  # a submission edited later (e.g. withdrawn) stays: only reviews are read as of
            review("R1", "P1", rating=4, mdate=10),
            review("R1", "P1", rating=8, mdate=60),  # raised after the time
            review("R2", "P1", rating=2, mdate=20),
            review("R3", "P1", rating=6, mdate=70),  # first posted after the time
            review("R4", "P1", rating=6, mdate=50),  # written exactly at the time: in
        ],
    )
    summary = RunSummary()
    corpus = parse_notes(iter_notes(cache, summary), summary, reviews_as_of=50)
    assert "P1" in corpus.submissions
    assert {r.review_id: r.rating for r in corpus.reviews["P1"]} == {
        "R1": 4.0,
        "R2": 2.0,
        "R4": 6.0,
    }
    assert summary.skips[("parse", LATER_REVIEW_VERSION)] == 2
    assert summary.total_skipped("cache") == 0  # the later R1 never displaced the earlier one
    assert summary.unaccounted() == 0
    latest = RunSummary()
    corpus = parse_notes(iter_notes(cache, latest), latest)
    assert {r.review_id: r.rating for r in corpus.reviews["P1"]} == {
        "R1": 8.0,
        "R2": 2.0,
        "R3": 6.0,
        "R4": 6.0,
    }
    assert latest.skips[("parse", LATER_REVIEW_VERSION)] == 0


@pytest.mark.parametrize(
    "text, ms",
    [
        ("2025-11-13T08:00Z", 1763020800000),
        ("2025-11-13T08:00:00+00:00", 1763020800000),
        ("2025-11-13T09:00+01:00", 1763020800000),
        ("1970-01-01T00:00:00.001Z", 1),
    ],
)
def test_as_of_times_read_with_their_zone(text: str, ms: int) -> None:
    assert as_of_ms(text) == ms
    assert as_of_ms(as_of_text(ms)) == ms


@pytest.mark.parametrize(
    "text, says",
    [
        ("2025-11-13T08:00", "names no time zone"),
        ("yesterday", "is not an ISO 8601 time"),
        ("", "is not an ISO 8601"),
        ("2025-13-01T00:00Z", "is not an ISO 8601 time"),
    ],
)
def test_as_of_times_without_a_zone_or_unreadable_are_refused(text: str, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        as_of_ms(text)


@pytest.mark.parametrize(
    "value, expected",
    [
        (6, 6.0),
        (2.5, 2.5),
        ("6: marginally above the acceptance threshold", 6.0),
        ("8", 8.0),
        (" 10 : top", 10.0),
        ("3. good", 3.0),
        ("good", None),
        ("", None),
        (None, None),
        (True, None),
        ([6], None),
    ],
)
def test_scores_in_both_styles(value: object, expected: float | None) -> None:
    assert parse_score(value) == expected


def test_review_and_submission_defects(tmp_path: Path) -> None:
    cache = write_cache(
        tmp_path / "c",
        [
            submission("P1"),
            review("R1", "P1", rating="6: marginally above", contribution="3 good"),
            review("R2", "P1", rating="strong accept"),
            review("R3", "P1", rating=None),
            review("R4", "P1", contribution=None, strengths="", weaknesses=""),
            review("R5", "GHOST"),
            submission("P2", abstract=""),
            submission("P3", venueid=f"{VENUE}/Withdrawn_Submission"),
            submission("P4", venueid=f"{VENUE}/Desk_Rejected_Submission"),
            {
                "id": "W5",
                "forum": "P5",
                "invitations": [f"{VENUE}/Submission5/-/Withdrawal"],
                "content": {"withdrawal_confirmation": {"value": "yes"}},
            },
            submission("P5"),
            {"id": "Z", "forum": "P1", "invitations": ["weird"], "content": {"a": {"value": 1}}},
        ],
    )
    summary = RunSummary()
    corpus = parse_notes(iter_notes(cache, summary), summary)
    ratings = {r.review_id: (r.rating, r.contribution) for r in corpus.reviews["P1"]}
    assert ratings == {"R1": (6.0, 3.0), "R4": (6.0, None)}
    parse_skips = {r: n for (s, r), n in summary.skips.items() if s == "parse"}
    assert parse_skips == {
        "review with a non-numeric rating": 1,
        "review without a rating": 1,
        "review of a submission not in the cache (or skipped)": 1,
        "submission without an abstract": 1,
        "note without a recognisable invitation": 1,
    }
    assert summary.notes["reviews with empty text (kept for scores, cannot carry signals)"] == 1
    assert status_of(corpus, "P3") == STATUS_WITHDRAWN
    assert status_of(corpus, "P4") == STATUS_DESK_REJECTED
    assert status_of(corpus, "P5") == STATUS_WITHDRAWN  # from the Withdrawal reply


@pytest.mark.parametrize(
    "rating, reason",
    [
        (float("nan"), "review whose rating is non-finite"),
        (float("inf"), "review whose rating is non-finite"),
        (10**400, "review whose rating is non-finite"),
        (11, "review whose rating is outside the venue's scale [0, 10]"),
    ],
)
def test_bad_scores_are_skipped_with_a_reason_and_cannot_move_a_cut(
    tmp_path: Path, rating: object, reason: str
) -> None:
    cache = write_cache(
        tmp_path / "c", [submission("P1"), review("R1", "P1"), review("R2", "P1", rating=rating)]
    )
    summary = RunSummary()
    corpus = parse_notes(iter_notes(cache, summary), summary)
    assert [r.review_id for r in corpus.reviews["P1"]] == ["R1"]
    assert summary.skips[("parse", reason)] == 1
    assert summary.unaccounted() == 0


def test_a_submission_claiming_another_forum_is_skipped_not_merged(tmp_path: Path) -> None:
    hostile = submission("P2")
    hostile["forum"] = "P1"
    hostile["content"]["title"] = {"value": "Another paper"}
    cache = write_cache(tmp_path / "c", [submission("P1"), hostile, review("R1", "P1")])
    summary = RunSummary()
    corpus = parse_notes(iter_notes(cache, summary), summary)
    assert set(corpus.submissions) == {"P1"} and corpus.submissions["P1"].title == "Paper P1"
    assert (
        summary.skips[
            ("parse", "submission whose forum names another note (identified by its own id)")
        ]
        == 1
    )


def test_hostile_lines_and_non_file_shards_are_counted_and_every_line_accounted(
    tmp_path: Path,
) -> None:
    bad_unicode = (
        json.dumps(submission("P3")).replace("We study", "We \\ud800 study").encode() + b"\n"
    )
    deep = b'{"id": "d", "content": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n"
    big = b'{"id": "b", "mdate": ' + b"9" * 5000 + b', "content": {"a": 1}}\n'
    cache = write_cache(
        tmp_path / "c", [submission("P1"), bad_unicode, deep, big, review("R1", "P1", mdate="x")]
    )
    (cache / "notes-01.jsonl.gz").mkdir()
    summary = RunSummary()
    corpus = parse_notes(iter_notes(cache, summary), summary)
    assert set(corpus.submissions) == {"P1"} and len(corpus.reviews["P1"]) == 1
    reasons = {r for (_, r) in summary.skips}
    assert {
        "invalid Unicode (a lone surrogate escape) in a string",
        "JSON nested too deeply",
        "invalid JSON (number too long to convert)",
        "shard is not a regular file (directory, broken link or device)",
    } <= reasons
    assert summary.lines_read == 5 and summary.unaccounted() == 0
    assert len(cache_hash(cache)) == 64  # the directory shard is left out of the snapshot hash
