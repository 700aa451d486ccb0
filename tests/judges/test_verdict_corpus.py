"""The independent adversarial verdict corpus (tests/fixtures/verdict_corpus, see its README, and
its `shapes/` folder: the answers that look like a verdict without committing to one, by a second
independent author): every output is parsed with the idea texts it was written for, no reading is
coerced and no clear answer is lost.

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

from judgeaudit.judges import parse
from judgeaudit.judges.parse import parse_verdict

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "verdict_corpus"
# Reviewed exclusions: entries whose expected reading we believe contradicts the protocol
# (each with the reason). Keep this tiny.
EXCLUDED: dict[str, str] = {}


FILES = (
    "pairwise.jsonl",
    "pointwise.jsonl",
    "shapes/shapes_pairwise.jsonl",
    "shapes/shapes_pointwise.jsonl",
)
# The shapes corpus's categories of answers that do not commit, and the reason that names each shape.
SHAPE_REASONS = {
    "hedge_on_verdict_line": parse.HEDGED,
    "split_verdict": parse.SPLIT,
    "withheld_degree": parse.DEGREE,
    "yes_no_contradicts": parse.YES_NO_CONTRADICTS,
    "retraction_in_sentence": parse.RETRACTED,
    "option_inside_word": parse.COMPOUND,
}
# Its clear controls, one or more mirroring each shape.
SHAPE_CONTROLS = (
    "clear_justified_line",
    "clear_justified_contrast",
    "clear_same_option_all_aspects",
    "clear_after_aspect_reasoning",
    "clear_full_degree",
    "clear_yes_no_agrees",
    "clear_phrase_continuation",
    "clear_option_word_elsewhere",
    "clear_after_hedged_reasoning",
    "clear_plain_wrapped",
)


def load() -> list[dict[str, Any]]:
    """Every corpus entry of the four files."""
    rows = []
    for name in FILES:
        rows += [
            json.loads(line)
            for line in (CORPUS / name).read_text(encoding="utf-8").splitlines()
            if line
        ]
    return rows


def reading(row: dict[str, Any]) -> tuple[str, str | None]:
    """(verdict, reason) of one entry, parsed with its labels and idea texts."""
    parsed = parse_verdict(
        row["output"],
        row["kind"],
        labels=row.get("labels") or "AB",
        ideas=list(row["ideas"].values()),
    )
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
SHAPES = [r for r in KEPT if r["id"].startswith(("sp-", "st-"))]


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


def test_no_clear_answer_is_lost() -> None:
    lost = [
        (r["id"], r["category"], reading(r)[1]) for r in KEPT if outcome(r, reading(r)[0]) == "lost"
    ]
    assert lost == []


def test_every_invalid_reading_has_a_reason_of_the_vocabulary() -> None:
    for row in KEPT:
        verdict, reason = reading(row)
        assert (verdict == "invalid") == (reason is not None), row["id"]
        assert reason is None or reason in parse.REASONS, (row["id"], reason)


def test_shapes_cover_every_shape_and_control_in_both_kinds() -> None:
    seen = Counter((r["category"], r["kind"]) for r in SHAPES)
    for category in (*SHAPE_REASONS, *SHAPE_CONTROLS):
        kinds = (
            {"pointwise"}
            if category in ("yes_no_contradicts", "clear_yes_no_agrees")
            else {"pairwise", "pointwise"}
        )
        if category in ("clear_justified_contrast", "clear_after_aspect_reasoning"):
            kinds = {"pairwise"}  # the justification names the other idea
        assert all(seen[(category, kind)] >= 10 for kind in kinds), category
    assert {r["category"] for r in SHAPES} == {*SHAPE_REASONS, *SHAPE_CONTROLS}
    assert {r["labels"] for r in SHAPES if r["kind"] == "pairwise"} == {"AB", "12"}


@pytest.mark.parametrize("category", SHAPE_REASONS)
def test_each_shape_is_refused_with_the_reason_naming_it(category: str) -> None:
    rows = [r for r in SHAPES if r["category"] == category]
    readings = Counter(reading(r) for r in rows)
    assert readings == {("invalid", SHAPE_REASONS[category]): len(rows)}, category


@pytest.mark.parametrize("category", SHAPE_CONTROLS)
def test_each_shape_control_is_read(category: str) -> None:
    rows = [r for r in SHAPES if r["category"] == category]
    wrong = [(r["id"], r["expected"], reading(r)) for r in rows if reading(r)[0] != r["expected"]]
    assert rows and wrong == []


@pytest.mark.parametrize("category", ["strict_final", "json_object", "xml_tag", "markdown_wrap"])
def test_common_wrappers_are_read(category: str) -> None:
    rows = [r for r in KEPT if r["category"] == category]
    assert rows and all(outcome(r, reading(r)[0]) == "correct" for r in rows), category


if __name__ == "__main__":
    counts = figures(KEPT)
    print(
        f"{len(KEPT)} entries ({len(EXCLUDED)} excluded): correct {counts['correct']}, "
        f"read invalid {counts['read_invalid']}, coerced {counts['coerced']}, "
        f"clear answers lost {counts['lost']} of {counts['expected_valid']}"
    )
    for row in KEPT:
        verdict, reason = reading(row)
        if outcome(row, verdict) != "correct":
            print(
                outcome(row, verdict),
                row["id"],
                row["category"],
                row["expected"],
                verdict,
                reason,
                json.dumps(row["output"][-160:]),
            )
