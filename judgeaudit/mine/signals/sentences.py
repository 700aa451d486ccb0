"""Split review text into sentences and compare quotes with a shared normalisation."""

from __future__ import annotations

import re

_ABBREV = re.compile(
    r"(?:\b(?:e\.g|i\.e|et al|etc|vs|cf|fig|figs|eq|eqs|sec|tab|ref|refs|approx|resp|no|al|viz|incl|w\.r\.t)\.)$",
    re.IGNORECASE,
)
_BOUNDARY = re.compile(r"(?<=[.!?])[\"'”)\]]*\s+(?=[\"'“(\[*_]*[A-Z0-9$\\])")
_BULLET = re.compile(r"^\s*(?:[-*•+>]+|\(?\d{1,2}[.)]|\(?[a-z][.)]|#+)\s+")
_WS = re.compile(r"\s+")
_MARKUP = re.compile(r"[*_`#]+")
_WORD = re.compile(r"[a-z0-9]+")


def split_sentences(text: str) -> list[str]:
    """Sentences of a review field, each a verbatim substring: lines first, then sentence ends."""
    out: list[str] = []
    for line in text.splitlines():
        line = _BULLET.sub("", line.strip()).strip()
        if not line:
            continue
        start = 0
        for m in _BOUNDARY.finditer(line):
            if _ABBREV.search(line[start : m.start()]):
                continue
            piece = line[start : m.start()].strip()
            if piece:
                out.append(piece)
            start = m.end()
        piece = line[start:].strip()
        if piece:
            out.append(piece)
    return out


def normalise(text: str) -> str:
    """Lower case, markup and bullets removed, whitespace collapsed (for matching only)."""
    text = _BULLET.sub("", text.strip())
    text = _MARKUP.sub("", text)
    return _WS.sub(" ", text).strip().lower()


def words(text: str) -> list[str]:
    """Lower-case alphanumeric tokens."""
    return _WORD.findall(text.lower())


def quotes_overlap(a: str, b: str, *, min_share: float = 0.8) -> bool:
    """True if one quote contains the other (normalised) or they share >= min_share of the shorter's words.

    This is the matching rule used to score extracted quotes against reference passages.
    """
    na, nb = normalise(a), normalise(b)
    if not na or not nb:
        return False
    if na in nb or nb in na:
        return True
    wa, wb = words(na), words(nb)
    if not wa or not wb:
        return False
    short, long_ = (wa, wb) if len(wa) <= len(wb) else (wb, wa)
    if len(short) < 4:
        return False
    pool = set(long_)
    return sum(1 for w in short if w in pool) / len(short) >= min_share


def occurs_verbatim(quote: str, text: str) -> bool:
    """True if `quote` occurs in `text` up to whitespace and markup differences."""
    nq = normalise(quote)
    return bool(nq) and nq in normalise(text)
