"""The prose cases of issue 37 (tests/fixtures/verdict_prose_cases, written from the protocol
before the parser was read): prose naming no option is no verdict, and a hedge in the reasoning
before a firm final line keeps the verdict."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from judgeaudit.judges import parse
from judgeaudit.judges.parse import parse_verdict

CASES = Path(__file__).resolve().parents[1] / "fixtures" / "verdict_prose_cases" / "cases.jsonl"
ROWS = [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines() if line]


def test_cases_cover_both_shapes_and_their_near_misses() -> None:
    categories = {r["category"] for r in ROWS}
    assert {"no_option_prose", "hedge_before_firm_line", "degree_on_line"} <= categories
    assert len(ROWS) >= 20


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_prose_case(row: dict[str, Any]) -> None:
    parsed = parse_verdict(
        row["output"], row["kind"], labels=row["labels"] or "AB", ideas=list(row["ideas"].values())
    )
    assert parsed.verdict == row["expected"], (row["note"], parsed.reason)
    assert (parsed.verdict == "invalid") == (parsed.reason in parse.REASONS)
