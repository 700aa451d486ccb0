"""The published expert-annotation format (`judge_errors.csv`): read as the release writes it, written back alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgeaudit.data.convert.judge_errors import (
    COLUMNS,
    SheetError,
    choice,
    read_sheet,
    source_setup,
    write_sheet,
)

PUBLISHED = (
    Path(__file__).resolve().parents[2]
    / "fixtures"
    / "novelty_judge_bench"
    / "published"
    / "expert-annotations"
    / "judge_errors.csv"
)


def test_the_published_format_reads_with_crlf_rows_and_lf_inside_fields() -> None:
    raw = PUBLISHED.read_bytes()
    assert raw.startswith(b'"item_id","problem_id",') and raw.count(b"\r\n") == 31  # header + 30
    rows = read_sheet(PUBLISHED)
    assert [r.row_id for r in rows] == [f"{n:03d}" for n in range(1, 31)]
    first = rows[0]
    assert first.line == 2 and "\n" in first.values["shown_A_idea"]
    assert "\r" not in first.values["shown_A_idea"]
    assert rows[1].line == 2 + raw.split(b"\r\n")[1].count(b"\n") + 1  # a row's first line
    assert first.values["problem_id"].isdigit()  # written bare, read as text
    assert [r.row_id for r in rows if not r.values["annotation_reasoning"]] == ["013"]


def test_write_then_read_is_the_same_rows_in_the_same_format(tmp_path: Path) -> None:
    rows = read_sheet(PUBLISHED)
    values: list[dict[str, str | int]] = [
        {**r.values, "problem_id": int(r.values["problem_id"])} for r in rows
    ]
    out = tmp_path / "again.csv"
    write_sheet(out, values)
    assert out.read_bytes() == PUBLISHED.read_bytes()


def test_broken_sheets_are_named(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text('"item_id","gold"\r\n"001","A"\r\n', encoding="utf-8")
    with pytest.raises(SheetError, match="missing: problem_id"):
        read_sheet(bad)
    bad.write_text(",".join(COLUMNS) + '\r\n"001","x"\r\n', encoding="utf-8")
    with pytest.raises(SheetError, match="line 2: 2 field"):
        read_sheet(bad)
    row = ",".join(['"001"'] + ['""'] * 10)
    bad.write_text(",".join(COLUMNS) + f"\r\n{row}\r\n{row}\r\n", encoding="utf-8")
    with pytest.raises(SheetError, match="row 001 \\(line 3\\): item_id '001' repeats line 2"):
        read_sheet(bad)
    bad.write_bytes(b"\xff\xfe")
    with pytest.raises(SheetError, match="not UTF-8"):
        read_sheet(bad)


def test_choices_and_setups() -> None:
    assert [choice(v) for v in ("A", " b ", "TIE", "", "neither", "AB")] == [
        "A",
        "B",
        "tie",
        None,
        None,
        None,
    ]
    assert source_setup("human-plus-generated/pairwise.yaml") == "human_generated"
    assert source_setup("ai-only/gpt/pairwise.yaml") == "ai_only"
    assert source_setup("elsewhere/pairwise.yaml") is None
