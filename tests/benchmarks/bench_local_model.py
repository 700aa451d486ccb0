"""Seconds per judged pair: `local/gemma-3-270m` through Inspect vs llama-cpp-python called directly.

Both paths judge the same pairs with the same prompt text, the same grammar, seed, temperature
and answer budget, on the same in-process llama.cpp instance (loaded before timing), with a
fresh prompt evaluation per call. The Inspect path is a whole `inspect_ai.eval` of the
`novelty_pairwise` task (k=1, one order, Inspect cache off): task setup, solver, scorer, metrics
and log writing included. Rounds alternate the two paths to spread machine-load drift; the
median round is reported. Target: Inspect within 10% of direct.

Both wall-clock and process CPU seconds are reported: on a shared machine wall time swings with
other people's load, while CPU time (llama.cpp runs with one thread here) measures the work each
path does, so the CPU ratio is the stable overhead figure. Direct calls run in a worker thread,
as the provider's do.

Run: python tests/benchmarks/bench_local_model.py [--dataset DIR] [--rounds 3] [--max-tokens 64]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DEFAULT_DATASET = HERE.parent / "fixtures" / "tiny_judge"


def direct_round(
    model: Any, prompts: list[str], grammar: Any, params: dict[str, Any], main_thread: bool = False
) -> tuple[float, list[str]]:
    """Seconds for all prompts with llama-cpp-python called directly (in a worker thread); the answers."""
    answers: list[str] = []

    def run() -> None:
        for prompt in prompts:
            model.llama.reset()
            out = model.llama.create_completion(prompt, grammar=grammar, **params)
            answers.append(out["choices"][0]["text"])

    start, cpu = time.perf_counter(), time.process_time()
    if main_thread:
        run()
    else:
        worker = threading.Thread(target=run)
        worker.start()
        worker.join()
    return time.perf_counter() - start, time.process_time() - cpu, answers


def inspect_round(
    dataset: str, n: int, seed: int, max_tokens: int, log_dir: str
) -> tuple[float, list[str]]:
    """Seconds for one `inspect_ai.eval` of novelty_pairwise over n pairs; the answers in sample order."""
    from inspect_ai import eval

    from judgeaudit.judges.tasks import novelty_pairwise

    task = novelty_pairwise(dataset=dataset, seed=seed, cache=False, resamples=200)
    start, cpu = time.perf_counter(), time.process_time()
    log = eval(
        task,
        model="local/gemma-3-270m",
        model_args={"grammar": "auto"},
        limit=n,
        temperature=0.0,
        max_tokens=max_tokens,
        display="none",
        log_dir=log_dir,
        max_connections=1,
    )[0]
    elapsed, cpu_used = time.perf_counter() - start, time.process_time() - cpu
    if log.status != "success":
        raise RuntimeError(f"eval failed: {log.error}")
    answers = [s.output.completion for s in sorted(log.samples or [], key=lambda s: str(s.id))]
    return elapsed, cpu_used, answers


def main() -> int:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--dataset", default=str(DEFAULT_DATASET))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    os.environ.setdefault("INSPECT_CACHE_DIR", tempfile.mkdtemp(prefix="bench_local_cache_"))

    from inspect_ai.model import ChatMessageUser, GenerateConfig

    from judgeaudit.data.samples import item_to_sample, load_items
    from judgeaudit.judges.prompts import render_call
    from judgeaudit.providers.gguf import gemma_gguf
    from judgeaudit.providers.grammars import resolve_grammar
    from judgeaudit.providers.local_llama import (
        DEFAULT_N_BATCH,
        DEFAULT_N_CTX,
        completion_params,
        load_model,
    )
    from judgeaudit.providers.transcript import render_transcript

    items = sorted(load_items(args.dataset, "pairwise"), key=lambda it: it.pair_id)
    n = len(items)
    prompts = []
    for item in items:
        meta = item_to_sample(item).metadata or {}
        prompts.append(
            render_transcript(
                [ChatMessageUser(content=render_call("pairwise", "reference", meta, "ab"))]
            )
        )
    # the judge solver passes seed + call_index; k=1 so call_index is 0
    params = completion_params(
        GenerateConfig(temperature=0.0, max_tokens=args.max_tokens, seed=args.seed), 512
    )
    model = load_model(gemma_gguf(), DEFAULT_N_CTX, None, DEFAULT_N_BATCH)
    grammar_name, gbnf = resolve_grammar("auto", prompts[0])
    grammar = model.grammar(gbnf) if gbnf else None
    prompt_tokens = [len(model.llama.tokenize(p.encode("utf-8"))) for p in prompts]

    log_dir = tempfile.mkdtemp(prefix="bench_local_logs_")
    inspect_round(
        args.dataset, n, args.seed, args.max_tokens, log_dir
    )  # warm-up (imports, first eval)
    direct_round(model, prompts[:1], grammar, params)
    rows: dict[str, list[tuple[float, float]]] = {"direct": [], "inspect": []}
    same = True
    for _ in range(args.rounds):
        d_wall, d_cpu, d_answers = direct_round(model, prompts, grammar, params)
        i_wall, i_cpu, i_answers = inspect_round(
            args.dataset, n, args.seed, args.max_tokens, log_dir
        )
        rows["direct"].append((d_wall / n, d_cpu / n))
        rows["inspect"].append((i_wall / n, i_cpu / n))
        same = same and d_answers == i_answers
    print(
        f"pairs per round: {n}; prompt tokens per call: {min(prompt_tokens)}-{max(prompt_tokens)}; "
        f"grammar: {grammar_name}; max_tokens: {args.max_tokens}; llama threads: {model.llama.n_threads}; "
        f"cpus: {os.cpu_count()}; rounds: {args.rounds}"
    )
    medians = {}
    for path, values in rows.items():
        walls, cpus = [w for w, _ in values], [c for _, c in values]
        medians[path] = (statistics.median(walls), statistics.median(cpus))
        print(
            f"{path:8s} s/pair wall: "
            + ", ".join(f"{x:.3f}" for x in walls)
            + "; CPU: "
            + ", ".join(f"{x:.3f}" for x in cpus)
        )
    (dw, dc), (iw, ic) = medians["direct"], medians["inspect"]
    print(f"median wall: direct {dw:.3f}, inspect {iw:.3f} s/pair, ratio {iw / dw:.3f}")
    print(
        f"median CPU:  direct {dc:.3f}, inspect {ic:.3f} s/pair, ratio {ic / dc:.3f} (target <= 1.10)"
    )
    print(f"identical answers on both paths: {same}")
    try:
        print(f"load average: {os.getloadavg()}")
    except OSError:
        pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
