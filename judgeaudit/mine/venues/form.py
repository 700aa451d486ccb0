"""Does the review form match its profile? A tally over the reviews read, checked before the selection.

While the notes are parsed, every official review (its latest version) and every submission is
tallied field by field against the profile: each field the profile names is present or absent; a
score's value is written in a declared format or not, and lies on its scale or not. Before the
selection runs, `form_problem` turns the tally into one line when the form does not match:

- a field the profile names (a text field, a score field, the area field) is absent from more than
  half of the reviews (submissions, for the area);
- more than `TOLERANCE` of the values a score field holds are written in no number format at all
  ("excellent", "3/4", a list), or lie outside its scale;
- more than half of them are numbers spelt in a format the profile does not declare (`"8"` or `8.0`
  where it declares `int`, `"6 text"` where it declares `"N: text"`): another year's form. Fewer
  such values are a snapshot's variation: they read as their number and the card counts them.

A single odd value (a corrupt note) stays what it always was: a counted skip of that review. A
mismatched form is systematic, so it crosses these shares and stops the run before any selection.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from judgeaudit.errors import UserError
from judgeaudit.mine.venues.profile import Score, VenueProfile, fits, parse_score

TOLERANCE = 0.02
"""Largest share of a score field's values that may be in an undeclared format or off its scale."""
MOST = 0.5
"""A named field absent from more than this share of the reviews (or submissions) is a mismatch."""

ABSENT = "absent"
FORMAT = "format"
SCALE = "scale"
SPELLING = "other spelling"


class FormMismatch(UserError):
    """The notes read are not in the form the venue profile declares (one line: venue, field, note id)."""


@dataclass
class FormTally:
    """Per (field, finding): how many reviews (or submissions), and the first note id and value seen."""

    reviews: int = 0
    submissions: int = 0
    counts: Counter[tuple[str, str]] = field(default_factory=Counter)
    present: Counter[str] = field(default_factory=Counter)
    examples: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)
    kinds: Counter[str] = field(default_factory=Counter)  # every note read, by invitation kind
    kind_examples: dict[str, str] = field(default_factory=dict)
    venues: Counter[str] = field(
        default_factory=Counter
    )  # submissions, by their invitation's venue
    venue_examples: dict[str, str] = field(default_factory=dict)

    def see_kind(self, note_id: str, kind: str) -> None:
        """Count one note read by its invitation kind ('' when it has none)."""
        self.kinds[kind] += 1
        self.kind_examples.setdefault(kind, note_id)

    def see_venue(self, note_id: str, venue: str) -> None:
        """Count one submission by the venue its invitation names ('' when it names none)."""
        self.venues[venue] += 1
        self.venue_examples.setdefault(venue, note_id)

    def _see(self, name: str, finding: str, note_id: str, value: Any) -> None:
        self.counts[(name, finding)] += 1
        self.examples.setdefault((name, finding), (note_id, repr(value)[:40]))

    def add_review(self, note_id: str, raw: Mapping[str, Any], profile: VenueProfile) -> None:
        """Tally one review's raw content values (`raw`: field -> value, None when absent)."""
        self.reviews += 1
        for name in profile.text_fields:
            value = raw.get(name)
            if isinstance(value, str):
                self.present[name] += 1
            else:
                self._see(name, ABSENT, note_id, value)
        for score in (profile.rating, profile.novelty):
            if score is not None:
                self._add_score(note_id, raw, score)

    def _add_score(self, note_id: str, raw: Mapping[str, Any], score: Score) -> None:
        for name in score.fields:
            value = raw.get(name)
            if value is None or (isinstance(value, str) and not value.strip()):
                self._see(name, ABSENT, note_id, value)
                continue
            self.present[name] += 1
            if isinstance(value, str) and value.strip() in score.missing:
                continue
            number = parse_score(value)
            readable = number is not None and math.isfinite(number)
            if not fits(value, score):
                # a number spelt another way ("8" for 8, "6 text" for "6: text") still reads as that
                # number: a few such values are a snapshot's variation, most of them another form
                self._see(name, SPELLING if readable else FORMAT, note_id, value)
                if not readable:
                    continue
            low, high = score.scale
            if number is None or not math.isfinite(number) or not low <= number <= high:
                self._see(name, SCALE, note_id, value)

    def add_submission(self, note_id: str, area: Any, profile: VenueProfile) -> None:
        """Tally one submission's area value (when the profile names an area field)."""
        self.submissions += 1
        if profile.area_field is None:
            return
        if isinstance(area, str) and area.strip():
            self.present[profile.area_field] += 1
        else:
            self._see(profile.area_field, ABSENT, note_id, area)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready counts (for the manifest)."""
        return {
            "reviews": self.reviews,
            "submissions": self.submissions,
            "venues": dict(self.venues.most_common()),
            "findings": {
                f"{name}: {finding}": n for (name, finding), n in sorted(self.counts.items())
            },
        }


def _scale_text(score: Score) -> str:
    return f"[{score.scale[0]:g}, {score.scale[1]:g}]"


def form_problem(tally: FormTally, profile: VenueProfile) -> str | None:
    """One line saying how the notes read do not match the profile's form, or None when they do."""
    where = f"--venue {profile.venue} (profile {profile.source})"
    for wanted, n in ((profile.submission, tally.submissions), (profile.review, tally.reviews)):
        if n == 0 and tally.kinds:
            seen = ", ".join(
                f"{k or '(none)'} {c} (e.g. note {tally.kind_examples[k]})"
                for k, c in tally.kinds.most_common(4)
            )
            return (
                f"{where}: no note has the invitation '.../-/{wanted}' the profile names "
                f"(notes read: {seen}); the notes are not in this profile's form"
            )
    scores = [s for s in (profile.rating, profile.novelty) if s is not None]
    checks: list[tuple[str, str, int, str]] = []  # (field, finding, population, what)
    for name in profile.text_fields:
        checks.append((name, ABSENT, tally.reviews, "reviews"))
    for score in scores:
        for name in score.fields:
            checks.append((name, ABSENT, tally.reviews, "reviews"))
    if profile.area_field is not None and tally.submissions:
        checks.append((profile.area_field, ABSENT, tally.submissions, "submissions"))
    for name, finding, population, what in checks:
        n = tally.counts[(name, finding)]
        if n > MOST * population:
            note, _ = tally.examples[(name, finding)]
            return (
                f"{where}: the field {name!r} is absent from {n} of {population} {what} "
                f"(e.g. note {note}); the notes are not in this profile's form"
            )
    for score in scores:
        for name in score.fields:
            held = tally.present[name]
            for finding, share in ((FORMAT, TOLERANCE), (SPELLING, MOST), (SCALE, TOLERANCE)):
                n = tally.counts[(name, finding)]
                if held and n > share * held:
                    note, value = tally.examples[(name, finding)]
                    problem = {
                        FORMAT: "written in a format the profile does not declare "
                        f"({', '.join(score.formats)})",
                        SPELLING: "numbers written in a format the profile does not declare "
                        f"({', '.join(score.formats)}): another form's spelling",
                        SCALE: f"outside its scale {_scale_text(score)}",
                    }[finding]
                    return (
                        f"{where}: {n} of {held} values of {name!r} are {problem} "
                        f"(e.g. note {note}: {value}); the notes are not in this profile's form"
                    )
    return None


def other_venue(tally: FormTally, profile: VenueProfile) -> str | None:
    """One line when the submissions read name another venue than the profile's in their invitations.

    Not a stop: a snapshot re-shaped from another venue (or a renamed venue) may keep the form while
    its invitations name the old venue, so the form check alone decides; this line and the card say it.
    """
    named = [(v, n) for v, n in tally.venues.most_common() if v]
    if not named or named[0][0] == profile.venue:
        return None
    venue, n = named[0]
    return (
        f"--venue {profile.venue} (profile {profile.source}): {n} of {sum(tally.venues.values())} "
        "submissions "
        f"read are of venue {venue} by their invitation (e.g. note {tally.venue_examples[venue]}); "
        "read with this profile's form as asked"
    )


def check_form(tally: FormTally, profile: VenueProfile) -> None:
    """Raise FormMismatch (one line) when the notes read do not match the profile's form."""
    problem = form_problem(tally, profile)
    if problem:
        raise FormMismatch(problem)
