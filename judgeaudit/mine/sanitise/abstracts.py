"""Abstract text layout: undo hard wrapping and split into sentences (abbreviation-aware)."""

from __future__ import annotations

import functools
import re

# Abstract sentences end at . ! ? followed by a space and an upper-case letter/digit/bracket, or (a missing
# space: "efficiently.On the ...") by a capitalised word right after a lower-case word.
_ABSTRACT_BOUNDARY = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\[\"“])|(?<=[a-z]{3}[.!?])(?=[A-Z][a-z])")
_ABBREV_END = re.compile(
    r"\b(?:e\.g|i\.e|et al|etc|vs|cf|Fig|Eq|Sec|approx|resp)\.$", re.IGNORECASE
)
_HYPHEN_BREAK = re.compile(r"(\w)-\n([a-z])")


def normalise_layout(text: str) -> str:
    """Undo hard line wrapping (many abstracts are pasted from PDFs): re-join words hyphenated at a
    line end, turn single newlines into spaces, keep blank-line paragraph breaks as one newline."""
    paragraphs = [p for p in re.split(r"\n\s*\n", text.strip()) if p.strip()]
    out = []
    for p in paragraphs:
        p = _HYPHEN_BREAK.sub(r"\1\2", p.strip())
        out.append(re.sub(r"\s*\n\s*", " ", p))
    return "\n".join(out)


def split_paragraphs(text: str) -> list[tuple[int, str]]:
    """(paragraph number, sentence) pairs of an abstract in its `normalise_layout` form."""
    return list(_split_paragraphs(text))


@functools.lru_cache(maxsize=1 << 12)
def _split_paragraphs(text: str) -> tuple[tuple[int, str], ...]:
    """`split_paragraphs`, memoised (the sanitiser splits the same abstract several times)."""
    out: list[tuple[int, str]] = []
    for number, paragraph in enumerate(p for p in normalise_layout(text).split("\n") if p.strip()):
        paragraph = paragraph.strip()
        start = 0
        for m in _ABSTRACT_BOUNDARY.finditer(paragraph):
            if _ABBREV_END.search(paragraph[start : m.start()]):
                continue
            if paragraph[start : m.start()].strip():
                out.append((number, paragraph[start : m.start()].strip()))
            start = m.end()
        if paragraph[start:].strip():
            out.append((number, paragraph[start:].strip()))
    return tuple(out)


def split_abstract(text: str) -> list[str]:
    """Sentences of an abstract (substrings of its `normalise_layout` form, abbreviation-aware)."""
    return [s for _, s in split_paragraphs(text)]
