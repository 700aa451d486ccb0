"""The corpus interface (id, title, abstract, date), the bundled offline corpus, and target exclusion.

The offline corpus is every submission of the ICLR 2026 OpenReview snapshot (concurrent
work for a judged ICLR 2026 idea). It ships as a compact gzip JSONL file built once by
`python -m judgeaudit.retrieval.build_corpus SNAPSHOT OUT`; nothing reads the snapshot at
run time. Whatever the corpus, the judged idea itself is never returned as its own prior
work: `Exclusion` drops documents by id (idea id, forum, source id) and by identical
normalised title or abstract (generated or sanitised texts may differ from the original,
so the idea's text and its original text are both checked).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

from judgeaudit.data.contract import Idea
from judgeaudit.errors import UserError
from judgeaudit.resources import datasets_root

BUNDLED_CORPUS = "iclr2026_submissions"
CORPUS_FIELDS: tuple[str, ...] = ("id", "title", "abstract", "cdate")


@dataclass(frozen=True)
class Document:
    """One prior-work document: stable id, title, abstract and creation time (UTC, ms precision)."""

    doc_id: str
    title: str
    abstract: str
    cdate: int  # milliseconds since the epoch, as OpenReview stores it

    @property
    def date(self) -> datetime:
        """Creation time as an aware UTC datetime."""
        return datetime.fromtimestamp(self.cdate / 1000, tz=UTC)

    @property
    def text(self) -> str:
        """Title and abstract joined, the text an index sees."""
        return f"{self.title}\n{self.abstract}" if self.title else self.abstract

    def to_dict(self) -> dict[str, Any]:
        """The compact JSON form stored in corpus files."""
        return {
            "id": self.doc_id,
            "title": self.title,
            "abstract": self.abstract,
            "cdate": self.cdate,
        }


class CorpusError(UserError, ValueError):
    """A corpus file breaks the corpus format (message names the file, line and field)."""


@dataclass(frozen=True)
class Corpus:
    """An ordered, immutable collection of documents with a content hash (the index cache key)."""

    name: str
    documents: tuple[Document, ...]

    def __post_init__(self) -> None:
        seen: set[str] = set()
        for doc in self.documents:
            if doc.doc_id in seen:
                raise CorpusError(f"corpus {self.name!r}: duplicate document id {doc.doc_id!r}")
            seen.add(doc.doc_id)

    def __len__(self) -> int:
        return len(self.documents)

    def __iter__(self) -> Iterator[Document]:
        return iter(self.documents)

    @cached_property
    def content_hash(self) -> str:
        """SHA-256 over the documents' canonical JSON lines (order included); computed once."""
        h = hashlib.sha256()
        for doc in self.documents:
            h.update(json.dumps(doc.to_dict(), ensure_ascii=False, sort_keys=True).encode("utf-8"))
            h.update(b"\n")
        return h.hexdigest()

    @cached_property
    def dates_by_id(self) -> dict[str, int]:
        """Creation date (ms) of every document, by id; computed once."""
        return {doc.doc_id: doc.cdate for doc in self.documents}

    def subset(self, ids: Iterable[str], name: str | None = None) -> Corpus:
        """A corpus of the given document ids, in this corpus's order (unknown ids are an error)."""
        wanted = set(ids)
        known = {d.doc_id for d in self.documents}
        missing = sorted(wanted - known)
        if missing:
            raise KeyError(f"corpus {self.name!r} has no documents {missing[:5]}")
        docs = tuple(d for d in self.documents if d.doc_id in wanted)
        return Corpus(name or f"{self.name}[{len(docs)}]", docs)

    def head(self, n: int) -> Corpus:
        """The first n documents (a small corpus for tests and quick runs)."""
        return Corpus(f"{self.name}[:{n}]", self.documents[:n])


def to_millis(when: str | date | datetime | int | float) -> int:
    """A cutoff as epoch milliseconds: ISO date/datetime string, date, datetime (naive = UTC) or ms."""
    if isinstance(when, bool):
        raise TypeError("a cutoff cannot be a bool")
    if isinstance(when, int | float):
        return int(when)
    if isinstance(when, str):
        try:
            when = datetime.fromisoformat(when.strip())
        except ValueError as exc:
            raise ValueError(
                f"cutoff {when!r} is not an ISO date or datetime (e.g. 2025-09-20)"
            ) from exc
    if not isinstance(when, datetime):
        when = datetime(when.year, when.month, when.day, tzinfo=UTC)
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return int(when.timestamp() * 1000)


def _document(obj: Any, where: str) -> Document:
    if not isinstance(obj, dict):
        raise CorpusError(f"{where}: expected a JSON object, got {type(obj).__name__}")
    for key in CORPUS_FIELDS:
        if key not in obj:
            raise CorpusError(f"{where}: missing field {key!r}")
    for key in ("id", "title", "abstract"):
        if not isinstance(obj[key], str):
            raise CorpusError(f"{where}: field {key!r} must be a string")
    if not obj["id"]:
        raise CorpusError(f"{where}: field 'id' is empty")
    if not isinstance(obj["cdate"], int) or isinstance(obj["cdate"], bool):
        raise CorpusError(f"{where}: field 'cdate' must be integer epoch milliseconds")
    return Document(obj["id"], obj["title"], obj["abstract"], obj["cdate"])


def read_corpus(path: str | Path, name: str | None = None) -> Corpus:
    """Load a corpus JSONL(.gz) file; any defect raises CorpusError naming file, line and field."""
    p = Path(path)
    opener = gzip.open if p.suffix == ".gz" else open
    docs: list[Document] = []
    try:
        with opener(p, "rt", encoding="utf-8") as fh:
            for number, line in enumerate(fh, start=1):
                where = f"{p}:{number}"
                if not line.strip():
                    raise CorpusError(f"{where}: blank line")
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise CorpusError(f"{where}: invalid JSON ({exc.msg})") from exc
                docs.append(_document(obj, where))
    except (OSError, EOFError) as exc:
        raise CorpusError(f"{p}: cannot read corpus file ({exc})") from exc
    stem = p.name.split(".")[0]
    return Corpus(name or stem, tuple(docs))


def bundled_corpus_path(name: str = BUNDLED_CORPUS) -> Path:
    """Path of a corpus shipped under datasets/corpora/."""
    path = datasets_root() / "corpora" / f"{name}.jsonl.gz"
    if not path.is_file():
        raise FileNotFoundError(f"no bundled corpus {name!r} (looked for {path})")
    return path


def load_corpus(name_or_path: str = BUNDLED_CORPUS) -> Corpus:
    """A bundled corpus by name, or a corpus file by path (read once per process while the file is unchanged)."""
    candidate = Path(name_or_path)
    if candidate.suffix in (".gz", ".jsonl") or candidate.is_file():
        path, name = candidate, None
    else:
        path, name = bundled_corpus_path(name_or_path), name_or_path
    try:
        stat = path.stat()
    except OSError:
        return read_corpus(path, name)  # raises the CorpusError that names the file
    return _read_unchanged(os.path.abspath(path), name, stat.st_ino, stat.st_size, stat.st_mtime_ns)


@lru_cache(maxsize=4)
def _read_unchanged(path: str, name: str | None, inode: int, size: int, mtime_ns: int) -> Corpus:
    """`read_corpus`, memoised on the file's identity, size and modification time (a Corpus is immutable).

    Every judge task of an audit (one per probe arm) loads the same corpus; reading, validating
    and hashing its ~20k documents again each time cost seconds per task."""
    return read_corpus(path, name)


_NON_WORD = re.compile(r"[^\w]+", re.UNICODE)


# Texts whose normal form is kept per process (the bundled corpus has ~20k titles).
NORMALISED_MEMO = 1 << 16


def normalise(text: str | None) -> str:
    """Text for identity comparison: NFKC, case-folded, punctuation and whitespace collapsed."""
    if not text:
        return ""
    return _normalised(text)


@lru_cache(maxsize=NORMALISED_MEMO)
def _normalised(text: str) -> str:
    """`normalise` of a non-empty text, memoised: every distance judge task of an audit indexes the
    same corpus titles (12 tasks of a distance-judge audit normalised ~240k titles, seconds of CPU)."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return _NON_WORD.sub(" ", folded).strip()


@dataclass(frozen=True)
class Exclusion:
    """What identifies the judged idea in a corpus: ids, normalised titles and normalised texts."""

    ids: frozenset[str] = frozenset()
    titles: frozenset[str] = frozenset()
    texts: frozenset[str] = frozenset()

    @classmethod
    def for_idea(cls, idea: Idea) -> Exclusion:
        """The exclusion for one idea: idea id, forum and source id; title; text and original text."""
        ids = {idea.idea_id, idea.provenance.forum or "", idea.provenance.source_id}
        texts = {normalise(idea.text), normalise(idea.original_text)}
        return cls(
            frozenset(i for i in ids if i),
            frozenset(t for t in [normalise(idea.title)] if t),
            frozenset(t for t in texts if t),
        )

    @classmethod
    def for_ideas(cls, ideas: Sequence[Idea]) -> Exclusion:
        """The union of several ideas' exclusions (e.g. both sides of a pair)."""
        out = cls()
        for idea in ideas:
            out = out | cls.for_idea(idea)
        return out

    def __or__(self, other: Exclusion) -> Exclusion:
        return Exclusion(self.ids | other.ids, self.titles | other.titles, self.texts | other.texts)

    def excludes(self, doc: Document) -> bool:
        """True when `doc` is the judged idea itself (same id, title or abstract after normalising)."""
        if doc.doc_id in self.ids:
            return True
        if self.titles and normalise(doc.title) in self.titles:
            return True
        if self.texts:
            abstract = normalise(doc.abstract)
            return abstract in self.texts or normalise(doc.text) in self.texts
        return False

    def __bool__(self) -> bool:
        return bool(self.ids or self.titles or self.texts)
