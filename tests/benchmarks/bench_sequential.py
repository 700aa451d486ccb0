"""Benchmark: the false-fail rate of `judgeaudit audit --until-decided` across its looks (the table of
docs/methods/sequential.md).

Planted judges (`audit.planted.simulate_frame`: the provider's own `behaviour.decide`, no model call and
no Inspect) answer the position and repeat probes on `--max-items` synthetic gold-balanced items; each
look audits the first n of them (n0, 2 n0, ..., N: `sequential.look_sizes`, nested as the audit's looks
are). A scenario plants one gate's true figure at its fail threshold or inside its pass region
(`planted.expected_figures` gives the truth; a knob is solved for by bisection), so any fail of that
gate is a false fail. Per scenario and procedure the table gives the share of `--replications` audits
in which the gate fails at some look before the audit stops (`sequential.settled`: every gate decided
or one failed), with its Monte Carlo standard error:

- sequential, Bonferroni (in use): every look's intervals at 1 - 0.05 / K (`sequential.look_confidence`);
- sequential, 95% at every look: the same looks without spending (what the spending protects against);
- one look at N, 95%: a fixed-n audit of N items.

The gates' figures are computed per replicate with the functions the readings call (Clopper-Pearson for
accuracy, invalid rate and the noise floor; `stats.noise_corrected_flip_rate`'s two-sample interval for
position_flip; the score interval on 0, 1/2, 1 for the first-position rate), vectorised over replicates,
and decided by `gates.decide` itself; `--check` replicates per
scenario are also read by `readings.read_all` and decided by `gates.evaluate`, and must agree.

Run: python tests/benchmarks/bench_sequential.py [--replications 1000] [--first 10] [--max-items 80]
[--seed 20260] [--write docs/methods/sequential.md]
"""

from __future__ import annotations

import argparse
import math
import platform
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from doc_block import publish

from judgeaudit.audit.battery import headline
from judgeaudit.audit.gates import DEFAULT_GATES, HEADLINE, decide, evaluate
from judgeaudit.audit.planted import OWN_GENERATOR, Design, expected_figures, simulate_frame
from judgeaudit.audit.readings import Figure, ReadingConfig, read_all
from judgeaudit.audit.sequential import look_confidence, look_sizes
from judgeaudit.providers.planted.behaviour import Behaviour
from judgeaudit.stats import HALVES, Interval, PairedDifference, flip_flags
from judgeaudit.stats.exact import (
    clopper_pearson,
    fisher_exact_p,
    score_interval,
    two_sample_score_interval,
)

PROBES = ("position", "repeat")
GATES = {g.name: g for g in DEFAULT_GATES}
GATED = (
    "accuracy",
    "above_chance",
    "invalid_rate",
    "noise_floor",
    "position_flip",
    "position_first",
)
BEGIN, END = "<!-- sequential:begin -->", "<!-- sequential:end -->"
BASE = Behaviour(accuracy=0.9)


@dataclass(frozen=True)
class Scenario:
    """A planted behaviour whose `gate` has the true statistic `truth` (at its fail threshold or passing)."""

    gate: str
    where: str
    behaviour: Behaviour
    truth: float


def _solve(
    make: Callable[[float], Behaviour], value: Callable[[Behaviour], float], target: float
) -> Behaviour:
    """The behaviour `make(x)`, x in [0, 1], whose `value` is `target` (bisection; `value` rises with x)."""
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if value(make(mid)) < target else (lo, mid)
    return make((lo + hi) / 2)


def _truth(behaviour: Behaviour, probe: str, figure: str, corrected: bool = False) -> float:
    true = expected_figures(behaviour, "pairwise", Design())[probe][figure]
    return float(true.corrected if corrected and true.corrected is not None else true.value)


def scenarios() -> list[Scenario]:
    """Each gate of the position and repeat probes with its true figure at the fail threshold and passing."""
    flip = lambda b: _truth(b, "position", "order_flip_rate", corrected=True)  # noqa: E731
    first = lambda b: abs(_truth(b, "position", "first_position_rate") - 0.5)  # noqa: E731
    out = []
    for where, target in (("at its fail threshold", 0.25), ("in its pass region", 0.05)):
        b = _solve(lambda x: Behaviour(accuracy=0.9, first=x, noise=0.1), flip, target)
        out.append(Scenario("position_flip", where, b, flip(b)))
        b = Behaviour(accuracy=0.9, noise=target)
        out.append(Scenario("noise_floor", where, b, _truth(b, "repeat", "noise_floor")))
        b = _solve(lambda x: Behaviour(accuracy=0.9, first=x), first, target)
        out.append(Scenario("position_first", where, b, first(b)))
    return out


# ---- the gates' figures, vectorised over replicates ------------------------------------------------------


def per_item(frame: pd.DataFrame) -> dict[str, np.ndarray]:
    """Per item (in item order): correct, invalid, noise flip, order flip and first-position value."""
    table = (
        frame.assign(arm=frame["probe"].fillna("base") + ":" + frame["probe_variant"].fillna(""))
        .pivot(index="item_id", columns="arm", values="verdict")
        .sort_index()
    )
    gold = frame[frame["probe"].isna()].set_index("item_id").sort_index()["gold"].to_numpy()
    base, ab, ba = (
        table[c].to_numpy(dtype=object) for c in ("base:", "position:order_ab", "position:order_ba")
    )
    decided = np.isin(ab, ("a", "b")) & np.isin(ba, ("a", "b"))
    first = ((ab == "a").astype(float) + (ba == "b").astype(float)) / 2
    return {
        "correct": (base == gold).astype(float),
        "invalid": (base == "invalid").astype(float),
        "noise": flip_flags(
            table["repeat:run1"].to_numpy(dtype=object), table["repeat:run2"].to_numpy(dtype=object)
        ),
        "flip": flip_flags(ab, ba),
        "first": np.where(decided, first, np.nan),
    }


def _rate(flags: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    used = np.isfinite(flags)
    k, n = np.nansum(flags, axis=1), used.sum(axis=1)
    lo, hi = clopper_pearson(k, n, confidence)
    return k / np.maximum(n, 1), lo, hi


_FISHER: dict[tuple[int, int, int], float] = {}


def _corrected(
    flip: np.ndarray, noise: np.ndarray, confidence: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`stats.noise_corrected_flip_rate` per replicate (0/1 flips: Fisher's widening to 0 included)."""
    used = np.isfinite(flip) & np.isfinite(noise)
    m = used.sum(axis=1)
    s1, s2 = np.where(used, flip, 0).sum(axis=1), np.where(used, noise, 0).sum(axis=1)
    lo, hi = two_sample_score_interval(s1, m, s2, m, confidence)
    for r in range(len(m)):
        key = (int(s1[r]), int(s2[r]), int(m[r]))
        if key not in _FISHER:
            _FISHER[key] = fisher_exact_p(key[0], key[2], key[1], key[2])
        if _FISHER[key] >= 1 - confidence:
            lo[r], hi[r] = min(lo[r], 0.0), max(hi[r], 0.0)
    return (s1 - s2) / m, lo, hi


def _halves(values: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    counts = np.stack([(values == v).sum(axis=1) for v in HALVES], axis=1).astype(float)
    lo, hi = score_interval(counts, HALVES, confidence)
    return np.nanmean(values, axis=1), lo, hi


def outcomes_at(items: dict[str, np.ndarray], n: int, confidence: float) -> dict[str, np.ndarray]:
    """Gate name -> outcome per replicate on the first n items (arrays replicates x items), by `gates.decide`."""
    cut = {k: v[:, :n] for k, v in items.items()}
    accuracy = _rate(cut["correct"], confidence)
    figures = {
        "accuracy": accuracy,
        "above_chance": accuracy,
        "invalid_rate": _rate(cut["invalid"], confidence),
        "noise_floor": _rate(cut["noise"], confidence),
        "position_first": _halves(cut["first"], confidence),
    }
    corrected = _corrected(cut["flip"], cut["noise"], confidence)
    out = {}
    for name, (est, lo, hi) in figures.items():
        out[name] = np.array(
            [
                decide(
                    GATES[name],
                    Figure(name, name, Interval(e, a, b, confidence, "", None, None, n)),
                ).outcome
                for e, a, b in zip(est, lo, hi, strict=True)
            ]
        )
    raw = Interval(math.nan, math.nan, math.nan, confidence, "", None, None, n)
    out["position_flip"] = np.array(
        [
            decide(
                GATES["position_flip"],
                Figure(
                    "flip",
                    "flip",
                    raw,
                    PairedDifference(e, a, b, math.nan, False, confidence, "", None, None, n),
                ),
            ).outcome
            for e, a, b in zip(*corrected, strict=True)
        ]
    )
    return out


def _settled(outcomes: dict[str, np.ndarray]) -> np.ndarray:
    """Per replicate: `sequential.settled` (every gate decided, or one failed)."""
    states = np.stack([outcomes[g] for g in GATED], axis=1)
    return np.all(np.isin(states, ("pass", "warn", "fail")), axis=1) | np.any(
        states == "fail", axis=1
    )


def false_fails(
    items: dict[str, np.ndarray], gate: str, sizes: list[int], confidence: float
) -> tuple[np.ndarray, np.ndarray]:
    """Per replicate: whether `gate` failed at some look before the audit stopped, and the items at the stop."""
    reps = next(iter(items.values())).shape[0]
    failed, running = np.zeros(reps, dtype=bool), np.ones(reps, dtype=bool)
    stop = np.full(reps, sizes[-1])
    for n in sizes:
        outcomes = outcomes_at(items, n, confidence)
        failed |= running & (outcomes[gate] == "fail")
        done = running & _settled(outcomes)
        stop[done] = n
        running &= ~done
    return failed, stop


def check(
    scenario: Scenario,
    frames: list[pd.DataFrame],
    generators: list[dict[str, str | None]],
    sizes: list[int],
    confidence: float,
) -> None:
    """The vectorised decisions agree with `read_all` + `gates.evaluate` on these replicates, at every look."""
    items = _stack([per_item(f) for f in frames])
    for n in sizes:
        fast = outcomes_at(items, n, confidence)
        for r, (frame, gens) in enumerate(zip(frames, generators, strict=True)):
            sub = frame[frame["item_id"].isin(sorted(set(frame["item_id"]))[:n])]
            cfg = ReadingConfig(resamples=200, confidence=confidence)
            readings = read_all(sub, PROBES, cfg, judge_model=OWN_GENERATOR, generators=gens)
            slow = {
                g.gate.name: g.outcome
                for g in evaluate(
                    DEFAULT_GATES,
                    {HEADLINE: headline(sub, "pairwise", cfg), **readings},
                    "pairwise",
                )
            }
            for name in GATED:
                if slow[name] != fast[name][r]:
                    raise AssertionError(
                        f"{scenario.gate} {scenario.where}, look {n}, replicate {r}: {name} is "
                        f"{slow[name]} by the readings, {fast[name][r]} here"
                    )


def _stack(rows: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    return {k: np.stack([r[k] for r in rows]) for k in rows[0]}


def main() -> None:
    """Simulate every scenario, print the table, and with --write put it into the document."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--replications", type=int, default=1000)
    ap.add_argument("--first", type=int, default=10, help="items of the first look")
    ap.add_argument("--max-items", type=int, default=80, help="items of the last look")
    ap.add_argument(
        "--seed", type=int, default=20260, help="first replicate index (the planted draws' key)"
    )
    ap.add_argument(
        "--check",
        type=int,
        default=3,
        help="replicates per scenario also read by read_all + evaluate",
    )
    ap.add_argument(
        "--write", type=Path, help="replace the block between the sequential markers of this file"
    )
    args = ap.parse_args()
    sizes = look_sizes(args.first, args.max_items)
    spent = look_confidence(len(sizes))
    rows = []
    for sc in scenarios():
        started = time.perf_counter()
        sims = [
            simulate_frame(
                sc.behaviour, "pairwise", args.max_items, PROBES, Design(), replicate=args.seed + r
            )
            for r in range(args.replications)
        ]
        check(
            sc,
            [s.frame for s in sims[: args.check]],
            [s.generators for s in sims[: args.check]],
            sizes,
            spent,
        )
        items = _stack([per_item(s.frame) for s in sims])
        bonferroni, stop = false_fails(items, sc.gate, sizes, spent)
        unspent, _ = false_fails(items, sc.gate, sizes, 0.95)
        single, _ = false_fails(items, sc.gate, [args.max_items], 0.95)
        rows.append((sc, bonferroni.mean(), unspent.mean(), single.mean(), stop.mean()))
        print(f"[{sc.gate} {sc.where}: {time.perf_counter() - started:.1f} s]", flush=True)
    se = math.sqrt(0.05 * 0.95 / args.replications)

    def knobs(b: Behaviour) -> str:
        return ", ".join(
            f"{k} {v:.3f}" for k, v in b.to_dict().items() if v != Behaviour().to_dict()[k]
        )

    lines = [
        BEGIN,
        "",
        f"Generated by `python tests/benchmarks/bench_sequential.py --replications {args.replications} "
        f"--first {args.first} --max-items {args.max_items} --seed {args.seed}` (numpy {np.__version__}, Python "
        f"{platform.python_version()}). Looks at {', '.join(map(str, sizes))} items; Bonferroni: every interval at "
        f"{spent:.4f}. Cells: share of {args.replications} simulated audits in which the gate fails at some look "
        f"before the audit stops (Monte Carlo standard error at most {math.sqrt(0.25 / args.replications):.3f}, "
        f"{se:.3f} near 0.05).",
        "",
        "| gate | true figure | planted judge | sequential, Bonferroni (in use) | sequential, 95% at every look | "
        "one look at N, 95% | mean items at the stop (in use) |",
        "|---|---|---|---|---|---|---|",
    ]
    for sc, bon, raw, one, stop in rows:
        lines.append(
            f"| {sc.gate} | {sc.truth:.3f} ({sc.where}) | {knobs(sc.behaviour)} | {bon:.3f} | {raw:.3f} | "
            f"{one:.3f} | {stop:.1f} |"
        )
    lines += ["", END]
    publish("\n".join(lines), args.write, BEGIN, END)


if __name__ == "__main__":
    main()
