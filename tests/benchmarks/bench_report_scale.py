"""`judgeaudit report` at the reference study's scale: wall time and peak memory (RSS).

The paper's grid is about 300 logs and 70,000 judged samples (six judges, a reference and
twelve controlled changes, both formats, Human-Only and Human+Generated). Running that many
calls is slow even with planted judges, so the logs are made once from one real run:

1. one real Inspect run of the two judge tasks on the bundled set with `planted/accurate`
   (`novelty_pairwise`, `novelty_pointwise`; 122 pairs, 232 points), or the logs under
   `--seed-logs` when given;
2. for every (judge, change, format, setup) a copy of the seed log of that format, written with
   Inspect's public log API (`inspect_ai.log.write_eval_log`): its eval spec names the judge
   (`planted/<judge>`) and the change (task args and the generation config), and its samples are
   the seed's samples (prompt, messages and events kept, so the files carry a real run's text)
   repeated under new ids up to `--pairs` / `--points` items, each with k = 3 planted calls drawn
   from the judge's accuracy and tie rate shifted by the change (seeded), the stored verdict
   their aggregate (`judges.verdicts`), so the report's consistency check holds.

6 judges x 13 configurations x 2 formats x 2 setups = 312 logs; 156 x 150 pairs + 156 x 300
points = 70,200 samples. Then `judgeaudit report LOGDIR` runs in a child process (so the
figures are the command's own) and the script prints its wall time and peak RSS
(`resource.getrusage(RUSAGE_CHILDREN)`). The generated logs are kept under `--logs` and reused.

    PYTHONPATH=$PWD python tests/benchmarks/bench_report_scale.py --logs /tmp/scale-logs
    python tests/benchmarks/bench_report_scale.py --logs /tmp/scale-logs --report-only

The figures depend on the machine and on what else runs on it; the performance history
(docs/development/performance.md, "The report at the paper's scale") records measured ones.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

JUDGES: dict[str, tuple[float, float]] = {  # judge -> (accuracy of one call, tie rate of one call)
    "judge-a": (0.85, 0.02),
    "judge-b": (0.78, 0.05),
    "judge-c": (0.70, 0.10),
    "judge-d": (0.65, 0.02),
    "judge-e": (0.60, 0.20),
    "judge-f": (0.55, 0.05),
}
# change -> (task args, generation config, accuracy shift); the reference first
CHANGES: list[tuple[dict[str, Any], dict[str, Any], float]] = [
    ({"prompt": "reference", "k": 3}, {"reasoning_effort": "high"}, 0.0),
    ({"prompt": "p1_no_guardrails", "k": 3}, {"reasoning_effort": "high"}, -0.02),
    ({"prompt": "p2_no_criterion", "k": 3}, {"reasoning_effort": "high"}, -0.05),
    ({"prompt": "p3_judged_novel", "k": 3}, {"reasoning_effort": "high"}, 0.04),
    ({"prompt": "p4_which_novel", "k": 3}, {"reasoning_effort": "high"}, 0.0),
    ({"prompt": "p5_judged_more_novel", "k": 3}, {"reasoning_effort": "high"}, 0.02),
    ({"prompt": "reference", "k": 3, "idea_format": "plan"}, {"reasoning_effort": "high"}, -0.08),
    ({"prompt": "reference", "k": 3, "retrieval": 5}, {"reasoning_effort": "high"}, 0.03),
    ({"prompt": "reference", "k": 3, "retrieval": 10}, {"reasoning_effort": "high"}, 0.05),
    ({"prompt": "reference", "k": 3}, {"reasoning_effort": "low"}, -0.06),
    ({"prompt": "reference", "k": 3}, {"reasoning_effort": "medium"}, -0.03),
    ({"prompt": "reference", "k": 5}, {"reasoning_effort": "high"}, 0.01),
    (
        {"prompt": "reference", "k": 3, "idea_format": "plan", "retrieval": 5},
        {"reasoning_effort": "high"},
        -0.04,
    ),
]
SETUPS: tuple[str, ...] = ("human_only", "human_generated")


def seed_logs(out: Path) -> dict[str, Path]:
    """One real run of both judge tasks with `planted/accurate` on the bundled set; kind -> log path."""
    from inspect_ai import eval as inspect_eval

    from judgeaudit.judges.tasks import novelty_pairwise, novelty_pointwise

    logs = inspect_eval(
        [novelty_pairwise(), novelty_pointwise()],
        model="planted/accurate",
        log_dir=str(out),
        display="none",
    )
    return {log.eval.task.rsplit("/", 1)[-1].split("_")[-1]: Path(log.location) for log in logs}


def find_seeds(logdir: Path) -> dict[str, Path]:
    """The first pairwise and pointwise judge-task logs under `logdir` (`--seed-logs`)."""
    from inspect_ai.log import list_eval_logs, read_eval_log

    found: dict[str, Path] = {}
    for info in list_eval_logs(str(logdir)):
        header = read_eval_log(info, header_only=True)
        kind = ((header.eval.metadata or {}).get("judgeaudit") or {}).get("kind")
        if kind and kind not in found and header.status == "success":
            found[kind] = Path(info.name.removeprefix("file://"))
    return found


def planted_calls(
    rng: np.random.Generator, kind: str, gold: str, k: int, accuracy: float, ties: float
) -> list[dict[str, Any]]:
    """k planted call records: right with `accuracy`, a tie (pairwise) with `ties`, else wrong."""
    wrong = {"a": "b", "b": "a", "novel": "not_novel", "not_novel": "novel"}[gold]
    order = "ab" if kind == "pairwise" else "single"
    calls = []
    for i in range(k):
        u = rng.random()
        verdict = (
            gold
            if u < accuracy
            else ("tie" if kind == "pairwise" and u < accuracy + ties else wrong)
        )
        calls.append(
            {
                "order": order,
                "shown_verdict": verdict,
                "verdict": verdict,
                "raw": f"Planted call {i}.\nVerdict: {verdict.upper()}",
                "parse": "strict",
                "call_index": i,
                "error": None,
                "reason": None,
            }
        )
    return calls


def replicate(seed: Any, n: int) -> list[tuple[Any, str]]:
    """`n` (seed sample, new id) pairs: the seed's samples in turn, ids suffixed from the second round."""
    samples = list(seed.samples or [])
    return [
        (
            samples[i % len(samples)],
            f"{samples[i % len(samples)].id}"
            + (f"~{i // len(samples)}" if i >= len(samples) else ""),
        )
        for i in range(n)
    ]


def write_grid(out: Path, seeds: dict[str, Path], pairs: int, points: int, seed: int) -> int:
    """Write every (judge, change, format, setup) log under `out`; the number of samples written."""
    from inspect_ai.log import read_eval_log, write_eval_log
    from inspect_ai.model import GenerateConfig

    from judgeaudit.judges.verdicts import aggregate_pairwise, aggregate_pointwise

    rng = np.random.default_rng(seed)
    out.mkdir(parents=True, exist_ok=True)
    written = 0
    for kind, path in sorted(seeds.items()):
        base = read_eval_log(str(path))
        plan = replicate(base, pairs if kind == "pairwise" else points)
        for setup in SETUPS:
            dataset = f"iclr2026/{setup}"
            for judge, (accuracy, ties) in JUDGES.items():
                for c, (args, generate, shift) in enumerate(CHANGES):
                    samples = []
                    for sample, sid in plan:
                        unit = dict((sample.metadata or {}).get("unit") or {})
                        unit.update(item_id=sid, setup=setup)
                        score = sample.scores["novelty"]
                        gold = score.metadata["gold"]
                        calls = planted_calls(
                            rng, kind, gold, int(args["k"]), accuracy + shift, ties
                        )
                        votes = [c_["verdict"] for c_ in calls]
                        verdict = (
                            aggregate_pairwise(votes)
                            if kind == "pairwise"
                            else aggregate_pointwise(votes, "not_novel")[0]
                        )
                        meta = {
                            **score.metadata,
                            "calls": calls,
                            "k": args["k"],
                            "prompt": args["prompt"],
                        }
                        samples.append(
                            sample.model_copy(
                                update={
                                    "id": sid,
                                    "metadata": {**(sample.metadata or {}), "unit": unit},
                                    "scores": {
                                        "novelty": score.model_copy(
                                            update={
                                                "answer": verdict,
                                                "value": float(verdict == gold),
                                                "metadata": meta,
                                            }
                                        )
                                    },
                                }
                            )
                        )
                    task_meta = dict(base.eval.metadata or {})
                    task_meta["judgeaudit"] = {
                        **task_meta["judgeaudit"],
                        "dataset": dataset,
                        "prompt": args["prompt"],
                        "idea_format": args.get("idea_format", "abstract"),
                        "retrieval": args.get("retrieval", 0),
                    }
                    ev = base.eval.model_copy(
                        update={
                            "eval_id": f"{judge}-{kind}-{setup}-{c}",
                            "run_id": "bench-report-scale",
                            "model": f"planted/{judge}",
                            "task_args": {**args, "dataset": dataset},
                            "task_args_passed": {**args, "dataset": dataset},
                            "model_generate_config": GenerateConfig(**generate),
                            "metadata": task_meta,
                        }
                    )
                    log = base.model_copy(
                        update={"eval": ev, "samples": samples, "reductions": None}
                    )
                    name = f"{judge}_{kind}_{setup}_{c:02d}.eval"
                    write_eval_log(log, str(out / name))
                    written += len(samples)
    return written


def run_report(logs: Path, out: Path, extra: list[str]) -> tuple[float, float, float]:
    """Run `judgeaudit report` in a child process; (wall seconds, CPU seconds, peak RSS in MB)."""
    cmd = [sys.executable, "-m", "judgeaudit.cli", "report", str(logs), "--out", str(out), *extra]
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    print(done.stdout.strip())
    if done.returncode != 0:
        sys.exit(f"judgeaudit report failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> None:
    """Generate the grid's logs (once) and measure `judgeaudit report` on them."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--logs", type=Path, required=True, help="where the generated logs go (reused)")
    p.add_argument(
        "--seed-logs",
        type=Path,
        default=None,
        help="a log dir holding a real run of both judge tasks",
    )
    p.add_argument("--pairs", type=int, default=150, help="pairwise items per log")
    p.add_argument("--points", type=int, default=300, help="pointwise items per log")
    p.add_argument("--seed", type=int, default=20260, help="seed of the planted calls")
    p.add_argument("--report-only", action="store_true", help="measure the report on existing logs")
    p.add_argument("report_args", nargs="*", help="extra `judgeaudit report` options (after --)")
    a = p.parse_args()
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    if not a.report_only:
        start = time.perf_counter()
        with tempfile.TemporaryDirectory() as tmp:
            seeds = find_seeds(a.seed_logs) if a.seed_logs else seed_logs(Path(tmp))
            if set(seeds) != {"pairwise", "pointwise"}:
                sys.exit(f"--seed-logs: need a pairwise and a pointwise log, found {sorted(seeds)}")
            n = write_grid(a.logs, seeds, a.pairs, a.points, a.seed)
        files = list(a.logs.glob("*.eval"))
        size = sum(f.stat().st_size for f in files) / 1e6
        print(
            f"generated {len(files)} logs, {n} samples, {size:.0f} MB in {time.perf_counter() - start:.0f} s"
        )
    with tempfile.TemporaryDirectory() as out:
        wall, cpu, peak = run_report(a.logs, Path(out) / "report", a.report_args)
    print(f"judgeaudit report: {wall:.1f} s wall, {cpu:.1f} s CPU, peak RSS {peak:.0f} MB")


if __name__ == "__main__":
    main()
