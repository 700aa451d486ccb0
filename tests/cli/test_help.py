"""Every command's `--help` says what its options do in its own words: no pointer into the
source (a `judgeaudit/...` path, a `.py` file or a `judgeaudit.x.y` module)."""

from __future__ import annotations

import re

import pytest

from judgeaudit.audit.display import DISPLAYS
from judgeaudit.cli import build_parser, command_parsers

PARSERS = command_parsers(build_parser())
SOURCE_POINTER = re.compile(r"\.py\b|judgeaudit/[a-z_]+/|judgeaudit\.[a-z_]+\.[a-z_]")


@pytest.mark.parametrize("name", sorted(PARSERS))
def test_help_points_into_no_source_file(name: str) -> None:
    text = PARSERS[name].format_help()
    assert SOURCE_POINTER.search(text) is None, SOURCE_POINTER.search(text)


def test_the_audit_display_values_agree_with_its_check() -> None:
    """`audit --help` names every --display value the command accepts, its default first."""
    text = " ".join(PARSERS["audit"].format_help().split())
    assert f"{DISPLAYS[0]} (default)" in text
    assert all(value in text for value in DISPLAYS)
    display = next(a for a in PARSERS["audit"]._actions if a.dest == "display")
    assert display.default == DISPLAYS[0]


def test_the_report_help_names_the_interval_methods_its_tables_use() -> None:
    text = " ".join(PARSERS["report"].format_help().split())
    assert "Clopper-Pearson" in text and "Tango" in text and "percentile bootstrap" in text
