"""The form check: a tally of the reviews read against the profile, one line when the form does not match
(a named field absent from most reviews, values in an undeclared format or off the scale beyond 2%, no
review or submission invitation at all) and no stop for the odd corrupt review."""

from __future__ import annotations

from typing import Any

import pytest

from judgeaudit.mine.venues.form import (
    FormMismatch,
    FormTally,
    check_form,
    form_problem,
    other_venue,
)
from judgeaudit.mine.venues.profile import packaged_profiles

N25 = packaged_profiles()["NeurIPS.cc/2025/Conference"]
ICLR24 = packaged_profiles()["ICLR.cc/2024/Conference"]


def n25_review(
    rating: Any = 4, originality: Any = 3, text: Any = "Strong. Weak."
) -> dict[str, Any]:
    return {"rating": rating, "originality": originality, "strengths_and_weaknesses": text}


def tally_of(reviews: list[dict[str, Any]], profile: Any = N25) -> FormTally:
    tally = FormTally()
    tally.see_kind("S1", profile.submission)
    tally.add_submission("S1", "area", profile)
    for i, raw in enumerate(reviews):
        tally.see_kind(f"R{i}", profile.review)
        tally.add_review(f"R{i}", raw, profile)
    return tally


def test_a_matching_form_passes_and_one_odd_review_in_a_hundred_is_no_stop() -> None:
    assert form_problem(tally_of([n25_review()] * 100), N25) is None
    odd = [n25_review()] * 99 + [n25_review(rating=9)]
    assert form_problem(tally_of(odd), N25) is None
    check_form(tally_of(odd), N25)


@pytest.mark.parametrize(
    "bad, count, expected",
    [
        (
            n25_review(rating=9),
            3,
            "3 of 100 values of 'rating' are outside its scale [1, 6] (e.g. note R97: 9)",
        ),
        (
            n25_review(rating="Borderline accept"),
            3,
            "values of 'rating' are written in a format the profile does not declare (int, N: text, N text, N)",
        ),
        (n25_review(originality=["3"]), 5, "values of 'originality' are written in a format"),
        (n25_review(originality="excellent"), 5, "values of 'originality' are written in a format"),
        (
            n25_review(originality=None),
            51,
            "the field 'originality' is absent from 51 of 100 reviews (e.g. note R49)",
        ),
        (
            n25_review(text=None),
            60,
            "the field 'strengths_and_weaknesses' is absent from 60 of 100 reviews",
        ),
        (n25_review(rating=10**400), 3, "values of 'rating' are outside its scale"),
        (n25_review(rating=float("nan")), 3, "values of 'rating' are written in a format"),
    ],
)
def test_a_mismatched_form_is_one_line_naming_the_venue_field_and_a_note(
    bad: dict[str, Any], count: int, expected: str
) -> None:
    reviews = [n25_review()] * (100 - count) + [bad] * count
    problem = form_problem(tally_of(reviews), N25)
    assert problem is not None and "\n" not in problem
    assert problem.startswith(
        "--venue NeurIPS.cc/2025/Conference (profile packaged:neurips-2025.yaml): "
    )
    assert expected in problem
    with pytest.raises(FormMismatch):
        check_form(tally_of(reviews), N25)


def test_half_the_reviews_missing_a_field_is_not_most() -> None:
    reviews = [n25_review()] * 50 + [n25_review(originality=None)] * 50
    assert form_problem(tally_of(reviews), N25) is None


def test_a_declared_no_score_value_is_not_a_format_problem() -> None:
    iclr23 = packaged_profiles()["ICLR.cc/2023/Conference"]
    raw = {
        "strength_and_weaknesses": "ok",
        "recommendation": "6: marginally above the acceptance threshold",
        "technical_novelty_and_significance": "3: significant",
        "empirical_novelty_and_significance": "Not applicable",
    }
    assert form_problem(tally_of([raw] * 10, iclr23), iclr23) is None


def test_no_note_with_the_review_invitation_names_what_was_read() -> None:
    tally = FormTally()
    for i in range(3):
        tally.see_kind(f"S{i}", "Submission")
        tally.add_submission(f"S{i}", "a", N25)
    tally.see_kind("X1", "Official_Comment")
    problem = form_problem(tally, packaged_profiles()["TMLR"])
    assert problem is not None
    assert "no note has the invitation '.../-/Review'" in problem
    assert (
        "Submission 3 (e.g. note S0)" in problem and "Official_Comment 1 (e.g. note X1)" in problem
    )
    assert form_problem(FormTally(), N25) is None  # nothing read at all: the cache reader says so


def test_an_area_field_absent_from_most_submissions_stops() -> None:
    tally = tally_of([n25_review()] * 5)
    for i in range(3):
        tally.add_submission(f"T{i}", None, N25)
    problem = form_problem(tally, N25)
    assert (
        problem is not None
        and "the field 'primary_area' is absent from 3 of 4 submissions" in problem
    )


# Shapes found by re-shaping real notes into each venue's form from the specification
# (tests/benchmarks/reshape_venue_snapshot.py) before reading the miner's code.


@pytest.mark.parametrize(
    "profile, good, other",
    [
        (N25, n25_review(rating=4), n25_review(rating="4")),  # a bare "4": read too (docs say so)
        (N25, n25_review(rating=4), n25_review(rating=4.0)),
        (
            ICLR24,
            {"strengths": "s", "weaknesses": "w", "rating": "6: above", "contribution": "3 good"},
            {"strengths": "s", "weaknesses": "w", "rating": "6 above", "contribution": 3},
        ),
        (
            packaged_profiles()["ICLR.cc/2025/Conference"],
            {"strengths": "s", "weaknesses": "w", "rating": 6, "contribution": 3},
            {"strengths": "s", "weaknesses": "w", "rating": "6", "contribution": "3: good"},
        ),
    ],
)
def test_a_few_numbers_spelt_another_way_are_read_and_most_are_another_form(
    profile: Any, good: dict[str, Any], other: dict[str, Any]
) -> None:
    # a snapshot varies how a few scores are written: no stop, the card counts them
    few = tally_of([good] * 95 + [other] * 5, profile)
    assert form_problem(few, profile) is None
    assert not any(k.endswith(": format") for k in few.to_dict()["findings"])
    if other != n25_review(rating="4"):  # "N" is declared for NeurIPS 2025: no finding at all
        assert any(k.endswith(": other spelling") for k in few.to_dict()["findings"])
    # most of them: the notes are in another year's form
    most = form_problem(tally_of([good] * 40 + [other] * 60, profile), profile)
    if other == n25_review(rating="4"):
        assert most is None
    else:
        assert most is not None and "another form's spelling" in most and "e.g. note R" in most


def test_a_blank_score_is_absent_not_an_unknown_format() -> None:
    few = tally_of([n25_review()] * 95 + [n25_review(originality=" ")] * 5)
    assert form_problem(few, N25) is None
    most = form_problem(tally_of([n25_review()] * 40 + [n25_review(originality="")] * 60), N25)
    assert most is not None and "the field 'originality' is absent from 60 of 100 reviews" in most


def test_submissions_of_another_venue_are_a_warning_not_a_stop() -> None:
    tally = tally_of([n25_review()] * 3)
    assert other_venue(tally, N25) is None  # no venue seen (a test tally): nothing to say
    for i in range(4):
        tally.see_venue(f"S{i}", "ICLR.cc/2025/Conference")
    tally.see_venue("S9", N25.venue)
    line = other_venue(tally, N25)
    assert line is not None and "\n" not in line
    assert "4 of 5 submissions read are of venue ICLR.cc/2025/Conference" in line
    assert "e.g. note S0" in line and line.startswith("--venue NeurIPS.cc/2025/Conference")
    assert form_problem(tally, N25) is None
    assert tally.to_dict()["venues"] == {"ICLR.cc/2025/Conference": 4, N25.venue: 1}
