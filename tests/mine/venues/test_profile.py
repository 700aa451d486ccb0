"""Venue profiles: the packaged files load, a venue picks its own, a bad file is one line naming the file
and the key, and every form's real value formats are recognised (and read as the number they start with)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from judgeaudit.errors import UserError
from judgeaudit.mine.parse import parse_score
from judgeaudit.mine.venues.profile import (
    ProfileError,
    Score,
    fits,
    load_profile,
    packaged_profiles,
    profile_for,
    value_format,
)

PACKAGED = Path(__file__).resolve().parents[3] / "judgeaudit" / "mine" / "venues"


def test_the_packaged_profiles_are_the_issues_venues_and_say_what_differs() -> None:
    found = packaged_profiles()
    assert sorted(found) == sorted(
        [
            "ICLR.cc/2023/Conference",
            "ICLR.cc/2024/Conference",
            "ICLR.cc/2025/Conference",
            "ICLR.cc/2026/Conference",
            "NeurIPS.cc/2023/Conference",
            "NeurIPS.cc/2024/Conference",
            "NeurIPS.cc/2025/Conference",
            "ICML.cc/2025/Conference",
            "TMLR",
        ]
    )
    iclr23, n25, tmlr = (
        found["ICLR.cc/2023/Conference"],
        found["NeurIPS.cc/2025/Conference"],
        found["TMLR"],
    )
    assert iclr23.api == 1 and iclr23.text_fields == ("strength_and_weaknesses",)
    assert iclr23.rating is not None and iclr23.rating.fields == ("recommendation",)
    assert iclr23.novelty is not None and len(iclr23.novelty.fields) == 2
    assert (
        n25.novelty is not None and n25.novelty.fields == ("originality",) and n25.has_originality
    )
    assert n25.rating is not None and n25.rating.scale == (1.0, 6.0)
    assert tmlr.rating is None and tmlr.novelty is None and tmlr.area_fields == ()
    assert found["ICML.cc/2025/Conference"].novelty is None
    assert not found["ICLR.cc/2026/Conference"].has_originality


def test_venue_picks_its_profile_and_a_file_overrides_it(tmp_path: Path) -> None:
    assert profile_for("NeurIPS.cc/2025/Conference/").source == "packaged:neurips-2025.yaml"
    own = tmp_path / "own.yaml"
    own.write_text((PACKAGED / "tmlr.yaml").read_text().replace("name: TMLR", "name: Mine"))
    assert profile_for("ICLR.cc/2026/Conference", str(own)).name == "Mine"
    with pytest.raises(
        UserError, match=r"--venue Nope.cc/2099/Conference: no packaged venue profile"
    ):
        profile_for("Nope.cc/2099/Conference")


GOOD: dict[str, Any] = yaml.safe_load((PACKAGED / "neurips-2025.yaml").read_text())


@pytest.mark.parametrize(
    "change, key",
    [
        ({"api": 3}, "api"),
        ({"api": True}, "api"),
        ({"venue": ""}, "venue"),
        ({"colour": "red"}, "(top level)"),
        ({"text": []}, "text"),
        ({"text": ["ok", "no spaces allowed"]}, "text[1]"),
        ({"invitations": {"submission": "Submission"}}, "invitations.review"),
        ({"invitations": "Official_Review"}, "invitations"),
        ({"rating": {"field": "rating", "scale": [6, 1], "format": "int"}}, "rating.scale"),
        ({"rating": {"field": "rating", "scale": [1], "format": "int"}}, "rating.scale"),
        ({"rating": {"field": "rating", "scale": [1, 6], "format": "6/10"}}, "rating.format"),
        ({"rating": {"scale": [1, 6], "format": "int"}}, "rating"),
        ({"rating": {"field": "r", "fields": ["r"], "scale": [1, 6], "format": "int"}}, "rating"),
        (
            {"novelty": {"field": "o", "scale": [1, 4], "format": "int", "kind": "vibes"}},
            "novelty.kind",
        ),
        (
            {"novelty": {"field": "o", "scale": [1, 4], "format": "int", "missing": "NA"}},
            "novelty.missing",
        ),
        ({"decision": {"field": "decision", "when": "later"}}, "decision"),
    ],
)
def test_a_bad_profile_is_one_line_naming_the_file_and_the_key(
    change: dict[str, Any], key: str, tmp_path: Path
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump({**GOOD, **change}))
    with pytest.raises(ProfileError) as err:
        load_profile(path)
    message = str(err.value)
    assert message.startswith(f"venue profile {path}: {key}: ") and "\n" not in message


@pytest.mark.parametrize(
    "text, problem",
    [("venue: [unclosed", "not valid YAML"), ("- a list\n", "(top level): must be a mapping")],
)
def test_an_unreadable_profile_is_one_line(text: str, problem: str, tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(text)
    with pytest.raises(ProfileError, match=re.escape(problem)):
        load_profile(path)
    with pytest.raises(ProfileError, match="cannot be read"):
        load_profile(tmp_path / "missing.yaml")


# Values as the public forms write them (from the forms' option lists), with the format they are in and
# the number they read as.
REAL_VALUES = [
    ("8: accept, good paper", "N: text", 8.0),  # ICLR 2023 recommendation
    ("3: The contributions are significant and somewhat new.", "N: text", 3.0),  # ICLR 2023 novelty
    ("6: marginally above the acceptance threshold", "N: text", 6.0),  # ICLR 2024 rating
    ("3 good", "N text", 3.0),  # ICLR 2024 / NeurIPS 2023 contribution
    ("6: Weak Accept: Technically solid, moderate-to-high impact paper", "N: text", 6.0),  # NeurIPS
    ("3: good", "N: text", 3.0),  # NeurIPS 2024 contribution
    (6, "int", 6.0),  # ICLR 2025 / 2026 rating
    (4, "int", 4.0),  # NeurIPS 2025 rating, ICML 2025 overall recommendation
    (5.5, "number", 5.5),
    ("10", "N", 10.0),
]


@pytest.mark.parametrize("value, fmt, number", REAL_VALUES)
def test_each_forms_real_values_are_recognised_and_read(
    value: Any, fmt: str, number: float
) -> None:
    assert value_format(value) == fmt
    assert parse_score(value) == number
    assert fits(value, Score(("f",), (0.0, 10.0), (fmt,)))


@pytest.mark.parametrize(
    "value",
    ["strong accept", "", "N/A", "three: good", ["3"], {"value": 3}, None, True, "good 3", ": 3"],
)
def test_values_in_no_declared_format_fit_nothing(value: Any) -> None:
    assert value_format(value) is None
    assert not fits(value, Score(("f",), (0.0, 10.0), ("int", "number", "N: text", "N text", "N")))


def test_a_score_fits_only_its_declared_formats() -> None:
    ints = Score(("rating",), (1.0, 6.0), ("int",))
    assert fits(4, ints) and not fits("4: accept", ints) and not fits(4.5, ints)
    assert fits(4, Score(("rating",), (1.0, 6.0), ("number",)))
