"""Verdict parsing against a corpus of well-formed and malformed judge outputs."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from helpers.items import FIXTURES

from judgeaudit.judges.parse import parse_strict, parse_verdict

CORPUS = FIXTURES / "judge_outputs.jsonl"
ROWS = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines()]


def test_corpus_is_large_and_varied() -> None:
    assert len(ROWS) >= 200
    counts = Counter((r["kind"], r["path"]) for r in ROWS)
    for kind in ("pairwise", "pointwise"):
        for path in ("strict", "wrapped", "failed"):
            assert counts[(kind, path)] >= 10, (kind, path)


@pytest.mark.parametrize(
    "row", ROWS, ids=[f"{i}-{r['kind']}-{r['note']}" for i, r in enumerate(ROWS)]
)
def test_corpus_case(row: dict[str, str]) -> None:
    parsed = parse_verdict(row["text"], row["kind"])
    assert (parsed.verdict, parsed.path) == (row["verdict"], row["path"])


def test_strict_parser_accepts_only_the_exact_final_line() -> None:
    assert parse_strict("thinking\nVerdict: B", "pairwise") == "b"
    assert parse_strict("Verdict: B.", "pairwise") is None
    assert parse_strict("verdict: b", "pairwise") is None
    assert parse_strict("Verdict: B\nmore text", "pairwise") is None
    assert parse_strict("Verdict: NOT NOVEL", "pointwise") == "not_novel"
    assert parse_strict("Verdict: Not novel", "pointwise") is None


def test_invalid_is_never_coerced_to_a_class() -> None:
    for text in ("Verdict: A or B", "I refuse.", "", "Verdict: maybe A"):
        assert parse_verdict(text, "pairwise").verdict == "invalid"
    for text in ("Verdict: somewhat novel", "no comment", ""):
        assert parse_verdict(text, "pointwise").verdict == "invalid"


def test_unknown_kind_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown judge kind"):
        parse_verdict("Verdict: A", "listwise")
