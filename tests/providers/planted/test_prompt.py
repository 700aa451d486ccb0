"""Reading rendered judge prompts: for real bundled items, every probe arm, both orders and every
prompt variant, the planted judge reads what the arm shows (gold side, cue, padding, instruction,
edit, wording); prompts it cannot read fail with a one-line cause."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from helpers.items import make_pairs

from judgeaudit.arms import edits
from judgeaudit.arms.base import ProbedItem
from judgeaudit.arms.transforms import FRAMING_PROMPT, apply_probe
from judgeaudit.data.contract import Item, PairItem, item_ideas
from judgeaudit.data.samples import load_items
from judgeaudit.judges.build import arm_sample
from judgeaudit.judges.prompts import plan_calls, prompt_names, render_call
from judgeaudit.protocol import answer_instruction
from judgeaudit.providers.planted.behaviour import Shown
from judgeaudit.providers.planted.key import load_key
from judgeaudit.providers.planted.prompt import ReadPrompt, UnreadablePrompt, read_prompt

BUNDLED = "iclr2026/human_only"
PROBES = ("position", "presumption", "verbosity", "surface", "injection", "repeat")
# The bundled sets named explicitly: the default key also holds every set this process's tasks
# loaded (other tests' sets, under xdist), and these tests need texts it does not know.
BUNDLED_SETS = "iclr2026"


def items(kind: str, n: int = 3) -> list[Item]:
    return load_items(BUNDLED, kind)[:n]


def rendered(
    kind: str, arm: ProbedItem, prompt: str = "reference", both_orders: bool = True
) -> list[tuple[str, str]]:
    """(order, prompt text) of every call the prompted judge makes for an arm."""
    meta = arm_sample(arm).metadata or {}
    name, orders = plan_calls(kind, meta, prompt, both_orders)
    return [(order, render_call(kind, name, meta, order)) for order in orders]


def read(text: str, judge: str = "custom") -> ReadPrompt:
    return read_prompt(text, load_key(BUNDLED_SETS), judge)


def shown_side(item_side: str | None, order: str) -> str | None:
    """An item side as the shown position in this order."""
    if item_side is None or order != "ba":
        return item_side
    return "b" if item_side == "a" else "a"


def expected_shown(kind: str, arm: ProbedItem, order: str, original: Item) -> dict[str, object]:
    """What a careful reader sees in the arm's prompt, from the arm itself."""
    variant, target = arm.probe_variant or "", arm.probe_target
    if kind == "pairwise":
        gold = shown_side(original.gold, order)
        fields = {
            "gold": gold,
            "cue": target if variant.startswith("cue_") else None,
            "padded": shown_side(target, order) if variant.startswith("pad_") else None,
            "injected": shown_side(target, order) if variant.startswith("inject_") else None,
        }
    else:
        fields = {
            "gold": original.gold,
            "cue": target if variant.startswith("cue_") else None,
            "padded": "idea" if variant == "pad" else None,
            "injected": target if variant.startswith("inject_") else None,
        }
    texts = [i.text for i in item_ideas(arm.item)]
    fields["edited"] = arm.probe == "surface" and texts != [i.text for i in item_ideas(original)]
    return fields


@pytest.mark.parametrize("kind", ["pairwise", "pointwise"])
def test_every_probe_arm_is_read_as_it_was_built(kind: str) -> None:
    originals = {i.item_id: i for i in items(kind)}
    frames: dict[tuple[str, str], set[str]] = {}
    keys: dict[str, set[str]] = {}
    edited_any = False
    for probe in PROBES:
        if probe == "position" and kind == "pointwise":
            continue
        for arm in apply_probe(probe, list(originals.values()), seed=0):
            original = originals[arm.item.item_id]
            for order, text in rendered(kind, arm):
                got = read(text)
                assert got.kind == kind and got.labels == "AB"
                want = expected_shown(kind, arm, order, original)
                shown = got.shown
                assert (shown.gold, shown.cue, shown.padded, shown.injected) == (
                    want["gold"],
                    want["cue"],
                    want["padded"],
                    want["injected"],
                ), (arm.sample_id, order)
                assert (
                    bool(shown.edit) == want["edited"] and shown.own is None and shown.seed is None
                )
                edited_any |= bool(shown.edit)
                keys.setdefault(arm.item.item_id, set()).add(shown.item)
                wording = "framing" if arm.probe_variant == "framing" else "reference"
                frames.setdefault((arm.item.item_id, wording), set()).add(shown.frame)
    assert edited_any
    # one item key per item (every arm and order), distinct between items
    assert all(len(k) == 1 for k in keys.values()) and len(set.union(*keys.values())) == len(keys)
    # one wording per item for the reference prompt (a cue is read apart), another for the P3 framing
    for item_id in originals:
        assert len(frames[(item_id, "reference")]) == 1
        assert frames[(item_id, "framing")] != frames[(item_id, "reference")]


@pytest.mark.parametrize("kind", ["pairwise", "pointwise"])
def test_every_prompt_variant_is_readable(kind: str) -> None:
    item = items(kind, 1)[0]
    frames = set()
    for name in prompt_names(kind):
        for order, text in rendered(kind, ProbedItem(item), prompt=name):
            shown = read(text).shown
            assert shown.gold == (shown_side(item.gold, order) if kind == "pairwise" else item.gold)
            frames.add(shown.frame)
    assert len(frames) == len(prompt_names(kind))  # each variant is its own wording
    assert FRAMING_PROMPT in prompt_names(kind)


def test_numbered_labels_and_a_cue_naming_a_numbered_idea() -> None:
    pair = items("pairwise", 1)[0]
    [(_, text)] = rendered("pairwise", ProbedItem(pair), both_orders=False)
    numbered = (
        text.replace("Idea A:\n", "Idea 1:\n")
        .replace("Idea B:\n", "Idea 2:\n")
        .replace(answer_instruction("pairwise", "AB"), answer_instruction("pairwise", "12"))
    )
    got = read(numbered)
    assert (got.labels, got.shown.gold) == ("12", pair.gold)
    cue = "Context: when these two ideas went through peer review, the reviewers preferred Idea 2 as the more novel of the two."
    assert (
        read(numbered.replace("\n\nReason briefly", f"\n\n{cue}\n\nReason briefly")).shown.cue
        == "b"
    )
    with pytest.raises(
        UnreadablePrompt, match="prompt's cue names 'Idea A', which is not a shown idea"
    ):
        read(
            numbered.replace(
                "\n\nReason briefly", f"\n\n{cue.replace('Idea 2', 'Idea A')}\n\nReason briefly"
            )
        )


def test_the_judges_own_generated_ideas_are_recognised_by_backbone() -> None:
    generated = [
        i
        for i in load_items("iclr2026/human_generated/gemma-3-270m", "pairwise")
        if isinstance(i, PairItem)
    ]
    item = generated[0]
    side = "a" if item.idea_a.source == "generated" else "b"
    [(_, text)] = rendered("pairwise", ProbedItem(item), both_orders=False)
    assert read(text, judge="self_preferring/gemma-3-270m").shown.own == side
    assert read(text, judge="self_preferring/Gemma-3-270M").shown.own == side
    assert read(text, judge="self_preferring").shown.own is None


def test_additions_on_both_ideas_cancel() -> None:
    pair = items("pairwise", 1)[0]
    assert isinstance(pair, PairItem)
    rng = random.Random(0)
    both_padded = replace(
        pair,
        idea_a=replace(pair.idea_a, text=edits.pad_text(pair.idea_a.text, rng)),
        idea_b=replace(pair.idea_b, text=edits.pad_text(pair.idea_b.text, rng)),
    )
    both_told = replace(
        pair,
        idea_a=replace(
            pair.idea_a, text=edits.inject_text(pair.idea_a.text, edits.INJECT_PAIRWISE)
        ),
        idea_b=replace(
            pair.idea_b, text=edits.inject_text(pair.idea_b.text, edits.INJECT_PAIRWISE)
        ),
    )
    for item in (both_padded, both_told):
        shown = read(rendered("pairwise", ProbedItem(item), both_orders=False)[0][1]).shown
        assert (shown.padded, shown.injected, shown.edit, shown.gold) == (None, None, "", pair.gold)


def test_a_pair_the_key_cannot_order_is_unreadable() -> None:
    pair = items("pairwise", 1)[0]
    assert isinstance(pair, PairItem)
    novel = pair.idea_a if pair.gold == "a" else pair.idea_b
    twins = replace(pair, idea_a=novel, idea_b=novel)
    with pytest.raises(UnreadablePrompt, match="cannot tell which of two ideas is more novel"):
        read(rendered("pairwise", ProbedItem(twins), both_orders=False)[0][1])


def test_prompts_it_cannot_read_fail_in_one_line() -> None:
    pair = items("pairwise", 1)[0]
    [(_, text)] = rendered("pairwise", ProbedItem(pair), both_orders=False)
    stranger = rendered("pairwise", ProbedItem(make_pairs(1)[0]), both_orders=False)[0][1]
    cases = [
        (
            "Which idea is more novel? Idea A or Idea B.",
            "prompt has no answer instruction of the verdict protocol",
        ),
        (text + "\n" + answer_instruction("pointwise"), "prompt has several answer instructions"),
        (
            "Idea A: x\nIdea B: y\n" + answer_instruction("pairwise"),
            "prompt has no fenced idea texts",
        ),
        (
            text.replace("Idea B:\n", "Idea C:\n"),
            "prompt shows 0 fenced texts labelled 'Idea B' (expected 1)",
        ),
        (
            stranger,
            f"idea shown as 'Idea A': idea not in the answer key ({BUNDLED_SETS}): 'Idea n0: we study",
        ),
    ]
    for prompt, message in cases:
        with pytest.raises(UnreadablePrompt) as info:
            read(prompt)
        assert str(info.value).startswith(message) and "\n" not in str(info.value), str(info.value)


def test_reading_does_not_depend_on_the_seed_field() -> None:
    pair = items("pairwise", 1)[0]
    [(_, text)] = rendered("pairwise", ProbedItem(pair), both_orders=False)
    shown = read(text).shown
    assert isinstance(shown, Shown) and shown == read(text).shown and shown.seed is None
