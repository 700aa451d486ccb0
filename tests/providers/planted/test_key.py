"""The planted judge's answer key: every bundled idea is recognised with its label, also after each
meaning-preserving surface edit of the surface probe; unknown, ambiguous and broken keys fail in one line."""

from __future__ import annotations

import random
import re
from dataclasses import replace
from pathlib import Path

import pytest
from helpers.items import make_pairs, make_points

from judgeaudit.arms.transforms import SURFACE_ARMS, surface_edit
from judgeaudit.data.contract import PairItem, PointItem
from judgeaudit.data.jsonl import write_items
from judgeaudit.data.samples import load_items
from judgeaudit.providers.planted.behaviour import PlantedError
from judgeaudit.providers.planted.key import UnknownIdea, load_key

BUNDLED = "iclr2026/human_only"


def test_every_bundled_idea_is_known_with_its_label_and_every_pair_with_its_gold() -> None:
    key = load_key()
    points = load_items(BUNDLED, "pointwise")
    assert points and all(
        key.find(p.idea.text).label == p.gold for p in points if isinstance(p, PointItem)
    )
    for pair in load_items(BUNDLED, "pairwise"):
        assert isinstance(pair, PairItem)
        a, b = key.find(pair.idea_a.text), key.find(pair.idea_b.text)
        assert (a.label, b.label) == (pair.idea_a.label, pair.idea_b.label)
        assert "ab"[key.gold(a, b)] == pair.gold and "ba"[key.gold(b, a)] == pair.gold
    generated = load_items("iclr2026/human_generated/gemma-3-270m", "pairwise")
    gen_texts = [
        i.text
        for item in generated
        if isinstance(item, PairItem)
        for i in (item.idea_a, item.idea_b)
        if i.source == "generated"
    ]
    assert gen_texts and all(key.find(t).generators == {"gemma-3-270m"} for t in gen_texts)


@pytest.mark.parametrize("arm", SURFACE_ARMS)
def test_ideas_are_recognised_after_each_surface_edit(arm: str) -> None:
    key = load_key()
    points = [p for p in load_items(BUNDLED, "pointwise") if isinstance(p, PointItem)]
    changed = 0
    for k, point in enumerate(points):
        edited = surface_edit(arm, point.idea.text, random.Random(k))
        changed += edited != point.idea.text
        known = key.find(edited)
        assert (known.text, known.label) == (point.idea.text, point.gold)
    assert (
        changed > len(points) // 4
    )  # the edit did change most texts (all, for casing and Markdown)


def test_unknown_and_conflicting_ideas_fail_in_one_line(tmp_path: Path) -> None:
    # the bundled sets named: the default key also holds the sets other tests' tasks loaded
    key = load_key("iclr2026")
    stranger = make_points(1)[0].idea.text
    with pytest.raises(
        UnknownIdea, match=r"^idea not in the answer key \(iclr2026\): 'Idea q0: we study"
    ) as info:
        key.find(stranger)
    assert "\n" not in str(info.value)
    with pytest.raises(UnknownIdea, match="without words"):
        key.find("  -- ")
    # the same text labelled both ways by two sets of one key
    point = make_points(1)[0]
    write_items(tmp_path / "one" / "pointwise.jsonl", [point])
    flipped = replace(
        point, item_id="other", gold="not_novel", idea=replace(point.idea, label="not_novel")
    )
    write_items(tmp_path / "two" / "pointwise.jsonl", [flipped])
    with pytest.raises(UnknownIdea, match="labels this idea both novel and not novel"):
        load_key(str(tmp_path)).find(point.idea.text)


def test_a_near_copy_of_two_differently_labelled_ideas_is_ambiguous(tmp_path: Path) -> None:
    base = " ".join(f"word{k}" for k in range(60))
    points = make_points(2)
    items = [
        replace(p, idea=replace(p.idea, text=f"{base} tail{k}.")) for k, p in enumerate(points)
    ]
    assert {i.gold for i in items} == {"novel", "not_novel"}
    write_items(tmp_path / "pointwise.jsonl", items)
    key = load_key(str(tmp_path / "pointwise.jsonl"))
    assert key.find(f"{base} tail0.").label == items[0].gold  # exact texts are not ambiguous
    with pytest.raises(UnknownIdea, match="matches known ideas of both labels"):
        key.find(f"{base} tail2.")


def test_which_idea_is_more_novel(tmp_path: Path) -> None:
    pairs = make_pairs(2)
    points = make_points(2)
    write_items(tmp_path / "pairwise.jsonl", pairs)
    write_items(tmp_path / "pointwise.jsonl", points)
    key = load_key(str(tmp_path))
    novel_0, plain_0 = key.find(pairs[0].idea_a.text), key.find(pairs[0].idea_b.text)
    assert key.gold(novel_0, plain_0) == 0 and key.gold(plain_0, novel_0) == 1  # a known pair
    other_novel = key.find(points[0].idea.text)  # novel, paired with nothing
    assert key.gold(plain_0, other_novel) == 1  # by labels when no set pairs them
    with pytest.raises(
        UnknownIdea, match="cannot tell which of two ideas is more novel .labels novel and novel"
    ):
        key.gold(novel_0, other_novel)


def test_key_sources_and_their_errors(tmp_path: Path) -> None:
    write_items(tmp_path / "set" / "pairwise.jsonl", make_pairs(2))
    (tmp_path / "set" / "notes.jsonl").write_text("not a contract file\n", encoding="utf-8")
    by_dir, by_file = (
        load_key(str(tmp_path / "set")),
        load_key(str(tmp_path / "set" / "pairwise.jsonl")),
    )
    assert by_dir.by_text.keys() == by_file.by_text.keys() and len(by_dir.by_text) == 4
    assert load_key(BUNDLED).source == BUNDLED and load_key(BUNDLED).digest != load_key().digest
    for source, message in (
        (str(tmp_path / "missing.jsonl"), "planted answer key: no such file"),
        (str(tmp_path / "nowhere"), "is not a JSONL file, a directory or a bundled set"),
    ):
        with pytest.raises(PlantedError, match=message):
            load_key(source)
    (tmp_path / "empty").mkdir()
    with pytest.raises(
        PlantedError,
        match=re.escape(f"no pairwise*.jsonl or pointwise*.jsonl under {tmp_path / 'empty'}"),
    ):
        load_key(str(tmp_path / "empty"))
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "pointwise.jsonl").write_text('{"item_id": "x"}\n', encoding="utf-8")
    with pytest.raises(
        PlantedError, match=r"breaks the data contract \(\d+ problem\(s\); first: "
    ) as info:
        load_key(str(tmp_path / "broken"))
    assert "\n" not in str(info.value)


def test_the_default_key_holds_the_sets_tasks_loaded(tmp_path: Path) -> None:
    items = make_pairs(2)
    write_items(tmp_path / "set" / "pairwise.jsonl", items)
    load_items(str(tmp_path / "set"), "pairwise")  # as a judge task loads its dataset
    key = load_key()
    assert key.source.endswith("and the judged sets")
    pair = items[0]
    known = key.find(pair.idea_a.text)
    assert known.label == pair.idea_a.label
    gold = key.gold(key.find(pair.idea_a.text), key.find(pair.idea_b.text))
    assert gold == (0 if pair.gold == "a" else 1)


def test_a_judged_set_cannot_change_what_the_bundled_sets_say(tmp_path: Path) -> None:
    bundled = [p for p in load_items(BUNDLED, "pointwise") if isinstance(p, PointItem)]
    point = bundled[0]
    flipped = "not_novel" if point.gold == "novel" else "novel"
    other = replace(point, gold=flipped, idea=replace(point.idea, label=flipped))
    write_items(tmp_path / "flipped" / "pointwise.jsonl", [other])
    load_items(str(tmp_path / "flipped"), "pointwise")
    assert load_key().find(point.idea.text).label == point.gold  # not `conflicting`
