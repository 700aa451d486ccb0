"""Regexes with a literal pre-check: text that cannot match is never searched.

The cue extractor runs about a hundred long alternations over every novelty-related clause of
every candidate's reviews; most clauses contain none of the words a given pattern is built on.
`guarded(pattern)` compiles the pattern and reads, from its parse tree, groups of literal strings
that every match must contain (at least one string of each group: a literal run outside any
optional part, or one run per branch of an alternation). Its `search`, `finditer`, `findall`
and `match` check those groups with `in` first (a fast substring scan) and return "no match"
without running the regex when a group has no string in the text; otherwise they return the
regex's own answer. So a guarded pattern answers exactly as the plain compiled one, only sooner.
A `GuardedFamily` (a cue list tried on one clause) scans once for the strings of its patterns'
first groups and calls only the patterns that scan does not rule out, in their order.

The groups are read with the standard library's regex parser (`re._parser`, not a public
module); where it is missing or a construct is not understood, that part contributes no group
and the pattern is simply searched more often (never answered differently).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterator
from typing import Any

try:  # the stdlib's regex parser (re._parser since 3.11); without it, patterns are searched unguarded
    _PARSER: Any = importlib.import_module("re._parser")
except ImportError:  # pragma: no cover - depends on the interpreter
    _PARSER = None

MAX_GROUPS = (
    3  # groups checked per pattern (the smallest ones): each is a cheap necessary condition
)


def _without_redundant(keys: frozenset[str]) -> tuple[str, ...]:
    """Drop keys that contain another key of the group: where the longer occurs, so does the shorter."""
    return tuple(sorted(k for k in keys if not any(o != k and o in k for o in keys)))


def _groups(items: Any, ignorecase: bool) -> list[frozenset[str]]:
    """Literal groups (one string of each occurs in every match) of a parsed sequence."""
    p = _PARSER
    groups: list[frozenset[str]] = []
    run: list[str] = []
    for op, av in items:
        if op is p.LITERAL:
            run.append(chr(av))
            continue
        if run:
            groups.append(frozenset(["".join(run)]))
            run = []
        if op is p.SUBPATTERN:
            _group, add_flags, _del_flags, sub = av
            if add_flags & re.IGNORECASE and not ignorecase:
                continue  # a case-insensitive part of a case-sensitive pattern: no literal holds for it
            groups.extend(_groups(sub, ignorecase))
        elif op is p.BRANCH:
            union: set[str] = set()
            for alternative in av[1]:
                alt = _groups(alternative, ignorecase)
                if not alt:
                    break  # this branch needs no literal, so the alternation needs none
                union |= min(alt, key=len)
            else:
                groups.append(frozenset(union))
        elif op in (p.MAX_REPEAT, p.MIN_REPEAT, getattr(p, "POSSESSIVE_REPEAT", p.MAX_REPEAT)):
            low, _high, sub = av
            if low >= 1:
                groups.extend(_groups(sub, ignorecase))
        elif op is getattr(p, "ATOMIC_GROUP", None):
            groups.extend(_groups(av, ignorecase))
        # anything else (classes, anchors, look-arounds, back references, ...) only ends the run
    if run:
        groups.append(frozenset(["".join(run)]))
    return groups


def required_literals(pattern: re.Pattern[str]) -> tuple[tuple[str, ...], ...]:
    """Up to MAX_GROUPS groups of strings: every match of `pattern` contains a string of each group.

    For a case-insensitive pattern the strings are lower case and hold for ASCII text, lowered.
    Empty when nothing is known (the pattern is then always searched).
    """
    if _PARSER is None:
        return ()
    ignorecase = bool(pattern.flags & re.IGNORECASE)
    try:
        found = _groups(_PARSER.parse(pattern.pattern, pattern.flags), ignorecase)
    except Exception:  # noqa: BLE001 - an unexpected parse tree only costs the guard, never a wrong answer
        return ()
    if ignorecase:
        found = [frozenset(k.lower() for k in g) for g in found if all(k.isascii() for k in g)]
    groups = sorted(
        {_without_redundant(g) for g in found if g and "" not in g},
        key=lambda g: (len(g), -min(map(len, g)), g),
    )
    useful = [
        g for g in groups if min(map(len, g)) > 1
    ]  # a one-character key is in almost every text
    return tuple((useful or groups)[:MAX_GROUPS])


class GuardedPattern:
    """A compiled regex whose searches skip text lacking its required literals (same answers)."""

    __slots__ = ("regex", "pattern", "groups", "_lower")

    def __init__(self, regex: re.Pattern[str]) -> None:
        self.regex = regex
        self.pattern = regex.pattern
        self.groups = required_literals(regex)
        self._lower = bool(regex.flags & re.IGNORECASE)

    def could_match(self, text: str) -> bool:
        """False only if `text` lacks every string of some required group (so the regex cannot match)."""
        if self._lower:
            if not text.isascii():
                return True  # case folding outside ASCII is the regex engine's business
            text = text.lower()
        for group in self.groups:
            for key in group:
                if key in text:
                    break
            else:
                return False
        return True

    def search(self, text: str) -> re.Match[str] | None:
        """`re.Pattern.search`, skipped when the text cannot match (the hot path: `could_match` inlined)."""
        if self._lower:
            return self.regex.search(text) if self.could_match(text) else None
        for group in self.groups:
            for key in group:
                if key in text:
                    break
            else:
                return None
        return self.regex.search(text)

    def match(self, text: str) -> re.Match[str] | None:
        """`re.Pattern.match`, skipped when the text cannot match."""
        return self.regex.match(text) if self.could_match(text) else None

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        """`re.Pattern.finditer`, empty when the text cannot match."""
        return self.regex.finditer(text) if self.could_match(text) else iter(())

    def findall(self, text: str) -> list[Any]:
        """`re.Pattern.findall`, empty when the text cannot match."""
        return self.regex.findall(text) if self.could_match(text) else []

    def __repr__(self) -> str:
        return f"guarded({self.pattern!r}, groups={self.groups!r})"


def guarded(pattern: str, flags: int = 0) -> GuardedPattern:
    """Compile `pattern` with its literal pre-check."""
    return GuardedPattern(re.compile(pattern, flags))


class GuardedFamily:
    """Guarded patterns tried together on one text: one scan for the strings of their first literal
    groups picks the patterns that can match, so the others are not even called (same answers)."""

    __slots__ = ("patterns", "_keys", "_index", "_always")

    def __init__(self, patterns: tuple[GuardedPattern, ...]) -> None:
        self.patterns = patterns
        index: dict[str, list[int]] = {}
        always: list[int] = []
        for i, p in enumerate(patterns):
            if p._lower or not p.groups:
                always.append(i)  # no case-sensitive pre-check: always tried
                continue
            for key in p.groups[0]:
                index.setdefault(key, []).append(i)
        self._keys = tuple(index)
        self._index = {k: tuple(v) for k, v in index.items()}
        self._always = tuple(always)

    def candidates(self, text: str) -> list[GuardedPattern]:
        """The patterns, in their order, that `text` does not rule out by their first literal group."""
        hit = set(self._always)
        for key in [k for k in self._keys if k in text]:
            hit.update(self._index[key])
        return [self.patterns[i] for i in sorted(hit)]
