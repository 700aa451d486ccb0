"""Typed records from raw notes (API v2 or v1), read by the venue's profile: Submission and Review, with counted skips.

The venue profile (`judgeaudit.mine.venues`) says which invitations are submissions, official
reviews and decisions, which fields hold the rating, the novelty-related score, the text and the
area; without one, ICLR 2026's form is read. A submission is identified by its own note id; a
submission note whose `forum` names another note is skipped (it would otherwise replace that paper).
A review score that is not a finite number on the profile's scale makes the review a counted skip,
so it can never move a decile cut. Over-long text fields are skipped, not truncated. Every review
and submission read is also tallied against the profile's form (`venues.form`), so a form the
profile does not match can stop the run before the selection.
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
from judgeaudit.mine.venues.form import FormTally
from judgeaudit.mine.venues.profile import (
    DEFAULT_VENUE,
    Score,
    VenueProfile,
    parse_score,
    profile_for,
)

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


_DEFAULT: list[VenueProfile] = []


def default_profile() -> VenueProfile:
    """The packaged profile of ICLR 2026 (the form read when no profile is given)."""
    if not _DEFAULT:
        _DEFAULT.append(profile_for(DEFAULT_VENUE))
    return _DEFAULT[0]


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
    rating: float | None
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
    profile: VenueProfile | None = None  # the form the notes were read by (None: ICLR 2026's)
    form: FormTally = field(default_factory=FormTally)  # the notes read, tallied against the form


def note_kind(note: dict[str, Any], profile: VenueProfile | None = None) -> str:
    """The invitation's last part ('Submission', 'Official_Review', 'Withdrawal', ...) or ''; an API v1
    note's one `invitation` counts too. The profile's submission, review and decision kinds come first."""
    invitations = note.get("invitations")
    if not isinstance(invitations, list):
        inv = note.get("invitation")
        invitations = [inv] if isinstance(inv, str) else []
    kinds = [i.rsplit("/-/", 1)[-1] for i in invitations if isinstance(i, str) and "/-/" in i]
    form = profile or default_profile()
    for preferred in (form.submission, form.review, form.decision):
        if preferred in kinds:
            return preferred
    kinds = [k for k in kinds if k != "Edit"]
    return kinds[0] if kinds else ""


def note_venue(note: dict[str, Any], kind: str) -> str:
    """The venue id an invitation of `kind` names (`ICLR.cc/2026/Conference/-/Submission`), or ''."""
    invitations = note.get("invitations")
    if not isinstance(invitations, list):
        invitations = [note.get("invitation")]
    for inv in invitations:
        if isinstance(inv, str) and inv.endswith(f"/-/{kind}"):
            return inv[: -len(f"/-/{kind}")]
    return ""


_INVITATION_NUMBER = re.compile(r"/(?:Submission|Paper)(\d{1,9})/-/")


def invitation_number(note: dict[str, Any]) -> int | None:
    """The submission number a reply's invitation names (`.../Submission6845/-/Official_Review`, API v1
    `.../Paper6845/-/Official_Review`), or None."""
    invitations = note.get("invitations")
    if not isinstance(invitations, list):
        invitations = [note.get("invitation")]
    for inv in invitations:
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


def parse_submission(
    loc: Located, summary: RunSummary, profile: VenueProfile | None = None
) -> tuple[Submission | None, str]:
    """A Submission, or None with the reason it is skipped (its area from the profile's area field; a
    form without one puts every submission in one area named after the venue)."""
    form = profile or default_profile()
    note = loc.note
    content = note["content"]
    forum = note["id"]
    claimed = note.get("forum")
    if claimed is not None and claimed != forum:
        return None, "submission whose forum names another note (identified by its own id)"
    title = _text(content_value(content, "title"))
    abstract = _text(content_value(content, "abstract"))
    area = _area(content, form) if form.area_fields else form.area_default
    if not abstract:
        return None, "submission without an abstract"
    if len(abstract) > MAX_ABSTRACT or len(title) > MAX_TITLE:
        return (
            None,
            f"submission with an over-long title or abstract (> {MAX_TITLE:,} / {MAX_ABSTRACT:,} characters)",
        )
    if not area:
        return None, f"submission without a {form.area_field}"
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


def _score(content: dict[str, Any], score: Score) -> tuple[float | None, bool, str | None]:
    """(value, written at all, problem) of a review score: the mean of the fields it fills (a value in the
    profile's `missing` list is no score); problem: why a numeric value cannot be used."""
    values: list[float] = []
    written = False
    for name in score.fields:
        raw = content_value(content, name)
        if raw is None or (isinstance(raw, str) and raw.strip() in score.missing):
            continue
        written = True
        value = parse_score(raw)
        if value is None:
            continue
        problem = score_problem(value, score.scale)
        if problem:
            return value, True, problem
        values.append(value)
    return (sum(values) / len(values) if values else None), written, None


def parse_review(
    loc: Located, summary: RunSummary, profile: VenueProfile | None = None
) -> tuple[Review | None, str]:
    """A Review, or None with the reason it is skipped (no forum, a rating or novelty score that is
    not a finite number on the profile's scale, an over-long text field). A form without a rating
    gives every review the rating None."""
    form = profile or default_profile()
    note = loc.note
    content = note["content"]
    forum = note.get("forum")
    if not isinstance(forum, str) or not forum:
        return None, "review without a forum"
    rating: float | None = None
    if form.rating is not None:
        rating, written, problem = _score(content, form.rating)
        if not written:
            return None, "review without a rating"
        if rating is None:
            return None, "review with a non-numeric rating"
        if problem:
            return None, f"review whose rating is {problem}"
    contribution: float | None = None
    written = False
    if form.novelty is not None:
        contribution, written, problem = _score(content, form.novelty)
        if problem:
            return None, f"review whose {form.novelty.label} score is {problem}"
    fields = TEXT_FIELDS + tuple(f for f in form.text_fields if f not in TEXT_FIELDS)
    texts = tuple((f, t) for f in fields if (t := _text(content_value(content, f))))
    if any(len(t) > MAX_REVIEW_FIELD for _, t in texts):
        return None, f"review with a text field over {MAX_REVIEW_FIELD:,} characters"
    if written and contribution is None:
        summary.note(f"reviews with a non-numeric {_novelty_name(form)} (treated as missing)")
    elif not written and form.novelty is not None:
        summary.note(f"reviews without a {_novelty_name(form)} score")
    if not any(f in form.text_fields for f, _ in texts):
        summary.note("reviews with empty text (kept for scores, cannot carry signals)")
    return Review(
        review_id=note["id"],
        forum=forum,
        rating=rating,
        contribution=contribution,
        texts=texts,
        mdate=timestamp(note.get("mdate")) or 0,
    ), ""


def _novelty_name(form: VenueProfile) -> str:
    """What the summary calls the novelty-related score ('contribution' on ICLR 2026's form)."""
    return "novelty-related" if form.novelty is None else form.novelty.label


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
    reviews_as_of: int | None = None,
    profile: VenueProfile | None = None,
) -> Corpus:
    """Parse a note stream into a Corpus, keeping each note id's latest version (see `cache.Latest`).

    Every note ends as exactly one of: a record (submission, review, status reply, ignored reply)
    or a counted skip; a displaced older version is a duplicate skip only. Reviews of submissions
    that are not in the cache (or were skipped) are counted skips. With `reviews_as_of` (ms), an
    official review is read as it stood then: versions written later are counted skips, so the
    latest earlier version stands, and a review first posted later is left out. `profile`: the venue's form
    (None: ICLR 2026's); the latest version of every review and submission is tallied against it.
    """
    form = profile or default_profile()
    corpus = Corpus(profile=profile)
    raw_forms: dict[str, tuple[str, dict[str, Any]]] = {}  # note id -> (kind, its form's fields)
    kinds: dict[str, str] = {}  # note id -> the kind of its latest version
    venues: dict[str, str] = {}  # submission id -> the venue its invitation names
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
            and note_kind(loc.note, form) == form.review
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
            raw_forms.pop(note_id, None)
            venues.pop(note_id, None)
        kind = note_kind(loc.note, form)
        kinds[note_id] = kind
        reason = ""
        if kind == form.submission:
            raw_forms[note_id] = (kind, _form_values(loc.note["content"], form, submission=True))
            venues[note_id] = note_venue(loc.note, kind)
            sub, reason = parse_submission(loc, summary, form)
            if sub is not None:
                submissions[note_id] = sub
        elif kind == form.review:
            raw_forms[note_id] = (kind, _form_values(loc.note["content"], form, submission=False))
            review, reason = parse_review(loc, summary, form)
            if review is not None:
                reviews[note_id] = (loc, review)
        elif kind in (form.withdrawal, form.desk_rejection):
            forum = loc.note.get("forum")
            if isinstance(forum, str):
                status_replies[note_id] = (
                    "Withdrawal" if kind == form.withdrawal else "Desk_Rejection",
                    forum,
                )
            else:
                reason = f"{kind} reply without a forum"
        elif kind == form.decision:
            forum = loc.note.get("forum")
            verdict = decision_of_text(
                _text(content_value(loc.note["content"], form.decision_field))
            )
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
    for note_id, kind in kinds.items():
        corpus.form.see_kind(note_id, kind)
    for note_id, venue in venues.items():
        corpus.form.see_venue(note_id, venue)
    for note_id, (kind, values) in raw_forms.items():
        if kind == form.submission:
            corpus.form.add_submission(note_id, values.get("area"), form)
        else:
            corpus.form.add_review(note_id, values, form)
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


def _area(content: dict[str, Any], form: VenueProfile) -> str:
    """A submission's area: the first of the form's area fields it fills ('' when none)."""
    for name in form.area_fields:
        area = _text(content_value(content, name))
        if area:
            return area
    return ""


def _form_values(
    content: dict[str, Any], form: VenueProfile, *, submission: bool
) -> dict[str, Any]:
    """The raw values of the fields the form names (a submission: its area; a review: text and scores)."""
    if submission:
        return {"area": _area(content, form) or None}
    names = list(form.text_fields)
    for score in (form.rating, form.novelty):
        names += list(score.fields) if score is not None else []
    return {name: content_value(content, name) for name in names}


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
    rejected = (corpus.profile or default_profile()).rejected_venueid
    if any(sub.venueid.rstrip("/").endswith(suffix) for suffix in rejected):
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
