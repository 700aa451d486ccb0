"""The miner fuzzer at full budget: 1,000 mutated copies of the real-notes fixture through `judgeaudit mine`.

    python tests/benchmarks/bench_mine_fuzz.py [--budget 1000] [--seed 20260] [--json OUT]

Prints the counts (runs, tracebacks, notes unaccounted, invalid outputs, corrupted labels; all but
the first must be 0), the cases per mutation and any failure. See tests/helpers/mine_fuzz.py for the
mutations and checks; tests/mine/test_fuzz.py runs a small budget in CI.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from helpers.mine_fuzz import fuzz  # noqa: E402


def main() -> int:
    """Fuzz and report."""
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--budget", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=20260)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    start = time.time()
    with tempfile.TemporaryDirectory(prefix="judgeaudit-fuzz-") as work:
        report = fuzz(args.budget, Path(work), seed=args.seed)
    out = report.to_dict()
    out["seconds"] = round(time.time() - start, 1)
    text = json.dumps(out, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")
    bad = report.tracebacks + report.unaccounted + report.invalid_outputs + report.corrupted_labels
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
