"""Guarded regexes: the literal pre-check never changes an answer, and it does skip text that cannot match."""

from __future__ import annotations

import gzip
import json
import random
import re
from pathlib import Path

import pytest

from judgeaudit.mine.parse import SIGNAL_FIELDS, content_value
from judgeaudit.mine.signals import cues as signals
from judgeaudit.mine.signals.guarded_regex import (
    GuardedFamily,
    GuardedPattern,
    guarded,
    required_literals,
)
from judgeaudit.mine.signals.sentences import split_sentences

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def _lits(pattern: str, flags: int = 0) -> list[set[str]]:
    return [set(g) for g in required_literals(re.compile(pattern, flags))]


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (r"\bnovel\b", [{"novel"}]),
        (r"\b(?:limited|weak) novelty\b", [{" novelty"}, {"limited", "weak"}]),
        (
            r"\b(?:limited|lack of) novelty\b",
            [{" novelty"}, {"imited", "ack of"}],
        ),  # the parser factors out "l"
        (
            r"abc(?:def)?xyz",
            [{"abc"}, {"xyz"}],
        ),  # an optional part holds no literal, and breaks the run
        (r"(?:very )*new", [{"new"}]),
        (r"(?:very )+new", [{"new"}, {"very "}]),
        (r"\bnot (?:\w+\s+){0,3}?novel", [{"not "}, {"novel"}]),
        (r"(?:is|are|) new", [{" new"}]),  # an empty branch: the alternation requires nothing
        (r"creative|creatively", [{"creative"}]),  # a key that contains another adds nothing
        (r"x(?=abc)", [{"x"}]),  # look-arounds are not consumed: no literal from them
        (r"(?i:novel)", []),  # a case-insensitive part of a case-sensitive pattern
        (r"[a-z]+\d", []),
    ],
)
def test_required_literals_of_hand_made_patterns(pattern: str, expected: list[set[str]]) -> None:
    assert sorted(map(sorted, _lits(pattern))) == sorted(map(sorted, expected))


def test_a_case_insensitive_pattern_checks_lowered_ascii_text_and_always_searches_other_text() -> (
    None
):
    ref = guarded(r"arxiv|proceedings of", re.IGNORECASE)
    assert [set(g) for g in ref.groups] == [{"arxiv", "proceedings of"}]
    assert ref.search("see ArXiv:2101.0001") is not None
    assert not ref.could_match("see the appendix")
    # re.IGNORECASE folds some non-ASCII letters to ASCII ones (KELVIN SIGN to k, dotted I to i): never pre-judged
    kelvin = guarded("k", re.IGNORECASE)
    assert (
        kelvin.search("\u212a") is not None
        and re.compile("k", re.IGNORECASE).search("\u212a") is not None
    )
    dotted = guarded("arxiv", re.IGNORECASE)
    assert dotted.search("ARX\u0130V") is not None


def test_the_guard_skips_text_without_the_required_literals() -> None:
    p = guarded(r"\b(?:limited|lack of) novelty\b")
    assert not p.could_match("the novelty is clear")  # " novelty" needs a space before it
    assert not p.could_match("limited originality")
    assert p.search("limited novelty") is not None
    assert (
        p.findall("no cue here") == []
        and list(p.finditer("no cue here")) == []
        and p.match("x") is None
    )


def _fixture_sentences() -> list[str]:
    """Review sentences of the small real OpenReview fixture, reference passages, and the signal test cases."""
    out: list[str] = []
    with gzip.open(
        FIXTURES / "openreview_small" / "notes-00.jsonl.gz", "rt", encoding="utf-8"
    ) as fh:
        for line in fh:
            content = json.loads(line).get("content") or {}
            for name in (*SIGNAL_FIELDS, "summary", "abstract", "title"):
                value = content_value(content, name)
                if isinstance(value, str):
                    out.extend(split_sentences(value))
    for line in (FIXTURES / "reference_dev_excerpt.jsonl").read_text(encoding="utf-8").splitlines():
        out.append(json.loads(line)["passage"])
    return out


def _texts() -> list[str]:
    """Sampled sentences lowered and as written, its clauses at commas, its prefixes, and random splices."""
    rng = random.Random(12)
    cues = [
        s for s in _fixture_sentences() if signals._QUICK.regex.search(s.lower())
    ]  # novelty-related ones
    sentences = rng.sample(cues, min(700, len(cues)))
    texts: list[str] = []
    for s in sentences:
        low = s.lower()
        texts += [s, low, *low.split(", "), low[: len(low) // 2], low[len(low) // 3 :]]
    for _ in range(700):  # splice two sentences: cues of one next to words of another
        a, b = rng.sample(sentences, 2)
        texts.append(
            (a[: rng.randrange(len(a) + 1)] + " " + b[rng.randrange(len(b) + 1) :]).lower()
        )
    return texts


def _signal_patterns() -> dict[str, GuardedPattern]:
    found: dict[str, GuardedPattern] = {}
    for name, value in vars(signals).items():
        if isinstance(value, GuardedPattern):
            found[name] = value
        elif (
            isinstance(value, tuple) and value and all(isinstance(v, GuardedPattern) for v in value)
        ):
            found.update({f"{name}[{i}]": v for i, v in enumerate(value)})
    return found


def test_every_cue_pattern_answers_exactly_as_the_plain_regex_on_real_review_text() -> None:
    patterns = _signal_patterns()
    assert len(patterns) > 90
    texts = _texts()
    matched: dict[str, int] = {}
    for name, p in patterns.items():
        for text in texts:
            plain = [m.span() for m in p.regex.finditer(text)]
            assert [m.span() for m in p.finditer(text)] == plain, (name, text)
            got = p.search(text)
            assert (got.span() if got else None) == (plain[0] if plain else None), (name, text)
            assert p.findall(text) == p.regex.findall(text), (name, text)
            matched[name] = matched.get(name, 0) + bool(plain)
    # the texts exercise the guards: many patterns match somewhere (so a wrong literal would have shown)
    assert sum(1 for n in matched.values() if n) > 55


def test_every_cue_pattern_list_has_a_literal_pre_check() -> None:
    lists = {n: p for n, p in _signal_patterns().items() if "[" in n}
    missing = [n for n, p in lists.items() if not p.groups]
    assert missing == []


def test_a_family_never_leaves_out_a_pattern_that_matches_and_keeps_their_order() -> None:
    texts = _texts()
    for family in (signals._DISPUTE_FAMILY, signals._AFFIRM_FAMILY):
        order = {id(p): i for i, p in enumerate(family.patterns)}
        skipped = 0
        for text in texts:
            picked = family.candidates(text)
            assert [order[id(p)] for p in picked] == sorted(order[id(p)] for p in picked)
            matching = [p for p in family.patterns if p.regex.search(text)]
            assert all(any(p is q for q in picked) for p in matching), text
            skipped += len(family.patterns) - len(picked)
        assert (
            skipped > len(texts) * len(family.patterns) // 2
        )  # most patterns are ruled out for most texts


def test_a_family_always_tries_a_pattern_without_a_case_sensitive_pre_check() -> None:
    plain, folded = guarded(r"\bnovel\b"), guarded(r"arxiv", re.IGNORECASE)
    family = GuardedFamily((plain, folded))
    assert family.candidates("nothing here") == [folded]
    assert family.candidates("a novel idea") == [plain, folded]
