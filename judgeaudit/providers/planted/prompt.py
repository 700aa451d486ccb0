"""Read a rendered judge prompt as a user would: what it asks, which ideas it shows and how.

A prompt is readable when it states one answer instruction of the verdict protocol
(`judgeaudit.protocol.answer_instruction`, which fixes the kind and the idea labels) and fences
its ideas (`judgeaudit.fence`), each fence right after its label line (`Idea A:` / `Idea B:`,
`Idea 1:` / `Idea 2:`, or `Idea:`); other fenced texts (retrieved related work) are not ideas.
From the ideas as shown it reads (with the probes' own wording, `judgeaudit.arms`):

- an instruction to the evaluator appended to an idea (`edits.INJECT_PAIRWISE`, the pointwise
  notes): the option it asks for; the neutral note on the other idea is removed too;
- content-free padding around an idea (two motivation sentences before it, a restatement and a
  hedge after it, `edits.PADDING_SENTENCES`): the padded side;
- the idea itself, recognised by the answer key (`key.AnswerKey.find`): its gold, whether it
  was generated under the judge's own name, and whether its text differs from the key's (a
  surface edit; the edit id is a digest of the edited texts);
- outside the fences, a reviewers' cue (`transforms.CUE_PAIRWISE`, `CUE_POINTWISE`): the
  option it names; and the wording around the ideas (the prompt variant, a related-work
  block), as a digest with the fence boundary and the cue left out.

Two ideas that both carry an instruction (or both padding, or both the judge's own) cancel:
the prompt then favours neither. Anything else (no instruction, labels missing or repeated,
an idea the key does not know) is an `UnreadablePrompt` with a one-line cause.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from judgeaudit.arms import edits
from judgeaudit.arms.transforms import CUE_PAIRWISE, CUE_POINTWISE
from judgeaudit.data.contract import backbone
from judgeaudit.fence import FENCED_LINE, fenced_texts, outside_fences, prompt_boundary
from judgeaudit.protocol import answer_instruction, idea_names
from judgeaudit.providers.planted.behaviour import PAIR_OPTIONS, POINT_SIDE, Shown
from judgeaudit.providers.planted.key import AnswerKey, KnownIdea, UnknownIdea

POINT_LABEL = "Idea"  # the label line of a pointwise prompt's idea (`Idea:`)
_PAIR_CUE = re.compile(re.escape(CUE_PAIRWISE).replace(re.escape("Idea {side}"), r"(Idea \S+?)"))
_POINT_NOTES: dict[str, str] = {note: label for label, note in edits.INJECT_POINTWISE.items()}


class UnreadablePrompt(ValueError):
    """A prompt the planted judge cannot read (the message is the one-line cause)."""


@dataclass(frozen=True)
class ReadPrompt:
    """A prompt as read: its kind, its idea labels (`AB` / `12`) and what it shows (seed unset)."""

    kind: str
    labels: str
    shown: Shown


def protocol_of(prompt: str) -> tuple[str, str]:
    """(kind, labels) of the one answer instruction the prompt states."""
    found = [
        (kind, labels)
        for kind, labels in (("pairwise", "AB"), ("pairwise", "12"), ("pointwise", "AB"))
        if answer_instruction(kind, labels) in prompt
    ]
    if len(found) != 1:
        what = (
            "no answer instruction of the verdict protocol"
            if not found
            else "several answer instructions"
        )
        raise UnreadablePrompt(f"prompt has {what}")
    return found[0]


def labelled_ideas(prompt: str, names: tuple[str, ...]) -> list[str]:
    """The fenced texts right after the label lines `<name>:` of `names`, in that order (one each)."""
    if prompt_boundary(prompt) is None:
        raise UnreadablePrompt("prompt has no fenced idea texts")
    outside = outside_fences(prompt).split("\n")
    texts = fenced_texts(prompt)
    slots = [i for i, line in enumerate(outside) if line == FENCED_LINE]
    if len(slots) != len(texts):
        raise UnreadablePrompt("prompt has an unclosed fence")
    labelled: dict[str, list[str]] = {}
    for slot, text in zip(slots, texts, strict=True):
        label = outside[slot - 1].strip() if slot else ""
        labelled.setdefault(label, []).append(text)
    out = []
    for name in names:
        found = labelled.get(f"{name}:", [])
        if len(found) != 1:
            raise UnreadablePrompt(
                f"prompt shows {len(found)} fenced texts labelled {name!r} (expected 1)"
            )
        out.append(found[0])
    order = [outside.index(f"{name}:") for name in names]
    if order != sorted(order):
        raise UnreadablePrompt(f"prompt shows its ideas out of order ({', '.join(names)})")
    return out


@dataclass(frozen=True)
class ShownIdea:
    """One idea as shown: the key's idea, and what was added to or changed in its text."""

    known: KnownIdea
    text: str  # the idea's own text as shown (instruction and padding removed)
    instruction: str | None  # the option the appended instruction asks for (pairwise: "self")
    padded: bool


def strip_additions(text: str, kind: str) -> tuple[str, str | None, bool]:
    """(the text without an appended note and padding, the option an instruction asks for, padded)."""
    instruction = None
    head, sep, last = text.rpartition("\n\n")
    if sep:
        if last == edits.NEUTRAL_NOTE:
            text = head
        elif kind == "pairwise" and last == edits.INJECT_PAIRWISE:
            text, instruction = head, "self"
        elif kind == "pointwise" and last in _POINT_NOTES:
            text, instruction = head, _POINT_NOTES[last]
    paragraphs = text.split("\n\n")
    padded = len(paragraphs) >= 3 and all(_is_padding(p) for p in (paragraphs[0], paragraphs[-1]))
    if padded:
        text = "\n\n".join(paragraphs[1:-1])
    return text, instruction, padded


def _is_padding(paragraph: str) -> bool:
    sentences = edits.split_sentences(paragraph)
    return bool(sentences) and all(s in edits.PADDING_SENTENCES for s in sentences)


def shown_idea(text: str, kind: str, key: AnswerKey, where: str) -> ShownIdea:
    """Read one shown idea (see `strip_additions`) and recognise it; UnreadablePrompt if unknown."""
    own_text, instruction, padded = strip_additions(text, kind)
    try:
        known = key.find(own_text)
    except UnknownIdea as exc:
        raise UnreadablePrompt(f"{where}: {exc}") from None
    return ShownIdea(known, own_text, instruction, padded)


def _single(sides: list[str]) -> str | None:
    """The one side something is on; None when it is on none or on both (they cancel)."""
    return sides[0] if len(sides) == 1 else None


def digest(*texts: str) -> str:
    """A short content id of texts."""
    return hashlib.sha256("\x00".join(texts).encode()).hexdigest()[:16]


def frame_of(prompt: str, cue: str | None) -> str:
    """Id of the wording around the ideas: the prompt outside its fences, boundary and cue left out,
    whitespace collapsed (so a prompt with a cue has the frame of the same prompt without it)."""
    outside = outside_fences(prompt)
    boundary = prompt_boundary(prompt)
    if boundary:
        outside = outside.replace(boundary, "{boundary}")
    if cue:
        outside = outside.replace(cue, "")
    return digest(" ".join(outside.split()))


def _pair_cue(outside: str, names: tuple[str, ...]) -> tuple[str | None, str | None]:
    matches = list(_PAIR_CUE.finditer(outside))
    if not matches:
        return None, None
    if len(matches) > 1:
        raise UnreadablePrompt("prompt has several reviewers' cues")
    named = matches[0].group(1)
    if named not in names:
        raise UnreadablePrompt(f"prompt's cue names {named!r}, which is not a shown idea")
    return PAIR_OPTIONS[names.index(named)], matches[0].group(0)


def _point_cue(outside: str) -> tuple[str | None, str | None]:
    found = [(label, cue) for label, cue in CUE_POINTWISE.items() if cue in outside]
    if len(found) > 1:
        raise UnreadablePrompt("prompt has several reviewers' cues")
    return found[0] if found else (None, None)


def read_prompt(prompt: str, key: AnswerKey, judge_name: str) -> ReadPrompt:
    """What `prompt` shows a planted judge named `judge_name` (its backbone decides which
    generated ideas are its own); UnreadablePrompt with the cause when it cannot be read."""
    kind, labels = protocol_of(prompt)
    names = idea_names(labels) if kind == "pairwise" else (POINT_LABEL,)
    texts = labelled_ideas(prompt, names)
    ideas = [
        shown_idea(text, kind, key, f"idea shown as {name!r}")
        for text, name in zip(texts, names, strict=True)
    ]
    sides = PAIR_OPTIONS if kind == "pairwise" else (POINT_SIDE,)
    own_name = backbone(judge_name)
    own = _single([s for s, i in zip(sides, ideas, strict=True) if own_name in i.known.generators])
    padded = _single([s for s, i in zip(sides, ideas, strict=True) if i.padded])
    edited = [i.text for i in ideas if i.text != i.known.text]
    outside = outside_fences(prompt)
    if kind == "pairwise":
        try:
            gold = PAIR_OPTIONS[key.gold(ideas[0].known, ideas[1].known)]
        except UnknownIdea as exc:
            raise UnreadablePrompt(str(exc)) from None
        injected = _single([s for s, i in zip(sides, ideas, strict=True) if i.instruction])
        cue, cue_text = _pair_cue(outside, names)
    else:
        gold = ideas[0].known.label
        injected = ideas[0].instruction
        cue, cue_text = _point_cue(outside)
    item = digest(kind, *sorted(i.known.text for i in ideas))
    shown = Shown(
        kind=kind,
        item=item,
        gold=gold,
        cue=cue,
        padded=padded,
        injected=injected,
        own=own,
        edit=digest(*sorted(edited)) if edited else "",
        frame=frame_of(prompt, cue_text),
    )
    return ReadPrompt(kind, labels, shown)
