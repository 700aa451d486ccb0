"""The newcomer's three figures (issue 29): install, the README main job cold, the README test command.

1. install: a fresh virtual environment (no system site-packages) and an empty pip cache
   (`PIP_NO_CACHE_DIR=1`), then the README's `pip install -e ".[local,embed,dev]"` in this checkout.
   `--phases` instead installs the core, then `[dev]`, `[embed]` and `[local]` one after another in
   that fresh environment, to show where the time goes (each phase re-resolves what is installed).
2. main job, cold: the README's `judgeaudit audit --model local/gemma-3-270m -M grammar=pairwise
   --dataset iclr2026/human_only --limit 6 --out <tmp>/audit` with an empty Inspect cache
   (`INSPECT_CACHE_DIR`) and an empty judgeaudit cache (`JUDGEAUDIT_CACHE`) into which the Gemma GGUF
   was assembled beforehand (its assembly, done once per machine on first use, is timed apart).
   Reports the card's own cost block (judge calls, tokens) and, from the logs, model calls made,
   served from Inspect's cache, engine runs (identical calls in flight at once run once), prompt
   tokens evaluated and the prefill / decode seconds of the engine.
3. tests (`--tests`, slow): the wall time of `python -m pytest -q` in this checkout.

Every figure gives wall seconds and CPU seconds (user + system of the command and its children): on a
shared machine the wall time swings with other people's load, the CPU time much less. The main job
and the tests run with the interpreter of the environment step 1 made (else the current one).

    python tests/benchmarks/bench_setup.py [--skip-install] [--phases] [--runs 1] [--tests]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
INSTALL = ["-m", "pip", "install", "-q", "-e", ".[local,embed,dev]"]
PHASES = ("", "[dev]", "[embed]", "[local]")
MAIN_JOB = [
    "audit",
    "--model",
    "local/gemma-3-270m",
    "-M",
    "grammar=pairwise",
    "--dataset",
    "iclr2026/human_only",
    "--limit",
    "6",
]


def timed(
    cmd: list[str], env: dict[str, str] | None = None, cwd: Path = ROOT
) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds of the command and its children, exit code)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        cmd,
        cwd=cwd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0:
        print(
            f"  ! exit {done.returncode}: {' '.join(cmd)}\n{done.stderr[-2000:]}", file=sys.stderr
        )
    return wall, cpu, done.returncode


def line(label: str, wall: float, cpu: float, command: str) -> None:
    """One figure with its command."""
    print(f"{label:28s} wall {wall:8.1f} s   CPU {cpu:8.1f} s   $ {command}")


def install(work: Path, phases: bool) -> Path:
    """Make a fresh venv under `work` and install this checkout into it; its python."""
    venv = work / "venv"
    env = {**os.environ, "PIP_NO_CACHE_DIR": "1"}
    env.pop("PIP_CACHE_DIR", None)
    wall, cpu, _ = timed([sys.executable, "-m", "venv", str(venv)], env)
    line("venv", wall, cpu, f"{sys.executable} -m venv {venv}")
    python = str(venv / "bin" / "python")
    total_wall, total_cpu = wall, cpu
    steps = [["-m", "pip", "install", "-q", "-e", f".{p}"] for p in PHASES] if phases else [INSTALL]
    for step in steps:
        wall, cpu, code = timed([python, *step], env)
        total_wall, total_cpu = total_wall + wall, total_cpu + cpu
        line(f"install {step[-1]}", wall, cpu, "PIP_NO_CACHE_DIR=1 python " + " ".join(step))
        if code != 0:
            raise SystemExit("install failed")
    line("install total", total_wall, total_cpu, "(venv + the steps above)")
    return Path(python)


def call_figures(log_dir: Path, python: Path) -> dict[str, Any]:
    """Model calls, cache reads, tokens and engine seconds from the audit's Inspect logs (read by `python`)."""
    script = r"""
import json, sys
from pathlib import Path
from inspect_ai.log import read_eval_log
out = {"model_calls": 0, "cache_reads": 0, "engine_runs": 0, "prompt_tokens": 0, "evaluated_prompt_tokens": 0,
       "output_tokens": 0, "prefill_seconds": 0.0, "decode_seconds": 0.0, "distinct_prompts": 0}
prompts, runs = set(), set()
for path in Path(sys.argv[1]).glob("*.eval"):
    for sample in read_eval_log(str(path)).samples or []:
        for event in sample.events:
            if event.event != "model":
                continue
            if event.cache == "read":
                out["cache_reads"] += 1
                continue
            out["model_calls"] += 1
            usage = event.output.usage
            out["prompt_tokens"] += usage.input_tokens if usage else 0
            out["output_tokens"] += usage.output_tokens if usage else 0
            prompt = str((event.call.request if event.call else {}).get("prompt", ""))
            prompt = sample.attachments.get(prompt.removeprefix("attachment://"), prompt)
            prompts.add(prompt)
            local = (event.output.metadata or {}).get("local") or {}
            timings = local.get("timings") or {}
            # identical calls in flight at once run once and share that run's output (timings included)
            run = (prompt, local.get("seed"), timings.get("prefill_seconds"), timings.get("decode_seconds"))
            if run in runs:
                continue
            runs.add(run)
            out["engine_runs"] += 1
            out["evaluated_prompt_tokens"] += timings.get("prompt_evaluated", 0)
            out["prefill_seconds"] += timings.get("prefill_seconds", 0.0)
            out["decode_seconds"] += timings.get("decode_seconds", 0.0)
out["distinct_prompts"] = len(prompts)
print(json.dumps(out))
"""
    done = subprocess.run(
        [str(python), "-c", script, str(log_dir)], capture_output=True, text=True, check=False
    )
    return json.loads(done.stdout) if done.returncode == 0 else {"error": done.stderr[-500:]}


def main_job(work: Path, python: Path, runs: int) -> None:
    """The README main job, cold, `runs` times (median reported)."""
    judgeaudit = str(python.parent / "judgeaudit")
    cache = work / "ja-cache"
    env = {**os.environ, "JUDGEAUDIT_CACHE": str(cache), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    assemble = [str(python), "-c", "from judgeaudit.providers.gguf import gemma_gguf; gemma_gguf()"]
    wall, cpu, _ = timed(assemble, env)
    line("GGUF assembly (once)", wall, cpu, f"JUDGEAUDIT_CACHE={cache} python -c 'gemma_gguf()'")
    walls, cpus = [], []
    for run in range(runs):
        out, inspect_cache = work / f"audit-{run}", work / f"inspect-cache-{run}"
        for stale in [p for p in cache.iterdir() if p.name != "models"]:
            shutil.rmtree(stale)
        wall, cpu, code = timed(
            [judgeaudit, *MAIN_JOB, "--out", str(out)],
            {**env, "INSPECT_CACHE_DIR": str(inspect_cache)},
        )
        if code not in (0,):
            raise SystemExit("main job failed")
        walls.append(wall)
        cpus.append(cpu)
        card = json.loads((out / "card.json").read_text())
        print(
            f"  run {run + 1}: wall {wall:.1f} s, CPU {cpu:.1f} s; card cost: {json.dumps(card.get('cost'))}"
        )
        print(f"  calls: {json.dumps(call_figures(out / 'logs', python))}")
    line(
        "main job (cold, median)",
        statistics.median(walls),
        statistics.median(cpus),
        "INSPECT_CACHE_DIR=<empty> JUDGEAUDIT_CACHE=<GGUF only> judgeaudit "
        + " ".join(MAIN_JOB)
        + " --out <tmp>",
    )


def main() -> int:
    """Run the figures asked for and print them with their commands."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--skip-install", action="store_true", help="use the current interpreter instead"
    )
    parser.add_argument(
        "--phases", action="store_true", help="install core, [dev], [embed], [local] in turn"
    )
    parser.add_argument("--runs", type=int, default=1, help="main-job runs (median reported)")
    parser.add_argument("--skip-main-job", action="store_true")
    parser.add_argument(
        "--tests", action="store_true", help="also time `python -m pytest -q` (slow)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench_setup_") as tmp:
        work = Path(tmp)
        python = Path(sys.executable) if args.skip_install else install(work, args.phases)
        if not args.skip_main_job:
            main_job(work, python, args.runs)
        if args.tests:
            wall, cpu, code = timed(
                [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider"],
                {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
            )
            line(f"tests (exit {code})", wall, cpu, "python -m pytest -q")
    print(f"cpus: {os.cpu_count()}; load average: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
