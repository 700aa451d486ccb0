"""Fences around the texts a judge prompt shows (ideas, related work): a text cannot close its own.

Each fenced text sits between a line `<<< begin B >>>` and a line `<<< end B >>>`. The boundary
`B` is derived by a hash (so the same sample always renders the same prompt and Inspect's cache
still serves it) from a seed, by default the texts of the prompt; a judge prompt seeds it with the
judged item's id (`judges/prompts.py`), so every prompt of one item (both orders, every probe arm)
states the same boundary. `B` is re-derived until it occurs in none of the prompt's texts:
a text can contain any heading, marker or verdict of our prompts, or a guessed fence line, and
still not end its fence. The prompt states the rule in its `fence` section
(prompts/judge/<kind>/*.txt); `fenced_texts` reads the fenced texts back from a rendered prompt
(the prompted judge gives them to the parser, so an output that only echoes an idea is not read;
the planted provider reads the shown ideas with them). The module sits at the package top, like
`protocol.py`, because both sides of a prompt use it: the judges that write fences and a
provider (`providers.planted`) that reads them.

The search-based judges (novelty_checker, ai_scientist, agentic) render their own prompt files
with `fenced_prompt` (one-pass placeholders, the texts fenced, the rule of
prompts/judge/fence.txt stated) and fence the search results that come back into the
conversation with `fence_in` (the conversation's boundary, or one of the result's own when the
result holds it).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping

_PREFIX = "text-"
FENCED_LINE = "<fenced>"  # what `outside_fences` puts where a fenced text was
_BOUNDARY_IN_RULE = re.compile(r'"<<< begin (\S+) >>>"')


def boundary_for(texts: Iterable[str], seed: str | None = None) -> str:
    """A boundary derived from `seed` (default: the texts) that occurs (case-insensitively) in none of `texts`."""
    values = list(texts)
    folded = [text.casefold() for text in values]
    base = ("\x00".join(values) if seed is None else seed).encode()
    counter = 0
    while True:
        digest = hashlib.sha256(base + f"\x00{counter}".encode()).hexdigest()[:16]
        boundary = _PREFIX + digest
        if not any(boundary in text for text in folded):
            return boundary
        counter += 1


def begin_line(boundary: str) -> str:
    """The line that opens a fence."""
    return f"<<< begin {boundary} >>>"


def end_line(boundary: str) -> str:
    """The line that closes a fence."""
    return f"<<< end {boundary} >>>"


def fence(text: str, boundary: str) -> str:
    """`text` between the begin and end lines of `boundary` (which must not occur in it)."""
    if boundary.casefold() in text.casefold():
        raise ValueError(f"fence boundary {boundary!r} occurs in the text it should enclose")
    return f"{begin_line(boundary)}\n{text}\n{end_line(boundary)}"


def prompt_boundary(prompt: str) -> str | None:
    """The boundary a rendered prompt states in its fence rule (the rule precedes every fenced text)."""
    match = _BOUNDARY_IN_RULE.search(prompt)
    return match.group(1) if match else None


def fenced_texts(prompt: str) -> list[str]:
    """The fenced texts of a rendered prompt, in order ([] for a prompt without a fence rule)."""
    boundary = prompt_boundary(prompt)
    if boundary is None:
        return []
    texts: list[str] = []
    current: list[str] | None = None
    for line in prompt.split("\n"):
        if current is None:
            if line == begin_line(boundary):
                current = []
        elif line == end_line(boundary):
            texts.append("\n".join(current))
            current = None
        else:
            current.append(line)
    return texts


def outside_fences(prompt: str) -> str:
    """The prompt with every fenced block (fence lines included) replaced by one `FENCED_LINE`."""
    boundary = prompt_boundary(prompt)
    if boundary is None:
        return prompt
    kept: list[str] = []
    inside = False
    for line in prompt.split("\n"):
        if not inside and line == begin_line(boundary):
            inside = True
        elif inside and line == end_line(boundary):
            inside = False
            kept.append(FENCED_LINE)
        elif not inside:
            kept.append(line)
    return "\n".join(kept)


_PLACEHOLDER = re.compile(r"\{(\w+)\}")
FENCE_RULE_PROMPT = "judge/fence.txt"  # the rule as the search-based judges state it ({boundary})


def fill(text: str, values: Mapping[str, str]) -> str:
    """`text` with every `{name}` of `values` replaced in one pass (a value is never re-scanned,
    so a text holding `{idea}` stays as it is); unknown placeholders are left alone."""
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), text)


def fenced_prompt(
    text: str, values: Mapping[str, str], fenced: Iterable[str], rule: str = ""
) -> str:
    """`text` filled with `values` (see `fill`), the non-empty values under the `fenced` keys each
    fenced with one boundary derived from all values; `{boundary}` is that boundary and
    `{fence_rule}` the rule `rule` (with its own `{boundary}` filled) when given. Every value,
    fenced or not, is filled in the same one pass."""
    keys = set(fenced)
    boundary = boundary_for(values[key] for key in sorted(values))
    filled = {
        key: fence(value, boundary) if key in keys and value else value
        for key, value in values.items()
    }
    filled["boundary"] = boundary
    if rule:
        filled["fence_rule"] = fill(rule, {"boundary": boundary})
    return fill(text, filled)


def fence_in(text: str, boundary: str | None) -> str:
    """`text` fenced for a conversation that states `boundary`; a text holding that boundary (or a
    conversation without one) gets a boundary of its own, stated on the line before its fence."""
    if boundary is not None and boundary.casefold() not in text.casefold():
        return fence(text, boundary)
    own = boundary_for([text, boundary or ""])
    return (
        f'This text has its own fence: it starts after the line "{begin_line(own)}" and stops at the '
        f'line "{end_line(own)}".\n{fence(text, own)}'
    )
