"""Overhead of the novelty_pairwise task over a bare Inspect task (one generate per sample).

Both run 1,000 pairs against mockllm/model (a callable answering from the prompt, usage set),
without cache, writing a real log. The judge task's samples carry lean metadata (their input is the
first call's prompt, `judges.prompts.input_prompt`) and its scores only their per-sample fields
(schema `judgeaudit.score/4`: what every sample shares is in the task metadata); the third side, a
bare task carrying the full contract item as metadata, shows what that item alone would cost.
The sides alternate, each run in a fresh interpreter after a 20-item warm-up (one interpreter
for all runs with `--in-process`: there later runs inherit the heap, caches and log buffers of
earlier ones, and vary by more than the difference measured). Reports the best of `--repeats` wall
times and process CPU times per side, their ratio (target <= 1.10x), and the ratio of each repeat's
pair of runs with its median. On a shared, loaded machine the CPU-time ratio is the steadier figure.

Timings on a shared machine vary by more than the difference measured, so `--instructions` also
counts the instructions each side executes (valgrind's callgrind, about 50x slower): each side runs
at two item counts, and the difference divided by the items is the instructions per item, whose
ratio is the per-item overhead with every fixed cost (imports, warm-up) taken out. The count runs
without Inspect's running metrics: they are recomputed about once a second over every score so far,
so with them the count grows with the wall time of the run (and with the machine's load); without
them it is deterministic.

    python tests/benchmarks/bench_task_overhead.py [--items 1000] [--repeats 3] [--in-process]
    python tests/benchmarks/bench_task_overhead.py --instructions [--items 200]  # needs valgrind
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from inspect_ai import Task, eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import includes
from inspect_ai.solver import generate

from judgeaudit.data.contract import Evidence, Idea, PairItem
from judgeaudit.data.jsonl import write_items
from judgeaudit.data.samples import item_to_sample
from judgeaudit.judges.prompts import render_call
from judgeaudit.judges.tasks import novelty_pairwise


def _idea(idea_id: str, label: str, text: str, filler: str) -> Idea:
    return Idea(
        idea_id,
        text + " " + filler,
        "abstract",
        "human",
        "area",
        label,  # type: ignore[arg-type]
        evidence=Evidence(rating_mean=5.0, contribution_mean=2.5, review_count=3),
    )


def make_pairs(n: int) -> list[PairItem]:
    """n synthetic pairs with abstract-length texts; the novel idea names 'Kestrel'."""
    filler = "The method is evaluated on standard benchmarks with careful ablations. " * 6
    out = []
    for i in range(n):
        good = _idea(f"n{i}", "novel", f"Kestrel {i} reframes the problem as matching.", filler)
        bad = _idea(f"o{i}", "not_novel", f"Baseline {i} adds a known regulariser.", filler)
        gold = "a" if i % 2 == 0 else "b"
        a, b = (good, bad) if gold == "a" else (bad, good)
        out.append(PairItem(f"p{i}", "human_only", "area", a, b, gold))  # type: ignore[arg-type]
    return out


def answer(input: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
    """Pick the shown idea that names Kestrel."""
    text = input[-1].text
    first = text.split("Idea A:\n", 1)[-1].split("\n\nIdea B:", 1)[0]
    out = ModelOutput.from_content(
        "mockllm/model", "Short reason.\nVerdict: " + ("A" if "Kestrel" in first else "B")
    )
    out.usage = ModelUsage(input_tokens=300, output_tokens=6, total_tokens=306)
    return out


def bare_task(pairs: list[PairItem], with_metadata: bool = False) -> Task:
    """The same prompts as plain Samples: one generate, a built-in scorer.

    `with_metadata` gives each Sample the full contract item as metadata (what every judge
    sample carried before the prompted task's lean metadata), to show what that alone costs.
    """
    samples = []
    for p in pairs:
        meta = {"item": p.to_dict(), "area": p.area}
        samples.append(
            Sample(
                id=p.pair_id,
                input=render_call("pairwise", "reference", meta, "ab"),
                target=f"Verdict: {p.gold.upper()}",
                metadata=item_to_sample(p).metadata if with_metadata else None,
            )
        )
    return Task(dataset=MemoryDataset(samples), solver=generate(), scorer=includes())


def timed(
    task: Task, log_dir: str, score_display: bool = True, limit: int | None = None
) -> tuple[float, float]:
    """(wall, process CPU) seconds of one eval (fresh model instance, no cache).

    A full garbage collection first, so every run starts from the same heap (the interpreter's
    full collections take about a fifth of a run's CPU and grow with what earlier runs left).
    """
    model = get_model("mockllm/model", custom_outputs=answer, memoize=False)
    gc.collect()
    start, cpu = time.perf_counter(), time.process_time()
    log = eval(
        task,
        model=model,
        log_dir=log_dir,
        display="none",
        max_connections=10,
        score_display=score_display,
        limit=limit,
    )[0]
    elapsed, cpu_used = time.perf_counter() - start, time.process_time() - cpu
    assert log.status == "success", log.error
    return elapsed, cpu_used


SIDES = {"ours": "novelty_pairwise", "bare": "bare generate", "bare_meta": "bare + item metadata"}


def side_task(side: str, data: str, pairs: list[PairItem]) -> Task:
    """The task of one side over the pairs written to `data`."""
    if side == "ours":
        return novelty_pairwise(dataset=data, cache=False)
    return bare_task(pairs, with_metadata=side == "bare_meta")


def run_side(side: str, data: str, items: int, display: bool) -> tuple[float, float]:
    """One timed run of `side` in this process, after a warm-up run of the same side on 20 items
    (imports, registries, first-call caches)."""
    pairs = make_pairs(items)
    timed(
        side_task(side, data, pairs),
        str(Path(data) / f"warm-{side}-{os.getpid()}"),
        display,
        limit=20,
    )
    return timed(
        side_task(side, data, pairs), str(Path(data) / f"run-{side}-{os.getpid()}"), display
    )


def fresh_run(side: str, data: str, items: int, display: bool) -> tuple[float, float]:
    """One timed run of `side` in a new interpreter (no heap, caches or log buffers left by earlier runs)."""
    command = [sys.executable, __file__, "--side", side, "--data", data, "--items", str(items)]
    if not display:
        command.append("--no-score-display")
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    wall, cpu = json.loads(out.strip().splitlines()[-1])
    return float(wall), float(cpu)


def counted_run(side: str, data: str, items: int) -> int:
    """Instructions executed by one fresh run of `side` (imports and warm-up included) without running
    metrics, counted by callgrind."""
    command = [
        "valgrind",
        "--tool=callgrind",
        "--callgrind-out-file=" + str(Path(data) / f"callgrind-{side}-{items}"),
        sys.executable,
        __file__,
        "--side",
        side,
        "--data",
        data,
        "--items",
        str(items),
        "--no-score-display",
    ]
    run = subprocess.run(
        command, capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"}
    )
    found = re.search(r"Collected\s*:\s*(\d+)", run.stderr)
    if run.returncode != 0 or not found:
        raise SystemExit(
            f"callgrind run of {side} on {items} items failed: {run.stderr.strip().splitlines()[-1:]}"
        )
    return int(found.group(1))


def count_instructions(items: int) -> None:
    """Print each side's instructions at `items` and `items // 2` items, and the per-item ratio
    (without running metrics, whose count depends on the wall time)."""
    if shutil.which("valgrind") is None:
        raise SystemExit("--instructions needs valgrind (apt-get install valgrind)")
    counts: dict[tuple[str, int], int] = {}
    sizes = (items // 2, items)
    for n in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            os.environ["INSPECT_CACHE_DIR"] = str(Path(tmp) / "cache")
            write_items(Path(tmp) / "pairwise.jsonl", make_pairs(n))
            for side in ("ours", "bare"):
                counts[side, n] = counted_run(side, tmp, n)
    per_item = {
        side: (counts[side, sizes[1]] - counts[side, sizes[0]]) / (sizes[1] - sizes[0])
        for side in ("ours", "bare")
    }
    print(
        "instructions (callgrind, PYTHONHASHSEED=0, no running metrics), per run incl. imports and warm-up:"
    )
    for (side, n), count in counts.items():
        print(f"  {SIDES[side]:22} {n:5d} items: {count:,}")
    print(
        f"per item: ours={per_item['ours']:,.0f} bare={per_item['bare']:,.0f} "
        f"ratio={per_item['ours'] / per_item['bare']:.3f}x (target <= 1.10x)"
    )


def main() -> None:
    """Run the sides alternately and print the figures."""
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--items", type=int, help="items per run (default 1000; 200 with --instructions)"
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--no-score-display",
        action="store_true",
        help="turn off Inspect's running metrics (recomputed about once a second during a run)",
    )
    parser.add_argument(
        "--in-process",
        action="store_true",
        help="time every run in this one interpreter (default: each run in a fresh one)",
    )
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="count instructions per item with valgrind instead of timing (no running metrics; deterministic)",
    )
    parser.add_argument("--side", choices=tuple(SIDES), help=argparse.SUPPRESS)  # one fresh run
    parser.add_argument("--data", help=argparse.SUPPRESS)
    args = parser.parse_args()
    display = not args.no_score_display
    args.items = args.items or (200 if args.instructions else 1000)
    if args.side:
        print(json.dumps(run_side(args.side, args.data, args.items, display)))
        return
    if args.instructions:
        count_instructions(args.items)
        return
    sides: dict[str, list[tuple[float, float]]] = {side: [] for side in SIDES}
    load_start = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["INSPECT_CACHE_DIR"] = str(Path(tmp) / "cache")
        pairs = make_pairs(args.items)
        write_items(Path(tmp) / "pairwise.jsonl", pairs)
        if args.in_process:
            # warm up imports, registries and the seeded bootstrap draw (cached per item count) on both paths
            timed(novelty_pairwise(dataset=tmp, cache=False), str(Path(tmp) / "warm"), display)
            timed(bare_task(pairs[:20]), str(Path(tmp) / "warm"), display)
        for r in range(args.repeats):
            for side in SIDES:
                if args.in_process:
                    sides[side].append(
                        timed(side_task(side, tmp, pairs), str(Path(tmp) / f"{side}{r}"), display)
                    )
                else:
                    sides[side].append(fresh_run(side, tmp, args.items, display))
    load_end = os.getloadavg()
    mode = "in one process" if args.in_process else "each run in a fresh process"
    print(f"items={args.items} repeats={args.repeats} score_display={display} ({mode})")
    print(
        "load average (1/5/15 min) at start "
        + "/".join(f"{x:.2f}" for x in load_start)
        + ", at end "
        + "/".join(f"{x:.2f}" for x in load_end)
        + f" on {os.cpu_count()} cores"
    )
    for label, index in (("wall", 0), ("cpu", 1)):
        best = {}
        for side, runs in sides.items():
            values = [t[index] for t in runs]
            best[side] = min(values)
            print(
                f"{label:4} {SIDES[side]:22} s: "
                + ", ".join(f"{t:.2f}" for t in values)
                + f" (median {statistics.median(values):.2f})"
            )
        print(
            f"{label:4} best ours={best['ours']:.2f}s bare={best['bare']:.2f}s "
            f"ratio={best['ours'] / best['bare']:.3f}x (target <= 1.10x); "
            f"vs bare carrying the full contract item {best['ours'] / best['bare_meta']:.3f}x"
        )
        ratios = [o[index] / b[index] for o, b in zip(sides["ours"], sides["bare"], strict=True)]
        print(
            f"{label:4} ratio per repeat (ours / bare run beside it): "
            + ", ".join(f"{x:.3f}" for x in ratios)
            + f" (median {statistics.median(ratios):.3f})"
        )


if __name__ == "__main__":
    main()
