"""The data contract: Idea, PairItem, PointItem and their field rules (see DESIGN.md)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Format = Literal["abstract", "plan"]
Source = Literal["human", "generated"]
Label = Literal["novel", "not_novel"]
Setup = Literal["human_only", "human_generated"]
PairGold = Literal["a", "b"]

FORMATS: tuple[str, ...] = ("abstract", "plan")
SOURCES: tuple[str, ...] = ("human", "generated")
LABELS: tuple[str, ...] = ("novel", "not_novel")
SETUPS: tuple[str, ...] = ("human_only", "human_generated")
PAIR_GOLDS: tuple[str, ...] = ("a", "b")


@dataclass(frozen=True)
class Evidence:
    """Why an idea carries its label: review score means and verbatim signal quotes."""

    rating_mean: float | None = None
    contribution_mean: float | None = None
    review_count: int | None = None
    positive_signals: tuple[str, ...] = ()
    negative_signals: tuple[str, ...] = ()
    similar_papers: tuple[str, ...] = ()


@dataclass(frozen=True)
class Provenance:
    """Where an idea came from: source dataset, its own id there, and the forum if any."""

    dataset: str = ""
    source_id: str = ""
    forum: str | None = None


@dataclass(frozen=True)
class Idea:
    """One research idea with its gold label."""

    idea_id: str
    text: str
    format: Format
    source: Source
    area: str
    label: Label
    generator: str | None = None
    title: str | None = None
    evidence: Evidence = field(default_factory=Evidence)
    original_text: str | None = None
    provenance: Provenance = field(default_factory=Provenance)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict (lists, not tuples)."""
        return _jsonable(asdict(self))


@dataclass(frozen=True)
class PairItem:
    """Two ideas of one area; gold names the more novel one."""

    pair_id: str
    setup: Setup
    area: str
    idea_a: Idea
    idea_b: Idea
    gold: PairGold

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict."""
        return _jsonable(asdict(self))

    @property
    def item_id(self) -> str:
        """The id statistics pair on (same name for both item kinds)."""
        return self.pair_id


@dataclass(frozen=True)
class PointItem:
    """One idea; gold is its label."""

    item_id: str
    setup: Setup
    idea: Idea
    gold: Label

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict."""
        return _jsonable(asdict(self))

    @property
    def area(self) -> str:
        """The idea's research area."""
        return self.idea.area


Item = PairItem | PointItem


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return value
