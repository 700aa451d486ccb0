"""Small valid contract items for tests: ideas, pairs and points (and the fixtures folder)."""

from __future__ import annotations

from pathlib import Path

from judgeaudit.data.contract import Evidence, Idea, PairItem, PointItem, Provenance

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def make_idea(
    idea_id: str,
    label: str,
    *,
    area: str = "learning theory",
    text: str | None = None,
    source: str = "human",
    generator: str | None = None,
    fmt: str = "abstract",
    title: str | None = "A title",
    rich: bool = True,
) -> Idea:
    """A valid Idea; `rich` fills every optional field, otherwise they stay null/empty."""
    evidence = (
        Evidence(
            rating_mean=7.5 if label == "novel" else 2.25,
            contribution_mean=3.25 if label == "novel" else 1.5,
            review_count=4,
            positive_signals=("«first» to show this — naïve bound 🚀",) if label == "novel" else (),
            negative_signals=() if label == "novel" else ("done before in 2019", "incremental"),
            similar_papers=("Smith et al. 2020",) if label == "not_novel" else (),
        )
        if rich
        else Evidence()
    )
    return Idea(
        idea_id=idea_id,
        text=text
        or f'Idea {idea_id}: we study ∑ over graphs — with ünïcode and "quotes"\nand a newline.',
        format=fmt,  # type: ignore[arg-type]
        source=source,  # type: ignore[arg-type]
        area=area,
        label=label,  # type: ignore[arg-type]
        generator=generator,
        title=title if rich else None,
        evidence=evidence,
        original_text=("Original: " + idea_id) if rich else None,
        provenance=Provenance(
            dataset="unit-test", source_id=idea_id, forum=f"forum{idea_id}" if rich else None
        ),
    )


def make_pairs(n: int = 4, *, fmt: str = "abstract") -> list[PairItem]:
    """n valid pairs over two areas, gold balanced between a and b; every other pair sparse."""
    pairs = []
    for i in range(n):
        area = "learning theory" if i % 2 == 0 else "optimization"
        rich = i % 2 == 0
        novel = make_idea(f"n{i}", "novel", area=area, fmt=fmt, rich=rich)
        plain = make_idea(
            f"p{i}",
            "not_novel",
            area=area,
            fmt=fmt,
            rich=rich,
            source="generated" if i == 3 else "human",
            generator="backbone-model" if i == 3 else None,
        )
        gold = "a" if i % 2 == 0 else "b"
        a, b = (novel, plain) if gold == "a" else (plain, novel)
        setup = "human_generated" if i == 3 else "human_only"
        pairs.append(
            PairItem(pair_id=f"pair{i}", setup=setup, area=area, idea_a=a, idea_b=b, gold=gold)
        )  # type: ignore[arg-type]
    return pairs


def make_points(n: int = 4, *, fmt: str = "abstract") -> list[PointItem]:
    """n valid pointwise items alternating novel / not_novel; every other item sparse."""
    points = []
    for i in range(n):
        label = "novel" if i % 2 == 0 else "not_novel"
        idea = make_idea(f"q{i}", label, fmt=fmt, rich=i % 2 == 0)
        points.append(PointItem(item_id=f"item{i}", setup="human_only", idea=idea, gold=label))  # type: ignore[arg-type]
    return points
