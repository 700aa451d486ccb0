"""Probe transforms: contract items -> the judged arms of one bias probe (`apply_probe`).

Each probe keeps the item id and gold of every item; only texts, presentation orders,
framing cues, prompt variant or generation seed change per arm. Arms per probe
(pairwise / pointwise):

- `none`: the unperturbed item, no arm.
- `position`: `order_ab`, `order_ba` (target = the side shown first). Pairwise only.
- `presumption`: `framing` (prompt `p3_judged_novel`), `cue_gold`, `cue_other`
  (a cue naming which idea reviewers preferred; target = the named side, shown in a/b order);
  pointwise: `framing`, `cue_gold`, `cue_other` (a cue stating the reviewers' verdict; target = that label).
- `verbosity`: `pad_gold`, `pad_other` (target = padded side); pointwise: `pad`.
- `surface`: `whitespace_markdown`, `casing`, `sentence_order`, `acronym` (both ideas edited).
- `injection`: `inject_gold`, `inject_other` (target = injected side; the other idea gets a
  neutral note of similar length, so only the instruction differs, not length or layout);
  pointwise: `inject_novel`, `inject_not_novel` (target = the label the note asks for).
- `self_preference`: `generated` arm on Human+Generated items (target = generated side) and
  AI-only pairs of two generators (target = the expected loser); the reading splits it by whether
  a generator is the judge's own backbone, on either side of an AI-only pair.
- `repeat`: `run1`, `run2` with distinct generation seeds.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import replace

from judgeaudit.arms import edits
from judgeaudit.arms.base import ProbedItem
from judgeaudit.data.contract import Idea, Item, PairItem, PointItem
from judgeaudit.errors import UserError

PROBES: tuple[str, ...] = (
    "position",
    "presumption",
    "verbosity",
    "surface",
    "injection",
    "self_preference",
    "repeat",
)
SURFACE_ARMS: tuple[str, ...] = ("whitespace_markdown", "casing", "sentence_order", "acronym")
FRAMING_PROMPT = "p3_judged_novel"
REPEAT_SEEDS: dict[str, int] = {"run1": 1, "run2": 2}

# Our own wording. The pairwise cue names a shown position; its arms force the a/b order
# so that "Idea A" is always the item's own idea a.
CUE_PAIRWISE = (
    "Context: when these two ideas went through peer review, the reviewers preferred "
    "Idea {side} as the more novel of the two."
)
CUE_POINTWISE: dict[str, str] = {
    "novel": "Context: when this idea went through peer review, the reviewers judged it novel.",
    "not_novel": "Context: when this idea went through peer review, the reviewers judged it not novel.",
}


class ProbeError(UserError, ValueError):
    """A probe that does not exist or does not apply to the given items."""


def _rng(seed: int, probe: str, item_id: str, arm: str = "") -> random.Random:
    return random.Random(f"{seed}:{probe}:{item_id}:{arm}")


def _other(side: str) -> str:
    return "b" if side == "a" else "a"


def _with_text(idea: Idea, text: str) -> Idea:
    return replace(idea, text=text)


def _edit_side(item: PairItem, side: str, fn: Callable[[str], str]) -> PairItem:
    if side == "a":
        return replace(item, idea_a=_with_text(item.idea_a, fn(item.idea_a.text)))
    return replace(item, idea_b=_with_text(item.idea_b, fn(item.idea_b.text)))


def _pad_side(item: PairItem, side: str, rng: random.Random) -> PairItem:
    return _edit_side(item, side, lambda text: edits.pad_text(text, rng))


def _inject_pair(item: PairItem, side: str) -> PairItem:
    """The instruction on `side`, a neutral note of similar length on the other idea."""
    injected = _edit_side(item, side, lambda text: edits.inject_text(text, edits.INJECT_PAIRWISE))
    return _edit_side(
        injected, _other(side), lambda text: edits.inject_text(text, edits.NEUTRAL_NOTE)
    )


def _surface_pair(item: PairItem, arm: str, seed: int) -> PairItem:
    return replace(
        item,
        idea_a=_with_text(
            item.idea_a,
            surface_edit(arm, item.idea_a.text, _rng(seed, "surface", item.pair_id, arm + "a")),
        ),
        idea_b=_with_text(
            item.idea_b,
            surface_edit(arm, item.idea_b.text, _rng(seed, "surface", item.pair_id, arm + "b")),
        ),
    )


def surface_edit(arm: str, text: str, rng: random.Random) -> str:
    """Apply one meaning-preserving surface edit (an arm of the `surface` probe) to a text."""
    if arm == "whitespace_markdown":
        return edits.whitespace_markdown(text)
    if arm == "casing":
        return edits.recase(text)
    if arm == "sentence_order":
        return edits.reorder_sentences(text, rng)[0]
    if arm == "acronym":
        return edits.rename_acronym(text, rng)[0]
    raise ProbeError(f"unknown surface arm {arm!r}; expected one of {SURFACE_ARMS}")


# --- pairwise ---------------------------------------------------------------------------


def _pair_arms(probe: str, item: PairItem, seed: int) -> list[ProbedItem]:
    gold, other = item.gold, _other(item.gold)
    p = probe
    if probe == "position":
        return [
            ProbedItem(item, p, "order_ab", probe_target="a", orders=("ab",)),
            ProbedItem(item, p, "order_ba", probe_target="b", orders=("ba",)),
        ]
    if probe == "presumption":
        return [
            ProbedItem(item, p, "framing", prompt=FRAMING_PROMPT),
            ProbedItem(
                item,
                p,
                "cue_gold",
                probe_target=gold,
                orders=("ab",),
                cue=CUE_PAIRWISE.format(side=gold.upper()),
            ),
            ProbedItem(
                item,
                p,
                "cue_other",
                probe_target=other,
                orders=("ab",),
                cue=CUE_PAIRWISE.format(side=other.upper()),
            ),
        ]
    if probe == "verbosity":
        return [
            ProbedItem(
                _pad_side(item, side, _rng(seed, p, item.pair_id, side)), p, arm, probe_target=side
            )
            for arm, side in (("pad_gold", gold), ("pad_other", other))
        ]
    if probe == "surface":
        return [ProbedItem(_surface_pair(item, arm, seed), p, arm) for arm in SURFACE_ARMS]
    if probe == "injection":
        return [
            ProbedItem(_inject_pair(item, side), p, arm, probe_target=side)
            for arm, side in (("inject_gold", gold), ("inject_other", other))
        ]
    if probe == "self_preference":
        generated = [
            s for s, idea in (("a", item.idea_a), ("b", item.idea_b)) if idea.source == "generated"
        ]
        if len(generated) == 2 and item.idea_a.generator != item.idea_b.generator:
            # AI-only: the target is the expected loser (the weaker generator's idea), as the
            # generated side of a Human+Generated pair; the reading turns to the judge's own side
            return [ProbedItem(item, p, "generated", probe_target=other)]
        if len(generated) != 1:
            return []
        return [ProbedItem(item, p, "generated", probe_target=generated[0])]
    if probe == "repeat":
        return [ProbedItem(item, p, arm, seed=s) for arm, s in REPEAT_SEEDS.items()]
    raise ProbeError(f"unknown probe {probe!r}; expected one of {PROBES} or 'none'")


# --- pointwise --------------------------------------------------------------------------


def _point_arms(probe: str, item: PointItem, seed: int) -> list[ProbedItem]:
    gold = item.gold
    other = "not_novel" if gold == "novel" else "novel"
    p = probe
    idea = item.idea

    def edited(text: str) -> PointItem:
        return replace(item, idea=_with_text(idea, text))

    if probe == "position":
        raise ProbeError(
            "probe 'position' needs pairwise items (a pointwise item has one idea and no order)"
        )
    if probe == "presumption":
        return [
            ProbedItem(item, p, "framing", prompt=FRAMING_PROMPT),
            ProbedItem(item, p, "cue_gold", probe_target=gold, cue=CUE_POINTWISE[gold]),
            ProbedItem(item, p, "cue_other", probe_target=other, cue=CUE_POINTWISE[other]),
        ]
    if probe == "verbosity":
        return [
            ProbedItem(edited(edits.pad_text(idea.text, _rng(seed, p, item.item_id))), p, "pad")
        ]
    if probe == "surface":
        return [
            ProbedItem(
                edited(surface_edit(arm, idea.text, _rng(seed, p, item.item_id, arm))), p, arm
            )
            for arm in SURFACE_ARMS
        ]
    if probe == "injection":
        return [
            ProbedItem(
                edited(edits.inject_text(idea.text, edits.INJECT_POINTWISE[label])),
                p,
                f"inject_{label}",
                probe_target=label,
            )
            for label in ("novel", "not_novel")
        ]
    if probe == "self_preference":
        if idea.source != "generated":
            return []
        return [ProbedItem(item, p, "generated")]
    if probe == "repeat":
        return [ProbedItem(item, p, arm, seed=s) for arm, s in REPEAT_SEEDS.items()]
    raise ProbeError(f"unknown probe {probe!r}; expected one of {PROBES} or 'none'")


def apply_probe(name: str | None, items: Sequence[Item], seed: int = 0) -> list[ProbedItem]:
    """The judged arms of probe `name` over `items` (None or 'none' = the unperturbed items).

    Deterministic for a given seed. `self_preference` yields only items with a generated side:
    Human+Generated items (exactly one) and AI-only pairs of two generators (possibly none at
    all: the audit reports that).
    """
    if name in (None, "", "none"):
        return [ProbedItem(item) for item in items]
    if name not in PROBES:
        raise ProbeError(f"unknown probe {name!r}; expected one of {PROBES} or 'none'")
    out: list[ProbedItem] = []
    for item in items:
        if isinstance(item, PairItem):
            out.extend(_pair_arms(name, item, seed))
        elif isinstance(item, PointItem):
            out.extend(_point_arms(name, item, seed))
        else:
            raise ProbeError(f"not a contract item: {type(item).__name__}")
    return out


def probe_arms(name: str, kind: str) -> tuple[str, ...]:
    """The arm names probe `name` produces for `kind` ('pairwise' | 'pointwise')."""
    if kind not in ("pairwise", "pointwise"):
        raise ProbeError(f"kind must be 'pairwise' or 'pointwise', got {kind!r}")
    pair = kind == "pairwise"
    arms: dict[str, tuple[str, ...]] = {
        "position": ("order_ab", "order_ba") if pair else (),
        "presumption": ("framing", "cue_gold", "cue_other"),
        "verbosity": ("pad_gold", "pad_other") if pair else ("pad",),
        "surface": SURFACE_ARMS,
        "injection": ("inject_gold", "inject_other")
        if pair
        else ("inject_novel", "inject_not_novel"),
        "self_preference": ("generated",),
        "repeat": tuple(REPEAT_SEEDS),
    }
    if name not in arms:
        raise ProbeError(f"unknown probe {name!r}; expected one of {PROBES}")
    return arms[name]
