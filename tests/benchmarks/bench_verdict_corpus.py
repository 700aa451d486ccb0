"""The verdict parser of a given revision on every verdict corpus: correct / lost / coerced per file.

    python tests/benchmarks/bench_verdict_corpus.py [--rev REV] [--corpus FILE ...] [--cases OUT.json]
    python tests/benchmarks/bench_verdict_corpus.py --compare REV_A REV_B
    python tests/benchmarks/bench_verdict_corpus.py --instructions [--rev REV] [--passes N]  # needs valgrind

The corpora are always this checkout's files (default: the independent adversarial corpus
tests/fixtures/verdict_corpus/*.jsonl, its `shapes/` files, and tests/fixtures/judge_outputs.jsonl);
the parser (`judgeaudit/` as a whole) is the one of `--rev` (a git revision, extracted with `git
archive` into a temporary folder; default: the working tree), run in a fresh interpreter.

Per case: `correct` (the expected reading), `lost` (a verdict was expected, the parser read
`invalid`), `coerced` (a verdict where `invalid` or another option was expected).
judge_outputs.jsonl also fixes the parse path; a case counts as correct there only when both match.

`--compare A B` prints both tables, every case whose reading (verdict, path or reason) changed
between the two, and exits 1 when a case correct under A is not correct under B.

`--instructions` counts the instructions the parser executes over the corpora with callgrind
(PYTHONHASHSEED=0): one run loads the corpora and imports the parser, one also parses every case
`--passes` times (default 1, fresh caches); the difference is the parser's cost, printed in total
and per case. Deterministic, unlike timings on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
WORKTREE = "WORKTREE"
OUTCOMES = ("correct", "lost", "coerced")


def default_corpora() -> list[Path]:
    """The adversarial corpus (and its shapes folder) and the judge-outputs corpus."""
    corpus = FIXTURES / "verdict_corpus"
    files = [
        corpus / "pairwise.jsonl",
        corpus / "pointwise.jsonl",
        *sorted((corpus / "shapes").glob("*.jsonl")),
    ]
    return [*files, FIXTURES / "judge_outputs.jsonl"]


def load_cases(path: Path) -> list[dict[str, Any]]:
    """The cases of one corpus file in one shape: id, kind, labels, ideas, text, expected, path."""
    cases = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        row = json.loads(line)
        ideas = row.get("ideas") or {}
        cases.append(
            {
                "file": path.relative_to(ROOT).as_posix()
                if path.is_relative_to(ROOT)
                else str(path),
                "id": row.get("id") or f"line {number}",
                "kind": row["kind"],
                "labels": row.get("labels") or "AB",
                "ideas": list(ideas.values()) if isinstance(ideas, dict) else list(ideas),
                "text": row["output"] if "output" in row else row["text"],
                "expected": row["expected"] if "expected" in row else row["verdict"],
                "expected_path": None if "expected" in row else row.get("path"),
                "category": row.get("category") or row.get("shape") or row.get("note"),
            }
        )
    return cases


def worker(corpora: list[Path], passes: int) -> dict[str, Any]:
    """Parse every case `passes` times with the importable parser: its file and the readings of the last pass."""
    from judgeaudit.judges import parse

    cases = [case for path in corpora for case in load_cases(path)]
    out: list[dict[str, Any]] = []
    for _ in range(passes):
        out = []
        for case in cases:
            parsed = parse.parse_verdict(
                case["text"], case["kind"], labels=case["labels"], ideas=case["ideas"]
            )
            out.append(
                {**case, "verdict": parsed.verdict, "path": parsed.path, "reason": parsed.reason}
            )
    return {"parser": parse.__file__, "cases": out}


@contextmanager
def parser_tree(rev: str) -> Iterator[Path]:
    """A folder holding `judgeaudit/` at `rev` (the checkout itself for the working tree)."""
    if rev == WORKTREE:
        yield ROOT
        return
    tmp = Path(tempfile.mkdtemp(prefix="bench-verdict-"))
    try:
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", rev, "judgeaudit"], capture_output=True, check=False
        )
        if archive.returncode != 0:
            raise SystemExit(f"error: git archive {rev}: {archive.stderr.decode().strip()}")
        subprocess.run(["tar", "-x", "-C", str(tmp)], input=archive.stdout, check=True)
        yield tmp
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _worker_command(corpora: list[Path], passes: int, silent: bool = False) -> list[str]:
    return [
        sys.executable,
        str(Path(__file__).resolve()),
        "--worker",
        "--passes",
        str(passes),
        *(["--silent"] if silent else []),
        "--corpus",
        *map(str, corpora),
    ]


def _env(tree: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": "0"}


def readings(rev: str, corpora: list[Path]) -> list[dict[str, Any]]:
    """Every case with the reading of the parser at `rev` (run in a fresh interpreter)."""
    with parser_tree(rev) as tree:
        run = subprocess.run(
            _worker_command(corpora, 1),
            env=_env(tree),
            capture_output=True,
            text=True,
            check=False,
            cwd=tempfile.gettempdir(),
        )
        if run.returncode != 0:
            raise SystemExit(
                f"error: the parser at {rev} failed: {run.stderr.strip().splitlines()[-1:]}"
            )
        result = json.loads(run.stdout)
        if not Path(result["parser"]).resolve().is_relative_to(tree.resolve()):
            raise SystemExit(
                f"error: the worker imported {result['parser']}, not the parser at {rev} in {tree}"
            )
    cases: list[dict[str, Any]] = result["cases"]
    return cases


def outcome(case: dict[str, Any]) -> str:
    """correct / lost / coerced."""
    if case["verdict"] == case["expected"] and case["expected_path"] in (None, case["path"]):
        return "correct"
    return "lost" if case["verdict"] == "invalid" and case["expected"] != "invalid" else "coerced"


def table(cases: list[dict[str, Any]], title: str) -> str:
    """The per-file table of outcomes."""
    files: dict[str, Counter[str]] = {}
    for case in cases:
        files.setdefault(case["file"], Counter())[outcome(case)] += 1
        files[case["file"]]["expected valid"] += case["expected"] != "invalid"
    rows = [
        f"{title}",
        "| file | cases | expected valid | correct | lost | coerced |",
        "|---|---|---|---|---|---|",
    ]
    total: Counter[str] = Counter()
    for name, counts in files.items():
        total.update(counts)
        n = sum(counts[o] for o in OUTCOMES)
        rows.append(
            f"| {name} | {n} | {counts['expected valid']} | "
            + " | ".join(str(counts[o]) for o in OUTCOMES)
            + " |"
        )
    n = sum(total[o] for o in OUTCOMES)
    rows.append(
        f"| total | {n} | {total['expected valid']} | "
        + " | ".join(str(total[o]) for o in OUTCOMES)
        + " |"
    )
    return "\n".join(rows)


def _key(case: dict[str, Any]) -> tuple[str, str]:
    return case["file"], case["id"]


def compare(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> tuple[list[str], int]:
    """Lines describing every changed reading, and how many correct cases stopped being correct."""
    old = {_key(c): c for c in before}
    lines: list[str] = []
    broken = 0
    transitions: Counter[str] = Counter()
    for case in after:
        prev = old[_key(case)]
        if (prev["verdict"], prev["path"], prev["reason"]) == (
            case["verdict"],
            case["path"],
            case["reason"],
        ):
            continue
        was, now = outcome(prev), outcome(case)
        transitions[f"{was} -> {now}"] += 1
        broken += was == "correct" and now != "correct"
        lines.append(
            f"{was} -> {now}  {case['file']} {case['id']} [{case['category']}] expected {case['expected']}: "
            f"{prev['verdict']}/{prev['path']} ({prev['reason']}) -> {case['verdict']}/{case['path']} "
            f"({case['reason']})  {json.dumps(case['text'][-140:])}"
        )
    summary = [f"changed readings: {sum(transitions.values())}"] + [
        f"  {k}: {v}" for k, v in sorted(transitions.items())
    ]
    return summary + lines, broken


def count_instructions(rev: str, corpora: list[Path], passes: int) -> None:
    """Print the parser's instructions over the corpora at `rev` (callgrind, loading and imports subtracted)."""
    if shutil.which("valgrind") is None:
        raise SystemExit("error: --instructions needs valgrind (apt-get install valgrind)")
    n_cases = sum(len(load_cases(p)) for p in corpora)
    counts = []
    with parser_tree(rev) as tree, tempfile.TemporaryDirectory() as out:
        for p in (0, passes):
            dump = Path(out) / f"callgrind-{p}"
            run = subprocess.run(
                [
                    "valgrind",
                    "--tool=callgrind",
                    f"--callgrind-out-file={dump}",
                    *_worker_command(corpora, p, silent=True),
                ],
                env=_env(tree),
                capture_output=True,
                text=True,
                check=False,
            )
            if run.returncode != 0:
                raise SystemExit(
                    f"error: callgrind run failed: {run.stderr.strip().splitlines()[-1:]}"
                )
            summary = [
                ln for ln in dump.read_text().splitlines() if ln.startswith(("summary:", "totals:"))
            ]
            counts.append(int(summary[0].split()[1]))
    parsed = counts[1] - counts[0]
    print(
        f"parser at {rev}: {n_cases} cases x {passes} pass(es); instructions: load only {counts[0]:,}, "
        f"with parsing {counts[1]:,}; parsing {parsed:,} ({parsed / (n_cases * passes):,.0f} per case)"
    )


def main(argv: list[str] | None = None) -> int:
    """Print the table (or the comparison, or the instruction count)."""
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--rev", default=WORKTREE, help="git revision of the parser (default: the working tree)"
    )
    ap.add_argument(
        "--corpus", type=Path, nargs="+", default=None, help="corpus files (default: all)"
    )
    ap.add_argument("--compare", nargs=2, metavar=("REV_A", "REV_B"))
    ap.add_argument("--cases", type=Path, help="write every case with its reading here (JSON)")
    ap.add_argument("--instructions", action="store_true")
    ap.add_argument("--passes", type=int, default=1)
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument(
        "--silent", action="store_true", help=argparse.SUPPRESS
    )  # worker: parse, print nothing
    args = ap.parse_args(argv)
    corpora = [p.resolve() for p in (args.corpus or default_corpora())]
    if args.worker:
        result = worker(corpora, args.passes)
        if not args.silent:
            json.dump(result, sys.stdout)
        return 0
    if args.instructions:
        count_instructions(args.rev, corpora, args.passes)
        return 0
    if args.compare:
        rev_a, rev_b = args.compare
        before, after = readings(rev_a, corpora), readings(rev_b, corpora)
        print(table(before, f"parser at {rev_a}"), table(after, f"\nparser at {rev_b}"), sep="\n")
        lines, broken = compare(before, after)
        print("", *lines, f"correct under {rev_a}, not correct under {rev_b}: {broken}", sep="\n")
        return 1 if broken else 0
    cases = readings(args.rev, corpora)
    print(table(cases, f"parser at {args.rev}"))
    if args.cases:
        args.cases.write_text(json.dumps(cases, indent=1, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
