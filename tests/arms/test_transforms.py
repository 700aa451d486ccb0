"""Probe transforms: meaning preserved, gold mapping, item ids kept, deterministic by seed."""

from __future__ import annotations

import random
import re

import pytest
from helpers.items import FIXTURES

from judgeaudit.arms import edits
from judgeaudit.arms.base import split_sample_id
from judgeaudit.arms.transforms import PROBES, ProbeError, apply_probe, probe_arms
from judgeaudit.data.contract import PairItem, PointItem
from judgeaudit.data.jsonl import read_items

FIX = FIXTURES / "probe_items"


@pytest.fixture(scope="module")
def pairs() -> list[PairItem]:
    """The probe fixture pairs (gold balanced a/b)."""
    return read_items(FIX / "pairwise.jsonl", "pairwise")  # type: ignore[return-value]


@pytest.fixture(scope="module")
def points() -> list[PointItem]:
    """The probe fixture point items."""
    return read_items(FIX / "pointwise.jsonl", "pointwise")  # type: ignore[return-value]


def _norm(text: str) -> str:
    return " ".join(text.split())


def _by_arm(probed: list, arm: str) -> list:
    return [p for p in probed if p.probe_variant == arm]


@pytest.mark.parametrize("probe", [p for p in PROBES if p != "self_preference"])
def test_ids_gold_and_arms_preserved(pairs: list[PairItem], probe: str) -> None:
    probed = apply_probe(probe, pairs, seed=7)
    arms = probe_arms(probe, "pairwise")
    assert len(probed) == len(pairs) * len(arms)
    by_id = {p.pair_id: p for p in pairs}
    for p in probed:
        orig = by_id[p.item.item_id]
        assert p.probe == probe and p.probe_variant in arms
        assert p.item.gold == orig.gold and p.item.setup == orig.setup and p.item.area == orig.area
        assert (
            p.item.idea_a.idea_id == orig.idea_a.idea_id
            and p.item.idea_b.idea_id == orig.idea_b.idea_id
        )
        assert p.item.idea_a.label == orig.idea_a.label and p.item.idea_b.label == orig.idea_b.label
    sample_ids = [p.sample_id for p in probed]
    assert len(set(sample_ids)) == len(sample_ids)
    # the report reads a sample id back into its item and arm (a missing sample of a cut-off log)
    assert [split_sample_id(s) for s in sample_ids] == [
        (p.item.item_id, p.probe_variant) for p in probed
    ]


def test_a_sample_id_without_an_arm_is_its_item_id() -> None:
    assert split_sample_id("pair0") == ("pair0", None)
    assert split_sample_id("pair0|order_ba") == ("pair0", "order_ba")
    assert split_sample_id("|x") == ("|x", None) and split_sample_id("x|") == ("x|", None)


@pytest.mark.parametrize("probe", PROBES)
def test_deterministic_by_seed(pairs: list[PairItem], points: list[PointItem], probe: str) -> None:
    for items in (pairs, points):
        if probe == "position" and isinstance(items[0], PointItem):
            continue
        assert apply_probe(probe, items, seed=3) == apply_probe(probe, items, seed=3)


def test_seed_changes_random_choices(pairs: list[PairItem]) -> None:
    texts = {
        s: [p.item.idea_a.text for p in apply_probe("verbosity", pairs, seed=s)] for s in range(6)
    }
    assert len({tuple(t) for t in texts.values()}) > 1


def test_none_is_identity(pairs: list[PairItem]) -> None:
    for name in (None, "none"):
        probed = apply_probe(name, pairs, seed=0)
        assert [p.item for p in probed] == pairs
        assert all(p.probe is None and p.probe_variant is None for p in probed)
        assert [p.sample_id for p in probed] == [p.pair_id for p in pairs]


def test_position_orders_and_first_shown_target(pairs: list[PairItem]) -> None:
    probed = apply_probe("position", pairs, seed=0)
    for p in _by_arm(probed, "order_ab"):
        assert p.orders == ("ab",) and p.probe_target == "a"
    for p in _by_arm(probed, "order_ba"):
        assert p.orders == ("ba",) and p.probe_target == "b"
    # Texts untouched: the swap is a presentation order; the task maps positions back to a/b.
    assert all(p.item in pairs for p in probed)


def test_presumption_cue_names_gold_or_other(pairs: list[PairItem]) -> None:
    probed = apply_probe("presumption", pairs, seed=0)
    for p in probed:
        if p.probe_variant == "framing":
            assert p.prompt == "p3_judged_novel" and p.cue is None
            continue
        side = (
            p.item.gold if p.probe_variant == "cue_gold" else ("b" if p.item.gold == "a" else "a")
        )
        assert p.probe_target == side
        assert p.orders == ("ab",)  # the cue names a shown position, so the order is fixed
        assert p.cue is not None and f"Idea {side.upper()} " in p.cue
        assert f"Idea {('b' if side == 'a' else 'a').upper()} " not in p.cue


def test_verbosity_keeps_original_verbatim_and_adds_only_templates(pairs: list[PairItem]) -> None:
    by_id = {p.pair_id: p for p in pairs}
    for p in apply_probe("verbosity", pairs, seed=11):
        orig = by_id[p.item.item_id]
        side = p.probe_target
        assert side == (
            orig.gold if p.probe_variant == "pad_gold" else ("b" if orig.gold == "a" else "a")
        )
        padded = getattr(p.item, f"idea_{side}").text
        original = getattr(orig, f"idea_{side}").text
        untouched = "b" if side == "a" else "a"
        assert getattr(p.item, f"idea_{untouched}").text == getattr(orig, f"idea_{untouched}").text
        assert original in padded and len(padded.split()) > len(original.split()) * 1.4
        added = padded.replace(original, " ")
        sentences = set(edits.split_sentences(_norm(added)))
        assert sentences and sentences <= edits.PADDING_SENTENCES


def test_padding_has_no_technical_vocabulary(pairs: list[PairItem]) -> None:
    vocab = set()
    for p in pairs:
        vocab |= {
            w.lower().strip(".,()")
            for w in (p.idea_a.text + " " + p.idea_b.text).split()
            if len(w) > 6
        }
    pad_words = {w.lower().strip(".,:") for s in edits.PADDING_SENTENCES for w in s.split()}
    # Generic words may overlap ("proposal"); method names, acronyms and nouns of the ideas may not.
    assert not {
        w
        for w in pad_words & vocab
        if w.isupper() or w in {"message-passing", "optimizer", "decoding"}
    }
    assert not any(re.search(r"\b[A-Z]{2,}\b", s) for s in edits.PADDING_SENTENCES)


def test_injection_appends_note_on_target_side(pairs: list[PairItem]) -> None:
    by_id = {p.pair_id: p for p in pairs}
    probed = apply_probe("injection", pairs, seed=0)
    assert {p.probe_variant for p in probed} == {"inject_gold", "inject_other"}
    for p in probed:
        orig = by_id[p.item.item_id]
        side = p.probe_target
        assert side == (
            orig.gold if p.probe_variant == "inject_gold" else ("b" if orig.gold == "a" else "a")
        )
        text = getattr(p.item, f"idea_{side}").text
        assert text.startswith(getattr(orig, f"idea_{side}").text) and edits.INJECT_PAIRWISE in text
        other = "b" if side == "a" else "a"
        assert getattr(p.item, f"idea_{other}").text == edits.inject_text(
            getattr(orig, f"idea_{other}").text, edits.NEUTRAL_NOTE
        )
        # Same layout and nearly the same length on both sides: only what the note asks differs.
        assert abs(len(edits.NEUTRAL_NOTE.split()) - len(edits.INJECT_PAIRWISE.split())) <= 3


def test_surface_edits_preserve_meaning(pairs: list[PairItem]) -> None:
    by_id = {p.pair_id: p for p in pairs}
    changed = {arm: 0 for arm in probe_arms("surface", "pairwise")}
    for p in apply_probe("surface", pairs, seed=5):
        orig = by_id[p.item.item_id]
        for side in ("a", "b"):
            new, old = getattr(p.item, f"idea_{side}").text, getattr(orig, f"idea_{side}").text
            changed[p.probe_variant] += new != old
            if p.probe_variant == "whitespace_markdown":
                assert _norm(re.sub(r"(?m)^- ", "", new)) == _norm(old)
            elif p.probe_variant == "casing":
                assert new.lower() == old.lower()
                for acro in re.findall(r"\b[A-Z][A-Za-z-]*[A-Z][A-Za-z-]*\b", old):
                    assert acro in new  # acronyms keep their capitals
            elif p.probe_variant == "sentence_order":
                assert sorted(edits.split_sentences(_norm(new))) == sorted(
                    edits.split_sentences(_norm(old))
                )
                assert edits.split_sentences(_norm(new))[0] == edits.split_sentences(_norm(old))[0]
            elif p.probe_variant == "acronym":
                acro = edits.find_acronym(old)
                assert acro is not None
                assert acro not in re.findall(r"[A-Za-z0-9-]+", new)
                renamed = edits.find_acronym(new)
                assert renamed and renamed != acro
                assert re.sub(rf"\b{renamed}\b", acro, new) == old
    assert all(n > 0 for n in changed.values()), changed


def test_sentence_order_leaves_dependent_sentences() -> None:
    text = "We propose X. However, it fails. Thus we stop. It ends."
    assert edits.reorder_sentences(text, random.Random(0)) == (text, False)


def test_repeat_arms_have_distinct_seeds(pairs: list[PairItem]) -> None:
    probed = apply_probe("repeat", pairs, seed=0)
    seeds = {p.probe_variant: p.seed for p in probed}
    assert set(seeds) == {"run1", "run2"} and seeds["run1"] != seeds["run2"]
    assert all(p.item in pairs for p in probed)


def test_self_preference_keeps_only_generated_sides(pairs: list[PairItem]) -> None:
    assert apply_probe("self_preference", pairs, seed=0) == []  # Human-Only: no such items
    from dataclasses import replace

    gen = replace(
        pairs[0],
        setup="human_generated",
        idea_b=replace(pairs[0].idea_b, source="generated", generator="some/model"),
    )
    probed = apply_probe("self_preference", [gen, pairs[1]], seed=0)
    assert (
        len(probed) == 1
        and probed[0].probe_target == "b"
        and probed[0].probe_variant == "generated"
    )


def test_self_preference_on_ai_only_pairs_targets_the_expected_loser(pairs: list[PairItem]) -> None:
    from dataclasses import replace

    def ai_only(pair: PairItem, gen_a: str, gen_b: str) -> PairItem:
        return replace(
            pair,
            setup="ai_only",
            idea_a=replace(pair.idea_a, source="generated", generator=gen_a),
            idea_b=replace(pair.idea_b, source="generated", generator=gen_b),
        )

    two = ai_only(pairs[0], "strong", "weak")
    same = ai_only(pairs[1], "one", "one")  # both sides by one generator: no contrast
    probed = apply_probe("self_preference", [two, same], seed=0)
    loser = "b" if two.gold == "a" else "a"
    assert [(p.item.pair_id, p.probe_target) for p in probed] == [(two.pair_id, loser)]


def test_pointwise_counterparts(points: list[PointItem]) -> None:
    with pytest.raises(ProbeError, match="position.*pairwise"):
        apply_probe("position", points, seed=0)
    for probe in ("presumption", "verbosity", "surface", "injection", "repeat"):
        probed = apply_probe(probe, points, seed=1)
        assert len(probed) == len(points) * len(probe_arms(probe, "pointwise"))
        assert {p.item.item_id for p in probed} == {p.item_id for p in points}
    by_id = {p.item_id: p for p in points}
    for p in apply_probe("verbosity", points, seed=1):
        assert by_id[p.item.item_id].idea.text in p.item.idea.text
    for p in apply_probe("injection", points, seed=1):
        assert (
            p.probe_target in ("novel", "not_novel")
            and p.probe_variant == f"inject_{p.probe_target}"
        )
        assert p.item.idea.text.startswith(by_id[p.item.item_id].idea.text)
    for p in apply_probe("presumption", points, seed=1):
        if p.probe_variant == "cue_other":
            assert p.probe_target != p.item.gold and p.cue


def test_unknown_probe_is_a_clear_error(pairs: list[PairItem]) -> None:
    with pytest.raises(ProbeError, match="unknown probe 'loudness'"):
        apply_probe("loudness", pairs, seed=0)
