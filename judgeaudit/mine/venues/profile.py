"""Venue profiles: one declared YAML file per venue and year, saying how its review form is read.

A profile names the OpenReview API version, the invitations (by the suffix after `/-/`) of
submissions, official reviews, decisions and status replies, the review fields signals are read
from, the overall rating and the novelty-related score (fields, scale, how values are written),
and where a submission's area and decision come from. The profiles shipped in this package
(`*.yaml` beside this module) are found by venue id; a user's own file is loaded by path. Every
problem with a file is one `ProfileError` line naming the file and the key.

Value formats (`format`, one name or a list):
- `int`: a JSON integer (`6`); `number`: a JSON integer or decimal (`6`, `5.5`);
- `"N: text"`: a string, a number, a colon and words (`"6: marginally above the acceptance threshold"`);
- `"N text"`: a string, a number, a space and words (`"3 good"`);
- `"N"`: a string holding only a number (`"6"`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from judgeaudit.errors import UserError

FORMATS: dict[str, re.Pattern[str] | None] = {
    "int": None,
    "number": None,
    "N: text": re.compile(r"^\s*-?\d+(?:\.\d+)?\s*:\s*\S"),
    "N text": re.compile(r"^\s*-?\d+(?:\.\d+)?\s+[^\s:]"),
    "N": re.compile(r"^\s*-?\d+(?:\.\d+)?\s*$"),
}
"""Every value format a profile may declare (a pattern for the string forms)."""

NOVELTY_KINDS: tuple[str, ...] = ("contribution", "originality")
"""What a venue's novelty-related score measures: ICLR's contribution (significance and novelty
together), or a direct originality score (NeurIPS 2025), which also allows the score-based labels."""

DEFAULT_VENUE = "ICLR.cc/2026/Conference"
GOLD_LABELS: tuple[str, ...] = ("signals", "scores")
"""Where a set's labels come from: the reviews' text (the study's) or a direct originality score."""

_TOP_KEYS = {
    "venue",
    "name",
    "api",
    "invitations",
    "text",
    "rating",
    "novelty",
    "area",
    "decision",
    "notes",
}
_INVITATION_KEYS = {"submission", "review", "decision", "withdrawal", "desk_rejection"}
_SCORE_KEYS = {"field", "fields", "scale", "format", "missing", "kind"}
_DECISION_KEYS = {"field", "rejected_venueid"}
_FIELD_NAME = re.compile(r"^[A-Za-z0-9_,.\-]+$")


class ProfileError(UserError):
    """A venue profile file that cannot be used; `str()` is one line naming the file and the key."""


@dataclass(frozen=True)
class Score:
    """A review score: its field(s) (several: the mean of those a review fills), scale, value formats."""

    fields: tuple[str, ...]
    scale: tuple[float, float]
    formats: tuple[str, ...]
    missing: tuple[str, ...] = ()
    kind: str = "contribution"

    @property
    def label(self) -> str:
        """The field name(s) as the card and errors print them."""
        return " + ".join(self.fields)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {
            "fields": list(self.fields),
            "scale": list(self.scale),
            "formats": list(self.formats),
            "missing": list(self.missing),
            "kind": self.kind,
        }


@dataclass(frozen=True)
class VenueProfile:
    """How one venue's (and year's) review form is read."""

    venue: str
    name: str
    api: int
    submission: str
    review: str
    decision: str | None
    withdrawal: str
    desk_rejection: str
    text_fields: tuple[str, ...]
    rating: Score | None
    novelty: Score | None
    area_fields: tuple[str, ...]  # the first one a submission fills is its area; none: one area
    decision_field: str
    rejected_venueid: tuple[str, ...]
    source: str

    @property
    def has_originality(self) -> bool:
        """Whether the form scores originality directly (so the score-based labels exist)."""
        return self.novelty is not None and self.novelty.kind == "originality"

    @property
    def area_field(self) -> str | None:
        """The area field(s) as messages name them ('a or b'), or None when the form has no area."""
        return " or ".join(self.area_fields) or None

    @property
    def area_default(self) -> str:
        """The one area every submission is in when the form has no area field."""
        return f"all of {self.name}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (what the manifest records)."""
        return {
            "venue": self.venue,
            "name": self.name,
            "source": self.source,
            "api": self.api,
            "invitations": {
                "submission": self.submission,
                "review": self.review,
                "decision": self.decision,
                "withdrawal": self.withdrawal,
                "desk_rejection": self.desk_rejection,
            },
            "text": list(self.text_fields),
            "rating": None if self.rating is None else self.rating.to_dict(),
            "novelty": None if self.novelty is None else self.novelty.to_dict(),
            "area": list(self.area_fields) or None,
            "decision": {
                "field": self.decision_field,
                "rejected_venueid": list(self.rejected_venueid),
            },
        }


def _fail(where: str, key: str, problem: str) -> ProfileError:
    return ProfileError(f"venue profile {where}: {key}: {problem}")


def _keys(where: str, key: str, value: Any, allowed: set[str]) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise _fail(where, key, f"must be a mapping (got {type(value).__name__})")
    unknown = sorted(str(k) for k in value if k not in allowed)
    if unknown:
        raise _fail(
            where, key, f"unknown key(s) {', '.join(unknown)} (known: {', '.join(sorted(allowed))})"
        )
    return value


def _name(where: str, key: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip() or not _FIELD_NAME.match(value.strip()):
        raise _fail(where, key, f"must be a field or invitation name (got {value!r})")
    return value.strip()


def _names(where: str, key: str, value: Any) -> tuple[str, ...]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not items:
        raise _fail(where, key, f"must be a name or a non-empty list of names (got {value!r})")
    return tuple(_name(where, f"{key}[{i}]", v) for i, v in enumerate(items))


def _score(where: str, key: str, value: Any) -> Score | None:
    if value is None:
        return None
    body = _keys(where, key, value, _SCORE_KEYS)
    if ("field" in body) == ("fields" in body):
        raise _fail(where, key, "needs exactly one of field (a name) or fields (a list)")
    fields = _names(where, f"{key}.field", body.get("field", body.get("fields")))
    scale = body.get("scale")
    if (
        not isinstance(scale, list)
        or len(scale) != 2
        or not all(isinstance(x, int | float) and not isinstance(x, bool) for x in scale)
        or not scale[0] < scale[1]
    ):
        raise _fail(where, f"{key}.scale", f"must be [low, high] with low < high (got {scale!r})")
    formats = body.get("format")
    formats = [formats] if isinstance(formats, str) else formats
    if not isinstance(formats, list) or not formats:
        raise _fail(where, f"{key}.format", f"must name a value format (got {formats!r})")
    for f in formats:
        if f not in FORMATS:
            raise _fail(
                where,
                f"{key}.format",
                f"unknown value format {f!r} (known: {', '.join(repr(k) for k in FORMATS)})",
            )
    missing = body.get("missing", [])
    if not isinstance(missing, list) or not all(isinstance(m, str) for m in missing):
        raise _fail(where, f"{key}.missing", f"must be a list of strings (got {missing!r})")
    kind = body.get("kind", "contribution")
    if kind not in NOVELTY_KINDS:
        raise _fail(
            where, f"{key}.kind", f"must be one of {', '.join(NOVELTY_KINDS)} (got {kind!r})"
        )
    return Score(
        fields, (float(scale[0]), float(scale[1])), tuple(formats), tuple(missing), str(kind)
    )


def parse_profile(data: Any, where: str) -> VenueProfile:
    """A VenueProfile from a profile file's parsed YAML; ProfileError names `where` and the key."""
    body = _keys(where, "(top level)", data, _TOP_KEYS)
    for key in ("venue", "api", "invitations", "text"):
        if key not in body:
            raise _fail(where, key, "is required")
    venue = body["venue"]
    if not isinstance(venue, str) or not venue.strip():
        raise _fail(
            where, "venue", f"must be a venue id like ICLR.cc/2026/Conference (got {venue!r})"
        )
    api = body["api"]
    if api not in (1, 2) or isinstance(api, bool):
        raise _fail(where, "api", f"must be 1 or 2 (the OpenReview API version; got {api!r})")
    inv = _keys(where, "invitations", body["invitations"], _INVITATION_KEYS)
    for key in ("submission", "review"):
        if key not in inv:
            raise _fail(where, f"invitations.{key}", "is required")
    decision = _keys(where, "decision", body.get("decision") or {}, _DECISION_KEYS)
    rating = _score(where, "rating", body.get("rating"))
    novelty = _score(where, "novelty", body.get("novelty"))
    if rating is not None and rating.kind != "contribution" and "kind" in body["rating"]:
        raise _fail(where, "rating.kind", "applies to the novelty score only")
    area = body.get("area")
    name = body.get("name", venue)
    if not isinstance(name, str) or not name.strip():
        raise _fail(where, "name", f"must be a non-empty string (got {name!r})")
    return VenueProfile(
        venue=venue.strip(),
        name=name.strip(),
        api=int(api),
        submission=_name(where, "invitations.submission", inv["submission"]),
        review=_name(where, "invitations.review", inv["review"]),
        decision=_name(where, "invitations.decision", inv["decision"])
        if inv.get("decision") is not None
        else None,
        withdrawal=_name(where, "invitations.withdrawal", inv.get("withdrawal", "Withdrawal")),
        desk_rejection=_name(
            where, "invitations.desk_rejection", inv.get("desk_rejection", "Desk_Rejection")
        ),
        text_fields=_names(where, "text", body["text"]),
        rating=rating,
        novelty=novelty,
        area_fields=() if area is None else _names(where, "area", area),
        decision_field=_name(where, "decision.field", decision.get("field", "decision")),
        rejected_venueid=_names(
            where,
            "decision.rejected_venueid",
            decision.get("rejected_venueid", "Rejected_Submission"),
        ),
        source=where,
    )


def load_profile(path: str | Path) -> VenueProfile:
    """The profile in a YAML file; ProfileError (one line naming the file and key) if it is unusable."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ProfileError(
            f"venue profile {p}: cannot be read ({getattr(exc, 'strerror', None) or exc})"
        ) from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ProfileError(
            f"venue profile {p}: not valid YAML ({' '.join(str(exc).split())[:200]})"
        ) from None
    return parse_profile(data, str(p))


def packaged_profiles() -> dict[str, VenueProfile]:
    """The profiles shipped in this package, by venue id."""
    out: dict[str, VenueProfile] = {}
    for entry in sorted(resources.files(__package__ or "").iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".yaml"):
            data = yaml.safe_load(entry.read_text(encoding="utf-8"))
            profile = parse_profile(data, f"packaged:{entry.name}")
            out[profile.venue] = profile
    return out


def profile_for(venue: str, path: str | None = None) -> VenueProfile:
    """The profile of `--profile FILE` if given, else the packaged one of `venue`; ProfileError if neither."""
    if path:
        return load_profile(path)
    found = packaged_profiles()
    key = venue.strip().rstrip("/")
    if key in found:
        return found[key]
    raise ProfileError(
        f"--venue {venue}: no packaged venue profile (packaged: {', '.join(sorted(found))}); "
        "write one for its review form and pass it with --profile FILE"
    )


_LEADING_NUMBER = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*(?:[:.)\-]|$|\s)")


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


def value_format(value: Any) -> str | None:
    """The first format (of `FORMATS`, in order) a raw value is written in, or None if none fits."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        for name, pattern in FORMATS.items():
            if pattern is not None and pattern.match(value[:200]):
                return name
    return None


def fits(value: Any, score: Score) -> bool:
    """Whether a raw value is written in one of the score's declared formats (`number` admits ints)."""
    found = value_format(value)
    if found is None:
        return False
    return found in score.formats or (found == "int" and "number" in score.formats)
