"""Seconds per judged pair: `local/gemma-3-270m` through Inspect vs the llama.cpp engine called directly;
with `--engines`, the engine's prefill and decode speed and answers against llama-cpp-python's.

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

`--engines` (needs llama-cpp-python installed beside the engine, e.g. `pip install llama-cpp-python`,
which builds it from source): the same prompts through our engine (`providers/llama_engine.py`, the
prebuilt llama.cpp of the xllamacpp wheel) and through llama-cpp-python's `Llama.create_completion`,
both with the same thread counts (prompt: all cores, decode: half), fresh prompt evaluation, one at a
time, alternating. Prefill: a one-token completion (prompt tokens per second); decode: a greedy
64-token completion without grammar minus its prefill (tokens per second). Answers: the greedy texts
and the grammar-constrained seeded verdicts (temperature 0.8, the audit's setting) must be identical.
`--prompts FILE` takes the prompts from a JSON list of strings instead (e.g. the main job's).

Run: python tests/benchmarks/bench_local_model.py [--dataset DIR] [--rounds 3] [--max-tokens 64]
     python tests/benchmarks/bench_local_model.py --engines [--rounds 3] [--prompts FILE]
"""

from __future__ import annotations

import argparse
import json
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
    model: Any,
    prompts: list[str],
    grammar: str | None,
    params: dict[str, Any],
    main_thread: bool = False,
) -> tuple[float, float, list[str]]:
    """Seconds (wall, CPU) for all prompts with the engine called directly (in a worker thread); the answers."""
    from judgeaudit.providers.llama_engine import SamplingParams

    answers: list[str] = []
    sampling = SamplingParams(
        **{k: v for k, v in params.items() if k not in ("max_tokens", "stop")}
    )

    def run() -> None:
        for prompt in prompts:
            model.engine.reset()
            out = model.engine.complete(
                prompt, params["max_tokens"], params["stop"], sampling, grammar
            )
            answers.append(out.text)

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
) -> tuple[float, float, list[str]]:
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


def engines_compare(prompts: list[str], rounds: int) -> None:
    """Prefill / decode speed and answers: our engine vs llama-cpp-python (see module docstring)."""
    from llama_cpp import Llama, LlamaGrammar

    from judgeaudit.providers.gguf import gemma_gguf
    from judgeaudit.providers.grammars import GRAMMARS
    from judgeaudit.providers.llama_engine import Engine, SamplingParams

    path = gemma_gguf()
    cores = os.cpu_count() or 1
    threads = max(1, cores // 2)
    ours = Engine(path=path, n_ctx=4096, n_threads=threads, n_threads_batch=cores, n_batch=512)
    theirs = Llama(
        model_path=str(path),
        n_ctx=4096,
        n_threads=threads,
        n_threads_batch=cores,
        n_batch=512,
        verbose=False,
    )
    verdict = LlamaGrammar.from_string(GRAMMARS["pairwise"], verbose=False)
    decode_tokens = 64

    def run_ours(
        prompt: str, max_tokens: int, grammar: bool, seed: int | None
    ) -> tuple[str, int, int]:
        ours.reset()
        done = ours.complete(
            prompt,
            max_tokens,
            ["\n### "],
            SamplingParams(temperature=0.8 if grammar else 0.0, seed=seed),
            GRAMMARS["pairwise"] if grammar else None,
        )
        return done.text, done.prompt_tokens, done.completion_tokens

    def run_theirs(
        prompt: str, max_tokens: int, grammar: bool, seed: int | None
    ) -> tuple[str, int, int]:
        theirs.reset()
        out = theirs.create_completion(
            prompt,
            max_tokens=max_tokens,
            stop=["\n### "],
            seed=seed,
            temperature=0.8 if grammar else 0.0,
            grammar=verdict if grammar else None,
        )
        assert isinstance(out, dict)
        return (
            out["choices"][0]["text"],
            out["usage"]["prompt_tokens"],
            out["usage"]["completion_tokens"],
        )

    runners = {"engine (xllamacpp)": run_ours, "llama-cpp-python": run_theirs}
    figures: dict[str, dict[str, list[float]]] = {
        name: {"prefill": [], "decode": [], "prefill_cpu": [], "decode_cpu": []} for name in runners
    }
    answers: dict[str, list[Any]] = {name: [] for name in runners}
    for run in runners.values():  # warm-up
        run(prompts[0], 1, False, None)
    for r in range(rounds):
        for name, run in runners.items():
            prompt_tok = gen_tok = 0
            t_pre = c_pre = t_dec = c_dec = 0.0
            for i, prompt in enumerate(prompts):
                w, c = time.perf_counter(), time.process_time()
                _, n_prompt, _ = run(prompt, 1, False, None)
                w1, c1 = time.perf_counter(), time.process_time()
                text, _, n_gen = run(prompt, decode_tokens, False, None)
                w2, c2 = time.perf_counter(), time.process_time()
                t_pre, c_pre = t_pre + (w1 - w), c_pre + (c1 - c)
                t_dec, c_dec = (
                    t_dec + max(0.0, (w2 - w1) - (w1 - w)),
                    c_dec + max(0.0, (c2 - c1) - (c1 - c)),
                )
                prompt_tok, gen_tok = prompt_tok + n_prompt, gen_tok + max(0, n_gen - 1)
                if r == 0:
                    answers[name].append((text, n_gen, run(prompt, 16, True, 1000 + i)))
            figures[name]["prefill"].append(prompt_tok / t_pre)
            figures[name]["prefill_cpu"].append(prompt_tok / c_pre)
            figures[name]["decode"].append(gen_tok / t_dec if t_dec else 0.0)
            figures[name]["decode_cpu"].append(gen_tok / c_dec if c_dec else 0.0)
    print(
        f"prompts: {len(prompts)}; rounds: {rounds}; threads: prompt {cores}, decode {threads}; cpus: {cores}"
    )
    for name, fig in figures.items():
        print(
            f"{name:20s} prefill {statistics.median(fig['prefill']):7.1f} tok/s (per CPU-s {statistics.median(fig['prefill_cpu']):6.1f}); "
            f"decode {statistics.median(fig['decode']):6.1f} tok/s (per CPU-s {statistics.median(fig['decode_cpu']):6.1f})"
        )
    (a_name, a), (b_name, b) = answers.items()
    same_greedy = sum(x[:2] == y[:2] for x, y in zip(a, b, strict=True))
    same_verdict = sum(x[2] == y[2] for x, y in zip(a, b, strict=True))
    print(
        f"identical greedy 64-token answers: {same_greedy}/{len(prompts)}; identical seeded verdicts under the "
        f"grammar: {same_verdict}/{len(prompts)}"
    )


def main() -> int:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--dataset", default=str(DEFAULT_DATASET))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--engines", action="store_true", help="engine vs llama-cpp-python: speed and answers"
    )
    parser.add_argument(
        "--prompts", help="JSON list of prompts for --engines (default: the dataset's)"
    )
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
    if args.engines:
        engines_compare(
            json.loads(Path(args.prompts).read_text()) if args.prompts else prompts, args.rounds
        )
        return 0
    # the judge solver passes seed + call_index; k=1 so call_index is 0
    params = completion_params(
        GenerateConfig(temperature=0.0, max_tokens=args.max_tokens, seed=args.seed), 512
    )
    model = load_model(gemma_gguf(), DEFAULT_N_CTX, None, DEFAULT_N_BATCH)
    grammar_name, grammar = resolve_grammar("auto", prompts[0])
    prompt_tokens = [len(model.engine.tokenize(p)) for p in prompts]

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
        f"grammar: {grammar_name}; max_tokens: {args.max_tokens}; llama threads: {model.engine.n_threads}; "
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
