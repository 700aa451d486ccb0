"""The corpus interface, the committed ICLR 2026 corpus file, its build script, and target exclusion."""

from __future__ import annotations

import gzip
import json
from collections import Counter
from pathlib import Path

import pytest

from judgeaudit.data.contract import Idea, Provenance
from judgeaudit.mine.openreview.shards import CacheError
from judgeaudit.retrieval.build_corpus import iter_submissions, main, write_corpus
from judgeaudit.retrieval.corpus import (
    BUNDLED_CORPUS,
    CorpusError,
    Document,
    Exclusion,
    bundled_corpus_path,
    load_corpus,
    normalise,
    read_corpus,
    to_millis,
)


@pytest.fixture(scope="module")
def corpus():
    """The bundled corpus (read once per module)."""
    return load_corpus(BUNDLED_CORPUS)


def _snapshot(tmp_path: Path, notes: list[dict]) -> Path:
    snap = tmp_path / "snap"
    snap.mkdir()
    with gzip.open(snap / "notes-00.jsonl.gz", "wt", encoding="utf-8") as fh:
        for note in notes:
            fh.write(json.dumps(note) + "\n")
    return snap


def _submission(forum: str, title: str, abstract: str | None, cdate: int = 1757998013559) -> dict:
    content = {"title": {"value": title}}
    if abstract is not None:
        content["abstract"] = {"value": abstract}
    return {
        "id": forum,
        "forum": forum,
        "cdate": cdate,
        "invitations": ["ICLR.cc/2026/Conference/-/Submission"],
        "content": content,
    }


def test_bundled_corpus_is_the_snapshot_submissions(corpus) -> None:
    assert len(corpus) == 19630  # the snapshot README's submission count
    ids = [d.doc_id for d in corpus]
    assert ids == sorted(ids)
    first = corpus.documents[0]
    assert first.title and first.abstract and first.date.year == 2025
    # Compact: exactly the four corpus fields per line.
    with gzip.open(bundled_corpus_path(), "rt", encoding="utf-8") as fh:
        assert set(json.loads(fh.readline())) == {"id", "title", "abstract", "cdate"}


def test_build_script_is_deterministic_and_skips_replies(tmp_path: Path, capsys) -> None:
    notes = [
        _submission("B2", "Second paper", "Abstract two."),
        {
            "id": "r1",
            "forum": "B2",
            "cdate": 1,
            "invitations": ["ICLR.cc/2026/Conference/Submission1/-/Official_Review"],
            "content": {"rating": {"value": 6}},
        },
        _submission("A1", "First paper", "Abstract one."),
        _submission("C3", "No abstract", None),
    ]
    snap = _snapshot(tmp_path, notes)
    out1, out2 = tmp_path / "one.jsonl.gz", tmp_path / "two.jsonl.gz"
    assert main([str(snap), str(out1)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["documents"] == 2 and report["replies_skipped"] == 1
    assert report["submissions_without_title_or_abstract"] == 1
    assert main([str(snap), str(out2)]) == 0
    assert out1.read_bytes() == out2.read_bytes()
    loaded = read_corpus(out1)
    assert [d.doc_id for d in loaded] == ["A1", "B2"]


def test_build_reproduces_committed_bytes_on_a_real_slice(tmp_path: Path, corpus) -> None:
    """The committed file's lines are exactly what write_corpus makes from those documents."""
    docs = list(corpus.documents[:50])
    out = tmp_path / "slice.jsonl.gz"
    write_corpus(list(reversed(docs)), out)
    assert read_corpus(out).documents == tuple(docs)


def test_build_fails_without_snapshot_files(tmp_path: Path) -> None:
    with pytest.raises(CacheError, match="notes-"):
        list(iter_submissions(tmp_path, Counter()))


def test_read_corpus_names_file_line_and_field(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        '{"id": "x", "title": "t", "abstract": "a", "cdate": 1}\n{"id": "y", "title": "t", "abstract": "a"}\n'
    )
    with pytest.raises(CorpusError, match=r"bad.jsonl:2: missing field 'cdate'"):
        read_corpus(bad)
    dup = tmp_path / "dup.jsonl"
    dup.write_text('{"id": "x", "title": "t", "abstract": "a", "cdate": 1}\n' * 2)
    with pytest.raises(CorpusError, match="duplicate document id 'x'"):
        read_corpus(dup)


def test_load_corpus_reads_a_file_once_until_it_changes(tmp_path: Path) -> None:
    """Tasks of one run share one loaded corpus; a rewritten file (new size or time) is read again."""
    path = tmp_path / "small.jsonl"
    path.write_text('{"id": "x", "title": "t", "abstract": "a", "cdate": 1}\n', encoding="utf-8")
    first = load_corpus(str(path))
    assert load_corpus(str(path)) is first and first.name == "small"
    path.write_text(
        '{"id": "x", "title": "t", "abstract": "a", "cdate": 1}\n'
        '{"id": "y", "title": "u", "abstract": "b", "cdate": 2}\n',
        encoding="utf-8",
    )
    again = load_corpus(str(path))
    assert again is not first and [d.doc_id for d in again] == ["x", "y"]
    path.write_text(
        '{"id": "x", "title": "t", "abstract": "a", "cdate": 1}\n{"id": "y"}\n', encoding="utf-8"
    )
    with pytest.raises(
        CorpusError, match=r"small.jsonl:2: missing field"
    ):  # a defect is raised, never cached
        load_corpus(str(path))
    path.unlink()
    with pytest.raises(CorpusError, match="cannot read corpus file"):
        load_corpus(str(path))


def test_to_millis_accepts_dates_and_rejects_garbage() -> None:
    assert to_millis("2025-09-20") == to_millis("2025-09-20T00:00:00+00:00") == 1758326400000
    with pytest.raises(ValueError, match="not an ISO date"):
        to_millis("next tuesday")


def _idea_from(
    doc: Document,
    *,
    idea_id: str,
    text: str | None = None,
    title: str | None = None,
    original: str | None = None,
    forum: str | None = None,
) -> Idea:
    return Idea(
        idea_id=idea_id,
        text=text or doc.abstract,
        format="abstract",
        source="human",
        area="x",
        label="novel",
        title=title,
        original_text=original,
        provenance=Provenance(forum=forum),
    )


def test_exclusion_by_id_title_and_text_on_real_documents(corpus) -> None:
    doc, other = corpus.documents[10], corpus.documents[11]
    # by forum id, with a sanitised (different) text and no title
    assert Exclusion.for_idea(
        _idea_from(doc, idea_id=doc.doc_id, text="A rewritten idea.")
    ).excludes(doc)
    # by provenance forum when the idea id is a hash
    assert Exclusion.for_idea(
        _idea_from(doc, idea_id="h1", text="Other.", forum=doc.doc_id)
    ).excludes(doc)
    # by normalised title only (case, punctuation and spacing differ)
    shouted = "  " + doc.title.upper().replace(" ", "  ") + "!!"
    assert Exclusion.for_idea(_idea_from(doc, idea_id="h2", text="Other.", title=shouted)).excludes(
        doc
    )
    # by the original (unsanitised) abstract, and by the text itself
    assert Exclusion.for_idea(
        _idea_from(doc, idea_id="h3", text="Other.", original=doc.abstract)
    ).excludes(doc)
    assert Exclusion.for_idea(_idea_from(doc, idea_id="h4", text=doc.abstract.lower())).excludes(
        doc
    )
    # and never an unrelated document
    assert not Exclusion.for_idea(_idea_from(doc, idea_id=doc.doc_id, title=doc.title)).excludes(
        other
    )


def test_normalise_ignores_case_punctuation_and_unicode_forms() -> None:
    assert normalise("Ｆｏｏ—Bar,  baz!") == normalise("foo bar baz")
    assert normalise(None) == ""


def test_build_reads_the_snapshot_with_the_miners_reader(tmp_path: Path) -> None:
    """Unreadable lines are counted skips (the shard reader's rule), not a crash, and the rest is kept."""
    import gzip
    import json

    note = {
        "id": "P1",
        "forum": "P1",
        "cdate": 1,
        "invitations": ["V/-/Submission"],
        "content": {"title": {"value": "A title"}, "abstract": {"value": "An abstract."}},
    }
    with gzip.open(tmp_path / "notes-00.jsonl.gz", "wt", encoding="utf-8") as fh:
        fh.write(json.dumps(note) + "\n{not json\n")
    counts: Counter[str] = Counter()
    docs = list(iter_submissions(tmp_path, counts))
    assert [d.doc_id for d in docs] == ["P1"]
    assert counts == Counter({"submissions": 1, "unreadable_lines_skipped": 1})
