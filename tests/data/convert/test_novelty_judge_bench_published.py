"""The converter on verbatim entries of the published novelty-judge-bench files (fixture with attribution).

Every expected value below was read by hand from the YAML files in
tests/fixtures/novelty_judge_bench/published (see its README for source and license).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from judgeaudit.cli import main
from judgeaudit.data.contract import Item, PairItem, PointItem
from judgeaudit.data.convert.novelty_judge_bench import (
    BenchConversion,
    convert_dir,
    convert_strict,
    text_idea_id,
)
from judgeaudit.data.jsonl import read_items

PUBLISHED = Path(__file__).resolve().parents[2] / "fixtures" / "novelty_judge_bench" / "published"
FOUNDATION = "foundation or frontier models, including LLMs"
VISION = "applications to computer vision, audio, language, and other modalities"


def _items(conv: BenchConversion, relative: str) -> dict[str, Item]:
    [bench_file] = [f for f in conv.files if f.relative == relative]
    return {item.item_id: item for item in bench_file.items}


def test_every_published_file_converts_with_its_counts() -> None:
    conv = convert_strict(PUBLISHED)
    got = {(f.relative, f.set_path, f.stem, f.generator): len(f.items) for f in conv.files}
    assert got == {
        ("human-only/pairwise.yaml", "human_only", "pairwise", None): 1,
        ("human-only/pairwise_plan.yaml", "human_only", "pairwise_plan", None): 1,
        ("human-only/pointwise.yaml", "human_only", "pointwise", None): 1,
        ("human-plus-generated/pairwise.yaml", "human_generated", "pairwise", None): 1,
        (
            "human-plus-generated/backbone-gpt-5.1/pointwise.yaml",
            "human_generated/gpt-5.1",
            "pointwise",
            "gpt-5.1",
        ): 6,
        ("ai-only/claude/pairwise.yaml", "ai_only/claude", "pairwise", None): 4,
        ("ai-only/gpt/pairwise.yaml", "ai_only/gpt", "pairwise", None): 4,
    }
    assert [(s.path, s.reason.split(",")[0]) for s in conv.skipped] == [
        ("README.md", "documentation"),
        ("expert-annotations/judge_errors.csv", "expert annotations"),
    ]
    assert conv.problems == []


def test_ai_only_pairs_record_both_generators_and_the_stronger_wins() -> None:
    conv = convert_strict(PUBLISHED)
    stronger = {"claude": "claude-opus-4-5", "gpt": "gpt-5.4"}
    for family, strong in stronger.items():
        pairs = _items(conv, f"ai-only/{family}/pairwise.yaml")
        assert sorted(pairs) == ["0", "1", "2", "3"]
        for key, pair in pairs.items():
            assert isinstance(pair, PairItem) and pair.setup == "ai_only", key
            ideas = {"a": pair.idea_a, "b": pair.idea_b}
            assert {i.source for i in ideas.values()} == {"generated"}, key
            assert ideas[pair.gold].generator == strong, key
            assert ideas[pair.gold].title.startswith(strong + "/LLM-"), key  # type: ignore[union-attr]
    # the gpt file's entry 3 lists the weaker generator first: expected_winners [1]
    assert _items(conv, "ai-only/gpt/pairwise.yaml")["3"].gold == "b"
    # the same generated idea stands in human-plus-generated and ai-only: one id for one text
    hpg = _items(conv, "human-plus-generated/pairwise.yaml")["2"]
    claude = _items(conv, "ai-only/claude/pairwise.yaml")["2"]
    assert isinstance(hpg, PairItem) and isinstance(claude, PairItem)
    assert hpg.idea_b.idea_id == claude.idea_b.idea_id
    assert hpg.idea_b.generator == claude.idea_b.generator == "claude-sonnet-4-5"


def test_ai_only_expected_winner_must_be_the_stronger_generator(tmp_path: Path) -> None:
    src = tmp_path / "src"
    shutil.copytree(PUBLISHED / "ai-only", src / "ai-only")
    path = src / "ai-only" / "claude" / "pairwise.yaml"
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"\n      type: \w+", "", text)  # no declared types: the winner index alone
    path.write_text(text.replace("expected_winners:\n  - 0", "expected_winners:\n  - 1", 1))
    problems = [str(p) for p in convert_dir(src).problems]
    assert len(problems) >= 1 and "0.expected_winners" in problems[0]
    assert "the weaker generator" in " ".join(problems)


def test_human_only_pair_labels_gold_and_scores() -> None:
    pair = _items(convert_strict(PUBLISHED), "human-only/pairwise.yaml")["1"]  # the int id 1
    assert isinstance(pair, PairItem)
    assert (pair.gold, pair.setup, pair.area) == (
        "a",
        "human_only",
        FOUNDATION,
    )  # expected_winners: [0]
    a, b = pair.idea_a, pair.idea_b
    assert (
        a.title
        == "Expanding Reasoning Potential in Foundation Model by Learning Diverse Chains of Thought Patterns"
    )
    assert b.title == "AsymPuzl: An asymmetric puzzle for multi-agent cooperation"
    assert (a.label, b.label) == ("novel", "not_novel")
    assert (a.source, b.source, a.generator, b.generator) == ("human", "human", None, None)
    assert (a.evidence.rating_mean, a.evidence.contribution_mean) == (6.5, 3.0)
    assert (b.evidence.rating_mean, b.evidence.contribution_mean) == (2.5, 2.0)
    assert (len(a.evidence.positive_signals), len(a.evidence.negative_signals)) == (3, 0)
    assert (len(b.evidence.positive_signals), len(b.evidence.negative_signals)) == (0, 4)
    assert (
        b.evidence.negative_signals[2]
        == "The necessity/novelty of this particular testbed is not clearly explained."
    )
    assert a.text.startswith("Recent progress in large reasoning models") and a.format == "abstract"
    assert a.idea_id == text_idea_id(a.text)  # no forum id in the published metadata
    assert a.provenance.source_id == "human-only/pairwise.yaml#1/0"


def test_plan_file_joins_its_abstract_file() -> None:
    conv = convert_strict(PUBLISHED)
    pair = _items(conv, "human-only/pairwise.yaml")["1"]
    plan = _items(conv, "human-only/pairwise_plan.yaml")["1"]
    assert isinstance(pair, PairItem) and isinstance(plan, PairItem)
    assert plan.gold == "a" and {plan.idea_a.format, plan.idea_b.format} == {"plan"}
    # a plan idea keeps the id of the abstract idea with its title (the texts differ)
    assert (plan.idea_a.idea_id, plan.idea_b.idea_id) == (pair.idea_a.idea_id, pair.idea_b.idea_id)
    assert plan.idea_a.text != pair.idea_a.text
    assert plan.idea_a.text.startswith("**purpose**: Identify which types of chain-of-thought data")
    assert "\n**mechanism**: Atomic reasoning patterns" in plan.idea_a.text
    assert "model's reasoning potential" in plan.idea_a.text  # the YAML '' escape read as one quote
    assert plan.idea_a.provenance.source_id == "human-only/pairwise_plan.yaml#1/0"


def test_human_only_point_uses_the_quoted_id() -> None:
    point = _items(convert_strict(PUBLISHED), "human-only/pointwise.yaml")["100"]
    assert isinstance(point, PointItem)
    assert (point.gold, point.idea.label, point.idea.area) == ("novel", "novel", VISION)
    assert (
        point.idea.title
        == "ORCaS: Unsupervised Depth Completion via Occluded Region Completion as Supervision"
    )
    assert (point.idea.evidence.rating_mean, point.idea.evidence.contribution_mean) == (6.0, 3.25)
    assert len(point.idea.evidence.positive_signals) == 4


def test_generated_side_keeps_na_scores_missing() -> None:
    pair = _items(convert_strict(PUBLISHED), "human-plus-generated/pairwise.yaml")["2"]
    assert isinstance(pair, PairItem)
    assert (pair.gold, pair.setup) == ("a", "human_generated")
    human, generated = pair.idea_a, pair.idea_b
    assert (human.source, human.label, human.title) == (
        "human",
        "novel",
        "FASA: FREQUENCY-AWARE SPARSE ATTENTION",
    )
    assert (human.evidence.rating_mean, human.evidence.contribution_mean) == (6.0, 3.0)
    assert (generated.source, generated.label) == ("generated", "not_novel")
    # no backbone-<model> folder: the release's stated ideator of its top-level Human+Generated files
    assert generated.generator == "claude-sonnet-4-5"
    assert generated.title == "LLM-foundation or frontier models, including LLMs-14"
    assert (generated.evidence.rating_mean, generated.evidence.contribution_mean) == (
        None,
        None,
    )  # N/A, not 0
    assert generated.provenance.forum is None and generated.text.startswith(
        "Foundation models excel"
    )


def test_backbone_folder_names_the_generator() -> None:
    points = _items(
        convert_strict(PUBLISHED), "human-plus-generated/backbone-gpt-5.1/pointwise.yaml"
    )
    assert sorted(points) == ["1", "10", "100", "101", "103", "104"]
    gold = {k: p.gold for k, p in points.items()}
    assert gold == {
        "1": "not_novel",
        "10": "novel",
        "100": "novel",
        "101": "not_novel",
        "103": "not_novel",
        "104": "not_novel",
    }
    for key, point in points.items():
        assert isinstance(point, PointItem) and point.setup == "human_generated"
        idea = point.idea
        if point.gold == "novel":
            assert (idea.source, idea.generator) == ("human", None), key
            assert idea.evidence.rating_mean is not None, key
        else:
            assert (idea.source, idea.generator) == ("generated", "gpt-5.1"), key
            assert (idea.evidence.rating_mean, idea.evidence.contribution_mean) == (None, None), key
            assert idea.title is not None and idea.title.startswith("LLM-"), key
    assert points["10"].idea.title == "LLM Pretraining with Continuous Concepts"
    assert (
        points["10"].idea.evidence.rating_mean,
        points["10"].idea.evidence.contribution_mean,
    ) == (7.33, 3.33)


def test_cli_converts_and_the_result_validates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "njb"
    assert (
        main(["convert", "--from", "novelty-judge-bench", str(PUBLISHED), "--out", str(out)]) == 0
    )
    printed = capsys.readouterr().out
    assert "wrote" in printed and "FAILED" not in printed
    assert (
        "skipped (expert annotations" in printed
        and "expert-annotations/judge_errors.csv" in printed
    )
    rows = [
        json.loads(line)
        for line in (out / "human_generated" / "pairwise.jsonl").read_text().splitlines()
    ]
    assert rows[0]["idea_b"]["evidence"]["rating_mean"] is None  # written as null, never 0
    assert len(read_items(out / "human_generated" / "gpt-5.1" / "pointwise.jsonl")) == 6
    assert main(["validate", str(out)]) == 0
    assert "OK: 7 file(s), 18 valid item(s), 0 problem(s)" in capsys.readouterr().out
    card = (out / "ai_only" / "claude" / "README.md").read_text()
    assert "license: cc-by-4.0" in card and "`claude-opus-4-5` over `claude-sonnet-4-5`" in card
    assert "noystl/novelty-judge-bench" in card


def test_plan_ids_are_joined_on_titles_not_ids(tmp_path: Path) -> None:
    """Ids are local to each published file: a plan pair numbered differently still joins its abstract pair,
    and a plan pair matching no abstract pair never takes the id of another one."""
    src = tmp_path / "src"
    shutil.copytree(PUBLISHED, src)
    plan_file = src / "human-only" / "pairwise_plan.yaml"
    text = plan_file.read_text(encoding="utf-8")
    assert text.startswith("1:\n")
    other = text.replace(
        "Expanding Reasoning Potential in Foundation Model by Learning Diverse Chains of Thought "
        "Patterns",
        "Another paper",
    ).replace("AsymPuzl: An asymmetric", "Another")
    plan_file.write_text("7:\n" + text[3:] + "1:\n" + other[3:], encoding="utf-8")
    conv = convert_strict(src)
    plan = _items(conv, "human-only/pairwise_plan.yaml")
    assert sorted(plan) == ["1", "plan-1"]
    [bench_file] = [f for f in conv.files if f.relative == "human-only/pairwise_plan.yaml"]
    assert bench_file.unjoined == ["1"]


def test_an_idea_in_two_pairs_of_one_file_is_one_idea(tmp_path: Path) -> None:
    """The same human idea may stand in several pairs: it keeps the provenance of its first pair."""
    src = tmp_path / "src"
    shutil.copytree(PUBLISHED, src)
    path = src / "human-only" / "pairwise.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text + "2:" + text[2:], encoding="utf-8")
    pairs = _items(convert_strict(src), "human-only/pairwise.yaml")
    assert sorted(pairs) == ["1", "2"]
    first, second = pairs["1"], pairs["2"]
    assert isinstance(first, PairItem) and isinstance(second, PairItem)
    assert second.idea_a == first.idea_a
    assert second.idea_a.provenance.source_id == "human-only/pairwise.yaml#1/0"
