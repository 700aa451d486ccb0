"""Read and write contract JSONL files; every defect is reported with file, line and field."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

from judgeaudit.data.contract import Idea, Item, PairItem, PointItem
from judgeaudit.data.validate import ContractError, Kind, Problem, guess_kind, parse_item
from judgeaudit.files import atomic_open

T = TypeVar("T")


def read_jsonl_bytes(path: Path) -> bytes | Problem:
    """A JSONL file's bytes, or the one problem that stops it being read (unreadable, or empty)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        return Problem(str(path), 0, "", f"cannot read file: {exc.strerror or exc}")
    return data if data.strip() else Problem(str(path), 0, "", "file is empty")


def json_error_text(exc: json.JSONDecodeError) -> str:
    """`invalid JSON: <reason> at column N`, read as one phrase whatever the reason's wording
    ('Unterminated string starting at' gets no second 'at')."""
    reason = exc.msg.removesuffix(" at")
    return f"invalid JSON: {reason} at column {exc.colno}"


def check_file(path: str | Path, kind: Kind | None = None) -> tuple[list[Item], list[Problem]]:
    """Parse a contract JSONL file; return the good items and every problem found."""
    p = Path(path)
    name = str(p)
    problems: list[Problem] = []
    data = read_jsonl_bytes(p)
    if isinstance(data, Problem):
        return [], [data]
    lines = data.split(b"\n")
    ends_with_newline = data.endswith(b"\n")
    if ends_with_newline:
        lines = lines[:-1]
    decoded: list[tuple[int, Any]] = []
    for number, raw in enumerate(lines, start=1):
        is_last = number == len(lines)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            problems.append(Problem(name, number, "", f"invalid UTF-8 at byte {exc.start}"))
            continue
        if not text.strip():
            problems.append(Problem(name, number, "", "blank line"))
            continue
        try:
            decoded.append((number, json.loads(text)))
        except json.JSONDecodeError as exc:
            if is_last and not ends_with_newline:
                msg = f"truncated last line (no newline, JSON ends early: {exc.msg})"
            else:
                msg = json_error_text(exc)
            problems.append(Problem(name, number, "", msg))
    if kind is None:
        kind = guess_kind(name, decoded[0][1] if decoded else None)
    if kind is None:
        problems.append(
            Problem(
                name,
                0,
                "",
                "cannot tell pairwise from pointwise (name the file pairwise*/pointwise* or pass kind)",
            )
        )
        return [], problems
    id_field = "pair_id" if kind == "pairwise" else "item_id"
    first_line: dict[str, int] = {}
    parsed: list[tuple[int, Item]] = []
    for number, obj in decoded:
        raw_id = obj.get(id_field) if isinstance(obj, dict) else None
        duplicate = isinstance(raw_id, str) and raw_id in first_line
        if duplicate:  # found even when the first occurrence is itself broken
            problems.append(
                Problem(
                    name,
                    number,
                    id_field,
                    f"duplicate id {raw_id!r} (first on line {first_line[str(raw_id)]})",
                )
            )
        elif isinstance(raw_id, str) and raw_id:
            first_line[raw_id] = number
        item, item_problems = parse_item(obj, kind, name, number)
        problems.extend(item_problems)
        if item is not None and not duplicate:
            parsed.append((number, item))
    items, cross = check_unique(parsed, name)
    problems.extend(cross)
    problems.sort(key=lambda p: p.line)
    return items, problems


def check_unique(
    numbered: Iterable[tuple[int, Item]], name: str
) -> tuple[list[Item], list[Problem]]:
    """Drop and report items whose id repeats, or whose idea_id is reused with other content."""
    problems: list[Problem] = []
    items: list[Item] = []
    seen_ids: dict[str, int] = {}
    seen_ideas: dict[str, tuple[int, Idea]] = {}
    for number, item in numbered:
        item_id = item.item_id
        if item_id in seen_ids:
            field = "pair_id" if isinstance(item, PairItem) else "item_id"
            problems.append(
                Problem(
                    name,
                    number,
                    field,
                    f"duplicate id {item_id!r} (first on line {seen_ids[item_id]})",
                )
            )
            continue
        seen_ids[item_id] = number
        ideas = (
            [("idea_a", item.idea_a), ("idea_b", item.idea_b)]
            if isinstance(item, PairItem)
            else [("idea", item.idea)]
        )
        conflict = False
        for field, idea in ideas:
            prev = seen_ideas.get(idea.idea_id)
            if prev is not None and prev[1] != idea:
                problems.append(
                    Problem(
                        name,
                        number,
                        f"{field}.idea_id",
                        f"idea_id {idea.idea_id!r} reused with different content (first on line {prev[0]})",
                    )
                )
                conflict = True
            else:
                seen_ideas.setdefault(idea.idea_id, (number, idea))
        if not conflict:
            items.append(item)
    return items, problems


def read_items(path: str | Path, kind: Kind | None = None) -> list[Item]:
    """Load a contract JSONL file or raise ContractError listing every problem."""
    items, problems = check_file(path, kind)
    if problems:
        raise ContractError(problems)
    return items


def read_pairs(path: str | Path) -> list[PairItem]:
    """Load a pairwise JSONL file (strict)."""
    return [i for i in read_items(path, "pairwise") if isinstance(i, PairItem)]


def read_points(path: str | Path) -> list[PointItem]:
    """Load a pointwise JSONL file (strict)."""
    return [i for i in read_items(path, "pointwise") if isinstance(i, PointItem)]


def dumps_item(item: Item) -> str:
    """One canonical JSON line (sorted keys, UTF-8 kept) for an item."""
    return json.dumps(item.to_dict(), ensure_ascii=False, sort_keys=True)


def write_rows(path: str | Path, rows: Iterable[T], dumps: Callable[[T], str]) -> int:
    """Write one line per row (`dumps(row)`) atomically; return the count written."""
    n = 0
    with atomic_open(path, "w") as fh:
        for row in rows:
            fh.write(dumps(row) + "\n")
            n += 1
    return n


def write_items(path: str | Path, items: Iterable[Item]) -> int:
    """Write items as JSONL atomically; return the count written."""
    return write_rows(path, items, dumps_item)
