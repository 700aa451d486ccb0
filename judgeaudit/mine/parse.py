"""Typed records from raw API v2 notes: Submission and Review, with counted skips."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from judgeaudit.mine.cache import Latest, Located
from judgeaudit.mine.summary import RunSummary

STAGE = "parse"

# Review fields that hold the reviewer's own judgement (signals are read from these).
# `summary` restates the authors' claims and is left out (see calibration in the dataset card).
SIGNAL_FIELDS: tuple[str, ...] = (
    "strengths", "weaknesses", "questions",
    # older ICLR/NeurIPS review forms
    "strengths_and_weaknesses", "main_review", "review", "summary_of_the_review",
)
TEXT_FIELDS: tuple[str, ...] = ("summary", "summary_of_the_paper", *SIGNAL_FIELDS)

STATUS_ACTIVE = "active"
STATUS_WITHDRAWN = "withdrawn"
STATUS_DESK_REJECTED = "desk_rejected"

_LEADING_NUMBER = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*(?:[:.)\-]|$|\s)")


def content_value(content: dict[str, Any], key: str) -> Any:
    """The value of an API v2 content field (`{"value": x}`) or a flat API v1 value."""
    raw = content.get(key)
    if isinstance(raw, dict) and "value" in raw:
        return raw["value"]
    return raw


def parse_score(value: Any) -> float | None:
    """A numeric score from an int/float or a string like '6: marginally above'; None if not numeric."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        m = _LEADING_NUMBER.match(value)
        if m:
            return float(m.group(1))
    return None


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


@dataclass(frozen=True, slots=True)
class Submission:
    """One submitted paper."""

    forum: str
    number: int | None
    title: str
    abstract: str
    area: str
    status: str
    venueid: str
    mdate: int


@dataclass(frozen=True, slots=True)
class Review:
    """One official review: its scores and its text fields (name, text) in form order."""

    review_id: str
    forum: str
    rating: float
    contribution: float | None
    texts: tuple[tuple[str, str], ...]
    mdate: int

    def signal_text(self, fields: Iterable[str] = SIGNAL_FIELDS) -> tuple[tuple[str, str], ...]:
        """The (field, text) pairs signals are read from."""
        wanted = set(fields)
        return tuple((f, t) for f, t in self.texts if f in wanted)


@dataclass
class Corpus:
    """Parsed records of one venue: submissions by forum, their official reviews, reply kinds."""

    submissions: dict[str, Submission] = field(default_factory=dict)
    reviews: dict[str, list[Review]] = field(default_factory=dict)
    withdrawn_forums: set[str] = field(default_factory=set)
    desk_rejected_forums: set[str] = field(default_factory=set)


def note_kind(note: dict[str, Any]) -> str:
    """The invitation's last part ('Submission', 'Official_Review', 'Withdrawal', ...) or ''."""
    invitations = note.get("invitations")
    if not isinstance(invitations, list):
        inv = note.get("invitation")
        invitations = [inv] if isinstance(inv, str) else []
    kinds = [i.rsplit("/-/", 1)[-1] for i in invitations if isinstance(i, str) and "/-/" in i]
    for preferred in ("Submission", "Official_Review"):
        if preferred in kinds:
            return preferred
    kinds = [k for k in kinds if k != "Edit"]
    return kinds[0] if kinds else ""


def _status(venueid: str) -> str:
    low = venueid.lower()
    if "withdrawn" in low:
        return STATUS_WITHDRAWN
    if "desk_rejected" in low or "desk-rejected" in low:
        return STATUS_DESK_REJECTED
    return STATUS_ACTIVE


def parse_submission(loc: Located, summary: RunSummary) -> Submission | None:
    """A Submission, or None with a counted skip."""
    note = loc.note
    content = note["content"]
    forum = note.get("forum") or note["id"]
    title = _text(content_value(content, "title"))
    abstract = _text(content_value(content, "abstract"))
    area = _text(content_value(content, "primary_area"))
    if not abstract:
        summary.skip(STAGE, "submission without an abstract", loc.where)
        return None
    if not area:
        summary.skip(STAGE, "submission without a primary_area", loc.where)
        return None
    venueid = _text(content_value(content, "venueid"))
    number = note.get("number")
    return Submission(forum=forum, number=number if isinstance(number, int) else None, title=title,
                      abstract=abstract, area=area, status=_status(venueid), venueid=venueid,
                      mdate=int(note.get("mdate") or 0))


def parse_review(loc: Located, summary: RunSummary) -> Review | None:
    """A Review, or None with a counted skip (no forum, non-numeric or missing rating)."""
    note = loc.note
    content = note["content"]
    forum = note.get("forum")
    if not isinstance(forum, str) or not forum:
        summary.skip(STAGE, "review without a forum", loc.where)
        return None
    raw_rating = content_value(content, "rating")
    if raw_rating is None:
        summary.skip(STAGE, "review without a rating", loc.where)
        return None
    rating = parse_score(raw_rating)
    if rating is None:
        summary.skip(STAGE, f"review with a non-numeric rating ({str(raw_rating)[:30]!r})", loc.where)
        return None
    raw_contribution = content_value(content, "contribution")
    contribution = parse_score(raw_contribution)
    if raw_contribution is not None and contribution is None:
        summary.note("reviews with a non-numeric contribution (treated as missing)")
    elif raw_contribution is None:
        summary.note("reviews without a contribution score")
    texts = tuple((f, _text(content_value(content, f))) for f in TEXT_FIELDS if _text(content_value(content, f)))
    if not any(f in SIGNAL_FIELDS for f, _ in texts):
        summary.note("reviews with empty text (kept for scores, cannot carry signals)")
    return Review(review_id=note["id"], forum=forum, rating=rating, contribution=contribution,
                  texts=texts, mdate=int(note.get("mdate") or 0))


def parse_notes(notes: Iterable[Located], summary: RunSummary) -> Corpus:
    """Parse a note stream into a Corpus, keeping each note id's latest version (see `cache.Latest`).

    Reviews of submissions that are not in the cache (or were skipped) are counted skips.
    """
    corpus = Corpus()
    latest = Latest(summary)
    submissions: dict[str, Submission] = {}  # by note id
    reviews: dict[str, tuple[Located, Review]] = {}
    status_replies: dict[str, tuple[str, str]] = {}  # note id -> (kind, forum)
    ignored: dict[str, str] = {}  # note id -> kind
    for loc in notes:
        accepted, displaced = latest.offer(loc)
        if not accepted:
            continue
        note_id = loc.note["id"]
        if displaced is not None:
            for table in (submissions, reviews, status_replies, ignored):
                table.pop(note_id, None)
        kind = note_kind(loc.note)
        if kind == "Submission":
            sub = parse_submission(loc, summary)
            if sub is not None:
                submissions[note_id] = sub
        elif kind == "Official_Review":
            review = parse_review(loc, summary)
            if review is not None:
                reviews[note_id] = (loc, review)
        elif kind in ("Withdrawal", "Desk_Rejection"):
            status_replies[note_id] = (kind, str(loc.note.get("forum")))
        elif kind:
            ignored[note_id] = kind
        else:
            summary.skip(STAGE, "note without a recognisable invitation", loc.where)
    for sub in submissions.values():
        corpus.submissions[sub.forum] = sub
    for kind, forum in status_replies.values():
        (corpus.withdrawn_forums if kind == "Withdrawal" else corpus.desk_rejected_forums).add(forum)
        summary.note(f"replies ignored: {kind} (used for status)")
    for kind in ignored.values():
        summary.note(f"replies ignored: {kind}")
    for loc, review in reviews.values():
        if review.forum not in corpus.submissions:
            summary.skip(STAGE, "review of a submission not in the cache (or skipped)", loc.where)
            continue
        corpus.reviews.setdefault(review.forum, []).append(review)
    for forum_reviews in corpus.reviews.values():
        forum_reviews.sort(key=lambda r: r.review_id)
    return corpus


def status_of(corpus: Corpus, forum: str) -> str:
    """A submission's status from its venueid and any Withdrawal/Desk_Rejection reply."""
    sub = corpus.submissions[forum]
    if forum in corpus.desk_rejected_forums:
        return STATUS_DESK_REJECTED
    if forum in corpus.withdrawn_forums:
        return STATUS_WITHDRAWN
    return sub.status
