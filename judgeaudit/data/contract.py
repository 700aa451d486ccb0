"""The data contract: Idea, PairItem, PointItem, LabelledIdea and their field rules.

An idea has a stable id, its text in one format (`abstract` or `plan`), a source (`human` or
`generated`, with the generator's model id), its ICLR primary area, an optional title, and, once
labelled, `novel`/`not_novel` with the review evidence behind the label. A pair item holds two
ideas of one area and which is the more novel (`a`/`b`); a point item holds one idea and its
label. Setups: `human_only` (both sides mined from reviews) and `human_generated` (the novel side
mined, the other generated). A file that breaks these rules fails to load with a message naming
the file, line and field.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Format = Literal["abstract", "plan"]
Source = Literal["human", "generated"]
Label = Literal["novel", "not_novel"]
Setup = Literal["human_only", "human_generated", "ai_only"]
PairGold = Literal["a", "b"]

FORMATS: tuple[str, ...] = ("abstract", "plan")
SOURCES: tuple[str, ...] = ("human", "generated")
LABELS: tuple[str, ...] = ("novel", "not_novel")
SETUPS: tuple[str, ...] = ("human_only", "human_generated", "ai_only")
# What each setup's sides are: both mined from reviews; the novel side mined and the other written by
# an LLM ideator; both written by LLMs, the stronger generator's idea the expected (`novel`) winner.
SETUP_MEANINGS: dict[str, str] = {
    "human_only": "both ideas mined from peer reviews",
    "human_generated": "the novel idea mined from peer reviews, the other written by an LLM ideator",
    "ai_only": "both ideas written by LLMs; the stronger generator's idea is the expected winner",
}
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

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict (lists, not tuples)."""
        return {
            "rating_mean": self.rating_mean,
            "contribution_mean": self.contribution_mean,
            "review_count": self.review_count,
            "positive_signals": list(self.positive_signals),
            "negative_signals": list(self.negative_signals),
            "similar_papers": list(self.similar_papers),
        }


@dataclass(frozen=True)
class Provenance:
    """Where an idea came from: source dataset, its own id there, and the forum if any."""

    dataset: str = ""
    source_id: str = ""
    forum: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict."""
        return {"dataset": self.dataset, "source_id": self.source_id, "forum": self.forum}


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
        """Plain JSON-ready dict (lists, not tuples); same keys and order as the dataclass fields."""
        return {
            "idea_id": self.idea_id,
            "text": self.text,
            "format": self.format,
            "source": self.source,
            "area": self.area,
            "label": self.label,
            "generator": self.generator,
            "title": self.title,
            "evidence": self.evidence.to_dict(),
            "original_text": self.original_text,
            "provenance": self.provenance.to_dict(),
        }


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
        return {
            "pair_id": self.pair_id,
            "setup": self.setup,
            "area": self.area,
            "idea_a": self.idea_a.to_dict(),
            "idea_b": self.idea_b.to_dict(),
            "gold": self.gold,
        }

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
        return {
            "item_id": self.item_id,
            "setup": self.setup,
            "idea": self.idea.to_dict(),
            "gold": self.gold,
        }

    @property
    def area(self) -> str:
        """The idea's research area."""
        return self.idea.area


Item = PairItem | PointItem


@dataclass(frozen=True)
class LabelledIdea:
    """One labelled idea before pairing (a row of `labelled.jsonl`): whether and how often a pair drew it."""

    idea_id: str
    title: str | None
    area: str
    label: Label
    evidence: Evidence
    paired: bool
    pairs: int

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict; same keys and order as the dataclass fields."""
        return {
            "idea_id": self.idea_id,
            "title": self.title,
            "area": self.area,
            "label": self.label,
            "evidence": self.evidence.to_dict(),
            "paired": self.paired,
            "pairs": self.pairs,
        }


def item_ideas(item: Item) -> list[Idea]:
    """The ideas an item shows: both sides of a pair (a, then b), or the one idea of a point."""
    return [item.idea_a, item.idea_b] if isinstance(item, PairItem) else [item.idea]


def backbone(model: str | None) -> str:
    """Comparable backbone name of a model id (an idea's `generator`, a judge's model): provider
    prefixes dropped, lower-cased (`local/Gemma-3-270M` -> `gemma-3-270m`)."""
    if not model:
        return ""
    return model.strip().lower().split("/")[-1]
