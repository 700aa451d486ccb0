"""Benchmark: how quickly each `judgeaudit` command starts, and which heavy libraries it imports.

    python tests/benchmarks/bench_startup.py [--runs 5] [--only NAME ...] [--instructions]
        [--python PATH] [--module judgeaudit]

Each command runs `--runs` times as `python -m judgeaudit ARGS` in a fresh interpreter (the one running
this script unless `--python`); the table gives the median and the fastest wall time, the exit code, and
the heavy libraries (tests/cli_starts.HEAVY) the command imported, read from `sys.modules` of one
extra run. The commands: `--help` and an unknown command; each subcommand's `--help`; `validate` on
the bundled set; `convert` of the small novelty-judge-bench fixture; `mine` refusing `--workers 0`
after its handler's imports, and mining the 40-forum OpenReview fixture (196 notes, 2 workers:
start-up plus a little mining); `report` and `audit` refusing their input after their handler's
imports (a directory without logs, a bad --display). `--instructions` adds the instructions one run
executes, all its processes summed (valgrind callgrind; minutes for the commands that import
Inspect), a figure the machine's load does not move. To measure an older checkout whose package has no
`__main__`, pass `--module judgeaudit.cli` and that checkout's `--python`. Writes only into a
temporary directory. The machine is shared: the load average is printed before and after.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(
    0, str(Path(__file__).resolve().parents[1])
)  # tests/, for the shared start-up helper
from helpers.cli_starts import BENCH_SOURCE, BUNDLED_SET, LOOSE, SMALL_SNAPSHOT, command_argv, start  # noqa: E402

# (name, argv); {tmp} is the benchmark's temporary directory.
COMMANDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("judgeaudit --help", ("--help",)),
    ("judgeaudit bogus", ("bogus",)),
    ("validate --help", ("validate", "--help")),
    ("convert --help", ("convert", "--help")),
    ("mine --help", ("mine", "--help")),
    ("mine generate --help", ("mine", "generate", "--help")),
    ("mine plan --help", ("mine", "plan", "--help")),
    ("report --help", ("report", "--help")),
    ("audit --help", ("audit", "--help")),
    ("validate bundled set", ("validate", str(BUNDLED_SET))),
    (
        "convert fixture",
        (
            "convert",
            "--from",
            "novelty-judge-bench",
            str(BENCH_SOURCE),
            "--out",
            "{tmp}/njb",
            "--force",
        ),
    ),
    (
        "mine --workers 0",
        (
            "mine",
            "--source",
            f"snapshot:{SMALL_SNAPSHOT}",
            "--out",
            "{tmp}/mined",
            "--workers",
            "0",
        ),
    ),
    (
        "mine 40-forum cut",
        (
            "mine",
            "--source",
            f"snapshot:{SMALL_SNAPSHOT}",
            "--out",
            "{tmp}/mined",
            "--no-progress",
            *LOOSE,
        ),
    ),
    ("report, no logs", ("report", "{tmp}/empty")),
    (
        "audit --display loud",
        (
            "audit",
            "--model",
            "none",
            "--judge",
            "distance_nn",
            "--out",
            "{tmp}/audit",
            "--display",
            "loud",
        ),
    ),
)


def instructions(args: list[str], cwd: Path, python: str, module: str) -> int:
    """Instructions executed by one run of the command (all its processes), counted by callgrind."""
    argv = [
        "valgrind",
        "--tool=callgrind",
        "--callgrind-out-file=/dev/null",
        *command_argv(args, python=python, module=module),
    ]
    run = subprocess.run(
        argv,
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONHASHSEED": "0", "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
    )
    found = re.findall(
        r"Collected\s*:\s*(\d+)", run.stderr
    )  # one per process: mine's forked workers too
    if not found:
        raise SystemExit(f"callgrind failed on {args}: {run.stderr.strip().splitlines()[-1:]}")
    return sum(int(n) for n in found)


def main() -> int:
    """Run the benchmark and print one row per command."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument(
        "--runs", type=int, default=5, help="fresh interpreters per command (default: 5)"
    )
    parser.add_argument(
        "--only", nargs="+", metavar="NAME", help="run only the commands with these names"
    )
    parser.add_argument(
        "--instructions", action="store_true", help="also count instructions (valgrind)"
    )
    parser.add_argument(
        "--python", default=sys.executable, help="interpreter to start (default: this one)"
    )
    parser.add_argument(
        "--module", default="judgeaudit", help="module run with -m (default: judgeaudit)"
    )
    args = parser.parse_args()
    if args.instructions and shutil.which("valgrind") is None:
        raise SystemExit("--instructions needs valgrind (apt-get install valgrind)")
    names = {name for name, _ in COMMANDS}
    unknown = set(args.only or ()) - names
    if unknown:
        raise SystemExit(f"unknown command name(s) {sorted(unknown)}; choose from {sorted(names)}")
    print(f"python: {args.python} -m {args.module}; runs per command: {args.runs}")
    print(f"load average before: {os.getloadavg()}")
    print(f"{'command':<22} {'median s':>8} {'min s':>6} {'exit':>4}  {'Minstr':>7}  heavy imports")
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as tmp:
        work = Path(tmp)
        (work / "empty").mkdir()
        for name, template in COMMANDS:
            if args.only and name not in args.only:
                continue
            argv = [part.replace("{tmp}", tmp) for part in template]
            probe = start(argv, cwd=work, python=args.python, module=args.module, imports=True)
            walls = [
                start(argv, cwd=work, python=args.python, module=args.module).wall
                for _ in range(args.runs)
            ]
            counted = (
                f"{instructions(argv, work, args.python, args.module) / 1e6:7.0f}"
                if args.instructions
                else "      -"
            )
            print(
                f"{name:<22} {statistics.median(walls):8.3f} {min(walls):6.3f} {probe.returncode:>4}  {counted}  "
                f"{', '.join(probe.heavy()) or '-'}",
                flush=True,
            )
    print(f"load average after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
