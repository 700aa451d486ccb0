"""`judgeaudit.data.jsonl`: how a line that is not JSON is reported."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgeaudit.data.jsonl import check_file


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"id": "p1\n', "invalid JSON: Unterminated string starting at column 8"),
        ('{"id": }\n', "invalid JSON: Expecting value at column 8"),
        ("[1, 2\n", "invalid JSON: Expecting ',' delimiter at column 6"),
    ],
)
def test_a_broken_line_is_one_phrase_naming_the_column(
    tmp_path: Path, line: str, message: str
) -> None:
    path = tmp_path / "pairwise.jsonl"
    path.write_text(line, encoding="utf-8")
    _, problems = check_file(path)
    assert [(p.line, p.message) for p in problems if p.line == 1] == [(1, message)]
