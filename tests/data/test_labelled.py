"""`labelled.jsonl` (judgeaudit.data.labelled): the row contract, its file check and `judgeaudit validate`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgeaudit.cli import main
from judgeaudit.data.contract import Evidence, Idea, LabelledIdea, PairItem, PointItem
from judgeaudit.data.jsonl import write_items
from judgeaudit.data.labelled import (
    check_labelled_file,
    labelled_problems,
    labelled_stats,
    write_labelled,
)


def row(idea_id: str, label: str = "novel", area: str = "A", pairs: int = 1) -> LabelledIdea:
    return LabelledIdea(
        idea_id,
        f"Title {idea_id}",
        area,
        label,
        Evidence(
            rating_mean=6.5,
            review_count=4,  # type: ignore[arg-type]
            positive_signals=("It is novel.",),
        ),
        pairs > 0,
        pairs,
    )


def idea(idea_id: str, label: str, area: str = "A") -> Idea:
    return Idea(idea_id, f"text {idea_id}", "abstract", "human", area, label)  # type: ignore[arg-type]


def test_rows_round_trip_and_count(tmp_path: Path) -> None:
    rows = [row("n1"), row("x1", "not_novel", pairs=2), row("x2", "not_novel", pairs=0)]
    write_labelled(tmp_path / "labelled.jsonl", rows)
    got, problems = check_labelled_file(tmp_path / "labelled.jsonl")
    assert problems == [] and got == rows
    assert labelled_stats(got) == {
        "kind": "labelled",
        "items": 3,
        "by_area": {"A": 3},
        "by_label": {"not_novel": 2, "novel": 1},
        "paired_by_label": {"not_novel": 1, "novel": 1},
    }


@pytest.mark.parametrize(
    "change, field, message",
    [
        ({"label": "maybe"}, "label", "unknown value 'maybe'"),
        ({"paired": "yes"}, "paired", "expected true or false"),
        ({"pairs": -1}, "pairs", "non-negative integer"),
        ({"paired": False}, "paired", "paired is false but pairs is 1"),
        ({"idea_id": ""}, "idea_id", "empty text"),
        ({"evidence": {"rating_mean": "high"}}, "evidence.rating_mean", "expected a number"),
    ],
)
def test_a_bad_row_is_a_problem_naming_line_and_field(
    tmp_path: Path, change: dict, field: str, message: str
) -> None:
    good = row("n1").to_dict()
    path = tmp_path / "labelled.jsonl"
    path.write_text(
        json.dumps(good) + "\n" + json.dumps({**good, "idea_id": "n2", **change}) + "\n"
    )
    rows, problems = check_labelled_file(path)
    assert [r.idea_id for r in rows] == ["n1"]
    assert (
        len(problems) == 1
        and problems[0].line == 2
        and problems[0].field == field
        and message in problems[0].message
    )


def test_a_duplicate_id_and_broken_json_are_problems(tmp_path: Path) -> None:
    path = tmp_path / "labelled.jsonl"
    line = json.dumps(row("n1").to_dict())
    path.write_text(f"{line}\n{line}\n{{oops\n")
    rows, problems = check_labelled_file(path)
    assert len(rows) == 1 and [(p.line, p.field) for p in problems] == [(2, "idea_id"), (3, "")]
    assert (
        "duplicate id 'n1' (first on line 1)" in problems[0].message
        and "invalid JSON" in problems[1].message
    )


def _set(tmp_path: Path, rows: list[LabelledIdea]) -> Path:
    pairs = [
        PairItem("n1__x1", "human_only", "A", idea("n1", "novel"), idea("x1", "not_novel"), "a"),
        PairItem("n2__x1", "human_only", "A", idea("x1", "not_novel"), idea("n2", "novel"), "b"),
    ]
    write_items(tmp_path / "pairwise.jsonl", pairs)
    points = [
        PointItem(i.idea_id, "human_only", i, i.label)
        for i in (idea("n1", "novel"), idea("n2", "novel"), idea("x1", "not_novel"))
    ]
    write_items(tmp_path / "pointwise.jsonl", points)
    write_labelled(tmp_path / "labelled.jsonl", rows)
    return tmp_path


def test_the_pair_and_point_sets_must_agree_with_the_labelled_pool(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = [row("n1"), row("n2"), row("x1", "not_novel", pairs=2), row("x2", "not_novel", pairs=0)]
    assert labelled_problems(_set(tmp_path / "good", good)) == []
    assert main(["validate", "--no-manifest", str(tmp_path / "good")]) == 0
    bad = [
        row("n1"),
        row("x1", "novel", pairs=2),
        row("x2", "not_novel", pairs=1),
    ]  # n2 missing, x1 relabelled
    problems = labelled_problems(_set(tmp_path / "bad", bad))
    messages = [p.message for p in problems]
    assert any("idea 'n2' is not in labelled.jsonl" in m for m in messages)
    assert any("idea 'x1' is 'not_novel' in 'A' here but 'novel'" in m for m in messages)
    assert any("'x2': pairs is 1 but pairwise.jsonl holds it 0 time(s)" in m for m in messages)
    capsys.readouterr()
    assert main(["validate", "--no-manifest", str(tmp_path / "bad")]) == 2
    assert "labelled.jsonl" in capsys.readouterr().out
