"""`labelled.jsonl`: every labelled idea of a mined set before pairing, and its checks.

One JSON object per line (`LabelledIdea`): `idea_id`, `title`, `area`, `label`, `evidence`, `paired`
(whether a pair drew it) and `pairs` (how many pairs hold it; more than one for a `not_novel` idea
reused because its area ran out). The pair and point sets of the same directory are drawn from it,
so `labelled_problems` checks them against it: every idea of `pairwise.jsonl` is a row with the same
label and area, drawn by exactly as many pairs as `pairs` says, and every idea of `pointwise.jsonl`
is a row with the same label.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from judgeaudit.data.contract import LabelledIdea, PairItem, PointItem
from judgeaudit.data.jsonl import check_file, json_error_text, read_jsonl_bytes, write_rows
from judgeaudit.data.validate import Problem, parse_labelled

LABELLED_NAME = "labelled.jsonl"
LABELLED_PREFIX = "labelled"


def is_labelled_file(path: Path) -> bool:
    """True for a file named like the labelled pool (`labelled*.jsonl`)."""
    return path.name.startswith(LABELLED_PREFIX) and path.suffix == ".jsonl"


def check_labelled_file(path: str | Path) -> tuple[list[LabelledIdea], list[Problem]]:
    """Parse a labelled-pool file; return the good rows and every problem (with file, line and field)."""
    p = Path(path)
    name = str(p)
    data = read_jsonl_bytes(p)
    if isinstance(data, Problem):
        return [], [data]
    rows: list[LabelledIdea] = []
    problems: list[Problem] = []
    first: dict[str, int] = {}
    lines = data.split(b"\n")
    if data.endswith(b"\n"):
        lines = lines[:-1]
    for number, raw in enumerate(lines, start=1):
        try:
            obj = json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            problems.append(Problem(name, number, "", f"invalid UTF-8 at byte {exc.start}"))
            continue
        except json.JSONDecodeError as exc:
            problems.append(Problem(name, number, "", json_error_text(exc)))
            continue
        row, row_problems = parse_labelled(obj, name, number)
        problems.extend(row_problems)
        if row is None:
            continue
        if row.idea_id in first:
            problems.append(
                Problem(
                    name,
                    number,
                    "idea_id",
                    f"duplicate id {row.idea_id!r} (first on line {first[row.idea_id]})",
                )
            )
            continue
        first[row.idea_id] = number
        rows.append(row)
    return rows, problems


def dumps_labelled(row: LabelledIdea) -> str:
    """One canonical JSON line (sorted keys, UTF-8 kept)."""
    return json.dumps(row.to_dict(), ensure_ascii=False, sort_keys=True)


def write_labelled(path: str | Path, rows: Iterable[LabelledIdea]) -> int:
    """Write the labelled pool atomically; return the count written."""
    return write_rows(path, rows, dumps_labelled)


def labelled_stats(rows: Sequence[LabelledIdea]) -> dict[str, Any]:
    """The manifest's counts of a labelled pool: rows by area and label, and how many a pair drew per label."""
    return {
        "kind": "labelled",
        "items": len(rows),
        "by_area": dict(sorted(Counter(r.area for r in rows).items())),
        "by_label": dict(sorted(Counter(r.label for r in rows).items())),
        "paired_by_label": dict(sorted(Counter(r.label for r in rows if r.paired).items())),
    }


def labelled_problems(set_dir: Path) -> list[Problem]:
    """Disagreements of a set's pair and point files with its `labelled.jsonl` (see module doc); [] without one."""
    path = Path(set_dir) / LABELLED_NAME
    if not path.is_file():
        return []
    rows, _ = check_labelled_file(path)  # per-row problems are reported by the file check itself
    by_id = {r.idea_id: r for r in rows}
    problems: list[Problem] = []
    pairs_file = Path(set_dir) / "pairwise.jsonl"
    drawn: Counter[str] = Counter()
    if pairs_file.is_file():
        items, _ = check_file(pairs_file, "pairwise")
        for number, item in enumerate(items, start=1):
            assert isinstance(item, PairItem)
            for side, idea in (("idea_a", item.idea_a), ("idea_b", item.idea_b)):
                drawn[idea.idea_id] += 1
                problems.extend(
                    _row_problem(
                        by_id.get(idea.idea_id),
                        idea.idea_id,
                        idea.label,
                        idea.area,
                        str(pairs_file),
                        number,
                        side,
                    )
                )
        for row in rows:
            if row.pairs != drawn[row.idea_id]:
                problems.append(
                    Problem(
                        str(path),
                        0,
                        "pairs",
                        f"{row.idea_id!r}: pairs is {row.pairs} but "
                        f"{pairs_file.name} holds it {drawn[row.idea_id]} time(s)",
                    )
                )
    points_file = Path(set_dir) / "pointwise.jsonl"
    if points_file.is_file():
        points, _ = check_file(points_file, "pointwise")
        for number, point in enumerate(points, start=1):
            assert isinstance(point, PointItem)
            problems.extend(
                _row_problem(
                    by_id.get(point.idea.idea_id),
                    point.idea.idea_id,
                    point.idea.label,
                    point.idea.area,
                    str(points_file),
                    number,
                    "idea",
                )
            )
    return problems


def _row_problem(
    row: LabelledIdea | None, idea_id: str, label: str, area: str, file: str, number: int, side: str
) -> list[Problem]:
    if row is None:
        return [
            Problem(file, number, f"{side}.idea_id", f"idea {idea_id!r} is not in {LABELLED_NAME}")
        ]
    if row.label != label or row.area != area:
        return [
            Problem(
                file,
                number,
                f"{side}.label",
                f"idea {idea_id!r} is {label!r} in {area!r} here but "
                f"{row.label!r} in {row.area!r} in {LABELLED_NAME}",
            )
        ]
    return []
