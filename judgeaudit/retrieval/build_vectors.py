"""Build the shipped vectors of a bundled corpus (deterministic; minutes on a CPU, so done once).

    python -m judgeaudit.retrieval.build_vectors [--corpus iclr2026_submissions] [--out FILE]

Embeds every document with the bundled MiniLM model (the `embed` extra) and writes
`datasets/corpora/<corpus>.<embedder>.npz` with the corpus content hash and model id that
`corpus_vectors.shipped_vectors` checks before using it.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from judgeaudit.retrieval.corpus import BUNDLED_CORPUS, load_corpus
from judgeaudit.retrieval.corpus_vectors import vectors_path, write_vectors
from judgeaudit.retrieval.embed import MiniLMEmbedder


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry: (re)build the shipped vectors of a bundled corpus and print their metadata."""
    parser = argparse.ArgumentParser(
        prog="python -m judgeaudit.retrieval.build_vectors",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--corpus", default=BUNDLED_CORPUS, help="bundled corpus name (default: %(default)s)"
    )
    parser.add_argument(
        "--out", type=Path, default=None, help="output file (default: next to the corpus)"
    )
    args = parser.parse_args(argv)
    embedder = MiniLMEmbedder()
    out = args.out or vectors_path(args.corpus, embedder.name)
    meta = write_vectors(load_corpus(args.corpus), embedder, out)
    print(json.dumps({"out": str(out), "bytes": out.stat().st_size, **meta}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
