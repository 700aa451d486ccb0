"""The independent adversarial verdict corpus (tests/fixtures/verdict_corpus, see its README):
every output is parsed with the idea texts it was written for, and no reading is coerced.

coerced = a wrong verdict, or any verdict where `invalid` is expected; lost = a clear answer
(expected a verdict) read as invalid. `python -m tests.judges.test_verdict_corpus` prints the
figures and the lost answers.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from judgeaudit.judges.parse import parse_verdict

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "verdict_corpus"
# Reviewed exclusions: entries whose expected reading we believe contradicts the protocol
# (each with the reason). Keep this tiny.
EXCLUDED: dict[str, str] = {}


def load() -> list[dict[str, Any]]:
    """Every corpus entry of both files."""
    rows = []
    for name in ("pairwise.jsonl", "pointwise.jsonl"):
        rows += [json.loads(line) for line in (CORPUS / name).read_text(encoding="utf-8").splitlines() if line]
    return rows


def reading(row: dict[str, Any]) -> tuple[str, str | None]:
    """(verdict, reason) of one entry, parsed with its labels and idea texts."""
    parsed = parse_verdict(row["output"], row["kind"], labels=row.get("labels") or "AB",
                           ideas=list(row["ideas"].values()))
    return parsed.verdict, parsed.reason


def outcome(row: dict[str, Any], verdict: str) -> str:
    """correct / invalid (a clear answer lost) / coerced."""
    if verdict == row["expected"]:
        return "correct"
    return "lost" if verdict == "invalid" else "coerced"


def figures(rows: list[dict[str, Any]]) -> Counter[str]:
    """Counts of correct, lost, coerced, and of readings that are invalid."""
    counts: Counter[str] = Counter()
    for row in rows:
        verdict, _ = reading(row)
        counts[outcome(row, verdict)] += 1
        counts["read_invalid"] += verdict == "invalid"
        counts["expected_valid"] += row["expected"] != "invalid"
    return counts


ROWS = load()
KEPT = [r for r in ROWS if r["id"] not in EXCLUDED]


def test_corpus_is_large_and_covers_both_kinds() -> None:
    kinds = Counter(r["kind"] for r in ROWS)
    assert len(ROWS) >= 1500 and kinds["pairwise"] >= 500 and kinds["pointwise"] >= 500
    assert set(EXCLUDED) <= {r["id"] for r in ROWS} and len(EXCLUDED) <= 10


def test_no_reading_is_coerced() -> None:
    coerced = []
    for row in KEPT:
        verdict, reason = reading(row)
        if outcome(row, verdict) == "coerced":
            coerced.append((row["id"], row["category"], row["expected"], verdict))
    assert coerced == []


def test_every_invalid_reading_has_a_reason() -> None:
    for row in KEPT:
        verdict, reason = reading(row)
        assert (verdict == "invalid") == (reason is not None), row["id"]


@pytest.mark.parametrize("category", ["strict_final", "json_object", "xml_tag", "markdown_wrap"])
def test_common_wrappers_are_read(category: str) -> None:
    rows = [r for r in KEPT if r["category"] == category]
    assert rows and all(outcome(r, reading(r)[0]) == "correct" for r in rows), category


if __name__ == "__main__":
    counts = figures(KEPT)
    print(f"{len(KEPT)} entries ({len(EXCLUDED)} excluded): correct {counts['correct']}, "
          f"read invalid {counts['read_invalid']}, coerced {counts['coerced']}, "
          f"clear answers lost {counts['lost']} of {counts['expected_valid']}")
    for row in KEPT:
        verdict, reason = reading(row)
        if outcome(row, verdict) != "correct":
            print(outcome(row, verdict), row["id"], row["category"], row["expected"], verdict, reason,
                  json.dumps(row["output"][-160:]))
