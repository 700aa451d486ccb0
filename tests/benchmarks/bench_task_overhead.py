"""Overhead of the novelty_pairwise task over a bare Inspect task (one generate per sample).

Both run 1,000 pairs against mockllm/model (a callable answering from the prompt, usage set),
without cache, writing a real log. The judge task's samples carry lean metadata (idea texts, the
solver renders each prompt: `judges.prompts.render_call`) and its scores only their per-sample fields
(schema `judgeaudit.score/2`: what every sample shares is in the task metadata); the third side, a bare task carrying the full
contract item as metadata, shows what that item alone would cost. The two sides alternate; reports the best of `--repeats`
wall times and process CPU times per side and their ratios (target <= 1.10x). On a shared,
loaded machine the CPU-time ratio is the steadier figure.

    python tests/benchmarks/bench_task_overhead.py [--items 1000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import gc
import os
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


def timed(task: Task, log_dir: str, score_display: bool = True) -> tuple[float, float]:
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
    )[0]
    elapsed, cpu_used = time.perf_counter() - start, time.process_time() - cpu
    assert log.status == "success", log.error
    return elapsed, cpu_used


def main() -> None:
    """Run the sides alternately and print the figures."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--no-score-display",
        action="store_true",
        help="turn off Inspect's running metrics (recomputed about once a second during a run)",
    )
    args = parser.parse_args()
    display = not args.no_score_display
    sides: dict[str, list[tuple[float, float]]] = {"ours": [], "bare": [], "bare_meta": []}
    load_start = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["INSPECT_CACHE_DIR"] = str(Path(tmp) / "cache")
        pairs = make_pairs(args.items)
        write_items(Path(tmp) / "pairwise.jsonl", pairs)
        # warm up imports, registries and the seeded bootstrap draw (cached per item count) on both paths
        timed(novelty_pairwise(dataset=tmp, cache=False), str(Path(tmp) / "warm"), display)
        timed(bare_task(pairs[:20]), str(Path(tmp) / "warm"), display)
        for r in range(args.repeats):
            task = novelty_pairwise(dataset=tmp, cache=False)
            sides["ours"].append(timed(task, str(Path(tmp) / f"ours{r}"), display))
            sides["bare"].append(timed(bare_task(pairs), str(Path(tmp) / f"bare{r}"), display))
            sides["bare_meta"].append(
                timed(bare_task(pairs, True), str(Path(tmp) / f"meta{r}"), display)
            )
    load_end = os.getloadavg()
    print(f"items={args.items} repeats={args.repeats} score_display={display}")
    print(
        "load average (1/5/15 min) at start "
        + "/".join(f"{x:.2f}" for x in load_start)
        + ", at end "
        + "/".join(f"{x:.2f}" for x in load_end)
        + f" on {os.cpu_count()} cores"
    )
    names = {
        "ours": "novelty_pairwise",
        "bare": "bare generate",
        "bare_meta": "bare + item metadata",
    }
    for label, index in (("wall", 0), ("cpu", 1)):
        best = {}
        for side, runs in sides.items():
            values = [t[index] for t in runs]
            best[side] = min(values)
            print(f"{label:4} {names[side]:22} s: " + ", ".join(f"{t:.2f}" for t in values))
        print(
            f"{label:4} best ours={best['ours']:.2f}s bare={best['bare']:.2f}s "
            f"ratio={best['ours'] / best['bare']:.3f}x (target <= 1.10x); "
            f"vs bare carrying the full contract item {best['ours'] / best['bare_meta']:.3f}x"
        )


if __name__ == "__main__":
    main()
