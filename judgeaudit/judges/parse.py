"""Parse judge outputs into verdicts: a strict parser for the fixed format, a tolerant one for
common deviations, and `invalid` for everything else (never coerced).

The prompts fix the answer format: a final line `Verdict: A|B|TIE` (pairwise) or
`Verdict: NOVEL|NOT NOVEL` (pointwise). Verdicts returned here are as the model saw the
positions (`shown`); mapping back to the item's own a/b happens in `verdicts.map_back`.

Tolerant rules (applied only when the strict format is absent):
1. labelled answers anywhere (`Verdict:`, `Answer:`, `Final answer:`, `Decision:`, `Choice:`),
   after stripping markdown and case; all of them must name the same option, without hedges
   and without naming a second option;
2. otherwise explicit phrases ("Idea B is more novel", "The more novel idea is B",
   "I choose A", "This idea is not novel"), which must all agree and not be negated;
3. otherwise a bare option as the last line ("**B**", "Idea A.", "not novel").
Anything else (refusals, empty text, contradictions, hedges, both options claimed) is invalid.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

ParsePath = Literal["strict", "tolerant", "failed"]

_STRICT = {
    "pairwise": re.compile(r"^Verdict: (A|B|TIE)$"),
    "pointwise": re.compile(r"^Verdict: (NOVEL|NOT NOVEL)$"),
}
_STRICT_MAP = {"A": "a", "B": "b", "TIE": "tie", "NOVEL": "novel", "NOT NOVEL": "not_novel"}

_LABEL = re.compile(
    r"(?:^|[\s(\[])(?:final\s+)?(?:verdict|answer|decision|choice)\s*(?::|=|-|–|—|\bis\b)\s*(.*)$"
)
_HEDGES = re.compile(
    r"\b(?:maybe|perhaps|probably|possibly|likely|leaning|lean|unsure|uncertain|unclear|undecided"
    r"|not\s+sure|cannot|can't|can\s+not|either|depends|hard\s+to\s+say|tentative(?:ly)?"
    r"|somewhat|partially|partly|moderately|marginally|borderline|arguably|kind\s+of|sort\s+of)\b"
)
_NEGATION = re.compile(
    r"\b(?:not|no|never|don't|doesn't|isn't|wouldn't|won't|cannot|can't|hardly)\b"
)
_DELIM = re.compile(r"^\s*(?:$|[.,;:!()\[\]—–-])|^\s+(?:because|since|as|given|due)\b")

# Pairwise: an option at the start of a labelled value.
_PAIR_VALUE = re.compile(
    r"^(?:the\s+)?(?:more\s+novel\s+(?:idea|one)\s+is\s+)?(?:idea|option)?\s*\(?\s*(a|b|tie)(?:\s*\))?(.*)$"
)
_PAIR_TIE_WORDS = re.compile(
    r"^(?:a\s+)?(?:tie|draw|equal|both\s+(?:are\s+)?equally\s+novel|equally\s+novel)\b(.*)$"
)
_THINK = re.compile(r"<think>.*?(?:</think>|$)", re.S | re.I)
_MORE_NOVEL = re.compile(r"^\s+is\s+(?:the\s+)?more\s+novel\b")
_PAIR_BOTH = re.compile(r"^(?:idea\s+)?(a|b)\s*(?:or|/|and|,|&)\s*(?:idea\s+)?(a|b)\b")
_PAIR_PHRASES = (
    re.compile(
        r"\b(?:idea|option)\s+(a|b)\s+is\s+(?:the\s+)?(?:clearly\s+|much\s+|slightly\s+|significantly\s+)?more\s+novel\b"
    ),
    re.compile(
        r"\bthe\s+more\s+novel\s+(?:idea|one|proposal|of\s+the\s+two(?:\s+ideas)?)\s+is\s+(?:idea\s+|option\s+)?\(?(a|b)\b(?!\s*(?:or|/|and)\b)"
    ),
    re.compile(
        r"\bi\s+(?:choose|pick|select|go\s+with|prefer)\s+(?:idea\s+|option\s+)?(a|b)\b(?!\s*(?:or|/|and)\b)(?=\s*(?:$|[.,;:!)]|as|because|since))"
    ),
    re.compile(r"\b(?:both|the\s+two)\s+ideas\s+are\s+(?:equally|similarly)\s+novel\b()"),
)
_PAIR_BARE = re.compile(r"^\(?(?:idea\s+|option\s+)?(a|b|tie)\)?[.!]?$")

# Pointwise.
_POINT_VALUE = re.compile(
    r"^(?:(?:the|this)\s+idea\s+is\s+|it\s+is\s+|it's\s+)?(not\s+novel|non\s+novel|novel|yes|no)\b(.*)$"
)
_POINT_PHRASES = (
    re.compile(
        r"\b(?:this|the)\s+(?:research\s+)?idea\s+is\s+(?:clearly\s+|genuinely\s+|truly\s+)?(not\s+novel|non\s+novel|novel)\b"
    ),
)
_POINT_BARE = re.compile(r"^(not\s+novel|non\s+novel|novel)[.!]?$")
_POINT_MAP = {
    "novel": "novel",
    "yes": "novel",
    "not novel": "not_novel",
    "non novel": "not_novel",
    "no": "not_novel",
}


@dataclass(frozen=True)
class Parsed:
    """A parsed output: the verdict as shown to the model and the parse path taken."""

    verdict: str
    path: ParsePath


def _normalise(text: str) -> list[str]:
    """Lower-cased lines with markdown emphasis, headings, quotes and fancy quotes removed."""
    text = text.replace("\u2019", "'").replace("\u201c", '"').replace("\u201d", '"')
    lines = []
    for line in text.splitlines():
        line = re.sub(r"[*`]|^\s*(?:#+|>|[-+]\s)\s*", "", line)
        line = line.replace('"', "").strip().lower()
        if line:
            lines.append(line)
    return lines


def _strict(text: str, kind: str) -> str | None:
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    if not lines:
        return None
    match = _STRICT[kind].match(lines[-1])
    return _STRICT_MAP[match.group(1)] if match else None


def _pair_value(value: str) -> str | None:
    """Option named by a labelled value; 'conflict' for both/hedged; None when it names none."""
    value = value.strip().strip("\"'").strip()
    if _PAIR_BOTH.match(value):
        return "conflict"
    tie = _PAIR_TIE_WORDS.match(value)
    if tie:
        rest = tie.group(1)
        return "conflict" if _HEDGES.search(rest) else "tie"
    match = _PAIR_VALUE.match(value)
    if not match or not (_DELIM.match(match.group(2)) or _MORE_NOVEL.match(match.group(2))):
        return (
            "conflict"
            if _HEDGES.search(value) and re.search(r"\b(?:idea\s+)?[ab]\b", value)
            else None
        )
    rest = match.group(2)
    if _HEDGES.search(value) or re.match(r"^\s*(?:or|/|and)\s*(?:idea\s+)?(?:a|b)\b", rest):
        return "conflict"
    return match.group(1)


def _point_value(value: str) -> str | None:
    """Class named by a labelled value; 'conflict' for hedged/both; None when it names none."""
    value = re.sub(r"[_-]", " ", value.strip().strip("\"'").strip())
    match = _POINT_VALUE.match(value)
    if not match or not _DELIM.match(match.group(2)):
        return "conflict" if "novel" in value else None
    rest = match.group(2)
    if _HEDGES.search(value) or re.search(r"\bor\s+(?:not\s+|non\s+)?novel\b", rest):
        return "conflict"
    return _POINT_MAP[re.sub(r"\s+", " ", match.group(1))]


def _agree(found: list[str]) -> str | None:
    """The single option all findings agree on, 'invalid' on disagreement, None if none."""
    if not found:
        return None
    distinct = set(found)
    if "conflict" in distinct or len(distinct) > 1:
        return "invalid"
    return distinct.pop()


def _phrases(lines: list[str], patterns: tuple[re.Pattern[str], ...], kind: str) -> list[str]:
    found: list[str] = []
    for line in lines:
        for pattern in patterns:
            for match in pattern.finditer(line):
                sentence = re.split(r"[.!?;]\s", line[: match.start()])[-1]
                if _NEGATION.search(sentence) or _HEDGES.search(
                    sentence + line[match.start() : match.end()]
                ):
                    found.append("conflict")
                    continue
                value = match.group(1) or "tie"
                found.append(
                    value if kind == "pairwise" else _POINT_MAP[re.sub(r"\s+", " ", value)]
                )
    return found


def _tolerant(text: str, kind: str) -> str | None:
    lines = _normalise(text)
    if not lines:
        return None
    value_fn = _pair_value if kind == "pairwise" else _point_value
    labelled = []
    for line in lines:
        match = _LABEL.search(line)
        if match:
            value = value_fn(match.group(1))
            if value is not None:
                labelled.append(value)
    verdict = _agree(labelled)
    if verdict is not None:
        return verdict
    patterns = _PAIR_PHRASES if kind == "pairwise" else _POINT_PHRASES
    verdict = _agree(_phrases(lines, patterns, kind))
    if verdict is not None:
        return verdict
    bare = (_PAIR_BARE if kind == "pairwise" else _POINT_BARE).match(
        re.sub(r"[_-]", " ", lines[-1]) if kind == "pointwise" else lines[-1]
    )
    if bare:
        value = bare.group(1)
        return value if kind == "pairwise" else _POINT_MAP[re.sub(r"\s+", " ", value)]
    return None


def _check_kind(kind: str) -> None:
    if kind not in _STRICT:
        raise ValueError(f"unknown judge kind {kind!r} (expected pairwise or pointwise)")


def parse_strict(text: str, kind: str) -> str | None:
    """Verdict if the last non-empty line is exactly the prompted format, else None."""
    _check_kind(kind)
    return _strict(text, kind)


def parse_verdict(text: str, kind: str) -> Parsed:
    """Strict parse, then tolerant parse; `invalid`/`failed` for anything unclear (never coerced).

    Reasoning wrapped in `<think>...</think>` is ignored (drafts there are not answers).
    """
    _check_kind(kind)
    text = _THINK.sub("", text)
    strict = _strict(text, kind)
    tolerant = _tolerant(text, kind)
    if strict is not None:
        # The fixed final line wins only if no other labelled answer contradicts it.
        if tolerant in (None, strict):
            return Parsed(strict, "strict")
        return Parsed("invalid", "failed")
    if tolerant is None or tolerant == "invalid":
        return Parsed("invalid", "failed")
    return Parsed(tolerant, "tolerant")
