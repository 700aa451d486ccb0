"""Benchmark: paired bootstraps, 10,000 resamples, 50 configurations x 308 items.

Ours (`judgeaudit.stats.paired_bootstrap_many`: one multiplicity-matrix product for all
configurations) against calling `scipy.stats.bootstrap(paired=True, method='percentile',
vectorized=True)` once per configuration, on the same data, in one run. Also times the
single-configuration `paired_bootstrap` called in a loop, and checks that the intervals
agree with scipy's within Monte Carlo error.

Run: python tests/benchmarks/bench_bootstrap.py [--configs 50] [--items 308] [--resamples 10000]
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np
import scipy
from scipy import stats as sps

from judgeaudit.stats import PAIRWISE, paired_bootstrap, paired_bootstrap_many, pairwise_outcomes
from judgeaudit.stats.bootstrap import resample_counts


def _data(configs: int, items: int, seed: int = 0) -> dict[str, dict[str, np.ndarray]]:
    rng = np.random.default_rng(seed)
    gold = rng.choice(["a", "b"], items)
    out = {}
    for c in range(configs):
        p_right = 0.55 + 0.3 * c / max(configs - 1, 1)
        right = rng.random(items) < p_right
        tie = rng.random(items) < 0.1
        verdict = np.where(tie, "tie", np.where(right, gold, np.where(gold == "a", "b", "a")))
        out[f"c{c:02d}"] = pairwise_outcomes(list(verdict), list(gold))
    return out


def _blas() -> str:
    try:
        from threadpoolctl import threadpool_info

        return "; ".join(
            f"{i.get('internal_api')} {i.get('version')} {i.get('architecture')} threads={i.get('num_threads')}"
            for i in threadpool_info()
        )
    except ImportError:
        return "threadpoolctl not installed"


def main() -> None:
    """Time ours vs scipy on the same data and print both figures."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--configs", type=int, default=50)
    ap.add_argument("--items", type=int, default=308)
    ap.add_argument("--resamples", type=int, default=10_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument(
        "--with-report",
        action="store_true",
        help="also time the whole report computation (every metric, paired differences, flip and tie "
        "rates by setup, agreement with humans) for 5 judges x 10 variants on the same items",
    )
    args = ap.parse_args()
    data = _data(args.configs, args.items)
    metric = PAIRWISE["strict_accuracy"]
    names = list(data)
    ref = names[0]
    print(f"python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}")
    print(
        f"OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE')} OPENBLAS_L2_SIZE={os.environ.get('OPENBLAS_L2_SIZE')}"
    )
    print(f"BLAS: {_blas()}")
    print(
        f"{args.configs} configurations x {args.items} items, B = {args.resamples}, paired vs {ref}"
    )

    ours_times = []
    for _ in range(args.repeats):
        resample_counts.cache_clear()  # each timed run draws its resamples afresh
        t0 = time.perf_counter()
        ours = paired_bootstrap_many(data, ref, metric, resamples=args.resamples, seed=1)
        ours_times.append(time.perf_counter() - t0)

    resample_counts.cache_clear()
    t0 = time.perf_counter()
    for name in names[1:]:
        paired_bootstrap(data[name], data[ref], metric, resamples=args.resamples, seed=1)
    loop_time = time.perf_counter() - t0

    def stat(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
        return np.mean(x, axis=axis) - np.mean(y, axis=axis)

    t0 = time.perf_counter()
    ref_ci = {}
    for name in names[1:]:
        res = sps.bootstrap(
            (data[name]["correct"], data[ref]["correct"]),
            stat,
            paired=True,
            vectorized=True,
            n_resamples=args.resamples,
            method="percentile",
            random_state=np.random.default_rng(2),
        )
        ref_ci[name] = (res.confidence_interval.low, res.confidence_interval.high)
    scipy_time = time.perf_counter() - t0

    worst = max(
        max(abs(ours[n].low - ref_ci[n][0]), abs(ours[n].high - ref_ci[n][1])) for n in names[1:]
    )
    best = min(ours_times)
    print(
        f"ours, paired_bootstrap_many (best of {args.repeats}): {best:.3f} s  (runs: {', '.join(f'{t:.3f}' for t in ours_times)})"
    )
    print(f"ours, paired_bootstrap per configuration:      {loop_time:.3f} s")
    print(f"scipy.stats.bootstrap per configuration:        {scipy_time:.3f} s")
    print(
        f"speed-up vs scipy: {scipy_time / best:.1f}x; target < 2 s: {'met' if best < 2 else 'NOT met'}; "
        f">= 10x: {'met' if scipy_time / best >= 10 else 'NOT met'}"
    )
    print(
        f"largest interval-end difference vs scipy: {worst:.4f} (grid step 1/n = {1 / args.items:.4f})"
    )
    if args.with_report:
        _time_report(args.items, args.resamples)


def _time_report(items: int, resamples: int) -> None:
    """Time `compute_all` on a synthetic tidy frame of 50 configurations (5 judges x 10 variants)."""
    import pandas as pd

    from judgeaudit.report.compute import compute_all

    rng = np.random.default_rng(3)
    gold = rng.choice(["a", "b"], items)
    human = [
        {
            "a": {"rating_mean": float(rng.random() * 10)},
            "b": {"rating_mean": float(rng.random() * 10)},
        }
        for _ in range(items)
    ]
    rows = []
    for j in range(5):
        for v in range(10):
            for i in range(items):
                r = rng.random()
                other = "b" if gold[i] == "a" else "a"
                verdict = "tie" if r < 0.1 else (gold[i] if r < 0.75 else other)
                rows.append(
                    {
                        "log": "synthetic",
                        "config": f"j{j} · v{v}",
                        "judge": f"j{j}",
                        "variant": f"v{v}",
                        "model": f"m/j{j}",
                        "task": "t",
                        "task_args": "{}",
                        "probe": None,
                        "probe_variant": None,
                        "kind": "pairwise",
                        "dataset": "d",
                        "sample_id": str(i),
                        "item_id": f"i{i:04d}",
                        "setup": "human_only" if i % 2 else "human_generated",
                        "gold": gold[i],
                        "verdict": verdict,
                        "split": False,
                        "split_rule": None,
                        "human": human[i],
                        "calls": [{"order": "ab", "call_index": 0, "verdict": verdict}],
                        "input_tokens": 1.0,
                        "output_tokens": 1.0,
                        "total_tokens": 2.0,
                        "cost": 0.01,
                    }
                )
    frame = pd.DataFrame(rows)
    t0 = time.perf_counter()
    compute_all(frame, resamples=resamples)
    print(
        f"whole report computation, 50 configurations x {items} items, B = {resamples}: "
        f"{time.perf_counter() - t0:.2f} s"
    )


if __name__ == "__main__":
    main()
