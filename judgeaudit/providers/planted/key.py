"""The planted judge's answer key: contract sets whose ideas it recognises, with their gold.

Gold is not in a judge prompt, so a planted judge reads it from an answer key: every contract
file (`pairwise*.jsonl`, `pointwise*.jsonl`) of a bundled set name, a directory (searched
recursively) or one JSONL file; by default every bundled set and every contract file the tasks
of this process loaded their items from (`data.samples.loaded_files`), so a planted judge knows
the set it is judging (a converted or a freshly mined one) without being told. An idea is known by its text:
its label (`novel` / `not_novel`) and the generators of its generated copies; a pair of texts
that a pairwise file pairs also has that pair's gold. A shown text is recognised exactly, or by
its words whatever their case, punctuation and order (the casing, Markdown and sentence-order
surface edits), or as the known text with the largest share of distinct words in common
(Jaccard) when that share is at least `MATCH_SHARE` and no text of the other label comes within
`MATCH_MARGIN` of it (a renamed acronym). A text the key does not know, or knows with
conflicting labels, is an error.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
from scipy.sparse import csr_matrix

from judgeaudit.data.contract import Idea, PairItem, PointItem, backbone
from judgeaudit.data.jsonl import read_items
from judgeaudit.data.samples import loaded_files
from judgeaudit.data.validate import ContractError
from judgeaudit.providers.planted.behaviour import PlantedError
from judgeaudit.resources import datasets_root

MATCH_SHARE = 0.8
MATCH_MARGIN = 0.05
_CONTRACT_FILE = re.compile(r"^(pairwise|pointwise)(_\w+)?\.jsonl$")
_WORD = re.compile(r"[^\W_]+")
CONFLICT = "conflicting"  # the label of a text two records label differently


def words(text: str) -> tuple[str, ...]:
    """The lower-cased words of a text in sorted order (punctuation, bullets, whitespace and word
    order dropped): one key for a text and its casing, Markdown and sentence-order edits."""
    return tuple(sorted(_WORD.findall(text.lower())))


@dataclass(frozen=True)
class KnownIdea:
    """An idea of the key: its text as the sets hold it, its label, the backbones that generated it."""

    text: str
    label: str
    generators: frozenset[str]


@dataclass(frozen=True, eq=False)
class WordIndex:
    """The distinct words of the known ideas as a sparse incidence matrix (ideas x words), for
    every idea's Jaccard share with a shown text in one product."""

    ideas: tuple[KnownIdea, ...]
    vocabulary: dict[str, int]
    incidence: csr_matrix
    sizes: np.ndarray

    @classmethod
    def of(cls, ideas: tuple[KnownIdea, ...]) -> WordIndex:
        """The index of `ideas`."""
        vocabulary: dict[str, int] = {}
        rows, cols = [], []
        for row, idea in enumerate(ideas):
            for word in set(words(idea.text)):
                rows.append(row)
                cols.append(vocabulary.setdefault(word, len(vocabulary)))
        incidence = csr_matrix(
            (np.ones(len(rows)), (rows, cols)), shape=(len(ideas), max(1, len(vocabulary)))
        )
        return cls(ideas, vocabulary, incidence, np.asarray(incidence.sum(axis=1)).ravel())

    def shares(self, shown: frozenset[str]) -> np.ndarray:
        """Jaccard share of distinct words between `shown` and each known idea."""
        columns = [self.vocabulary[w] for w in shown if w in self.vocabulary]
        vector = np.zeros(self.incidence.shape[1])
        vector[columns] = 1.0
        common = self.incidence @ vector
        return np.asarray(common / (len(shown) + self.sizes - common))


class UnknownIdea(LookupError):
    """A shown text the key does not recognise (the message is one line)."""


@dataclass(frozen=True)
class AnswerKey:
    """Known ideas by text, by normalised words, and the gold text of each known pair."""

    source: str
    digest: str
    by_text: dict[str, KnownIdea]
    by_words: dict[tuple[str, ...], KnownIdea]
    pair_gold: dict[frozenset[str], str]
    index: WordIndex

    def find(self, text: str) -> KnownIdea:
        """The known idea `text` shows (exactly, normalised, or by shared words); UnknownIdea if none."""
        known = self.by_text.get(text) or self.by_words.get(words(text))
        if known is None:
            known = self._closest(text)
        if known.label == CONFLICT:
            raise UnknownIdea(
                f"the answer key ({self.source}) labels this idea both novel and not novel: "
                f"{_preview(text)}"
            )
        return known

    def _closest(self, text: str) -> KnownIdea:
        shown = frozenset(words(text))
        if not shown:
            raise UnknownIdea("an idea text without words")
        shares = self.index.shares(shown)
        top = float(shares.max())
        best = self.index.ideas[int(shares.argmax())]
        if top < MATCH_SHARE:
            raise UnknownIdea(f"idea not in the answer key ({self.source}): {_preview(text)}")
        close = np.flatnonzero(shares >= top - MATCH_MARGIN)
        rivals = [i for i in close if self.index.ideas[i].label != best.label]
        if rivals:
            raise UnknownIdea(
                f"idea matches known ideas of both labels in the answer key ({self.source}): "
                f"{_preview(text)}"
            )
        return best

    def gold(self, first: KnownIdea, second: KnownIdea) -> int:
        """Index (0 or 1) of the more novel of two known ideas: the pair's gold when a set pairs them,
        else the one labelled novel; an error when that cannot be told."""
        paired = self.pair_gold.get(frozenset((first.text, second.text)))
        if paired is not None and paired != CONFLICT:
            return 0 if paired == first.text else 1
        labels = (first.label, second.label)
        if paired is None and sorted(labels) == ["not_novel", "novel"]:
            return labels.index("novel")
        raise UnknownIdea(
            f"the answer key ({self.source}) cannot tell which of two ideas is more novel "
            f"(labels {labels[0]} and {labels[1]}{', paired with both golds' if paired else ''}): "
            f"{_preview(first.text)} / {_preview(second.text)}"
        )


def _preview(text: str, width: int = 60) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= width else flat[:width] + "...")


def contract_files(dataset: str | None) -> tuple[str, list[Path]]:
    """(a description, the contract files) of a key source: a JSONL file, a directory (recursively),
    a bundled set name; None = every bundled set and the files this process's tasks loaded."""
    root = datasets_root()
    if dataset is None:
        bundled = _files_under(root)
        known = {p.resolve() for p in bundled}
        loaded = [p for p in loaded_files() if p not in known]
        return ("bundled sets" + (" and the judged sets" if loaded else "")), [*bundled, *loaded]
    path = Path(dataset)
    if path.suffix == ".jsonl":
        if not path.is_file():
            raise PlantedError(f"planted answer key: no such file {dataset!r}")
        return dataset, [path]
    for candidate in (path, root / dataset):
        if candidate.is_dir():
            files = _files_under(candidate)
            if not files:
                raise PlantedError(
                    f"planted answer key: no pairwise*.jsonl or pointwise*.jsonl under {candidate}"
                )
            return dataset, files
    raise PlantedError(
        f"planted answer key: {dataset!r} is not a JSONL file, a directory or a bundled set"
    )


def _files_under(root: Path) -> list[Path]:
    return list(_files_below(root.resolve()))


@lru_cache(maxsize=16)
def _files_below(root: Path) -> tuple[Path, ...]:
    """The contract files below a directory, looked up once per process."""
    return tuple(sorted(p for p in root.rglob("*.jsonl") if _CONTRACT_FILE.match(p.name)))


def _add(ideas: dict[str, tuple[set[str], set[str]]], idea: Idea, label: str) -> None:
    labels, generators = ideas.setdefault(idea.text, (set(), set()))
    labels.add(label)
    if idea.source == "generated" and idea.generator:
        generators.add(backbone(idea.generator))


def load_key(dataset: str | None = None) -> AnswerKey:
    """The answer key of `dataset` (see `contract_files`), loaded once per process and set of files."""
    source, files = contract_files(dataset)
    # the default key: a judged set never changes what the bundled sets say of their own texts
    trusted = len(_files_under(datasets_root())) if dataset is None else 0
    return _key_of(source, tuple(files), trusted)


@lru_cache(maxsize=8)
def _key_of(source: str, files: tuple[Path, ...], trusted: int = 0) -> AnswerKey:
    """The answer key of these contract files; what the first `trusted` files say of a text or a
    pair, the later ones cannot change."""
    ideas: dict[str, tuple[set[str], set[str]]] = {}
    pairs: dict[frozenset[str], str] = {}
    fixed: set[str] = set()
    digest = hashlib.sha256()
    for n, path in enumerate(files):
        if n == trusted:
            fixed = set(ideas)
        digest.update(hashlib.sha256(path.read_bytes()).digest())
        try:
            items = read_items(path)
        except ContractError as exc:
            first = exc.problems[0] if exc.problems else "unreadable"
            raise PlantedError(
                f"planted answer key: {path} breaks the data contract "
                f"({len(exc.problems)} problem(s); first: {first})"
            ) from None
        for item in items:
            if isinstance(item, PairItem):
                texts = frozenset((item.idea_a.text, item.idea_b.text))
                if texts <= fixed:
                    continue
                for idea in (item.idea_a, item.idea_b):
                    if idea.text not in fixed:
                        _add(ideas, idea, idea.label)
                gold = (item.idea_a if item.gold == "a" else item.idea_b).text
                pairs[texts] = gold if pairs.get(texts, gold) == gold else CONFLICT
            elif isinstance(item, PointItem) and item.idea.text not in fixed:
                _add(ideas, item.idea, item.gold)
    by_text = {
        text: KnownIdea(text, labels.pop() if len(labels) == 1 else CONFLICT, frozenset(gens))
        for text, (labels, gens) in ideas.items()
    }
    by_words: dict[tuple[str, ...], KnownIdea] = {}
    for known in by_text.values():
        key = words(known.text)
        seen = by_words.get(key)
        by_words[key] = (
            known
            if seen is None or seen.label == known.label
            else KnownIdea(known.text, CONFLICT, known.generators)
        )
    if not by_text:
        raise PlantedError(f"planted answer key ({source}) holds no ideas")
    return AnswerKey(
        source, digest.hexdigest(), by_text, by_words, pairs, WordIndex.of(tuple(by_text.values()))
    )
