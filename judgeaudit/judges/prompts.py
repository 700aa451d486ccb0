"""Judge prompt templates: load the sectioned text files under prompts/judge/ and render them.

A template file is a sequence of named sections, each opened by a marker line
`=== name ===`. Rendering fills the named placeholders of every section, drops the
sections that come out empty (e.g. the `cue` slot when no cue is given, or the
criterion of `p2_no_criterion`) and joins the rest with blank lines.

Two placeholders are filled by rendering, never by the caller: `{boundary}` (the fence
boundary of this prompt; the idea and related-work texts are fenced with it, see
`judgeaudit.fence`) and `{answer_instruction}` (the verdict protocol's instruction,
`judgeaudit.protocol.answer_instruction`).

`render_call` is the one renderer of a judge call's prompt from a sample's metadata (its idea texts,
area, cue and related work), and `plan_calls` the one decision of a sample's prompt name and orders.
A prompted judge without retrieval has its first call rendered once, when the dataset is built
(`input_prompt`): that prompt is the sample's input, as in any Inspect task, and its solver sends it
as it is (`call_prompt`); a later call (the other order) is rendered by the solver.
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from judgeaudit.data.samples import unit_of
from judgeaudit.fence import boundary_for, fence
from judgeaudit.judges.verdicts import Order
from judgeaudit.protocol import answer_instruction
from judgeaudit.resources import read_prompt

KINDS: tuple[str, ...] = ("pairwise", "pointwise")
_MARKER = re.compile(r"^=== ([a-z_]+) ===$")

# Placeholders the caller gives per kind.
ALLOWED_FIELDS: dict[str, frozenset[str]] = {
    "pairwise": frozenset({"idea_a", "idea_b", "area", "cue", "related_work"}),
    "pointwise": frozenset({"idea", "area", "cue", "related_work"}),
}
# Placeholders that render empty unless given (`related_work`: retrieved prior work, `-T retrieval=k`).
OPTIONAL_FIELDS: frozenset[str] = frozenset({"related_work"})
# Texts from outside the prompt: rendered inside fences (empty ones stay empty).
FENCED_FIELDS: frozenset[str] = frozenset({"idea_a", "idea_b", "idea", "related_work"})
# Placeholders rendering fills itself: the fence boundary and the protocol's answer instruction.
DERIVED_FIELDS: frozenset[str] = frozenset({"boundary", "answer_instruction"})
REQUIRED_FIELDS: dict[str, frozenset[str]] = {
    "pairwise": frozenset({"idea_a", "idea_b", "cue", *DERIVED_FIELDS}),
    "pointwise": frozenset({"idea", "cue", *DERIVED_FIELDS}),
}


@dataclass(frozen=True)
class Variant:
    """A controlled prompt change: the one section it alters and what it does."""

    name: str
    section: str
    description: str


# Every variant alters exactly one section of the reference (tests/test_judge_prompts.py checks it).
VARIANTS: dict[str, dict[str, Variant]] = {
    "pairwise": {
        v.name: v
        for v in (
            Variant("p1_no_guardrails", "criterion", "criterion kept, guardrail sentences removed"),
            Variant("p2_no_criterion", "criterion", "criterion and guardrails removed"),
            Variant(
                "p3_judged_novel", "question", "reviewers judged exactly one idea novel: which?"
            ),
            Variant("p4_which_novel", "question", "which idea is novel?"),
            Variant(
                "p5_judged_more_novel", "question", "which idea did reviewers judge more novel?"
            ),
        )
    },
    "pointwise": {
        v.name: v
        for v in (
            Variant("p1_no_guardrails", "criterion", "criterion kept, guardrail sentences removed"),
            Variant("p2_no_criterion", "criterion", "criterion and guardrails removed"),
            Variant("p3_judged_novel", "question", "did reviewers judge this idea novel?"),
        )
    },
}
REFERENCE = "reference"


def prompt_names(kind: str) -> tuple[str, ...]:
    """Prompt variant names available for a judge kind, reference first."""
    _check_kind(kind)
    return (REFERENCE, *VARIANTS[kind])


def _check_kind(kind: str) -> None:
    if kind not in KINDS:
        raise ValueError(f"unknown judge kind {kind!r} (expected one of {', '.join(KINDS)})")


@dataclass(frozen=True)
class Template:
    """A parsed judge prompt: ordered (section name, text) pairs."""

    kind: str
    name: str
    sections: tuple[tuple[str, str], ...]

    def section(self, name: str) -> str:
        """Raw text of one section; KeyError naming the template if absent."""
        for key, text in self.sections:
            if key == name:
                return text
        raise KeyError(f"prompt {self.kind}/{self.name} has no section {name!r}")

    def render(self, boundary_seed: str | None = None, **values: str) -> str:
        """Fill every placeholder (texts fenced, see the module docstring) and join the non-empty
        sections with blank lines; the fence boundary is derived from `boundary_seed` when given."""
        values = {**dict.fromkeys(OPTIONAL_FIELDS, ""), **values}
        missing = ALLOWED_FIELDS[self.kind] - values.keys()
        if missing:
            raise ValueError(f"prompt {self.kind}/{self.name}: no value for {sorted(missing)}")
        derived = DERIVED_FIELDS & values.keys()
        if derived:
            raise ValueError(
                f"prompt {self.kind}/{self.name}: {sorted(derived)} are filled by rendering"
            )
        boundary = boundary_for((values[key] for key in sorted(values)), boundary_seed)
        filled = {
            key: fence(text, boundary) if key in FENCED_FIELDS and text else text
            for key, text in values.items()
        }
        filled.update(boundary=boundary, answer_instruction=answer_instruction(self.kind))
        parts = [text.format_map(filled).strip() for _, text in self.sections]
        return "\n\n".join(p for p in parts if p)


def parse_template(text: str, kind: str, name: str) -> Template:
    """Split a template file into sections and check its placeholders; errors name the file."""
    _check_kind(kind)
    where = f"prompts/judge/{kind}/{name}.txt"
    sections: list[tuple[str, list[str]]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        match = _MARKER.match(line)
        if match:
            if any(key == match.group(1) for key, _ in sections):
                raise ValueError(f"{where}:{number}: section {match.group(1)!r} appears twice")
            sections.append((match.group(1), []))
        elif not sections:
            if line.strip():
                raise ValueError(
                    f"{where}:{number}: text before the first '=== section ===' marker"
                )
        else:
            sections[-1][1].append(line)
    if not sections:
        raise ValueError(f"{where}: no '=== section ===' markers")
    parsed = tuple((key, "\n".join(lines).strip("\n")) for key, lines in sections)
    used: set[str] = set()
    for key, body in parsed:
        try:
            fields = {f for _, f, _, _ in string.Formatter().parse(body) if f is not None}
        except ValueError as exc:
            raise ValueError(f"{where}: section {key!r}: {exc}") from exc
        used |= fields
    allowed = ALLOWED_FIELDS[kind] | DERIVED_FIELDS
    unknown = used - allowed
    if unknown:
        raise ValueError(
            f"{where}: unknown placeholders {sorted(unknown)} (allowed: {sorted(allowed)})"
        )
    absent = REQUIRED_FIELDS[kind] - used
    if absent:
        raise ValueError(f"{where}: missing placeholders {sorted(absent)}")
    return Template(kind, name, parsed)


@lru_cache(maxsize=64)
def load_template(kind: str, name: str) -> Template:
    """Load and parse prompts/judge/<kind>/<name>.txt; unknown names list the valid ones."""
    _check_kind(kind)
    if name not in prompt_names(kind):
        raise ValueError(
            f"unknown {kind} prompt {name!r} (expected one of {', '.join(prompt_names(kind))})"
        )
    return parse_template(read_prompt(f"judge/{kind}/{name}.txt"), kind, name)


def idea_texts(kind: str, meta: Mapping[str, Any]) -> dict[str, str]:
    """A sample's idea texts by prompt placeholder: lean metadata's `texts`, else from the full `item`."""
    texts = meta.get("texts")
    if texts is not None:
        return texts  # type: ignore[no-any-return]
    item = meta.get("item")
    if item is None:
        raise ValueError(f"sample {meta.get('item_id')!r}: metadata has neither 'texts' nor 'item'")
    if kind == "pointwise":
        return {"idea": item["idea"]["text"]}
    return {"idea_a": item["idea_a"]["text"], "idea_b": item["idea_b"]["text"]}


def render_call(kind: str, prompt: str, meta: Mapping[str, Any], order: str) -> str:
    """The prompt text of one call for a sample (ideas swapped for the ba order); related work is
    the sample's `related_work` block of that order, when a retrieval step left one. The fence
    boundary is seeded with the item id: both orders and every probe arm of an item state the same
    one, so a probe changes only what it perturbs and a local model reuses the shared prompt prefix."""
    texts = idea_texts(kind, meta)
    unit = unit_of(meta)
    area, seed = unit["area"], unit.get("item_id")
    cue = meta.get("cue") or ""
    related = (meta.get("related_work") or {}).get(order, "")
    template = load_template(kind, prompt)
    if kind == "pointwise":
        return template.render(seed, idea=texts["idea"], area=area, cue=cue, related_work=related)
    first, second = texts["idea_a"], texts["idea_b"]
    if order == "ba":
        first, second = second, first
    return template.render(
        seed, idea_a=first, idea_b=second, area=area, cue=cue, related_work=related
    )


# Lean sample metadata: True when the sample's input is the rendered prompt of its first planned call.
INPUT_RENDERED = "input_rendered"


@dataclass(frozen=True)
class PromptPlan:
    """The task's side of a prompted judge's calls: kind, prompt name and both orders (a probe arm
    may override the prompt and the orders, `plan_calls`)."""

    kind: str
    prompt: str
    both_orders: bool


def default_orders(kind: str, both_orders: bool) -> tuple[Order, ...]:
    """Presentation orders of a configuration: pairwise ab (and ba), pointwise single."""
    if kind == "pointwise":
        return ("single",)
    return ("ab", "ba") if both_orders else ("ab",)


def plan_calls(
    kind: str, meta: Mapping[str, Any], prompt: str, both_orders: bool
) -> tuple[str, tuple[Order, ...]]:
    """Effective prompt and orders for a sample (a probe arm may override both)."""
    name = meta.get("prompt") or prompt
    forced: Sequence[str] | None = meta.get("orders")
    orders = tuple(forced) if forced else default_orders(kind, both_orders)
    allowed = ("single",) if kind == "pointwise" else ("ab", "ba")
    bad = [o for o in orders if o not in allowed]
    if bad:
        raise ValueError(
            f"sample {unit_of(meta).get('item_id')!r}: order(s) {bad} not valid for a {kind} judge"
        )
    return name, orders  # type: ignore[return-value]


def input_prompt(meta: Mapping[str, Any], plan: PromptPlan) -> tuple[str, dict[str, Any]]:
    """(the prompt of a lean sample's first call, the metadata its solver then needs): the metadata
    says so (`INPUT_RENDERED`, a flag: Inspect thins every string of a sample's metadata several
    times, a bool costs nothing) and keeps the idea texts only when another call (the other order)
    must be rendered from them; it leaves out `kind` and `gold`, which the task's solver and scorer
    already know (a task field, and the sample's target; SCORE_SCHEMA.md). The solver plans the same
    calls from the same metadata (`plan_calls`), so the input is its first call's prompt."""
    name, orders = plan_calls(plan.kind, meta, plan.prompt, plan.both_orders)
    text = render_call(plan.kind, name, meta, orders[0])
    kept = {
        **{key: value for key, value in meta.items() if key not in ("kind", "gold")},
        INPUT_RENDERED: True,
    }
    if len(set(orders)) == 1:
        kept.pop("texts", None)
    return text, kept


def call_prompt(
    kind: str, name: str, meta: Mapping[str, Any], order: str, first_input: str | None = None
) -> str:
    """The prompt of one call: `first_input` (the sample's input, given for its first planned call)
    when the dataset rendered the input as that prompt (`input_prompt`) and no related work was added
    since, else `render_call`."""
    if first_input is not None and meta.get(INPUT_RENDERED) and not meta.get("related_work"):
        return first_input
    return render_call(kind, name, meta, order)
