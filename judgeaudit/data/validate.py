"""Turn raw JSON objects into contract records, collecting every problem with its place."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

from judgeaudit.data.contract import (
    FORMATS,
    LABELS,
    PAIR_GOLDS,
    SETUPS,
    SOURCES,
    Evidence,
    Idea,
    Item,
    LabelledIdea,
    PairItem,
    PointItem,
    Provenance,
)
from judgeaudit.errors import UserError

Kind = Literal["pairwise", "pointwise"]


@dataclass(frozen=True)
class Problem:
    """One contract violation: file, 1-based line, dotted field path, message."""

    file: str
    line: int
    field: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.field or '<line>'}: {self.message}"


class ContractError(UserError, ValueError):
    """Raised when input breaks the data contract; lists every problem found."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        head = f"{len(problems)} contract problem(s):"
        super().__init__("\n".join([head, *(f"  {p}" for p in problems)]))


def text_field(obj: dict[Any, Any], key: str, *, nonempty: bool = True) -> tuple[str, str | None]:
    """A required text field: its value ("" when unusable) and the problem with it, or None."""
    if key not in obj or obj[key] is None:
        return "", "missing field"
    value = obj[key]
    if not isinstance(value, str):
        return "", f"expected a string, got {type(value).__name__}"
    if nonempty and (not value or value.isspace()):
        return value, "empty text"
    return value, None


class _Collector:
    def __init__(self, file: str, line: int):
        self.file, self.line, self.problems = file, line, list[Problem]()

    def add(self, field: str, message: str) -> None:
        self.problems.append(Problem(self.file, self.line, field, message))

    def req_str(self, obj: dict[str, Any], key: str, path: str, *, nonempty: bool = True) -> str:
        value, problem = text_field(obj, key, nonempty=nonempty)
        if problem is not None:
            self.add(f"{path}{key}", problem)
        return value

    def opt_str(self, obj: dict[str, Any], key: str, path: str) -> str | None:
        value = obj.get(key)
        if value is None:
            return None
        if not isinstance(value, str):
            self.add(f"{path}{key}", f"expected a string or null, got {type(value).__name__}")
            return None
        return value

    def enum(self, obj: dict[str, Any], key: str, path: str, allowed: tuple[str, ...]) -> str:
        value = self.req_str(obj, key, path)
        if value and value not in allowed:
            self.add(f"{path}{key}", f"unknown value {value!r} (allowed: {', '.join(allowed)})")
        return value

    def opt_num(self, obj: dict[str, Any], key: str, path: str) -> float | None:
        value = obj.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
            self.add(f"{path}{key}", f"expected a number or null, got {value!r}")
            return None
        return float(value)

    def opt_int(self, obj: dict[str, Any], key: str, path: str) -> int | None:
        value = obj.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            self.add(f"{path}{key}", f"expected a non-negative integer or null, got {value!r}")
            return None
        return value

    def str_list(self, obj: dict[str, Any], key: str, path: str) -> tuple[str, ...]:
        value = obj.get(key, [])
        if value is None:
            return ()
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.add(f"{path}{key}", "expected a list of strings")
            return ()
        return tuple(value)

    def obj(self, obj: dict[str, Any], key: str, path: str, *, required: bool) -> dict[str, Any]:
        if key not in obj or obj[key] is None:
            if required:
                self.add(f"{path}{key}", "missing field")
            return {}
        value = obj[key]
        if not isinstance(value, dict):
            self.add(f"{path}{key}", f"expected an object, got {type(value).__name__}")
            return {}
        return value


def _evidence(c: _Collector, raw: dict[str, Any], path: str) -> Evidence:
    ev = c.obj(raw, "evidence", path, required=False)
    ep = f"{path}evidence."
    return Evidence(
        rating_mean=c.opt_num(ev, "rating_mean", ep),
        contribution_mean=c.opt_num(ev, "contribution_mean", ep),
        review_count=c.opt_int(ev, "review_count", ep),
        positive_signals=c.str_list(ev, "positive_signals", ep),
        negative_signals=c.str_list(ev, "negative_signals", ep),
        similar_papers=c.str_list(ev, "similar_papers", ep),
    )


def _idea(c: _Collector, raw: dict[str, Any], path: str) -> Idea:
    pv = c.obj(raw, "provenance", path, required=False)
    pp = f"{path}provenance."
    return Idea(
        idea_id=c.req_str(raw, "idea_id", path),
        text=c.req_str(raw, "text", path),
        format=c.enum(raw, "format", path, FORMATS),  # type: ignore[arg-type]
        source=c.enum(raw, "source", path, SOURCES),  # type: ignore[arg-type]
        area=c.req_str(raw, "area", path),
        label=c.enum(raw, "label", path, LABELS),  # type: ignore[arg-type]
        generator=c.opt_str(raw, "generator", path),
        title=c.opt_str(raw, "title", path),
        evidence=_evidence(c, raw, path),
        original_text=c.opt_str(raw, "original_text", path),
        provenance=Provenance(
            dataset=c.opt_str(pv, "dataset", pp) or "",
            source_id=c.opt_str(pv, "source_id", pp) or "",
            forum=c.opt_str(pv, "forum", pp),
        ),
    )


def parse_item(
    raw: Any, kind: Kind, file: str = "<memory>", line: int = 0
) -> tuple[Item | None, list[Problem]]:
    """Build one PairItem/PointItem from a decoded JSON value; return it and its problems."""
    c = _Collector(file, line)
    if not isinstance(raw, dict):
        c.add("", f"expected a JSON object, got {type(raw).__name__}")
        return None, c.problems
    item: Item
    if kind == "pairwise":
        a_raw = c.obj(raw, "idea_a", "", required=True)
        b_raw = c.obj(raw, "idea_b", "", required=True)
        item = PairItem(
            pair_id=c.req_str(raw, "pair_id", ""),
            setup=c.enum(raw, "setup", "", SETUPS),  # type: ignore[arg-type]
            area=c.req_str(raw, "area", ""),
            idea_a=_idea(c, a_raw, "idea_a."),
            idea_b=_idea(c, b_raw, "idea_b."),
            gold=c.enum(raw, "gold", "", PAIR_GOLDS),  # type: ignore[arg-type]
        )
        if a_raw and b_raw:
            if item.idea_a.idea_id and item.idea_a.idea_id == item.idea_b.idea_id:
                c.add("idea_b.idea_id", "pair's two ideas are identical (same idea_id)")
            elif item.idea_a.text.strip() and item.idea_a.text.strip() == item.idea_b.text.strip():
                c.add("idea_b.text", "pair's two ideas are identical (same text)")
            if item.gold in PAIR_GOLDS:
                win, lose = (
                    (item.idea_a, item.idea_b) if item.gold == "a" else (item.idea_b, item.idea_a)
                )
                side = item.gold
                if win.label == "not_novel" or lose.label == "novel":
                    c.add(
                        "gold",
                        f"gold {side!r} contradicts the ideas' labels "
                        f"({item.idea_a.label} vs {item.idea_b.label})",
                    )
            for side_name, idea in (("idea_a", item.idea_a), ("idea_b", item.idea_b)):
                if item.setup == "ai_only" and (idea.source != "generated" or not idea.generator):
                    c.add(
                        f"{side_name}.generator"
                        if idea.source == "generated"
                        else f"{side_name}.source",
                        "an ai_only pair holds two generated ideas, each naming its generator",
                    )
                if item.area and idea.area and idea.area != item.area:
                    c.add(
                        f"{side_name}.area",
                        f"idea area {idea.area!r} differs from pair area {item.area!r}",
                    )
    else:
        i_raw = c.obj(raw, "idea", "", required=True)
        item = PointItem(
            item_id=c.req_str(raw, "item_id", ""),
            setup=c.enum(raw, "setup", "", SETUPS),  # type: ignore[arg-type]
            idea=_idea(c, i_raw, "idea."),
            gold=c.enum(raw, "gold", "", LABELS),  # type: ignore[arg-type]
        )
        if (
            i_raw
            and item.gold in LABELS
            and item.idea.label in LABELS
            and item.gold != item.idea.label
        ):
            c.add("gold", f"gold {item.gold!r} differs from idea.label {item.idea.label!r}")
    return (None if c.problems else item), c.problems


def parse_labelled(
    raw: Any, file: str = "<memory>", line: int = 0
) -> tuple[LabelledIdea | None, list[Problem]]:
    """One row of `labelled.jsonl` from a decoded JSON value; return it and its problems."""
    c = _Collector(file, line)
    if not isinstance(raw, dict):
        c.add("", f"expected a JSON object, got {type(raw).__name__}")
        return None, c.problems
    paired = raw.get("paired")
    if not isinstance(paired, bool):
        c.add("paired", f"expected true or false, got {paired!r}")
    pairs = raw.get("pairs")
    if isinstance(pairs, bool) or not isinstance(pairs, int) or pairs < 0:
        c.add("pairs", f"expected a non-negative integer, got {pairs!r}")
        pairs = 0
    elif isinstance(paired, bool) and paired != (pairs > 0):
        c.add("paired", f"paired is {str(paired).lower()} but pairs is {pairs}")
    row = LabelledIdea(
        idea_id=c.req_str(raw, "idea_id", ""),
        title=c.opt_str(raw, "title", ""),
        area=c.req_str(raw, "area", ""),
        label=c.enum(raw, "label", "", LABELS),  # type: ignore[arg-type]
        evidence=_evidence(c, raw, ""),
        paired=bool(paired),
        pairs=pairs,
    )
    return (None if c.problems else row), c.problems


def guess_kind(path_name: str, first: Any) -> Kind | None:
    """Pairwise or pointwise, from the file name or the first record's keys."""
    name = path_name.rsplit("/", 1)[-1]
    if name.startswith("pairwise"):
        return "pairwise"
    if name.startswith("pointwise"):
        return "pointwise"
    if isinstance(first, dict):
        if "pair_id" in first or "idea_a" in first:
            return "pairwise"
        if "item_id" in first or "idea" in first:
            return "pointwise"
    return None
