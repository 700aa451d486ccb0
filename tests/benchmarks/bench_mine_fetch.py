"""Benchmark: fetch a whole venue through the real openreview-py client from a local server.

The live API is unreachable here, so `tests/servers/openreview_server.py` serves the
shared ICLR 2026 snapshot (19,630 forums) from a separate process on 127.0.0.1 and
`judgeaudit.mine.openreview.fetch.fetch_venue` fetches it into a temporary cache. Measures:
wall time, CPU time and peak RSS of a full fetch (the fetch process only; the
server's CPU is not counted), an interrupted fetch
(crash after half the notes) plus its resume, and a re-run over the complete cache.
Checks that the fetched cache holds every served note once and that the resumed
cache is byte-identical to the uninterrupted one.

    python tests/benchmarks/bench_mine_fetch.py [SNAPSHOT_DIR] [--page-size 1000]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from data_paths import SNAPSHOT

from judgeaudit.mine.openreview.fetch import InjectedCrash, fetch_venue

VENUE = "ICLR.cc/2026/Conference"
SERVERS = Path(__file__).resolve().parent.parent / "servers"


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far, in MiB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def shard_bytes(cache: Path) -> dict[str, bytes]:
    """Shard files of a cache by name."""
    return {p.name: p.read_bytes() for p in sorted(cache.glob("notes-*.jsonl.gz"))}


def main() -> None:
    """Run the benchmark and print a JSON report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("snapshot", type=Path, nargs="?", default=SNAPSHOT)
    parser.add_argument("--page-size", type=int, default=1000)
    args = parser.parse_args()
    os.environ.pop("OPENREVIEW_USERNAME", None)
    os.environ.pop("OPENREVIEW_PASSWORD", None)

    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, str(SERVERS / "openreview_server.py"), str(args.snapshot)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(SERVERS.parent)},
    )
    try:
        assert proc.stdout is not None
        baseurl = proc.stdout.readline().strip()
        server_load_s = time.monotonic() - started
        report: dict[str, object] = {"snapshot": str(args.snapshot), "page_size": args.page_size}
        report["server_load_s"] = round(server_load_s, 1)
        with tempfile.TemporaryDirectory() as tmp:
            full, resumed = Path(tmp) / "full", Path(tmp) / "resumed"
            t0, c0 = time.monotonic(), time.process_time()
            summary = fetch_venue(
                VENUE, full, baseurl=baseurl, page_size=args.page_size, progress=False
            )
            report["full_fetch_s"] = round(time.monotonic() - t0, 1)
            report["full_fetch_cpu_s"] = round(time.process_time() - c0, 1)
            report["load_average_1min"] = os.getloadavg()[0]
            report["full_fetch_peak_rss_mb"] = round(peak_rss_mb())
            report["summary"] = summary.to_dict()
            report["cache_mb"] = round(sum(len(b) for b in shard_bytes(full).values()) / 2**20, 1)

            t0 = time.monotonic()
            again = fetch_venue(
                VENUE, full, baseurl=baseurl, page_size=args.page_size, progress=False
            )
            report["rerun_complete_cache_s"] = round(time.monotonic() - t0, 3)
            report["rerun_requests"] = again.requests

            t0 = time.monotonic()
            try:
                fetch_venue(
                    VENUE,
                    resumed,
                    baseurl=baseurl,
                    page_size=args.page_size,
                    progress=False,
                    crash_after=summary.notes // 2,
                )
            except InjectedCrash:
                pass
            crashed_s = time.monotonic() - t0
            t0 = time.monotonic()
            after = fetch_venue(
                VENUE, resumed, baseurl=baseurl, page_size=args.page_size, progress=False
            )
            report["crash_half_s"] = round(crashed_s, 1)
            report["resume_s"] = round(time.monotonic() - t0, 1)
            report["resume_requests"] = after.requests
            report["resumed_from_forums"] = after.resumed_from
            report["resumed_identical"] = shard_bytes(resumed) == shard_bytes(full)
        report["peak_rss_mb_overall"] = round(peak_rss_mb())
        print(json.dumps(report, indent=1))
    finally:
        proc.terminate()
        proc.wait(timeout=30)


if __name__ == "__main__":
    main()
