"""Typed records from raw API v2 notes: Submission and Review, with counted skips.

A submission is identified by its own note id; a submission note whose `forum` names another
note is skipped (it would otherwise replace that paper). A review score that is not a finite
number on the venue's scale (`ScoreScale`) makes the review a counted skip, so it can never move
a decile cut. Over-long text fields are skipped, not truncated.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from judgeaudit.mine.openreview.shards import Latest, Located, timestamp, version_time
from judgeaudit.mine.summary import RunSummary

STAGE = "parse"

# The review fields signals are read from by default: the reference study reads only a review's
# strengths and weaknesses (the ICLR 2026 form's names), and a review with either empty gives no signal.
SIGNAL_FIELDS: tuple[str, ...] = ("strengths", "weaknesses")
# Every text field a Review keeps (`--signal-fields` may name any of them): the ICLR 2026 form's, and
# those of older ICLR/NeurIPS review forms.
TEXT_FIELDS: tuple[str, ...] = (
    "summary",
    "summary_of_the_paper",
    "strengths",
    "weaknesses",
    "questions",
    "strengths_and_weaknesses",
    "main_review",
    "review",
    "summary_of_the_review",
)

STATUS_ACTIVE = "active"
STATUS_WITHDRAWN = "withdrawn"
STATUS_DESK_REJECTED = "desk_rejected"

# A submission's decision, once the venue has published them (None while under review).
DECISION_ACCEPTED = "accepted"
DECISION_REJECTED = "rejected"
DECISIONS: tuple[str, ...] = (
    DECISION_ACCEPTED,
    DECISION_REJECTED,
    STATUS_WITHDRAWN,
    STATUS_DESK_REJECTED,
)

_LEADING_NUMBER = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*(?:[:.)\-]|$|\s)")


def content_value(content: dict[str, Any], key: str) -> Any:
    """The value of an API v2 content field (`{"value": x}`) or a flat API v1 value."""
    raw = content.get(key)
    if isinstance(raw, dict) and "value" in raw:
        return raw["value"]
    return raw


# Longest text field accepted (characters): real ICLR 2026 abstracts stay under 5,000 and reviews
# under 60,000; anything longer is a corrupt or hostile note.
MAX_TITLE = 1_000
MAX_ABSTRACT = 20_000
MAX_REVIEW_FIELD = 100_000


@dataclass(frozen=True)
class ScoreScale:
    """The venue's score ranges (inclusive); ICLR 2026 rates 0-10 and scores contribution 1-4."""

    rating: tuple[float, float] = (0.0, 10.0)
    contribution: tuple[float, float] = (1.0, 4.0)


def parse_score(value: Any) -> float | None:
    """A numeric score from an int/float or a string like '6: marginally above'; None if not numeric."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        try:
            return float(value)
        except OverflowError:
            return math.inf
    if isinstance(value, str):
        m = _LEADING_NUMBER.match(value[:40])
        if m:
            return float(m.group(1))
    return None


def score_problem(value: float, scale: tuple[float, float]) -> str | None:
    """Why a parsed score cannot be used ('non-finite', 'outside ...'), or None if it is fine."""
    if not math.isfinite(value):
        return "non-finite"
    low, high = scale
    if not low <= value <= high:
        return f"outside the venue's scale [{low:g}, {high:g}]"
    return None


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _short(value: Any) -> str:
    text = repr(value) if not isinstance(value, str) else value
    return text[:30]


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
    venue: str = ""


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

    def has_fields(self, fields: Iterable[str] = SIGNAL_FIELDS) -> bool:
        """True when every one of `fields` holds text (a review with one empty gives no signal by default)."""
        present = {f for f, _ in self.texts}
        return all(f in present for f in fields)


@dataclass
class Corpus:
    """Parsed records of one venue: submissions by forum, their official reviews, reply kinds."""

    submissions: dict[str, Submission] = field(default_factory=dict)
    reviews: dict[str, list[Review]] = field(default_factory=dict)
    withdrawn_forums: set[str] = field(default_factory=set)
    desk_rejected_forums: set[str] = field(default_factory=set)
    decision_replies: dict[str, str] = field(
        default_factory=dict
    )  # forum -> "accepted" | "rejected" (Decision notes)


def note_kind(note: dict[str, Any]) -> str:
    """The invitation's last part ('Submission', 'Official_Review', 'Withdrawal', ...) or ''."""
    invitations = note.get("invitations")
    if not isinstance(invitations, list):
        inv = note.get("invitation")
        invitations = [inv] if isinstance(inv, str) else []
    kinds = [i.rsplit("/-/", 1)[-1] for i in invitations if isinstance(i, str) and "/-/" in i]
    for preferred in ("Submission", "Official_Review", "Decision"):
        if preferred in kinds:
            return preferred
    kinds = [k for k in kinds if k != "Edit"]
    return kinds[0] if kinds else ""


_INVITATION_NUMBER = re.compile(r"/Submission(\d{1,9})/-/")


def invitation_number(note: dict[str, Any]) -> int | None:
    """The submission number a reply's invitation names (`.../Submission6845/-/Official_Review`), or None."""
    invitations = note.get("invitations")
    for inv in invitations if isinstance(invitations, list) else []:
        m = _INVITATION_NUMBER.search(inv) if isinstance(inv, str) else None
        if m:
            return int(m.group(1))
    return None


def _status(venueid: str) -> str:
    low = venueid.lower()
    if "withdrawn" in low:
        return STATUS_WITHDRAWN
    if "desk_rejected" in low or "desk-rejected" in low:
        return STATUS_DESK_REJECTED
    return STATUS_ACTIVE


def parse_submission(loc: Located, summary: RunSummary) -> tuple[Submission | None, str]:
    """A Submission, or None with the reason it is skipped."""
    note = loc.note
    content = note["content"]
    forum = note["id"]
    claimed = note.get("forum")
    if claimed is not None and claimed != forum:
        return None, "submission whose forum names another note (identified by its own id)"
    title = _text(content_value(content, "title"))
    abstract = _text(content_value(content, "abstract"))
    area = _text(content_value(content, "primary_area"))
    if not abstract:
        return None, "submission without an abstract"
    if len(abstract) > MAX_ABSTRACT or len(title) > MAX_TITLE:
        return (
            None,
            f"submission with an over-long title or abstract (> {MAX_TITLE:,} / {MAX_ABSTRACT:,} characters)",
        )
    if not area:
        return None, "submission without a primary_area"
    venueid = _text(content_value(content, "venueid"))
    number = note.get("number")
    return Submission(
        forum=forum,
        number=number if isinstance(number, int) and not isinstance(number, bool) else None,
        title=title,
        abstract=abstract,
        area=area,
        status=_status(venueid),
        venueid=venueid,
        mdate=timestamp(note.get("mdate")) or 0,
        venue=_text(content_value(content, "venue")),
    ), ""


def parse_review(
    loc: Located, summary: RunSummary, scale: ScoreScale = ScoreScale()
) -> tuple[Review | None, str]:
    """A Review, or None with the reason it is skipped (no forum, a rating or contribution that is
    not a finite number on the venue's scale, an over-long text field)."""
    note = loc.note
    content = note["content"]
    forum = note.get("forum")
    if not isinstance(forum, str) or not forum:
        return None, "review without a forum"
    raw_rating = content_value(content, "rating")
    if raw_rating is None:
        return None, "review without a rating"
    rating = parse_score(raw_rating)
    if rating is None:
        return None, "review with a non-numeric rating"
    problem = score_problem(rating, scale.rating)
    if problem:
        return None, f"review whose rating is {problem}"
    raw_contribution = content_value(content, "contribution")
    contribution = parse_score(raw_contribution)
    if contribution is not None:
        problem = score_problem(contribution, scale.contribution)
        if problem:
            return None, f"review whose contribution score is {problem}"
    texts = tuple((f, t) for f in TEXT_FIELDS if (t := _text(content_value(content, f))))
    if any(len(t) > MAX_REVIEW_FIELD for _, t in texts):
        return None, f"review with a text field over {MAX_REVIEW_FIELD:,} characters"
    if raw_contribution is not None and contribution is None:
        summary.note("reviews with a non-numeric contribution (treated as missing)")
    elif raw_contribution is None:
        summary.note("reviews without a contribution score")
    if not any(f in SIGNAL_FIELDS for f, _ in texts):
        summary.note("reviews with empty text (kept for scores, cannot carry signals)")
    return Review(
        review_id=note["id"],
        forum=forum,
        rating=rating,
        contribution=contribution,
        texts=texts,
        mdate=timestamp(note.get("mdate")) or 0,
    ), ""


LATER_REVIEW_VERSION = "official review version written after --reviews-as-of"


def as_of_ms(text: str) -> int:
    """An ISO 8601 time with its zone ('2025-11-13T08:00Z') as ms since the epoch; ValueError names what is wrong."""
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"{text!r} is not an ISO 8601 time (e.g. 2025-11-13T08:00Z)") from None
    if when.tzinfo is None:
        raise ValueError(f"{text!r} names no time zone (add Z for UTC, e.g. 2025-11-13T08:00Z)")
    return round(when.timestamp() * 1000)


def as_of_text(ms: int) -> str:
    """The canonical UTC text of a time in ms ('2025-11-13T08:00:00Z'; milliseconds only when there are any)."""
    text = datetime.fromtimestamp(ms // 1000, tz=UTC).strftime("%Y-%m-%dT%H:%M:%S")
    return f"{text}.{ms % 1000:03d}Z" if ms % 1000 else f"{text}Z"


def parse_notes(
    notes: Iterable[Located],
    summary: RunSummary,
    scale: ScoreScale = ScoreScale(),
    reviews_as_of: int | None = None,
) -> Corpus:
    """Parse a note stream into a Corpus, keeping each note id's latest version (see `cache.Latest`).

    Every note ends as exactly one of: a record (submission, review, status reply, ignored reply)
    or a counted skip; a displaced older version is a duplicate skip only. Reviews of submissions
    that are not in the cache (or were skipped) are counted skips. With `reviews_as_of` (ms), an
    official review is read as it stood then: versions written later are counted skips, so the
    latest earlier version stands, and a review first posted later is left out.
    """
    corpus = Corpus()
    latest = Latest(summary)
    submissions: dict[str, Submission] = {}  # by note id
    reviews: dict[str, tuple[Located, Review]] = {}
    status_replies: dict[str, tuple[str, str]] = {}  # note id -> (kind, forum)
    decisions: dict[str, tuple[str, str]] = {}  # note id -> (decision, forum)
    ignored: dict[str, str] = {}  # note id -> kind
    skipped: dict[
        str, tuple[str, str]
    ] = {}  # note id -> (reason, where), emitted once the latest version is known
    for loc in notes:
        if (
            reviews_as_of is not None
            and version_time(loc.note) > reviews_as_of
            and note_kind(loc.note) == "Official_Review"
        ):
            summary.skip(STAGE, LATER_REVIEW_VERSION, loc.where)
            continue
        accepted, displaced = latest.offer(loc)
        if not accepted:
            continue
        note_id = loc.note["id"]
        if displaced is not None:
            submissions.pop(note_id, None)
            reviews.pop(note_id, None)
            status_replies.pop(note_id, None)
            decisions.pop(note_id, None)
            ignored.pop(note_id, None)
            skipped.pop(note_id, None)
        kind = note_kind(loc.note)
        reason = ""
        if kind == "Submission":
            sub, reason = parse_submission(loc, summary)
            if sub is not None:
                submissions[note_id] = sub
        elif kind == "Official_Review":
            review, reason = parse_review(loc, summary, scale)
            if review is not None:
                reviews[note_id] = (loc, review)
        elif kind in ("Withdrawal", "Desk_Rejection"):
            forum = loc.note.get("forum")
            if isinstance(forum, str):
                status_replies[note_id] = (kind, forum)
            else:
                reason = f"{kind} reply without a forum"
        elif kind == "Decision":
            forum = loc.note.get("forum")
            verdict = decision_of_text(_text(content_value(loc.note["content"], "decision")))
            if isinstance(forum, str) and verdict is not None:
                decisions[note_id] = (verdict, forum)
            else:
                reason = "Decision reply without a forum or a recognisable decision"
        elif kind:
            ignored[note_id] = kind
        else:
            reason = "note without a recognisable invitation"
        if reason:
            skipped[note_id] = (reason, loc.where)
    for reason, where in skipped.values():
        summary.skip(STAGE, reason, where)
    for sub in submissions.values():
        corpus.submissions[sub.forum] = sub
    summary.keep("submission", len(submissions))
    for kind, forum in status_replies.values():
        (corpus.withdrawn_forums if kind == "Withdrawal" else corpus.desk_rejected_forums).add(
            forum
        )
        summary.note(f"replies ignored: {kind} (used for status)")
    summary.keep("status reply", len(status_replies))
    for verdict, forum in decisions.values():
        corpus.decision_replies[forum] = verdict
    summary.keep("decision reply", len(decisions))
    for kind in ignored.values():
        summary.note(f"replies ignored: {kind}")
    summary.keep("ignored reply", len(ignored))
    for loc, review in reviews.values():
        if review.forum not in corpus.submissions:
            summary.skip(STAGE, "review of a submission not in the cache (or skipped)", loc.where)
            continue
        number = invitation_number(loc.note)
        paper = corpus.submissions[review.forum].number
        if number is not None and paper is not None and number != paper:
            summary.skip(
                STAGE, "review whose invitation names another submission than its forum", loc.where
            )
            continue
        corpus.reviews.setdefault(review.forum, []).append(review)
        summary.keep("review")
    for forum_reviews in corpus.reviews.values():
        forum_reviews.sort(key=lambda r: r.review_id)
    return corpus


_ACCEPT_VENUE = re.compile(r"\b(?:oral|poster|spotlight|notable|accept\w*)\b", re.IGNORECASE)


def decision_of_text(text: str) -> str | None:
    """'accepted' or 'rejected' from a Decision note's text ('Accept (Oral)', 'Reject'); None if neither."""
    low = text.strip().lower()
    if low.startswith("accept"):
        return DECISION_ACCEPTED
    if low.startswith("reject"):
        return DECISION_REJECTED
    return None


def decision_of(corpus: Corpus, forum: str, venue_id: str) -> str | None:
    """A submission's decision: withdrawn or desk-rejected from its status; else a Decision reply; else its
    venue fields after decisions (venueid = the venue's own id, or a venue naming an oral/poster/spotlight:
    accepted; a venueid ending in Rejected_Submission: rejected); None while the decision is unknown."""
    status = status_of(corpus, forum)
    if status in (STATUS_WITHDRAWN, STATUS_DESK_REJECTED):
        return status
    if forum in corpus.decision_replies:
        return corpus.decision_replies[forum]
    sub = corpus.submissions[forum]
    if sub.venueid.rstrip("/").endswith("Rejected_Submission"):
        return DECISION_REJECTED
    if venue_id and sub.venueid.rstrip("/") == venue_id.rstrip("/"):
        return DECISION_ACCEPTED
    if (
        sub.venue
        and _ACCEPT_VENUE.search(sub.venue)
        and not sub.venue.lower().startswith("submitted to")
    ):
        return DECISION_ACCEPTED
    return None


def status_of(corpus: Corpus, forum: str) -> str:
    """A submission's status from its venueid and any Withdrawal/Desk_Rejection reply."""
    sub = corpus.submissions[forum]
    if forum in corpus.desk_rejected_forums:
        return STATUS_DESK_REJECTED
    if forum in corpus.withdrawn_forums:
        return STATUS_WITHDRAWN
    return sub.status
