"""Put a benchmark's generated Markdown between its markers in a document (the benchmarks' `--write`)."""

from __future__ import annotations

import re
from pathlib import Path


def publish(text: str, path: Path | None, begin: str, end: str) -> None:
    """Print a generated block and, with a `path` (the benchmark's --write), put it into that document."""
    print(text)
    if path is not None:
        write_block(path, begin, end, text)


def write_block(path: Path, begin: str, end: str, text: str) -> None:
    """Replace the block from `begin` to `end` in `path` by `text` (which holds both markers); exits naming
    the file when a marker is missing."""
    doc = path.read_text(encoding="utf-8")
    if begin not in doc or end not in doc:
        raise SystemExit(f"{path}: no markers ({begin} ... {end})")
    path.write_text(
        re.sub(re.escape(begin) + ".*?" + re.escape(end), lambda _: text, doc, flags=re.S),
        encoding="utf-8",
    )
    print(f"wrote {path}")
