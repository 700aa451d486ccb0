"""What an audit can detect: each gate's power and false-fail rate by simulation with planted judges.

For each gate a planted judge (accuracy 0.9, one knob set) whose true figure (`audit.planted.
true_statistic`, exact) sits at a chosen place: in the fail region at the fail threshold + 0.05,
+ 0.15, + 0.30 and at the most extreme value the knob reaches; in the pass region at the pass
threshold and at no bias. Per cell (gate, true figure, n items) `--replications` batteries are
drawn (`audit.power`: the exact per-item outcome distribution of the planted provider, read by the
audit's own readings and gates), and the table gives P(fail) and P(decides) = 1 - P(inconclusive),
with their Monte Carlo standard errors. The family-wise row: an unbiased planted judge
(`planted/accurate`) run through every pairwise probe; the share of batteries in which any gate
fails. No Inspect, no model call; pairwise items (the gold sides half and half, every surface edit
changing every item).

    python tests/benchmarks/bench_power.py [--replications 40] [--pass-replications 100]
        [--surface-replications 20] [--surface-pass-replications 40] [--fw-replications 100]
        [--n 6 10 20 50 150] [--seed 20261] [--gates ...] [--no-family-wise] [--save PART.json] [--write]
    python tests/benchmarks/bench_power.py --assemble PART.json ... [--write]

Parts computed apart (`--gates ... --save`, e.g. in two processes) are put together by `--assemble`.

`--write` puts the tables into docs/methods/power.md and the short one into docs/guides/audits.md
(between their `power:begin` / `power:end` markers).
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats

from judgeaudit.audit.battery import PROBES_BY_KIND
from judgeaudit.audit.gates import DEFAULT_GATES, Gate
from judgeaudit.audit.planted import Design, expected_figures, true_statistic
from judgeaudit.audit.power import Simulator, item_patterns, outcome_counts
from judgeaudit.audit.readings import ReadingConfig
from judgeaudit.providers.planted.behaviour import MAX_NOISE, PRESETS, Behaviour
from judgeaudit.stats import intervals

ROOT = Path(__file__).resolve().parents[2]
KIND = "pairwise"
BASE = Behaviour(accuracy=0.9)
# gate -> (the knob that moves its figure, the probes its battery runs)
KNOBS: dict[str, tuple[str, tuple[str, ...]]] = {
    "accuracy": ("accuracy", ()),
    "invalid_rate": ("invalid", ()),
    "noise_floor": ("noise", ("repeat",)),
    "position_flip": ("first", ("position", "repeat")),
    "position_first": ("first", ("position",)),
    "presumption": ("cue", ("presumption",)),
    "verbosity": ("padding", ("verbosity",)),
    "surface": ("surface", ("surface", "repeat")),
    "injection": ("injection", ("injection",)),
    "self_preference": ("self_preference", ("self_preference",)),
}
NOT_SIMULATED = {
    "above_chance": "never fails (it warns when the accuracy interval does not exclude chance)",
    "surface_ratio": "score judges only (no planted judge scores)",
}


@dataclass(frozen=True)
class Level:
    """A place for the true figure: its label, the region it lies in, and the gate statistic's value."""

    label: str
    region: str
    target: float
    knob: float | None = None  # the knob's value when known (its ends), else solved for `target`


def knob_range(knob: str) -> tuple[float, float]:
    return 0.0, MAX_NOISE if knob == "noise" else 1.0


def truth(gate: Gate, knob: str, value: float) -> float:
    """The gate statistic's true value for the base judge with `knob` at `value`."""
    behaviour = replace(BASE, **{knob: value})
    out = true_statistic(gate, expected_figures(behaviour, KIND, Design()), KIND)
    assert out is not None, gate.name
    return out


def solve(gate: Gate, knob: str, target: float) -> float:
    """The knob value whose true statistic is `target` (bisection; the statistic rises with the knob)."""
    lo, hi = knob_range(knob)
    for _ in range(50):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if truth(gate, knob, mid) < target else (lo, mid)
    return (lo + hi) / 2


def levels(gate: Gate, knob: str) -> list[Level]:
    """Fail region: threshold + 0.05, + 0.15, + 0.30 (those the knob reaches) and the extreme; pass
    region: the pass threshold and no bias (perfect accuracy for the accuracy gate)."""
    lo, hi = knob_range(knob)
    sign = 1.0 if gate.direction == "max" else -1.0
    best, worst = (lo, hi) if gate.direction == "max" else (hi, lo)
    extreme = truth(gate, knob, worst)
    out = [
        Level(f"fail {'+' if sign > 0 else '-'} {d:.2f}", "fail", gate.fail_at + sign * d)
        for d in (0.05, 0.15, 0.30)
        if sign * (extreme - (gate.fail_at + sign * d)) > 1e-9
    ]
    out.append(Level("extreme", "fail", extreme, worst))
    out += [
        Level("pass threshold", "pass", gate.pass_at),
        Level(
            "no bias" if gate.direction == "max" else "perfect",
            "pass",
            truth(gate, knob, best),
            best,
        ),
    ]
    return out


@dataclass(frozen=True)
class Cell:
    """One gate at one true figure and n: outcome shares over replications."""

    fail: float
    decides: float
    replications: int


def se(p: float, r: int) -> float:
    """Monte Carlo standard error of a share."""
    return math.sqrt(p * (1 - p) / r)


def upper(p: float, r: int) -> float:
    """One-sided 95% Clopper-Pearson upper bound of a share p seen in r replications."""
    k = round(p * r)
    return 1.0 if k >= r else float(stats.beta.ppf(0.95, k + 1, r - k))


def memoized_score_interval() -> None:
    """Reuse the score interval of a count table already seen (a pure function of its arguments; the
    same tables recur across replications): the readings' results are unchanged, only sooner."""
    original = intervals.score_interval
    seen: dict[tuple[object, ...], tuple[np.ndarray, np.ndarray]] = {}

    def score_interval(
        counts: Any, support: Any, confidence: float = 0.95, cc: float | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        c = np.asarray(counts, dtype=float)
        key = (c.shape, c.tobytes(), tuple(np.asarray(support, dtype=float)), confidence, cc)
        if key not in seen:
            seen[key] = original(counts, support, confidence, cc)
        low, high = seen[key]
        return low.copy(), high.copy()

    intervals.score_interval = score_interval  # type: ignore[assignment]


def cell_text(c: Cell, show_decides: bool = True) -> str:
    text = f"{c.fail:.2f}"
    return f"{text} ({c.decides:.2f})" if show_decides else text


def measure(
    gate: Gate,
    knob: str,
    probes: tuple[str, ...],
    level: Level,
    ns: Sequence[int],
    reps: int,
    seed: int,
    cfg: ReadingConfig,
) -> tuple[float, dict[int, Cell]]:
    """(knob value, n -> cell) for one gate at one level."""
    value = solve(gate, knob, level.target) if level.knob is None else level.knob
    sim = Simulator(item_patterns(replace(BASE, **{knob: value}), KIND, probes), config=cfg)
    cells = {}
    for n in ns:
        rng = np.random.default_rng(
            [seed, sum(map(ord, gate.name)), int(round(level.target * 1000)), n]
        )
        counts = outcome_counts(sim.run(n, reps, rng), gate.name)
        cells[n] = Cell(counts["fail"] / reps, 1 - counts["inconclusive"] / reps, reps)
    return value, cells


def family_wise(
    ns: Sequence[int], reps: int, seed: int, cfg: ReadingConfig
) -> dict[int, tuple[float, dict[str, int]]]:
    """n -> (share of batteries where any gate fails, fails per gate) for planted/accurate, every probe."""
    sim = Simulator(
        item_patterns(PRESETS["accurate"].behaviour, KIND, PROBES_BY_KIND[KIND]), config=cfg
    )
    out = {}
    for n in ns:
        runs = sim.run(n, reps, np.random.default_rng([seed, 0, n]))
        per_gate = {g.name: sum(r[g.name].outcome == "fail" for r in runs) for g in DEFAULT_GATES}
        out[n] = (sum(any(j.outcome == "fail" for j in r.values()) for r in runs) / reps, per_gate)
    return out


def compute(args: argparse.Namespace, log: Callable[[str], None]) -> dict[str, Any]:
    """The cells of the gates in `args.gates` (and the family-wise rate unless `--no-family-wise`)."""
    cfg = ReadingConfig(resamples=1000, seed=args.seed)
    gates = {g.name: g for g in DEFAULT_GATES}
    started = time.perf_counter()
    rows = []
    for name in args.gates:
        knob, probes = KNOBS[name]
        for level in levels(gates[name], knob):
            reps = (
                (args.surface_replications if name == "surface" else args.replications)
                if level.region == "fail"
                else (
                    args.surface_pass_replications if name == "surface" else args.pass_replications
                )
            )
            value, cells = measure(gates[name], knob, probes, level, args.n, reps, args.seed, cfg)
            rows.append(
                {
                    "gate": name,
                    "label": level.label,
                    "region": level.region,
                    "target": level.target,
                    "knob": knob,
                    "value": value,
                    "cells": {
                        str(n): [c.fail, c.decides, c.replications] for n, c in cells.items()
                    },
                }
            )
            log(f"{name:16s} {level.label:16s} {time.perf_counter() - started:7.1f} s")
    out: dict[str, Any] = {
        "seed": args.seed,
        "n": args.n,
        "rows": rows,
        "seconds": time.perf_counter() - started,
    }
    if not args.no_family_wise:
        fw = family_wise(args.n, args.fw_replications, args.seed, cfg)
        out["family_wise"] = {
            "replications": args.fw_replications,
            "cells": {
                str(n): {"any": share, "per_gate": per_gate} for n, (share, per_gate) in fw.items()
            },
        }
        log(f"family-wise {time.perf_counter() - started:7.1f} s")
        out["seconds"] = time.perf_counter() - started
    return out


def render(parts: Sequence[dict[str, Any]]) -> tuple[str, str]:
    """(the long Markdown section for docs/methods/power.md, the short one for docs/guides/audits.md) from computed parts."""
    ns = parts[0]["n"]
    order = list(KNOBS)
    rows = sorted(
        (r for part in parts for r in part["rows"]), key=lambda r: order.index(r["gate"])
    )  # stable: levels keep their order
    [fw_part] = [p for p in parts if "family_wise" in p]
    fw = fw_part["family_wise"]
    seconds = sum(p["seconds"] for p in parts)
    reps = sorted(
        {(r["gate"] == "surface", r["region"], c[2]) for r in rows for c in r["cells"].values()}
    )
    described = "; ".join(
        f"{k} per {region}-region cell{' (surface)' if surface else ''}"
        for surface, region, k in reps
    )
    how = "--write" if len(parts) == 1 else f"in {len(parts)} parts, `--assemble ... --write`"
    stamp = (
        f"Generated by `python tests/benchmarks/bench_power.py` ({how}; seed {parts[0]['seed']}; replications: "
        f"{described}; {fw['replications']} for the family-wise rate; numpy {np.__version__}, Python "
        f"{platform.python_version()}; {seconds:.0f} s of simulation on one core of a shared machine)."
    )
    head = "| gate | true figure | region | knob | " + " | ".join(f"n = {n}" for n in ns) + " |"
    table = [head, "|---" * (4 + len(ns)) + "|"]
    worst_pass: dict[str, tuple[float, int, int]] = {}
    pooled: dict[str, list[int]] = {}  # gate -> [fails, replications] over every pass-region cell
    short: dict[str, tuple[str, list[str]]] = {}
    max_se = 0.0
    for r in rows:
        cells = {int(n): Cell(*c) for n, c in r["cells"].items()}
        table.append(
            f"| {r['gate']} | {r['label']} ({r['target']:.3f}) | {r['region']} | {r['knob']} = {r['value']:.3f} | "
            + " | ".join(cell_text(cells[n]) for n in ns)
            + " |"
        )
        max_se = max([max_se, *(se(c.fail, c.replications) for c in cells.values())])
        if r["label"] in ("fail + 0.15", "fail - 0.15") or (
            r["label"] == "extreme" and r["gate"] not in short
        ):
            short[r["gate"]] = (f"{r['target']:.2f}", [f"{cells[n].fail:.2f}" for n in ns])
        if r["region"] == "pass":
            for n in ns:
                c = cells[n]
                seen = pooled.setdefault(r["gate"], [0, 0])
                seen[0] += round(c.fail * c.replications)
                seen[1] += c.replications
                if r["gate"] not in worst_pass or c.fail > worst_pass[r["gate"]][0]:
                    worst_pass[r["gate"]] = (c.fail, n, c.replications)
    fw_cells = {int(n): v for n, v in fw["cells"].items()}
    fw_failing = sorted({g for v in fw_cells.values() for g, k in v["per_gate"].items() if k})
    long_md = "\n".join(
        [
            stamp,
            "",
            "Cells: P(fail) (P(decides), i.e. not inconclusive), pairwise items; the judge answers right on 90% of "
            "items and one knob moves the gate's figure to the true value shown (`true_statistic`). Monte Carlo "
            f"standard error of a cell: sqrt(p (1 - p) / R), at most {max_se:.3f} here; a share of 0 in R replications "
            "bounds the true rate below about 3 / R at 95%.",
            "",
            *table,
            "",
            "**False fails, by gate** (the highest P(fail) over the pass-region rows and every n):",
            "",
            "| gate | highest P(fail) in the pass region | at n | replications | 95% upper bound | at most 1% in every cell? "
            "| fails in all its pass-region cells |",
            "|---|---|---|---|---|---|---|",
            *(
                f"| {g} | {p:.3f} | {n} | {r} | {upper(p, r):.3f} | "
                f"{'yes' if upper(p, r) <= 0.01 else 'not shown (too few replications)' if p <= 0.01 else 'no'} | "
                f"{pooled[g][0]} of {pooled[g][1]} |"
                for g, (p, n, r) in worst_pass.items()
            ),
            "",
            "Whatever the replications, a pass-region judge fails a gate only when the 95% interval of its figure "
            "lies wholly beyond the fail threshold, i.e. misses the true value on one side: at most 2.5% for intervals "
            "of the coverage measured on [the intervals page](intervals.md), and far less when the truth sits at or below "
            "the pass threshold, 0.15 to 0.20 below the fail threshold.",
            "",
            "**Family-wise false-fail rate** (planted/accurate: accuracy 0.9, no bias; every pairwise probe; "
            f"{fw['replications']} batteries per n; any gate failing):",
            "",
            "| judge | " + " | ".join(f"n = {n}" for n in ns) + " |",
            "|---" * (1 + len(ns)) + "|",
            "| planted/accurate | "
            + " | ".join(
                f"{fw_cells[n]['any']:.3f} (95% upper bound {upper(fw_cells[n]['any'], fw['replications']):.3f})"
                for n in ns
            )
            + " |",
            "",
            f"Gates that failed in any of them: {', '.join(fw_failing) or 'none'}.",
            "",
            "Not simulated: " + "; ".join(f"{g}: {why}" for g, why in NOT_SIMULATED.items()) + ".",
        ]
    )
    short_md = "\n".join(
        [
            stamp,
            "",
            "P(the gate fails) for a judge whose true figure lies 0.15 beyond the fail threshold (the column "
            "`true`; the knob's extreme where 0.15 is out of reach), by number of items; the last column: the "
            "highest P(fail) seen for a judge in the pass region (at the pass threshold or unbiased), any n. "
            "Full table, P(decides), standard errors: [the power page](../methods/power.md).",
            "",
            "| gate | true | " + " | ".join(f"n = {n}" for n in ns) + " | false fail |",
            "|---" * (3 + len(ns)) + "|",
            *(
                f"| {g} | {t} | " + " | ".join(v) + f" | {worst_pass[g][0]:.3f} |"
                for g, (t, v) in short.items()
            ),
            "| any gate, planted/accurate | - | "
            + " | ".join(f"{fw_cells[n]['any']:.3f}" for n in ns)
            + " | family-wise |",
        ]
    )
    return long_md, short_md


def write_between(path: Path, text: str) -> None:
    """Replace what lies between the file's `power:begin` and `power:end` markers."""
    source = path.read_text(encoding="utf-8")
    pattern = re.compile(r"(<!-- power:begin -->\n).*?(<!-- power:end -->)", re.S)
    if not pattern.search(source):
        sys.exit(f"{path}: no power:begin / power:end markers")
    path.write_text(
        pattern.sub(lambda m: m.group(1) + "\n" + text + "\n\n" + m.group(2), source),
        encoding="utf-8",
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replications", type=int, default=40)
    parser.add_argument("--pass-replications", type=int, default=100)
    parser.add_argument(
        "--surface-replications",
        type=int,
        default=20,
        help="per fail-region cell of the surface gate (its reading of four edits is the slowest)",
    )
    parser.add_argument("--surface-pass-replications", type=int, default=40)
    parser.add_argument("--fw-replications", type=int, default=100)
    parser.add_argument("--n", type=int, nargs="+", default=[6, 10, 20, 50, 150])
    parser.add_argument("--seed", type=int, default=20261)
    parser.add_argument("--gates", nargs="*", default=list(KNOBS), choices=list(KNOBS))
    parser.add_argument("--no-family-wise", action="store_true")
    parser.add_argument("--save", type=Path, help="write the computed cells to this JSON file")
    parser.add_argument(
        "--assemble", type=Path, nargs="+", help="render saved JSON parts instead of computing"
    )
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args(argv)
    if args.assemble:
        parts = [json.loads(p.read_text(encoding="utf-8")) for p in args.assemble]
    else:
        memoized_score_interval()
        parts = [compute(args, lambda line: print(line, file=sys.stderr, flush=True))]
        if args.save:
            args.save.write_text(json.dumps(parts[0]), encoding="utf-8")
    if any("family_wise" in p for p in parts):
        long_md, short_md = render(parts)
        print(long_md)
        if args.write:
            write_between(ROOT / "docs" / "methods" / "power.md", long_md)
            write_between(ROOT / "docs" / "guides" / "audits.md", short_md)


if __name__ == "__main__":
    main()
