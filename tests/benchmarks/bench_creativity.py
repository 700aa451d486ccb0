"""Benchmark: accuracy (with bootstrap intervals) of the distance, concept and metric judges on the bundled Human-Only pairs.

Not collected by pytest. Run: `python tests/benchmarks/bench_creativity.py [--embedder tfidf|minilm|auto]
[--judge concept_fuzzy ...]` (default: every judge).
Each judge is fitted on its fit split and scored on the rest (the same split for all), through
real Inspect runs with `--model none`; prints one line per judge and the wall time.
"""

from __future__ import annotations

import argparse
import tempfile
import time

from inspect_ai import eval as inspect_eval

from judgeaudit.judges.score.concepts import CONCEPT_JUDGES, ConceptPrior
from judgeaudit.judges.score.distance import DISTANCE_JUDGES, distance_task
from judgeaudit.judges.score.metric import METRIC_JUDGES, metric_task


def main() -> None:
    """Run every distance (and metric) judge on the bundled pairs and print accuracy with intervals."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--embedder", default="tfidf")
    parser.add_argument("--kind", default="pairwise")
    parser.add_argument("--judge", action="append", help="run only these judges (repeatable)")
    args = parser.parse_args()
    judges = args.judge or [*DISTANCE_JUDGES, *CONCEPT_JUDGES, *METRIC_JUDGES]
    with tempfile.TemporaryDirectory() as logs:
        for judge in judges:
            start = time.perf_counter()
            if judge in METRIC_JUDGES:
                task = metric_task(args.kind, judge, "iclr2026/human_only", embedder=args.embedder)
            else:
                task = distance_task(
                    args.kind,
                    judge,
                    "iclr2026/human_only",
                    embedder=args.embedder,
                    prior_cls=ConceptPrior if judge in CONCEPT_JUDGES else None,
                )
            log = inspect_eval(task, model="none", log_dir=logs, display="none")[0]
            assert log.status == "success", log.error
            assert log.results is not None
            m = {k: v.value for s in log.results.scores for k, v in s.metrics.items()}
            key = "strict_accuracy" if args.kind == "pairwise" else "macro_f1"
            extra = (
                f" soft={m['soft_accuracy']:.3f} ties={m['tie_rate']:.3f}"
                if args.kind == "pairwise"
                else ""
            )
            print(
                f"{judge:18s} n={len(log.samples or [])} {key}={m[key]:.3f} "
                f"[{m[key + '_ci_low']:.3f}, {m[key + '_ci_high']:.3f}]{extra} "
                f"({time.perf_counter() - start:.1f} s)",
                flush=True,
            )


if __name__ == "__main__":
    main()
