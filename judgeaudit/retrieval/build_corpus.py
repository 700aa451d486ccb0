"""Build the compact offline corpus from an OpenReview snapshot (submission notes only).

    python -m judgeaudit.retrieval.build_corpus SNAPSHOT_DIR OUT.jsonl.gz

SNAPSHOT_DIR holds `notes-*.jsonl.gz` (API v2 notes, the miner's raw cache, read by its one reader
`mine.openreview.shards.iter_notes`: unreadable lines are counted skips). Each
submission note becomes `{"id": forum, "title", "abstract", "cdate"}`; replies are skipped
and counted. Output lines are sorted by id and gzipped with a fixed mtime, so the same
snapshot always gives the same bytes.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from judgeaudit.files import atomic_open
from judgeaudit.mine.openreview.shards import iter_notes
from judgeaudit.mine.summary import RunSummary
from judgeaudit.retrieval.corpus import Document

SUBMISSION_SUFFIX = "/-/Submission"


def _value(content: dict[str, Any], key: str) -> Any:
    field = content.get(key)
    return field.get("value") if isinstance(field, dict) else field


def _is_submission(note: dict[str, Any]) -> bool:
    return any(str(inv).endswith(SUBMISSION_SUFFIX) for inv in note.get("invitations") or [])


def iter_submissions(snapshot: Path, counts: Counter[str]) -> Iterator[Document]:
    """Submission notes of the snapshot (read by the miner's one shard reader) as Documents; `counts` tallies skips."""
    summary = RunSummary()
    for loc in iter_notes(snapshot, summary):
        note, where = loc.note, f"{Path(snapshot) / loc.file}:{loc.line}"
        if not _is_submission(note):
            counts["replies_skipped"] += 1
            continue
        content = note.get("content") or {}
        title, abstract = _value(content, "title"), _value(content, "abstract")
        forum, cdate = note.get("forum") or note.get("id"), note.get("cdate")
        if not forum or not isinstance(cdate, int):
            raise ValueError(f"{where}: submission note without forum/id or integer cdate")
        if not isinstance(title, str) or not isinstance(abstract, str) or not abstract.strip():
            counts["submissions_without_title_or_abstract"] += 1
            continue
        counts["submissions"] += 1
        yield Document(str(forum), title.strip(), abstract.strip(), cdate)
    unreadable = summary.total_skipped("cache")
    if unreadable:
        counts["unreadable_lines_skipped"] += unreadable


def write_corpus(documents: Sequence[Document], out: Path) -> int:
    """Write documents sorted by id as deterministic gzip JSONL (mtime 0); return the count."""
    ordered = sorted(documents, key=lambda d: d.doc_id)
    ids = [d.doc_id for d in ordered]
    dupes = sorted({i for i in ids if ids.count(i) > 1}) if len(set(ids)) != len(ids) else []
    if dupes:
        raise ValueError(f"duplicate submission ids in the snapshot: {dupes[:5]}")
    raw = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as gz:
        for doc in ordered:
            gz.write(
                (json.dumps(doc.to_dict(), ensure_ascii=False, sort_keys=True) + "\n").encode(
                    "utf-8"
                )
            )
    with atomic_open(out, "wb") as fh:
        fh.write(raw.getvalue())
    return len(ordered)


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry: build the corpus file and print what was kept and skipped."""
    parser = argparse.ArgumentParser(
        prog="python -m judgeaudit.retrieval.build_corpus",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("snapshot", type=Path, help="directory with notes-*.jsonl.gz")
    parser.add_argument("out", type=Path, help="output corpus file (.jsonl.gz)")
    args = parser.parse_args(argv)
    counts: Counter[str] = Counter()
    docs = list(iter_submissions(args.snapshot, counts))
    n = write_corpus(docs, args.out)
    print(json.dumps({"out": str(args.out), "documents": n, **dict(sorted(counts.items()))}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
