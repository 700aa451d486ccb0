"""Calibration of the offline novelty-signal extractor against the reference study's dev labels.

    python tests/benchmarks/bench_extractor.py [--snapshot DIR] [--dev FILE] [--write DIR]

Prints (as JSON) the extractor's precision/recall against the reference passages and the
miner's agreement with the dev labels (kept with the same label, swapped, per label), the figures
in datasets/iclr2026/human_only/README.md. `--write DIR` also stores them as DIR/calibration.json
(what `judgeaudit mine --dev` does). The dev file is only read here, never at mining time.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

SNAPSHOT = Path("/work/shared/data/openreview/ICLR.cc-2026-Conference")
DEV = Path("/work/shared/data/reference-study/human_only_dev.jsonl")


def main() -> int:
    """Measure and print."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--snapshot", type=Path, default=SNAPSHOT)
    ap.add_argument("--dev", type=Path, default=DEV)
    ap.add_argument("--write", type=Path, default=None)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()

    from judgeaudit.mine.calibrate import measure
    from judgeaudit.mine.export import write_calibration
    from judgeaudit.mine.pipeline import load_corpus, select_labels
    from judgeaudit.mine.select import Thresholds
    from judgeaudit.mine.signals import OfflineExtractor, offline_fingerprint
    from judgeaudit.mine.summary import RunSummary

    extractor = OfflineExtractor()
    corpus = load_corpus(args.snapshot, RunSummary())
    selection, _ = select_labels(corpus, extractor, Thresholds(), workers=args.workers)
    cal = measure(args.dev, corpus, extractor, selection.candidates, selection.kept(),
                  fingerprint=offline_fingerprint(), command="python tests/benchmarks/bench_extractor.py")
    kept = selection.kept()
    cal["kept"] = {"novel": sum(d.label == "novel" for d in kept.values()),
                   "not_novel": sum(d.label == "not_novel" for d in kept.values())}
    print(json.dumps(cal, indent=2))
    if args.write:
        write_calibration(args.write, cal)
    return 0


if __name__ == "__main__":
    sys.exit(main())
