"""Benchmark: a full offline `judgeaudit mine` run over the ICLR 2026 snapshot (19,630 forums).

    python tests/benchmarks/bench_mine.py [--snapshot DIR] [--dev FILE] [--workers 2] [--extractor offline|ngram]
        [--reviews-as-of TIME|latest]

Reports wall time, CPU time and peak resident memory (this process and its forked extraction
workers, from resource.getrusage), the wall time of each step (reading and parsing the cache is
serial; the candidates' signals fan out over --workers), the counts after each stage, and, when the reference dev
file is given, the extractor's precision/recall against its passages. Targets: < 60 s and < 2 GB
with the cue extractor (`offline`), < 5 min with the learned `ngram` stance extractor. Run one
extractor per process (peak memory is per process). Also prints the machine load (`os.getloadavg`):
the machine is shared, so wall times are inflated under load.
Reviews are read as of the bundled set's time unless `--reviews-as-of latest`.
Writes into a temporary directory, never into datasets/.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from data_paths import DEV, SNAPSHOT

from judgeaudit.mine.export import export_set
from judgeaudit.mine.parse import as_of_ms
from judgeaudit.mine.pipeline import mine
from judgeaudit.mine.sanitise.sanitisers import RuleSanitiser
from judgeaudit.mine.select import Thresholds
from judgeaudit.mine.signals.cues import OfflineExtractor, offline_fingerprint
from judgeaudit.mine.signals.stance import LearnedExtractor, load_model, model_fingerprint
from judgeaudit.mine.study.calibrate import measure

BUNDLED = (
    Path(__file__).resolve().parents[2] / "datasets" / "iclr2026" / "human_only" / "manifest.json"
)
REVIEWS_AS_OF = (
    json.loads(BUNDLED.read_text(encoding="utf-8"))["mining"]["reviews_as_of"] or "latest"
)  # the bundled set's


def main() -> int:
    """Run the benchmark and print its figures."""
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--snapshot", type=Path, default=SNAPSHOT)
    ap.add_argument("--dev", type=Path, default=DEV if DEV.is_file() else None)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument(
        "--extractor",
        default="offline",
        help="offline (cue) or a packaged stance model name (ngram)",
    )
    ap.add_argument(
        "--reviews-as-of",
        default=REVIEWS_AS_OF,
        metavar="TIME",
        help=f"read reviews as they stood at TIME, or 'latest' (default: {REVIEWS_AS_OF}, the bundled set's)",
    )
    args = ap.parse_args()
    as_of = None if args.reviews_as_of == "latest" else as_of_ms(args.reviews_as_of)
    print(f"load average before: {os.getloadavg()}")

    extractor: Any
    th = Thresholds()  # the reference's rule, the bundled set's
    if args.extractor == "offline":
        extractor, fingerprint = OfflineExtractor(), offline_fingerprint()
    else:
        extractor, fingerprint = (
            LearnedExtractor(load_model(args.extractor)),
            model_fingerprint(args.extractor),
        )
    wall0, cpu0 = time.perf_counter(), time.process_time()
    result = mine(
        args.snapshot,
        venue_id="ICLR.cc/2026/Conference",
        extractor=extractor,
        sanitiser=RuleSanitiser(),
        thresholds=th,
        workers=args.workers,
        progress=False,
        reviews_as_of=as_of,
    )
    with tempfile.TemporaryDirectory() as out:
        export_set(
            result,
            Path(out),
            seed=0,
            thresholds=th,
            source={"venue": "ICLR.cc/2026/Conference", "path": str(args.snapshot)},
            command="bench_mine",
            extractor=extractor.name,
            sanitiser="rules",
            calibration=None,
        )
    wall = time.perf_counter() - wall0
    self_ru, child_ru = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    cpu = time.process_time() - cpu0 + child_ru.ru_utime + child_ru.ru_stime
    print(f"load average after: {os.getloadavg()}")
    print(
        f"full mine ({extractor.name}) over {args.snapshot.name}: wall {wall:.1f} s, CPU {cpu:.1f} s "
        f"(workers={args.workers}), peak RSS {self_ru.ru_maxrss / 1024:.0f} MiB (main), "
        f"{child_ru.ru_maxrss / 1024:.0f} MiB (largest worker)"
    )
    for step, secs in result.seconds.items():
        print(f"  {step:<60} {secs:>6.1f} s")
    for name, n in result.stages:
        print(f"  {name:<60} {n:>7}")
    print("  cache/parse skips:", json.dumps(result.summary.to_dict()["skipped"]))
    if args.dev:
        cal = measure(
            args.dev,
            result.corpus,
            extractor,
            result.selection.candidates,
            result.selection.kept(),
            fingerprint=fingerprint,
            command="bench_mine",
            thresholds=th,
        )
        for pol in ("affirm", "dispute"):
            q = cal["passages"][pol]
            print(
                f"  extractor {pol:<8} precision {q['precision']}  recall {q['recall']}  F1 {q['f1']}"
            )
        for lab, q in cal["labels"].items():
            print(
                f"  dev {lab:<9} labelled with the same label {q['kept_same_label']}/{q['with_forum']}, swapped {q['swapped']}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
