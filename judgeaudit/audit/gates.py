"""Audit gates: default thresholds, config-file overrides, pass/warn/fail per gate.

What each gate reads, how it decides on its figure's interval, the defaults and the verdict rule:
docs/reference/gates.md (its table is rendered from `DEFAULT_GATES`).
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any, Literal

from judgeaudit.audit.readings import Figure, Reading, Value
from judgeaudit.errors import UserError
from judgeaudit.stats import excludes_from_above, items_behind
from judgeaudit.stats.projection import interval_scaled, projectable

Statistic = Literal["estimate", "abs", "distance_from_half", "low", "high", "corrected"]
Direction = Literal["max", "min"]
Outcome = Literal["pass", "warn", "fail", "inconclusive", "not_run", "not_applicable"]
OUTCOMES: tuple[str, ...] = ("pass", "warn", "fail", "inconclusive", "not_run", "not_applicable")
STAT_LABELS: dict[str, str] = {
    "estimate": "",
    "abs": "|x|",
    "distance_from_half": "|x - 0.5|",
    "low": "lower bound",
    "high": "upper bound",
    "corrected": "noise-corrected",
}
STATISTICS: tuple[str, ...] = ("estimate", "abs", "distance_from_half", "low", "high", "corrected")
HEADLINE = "headline"  # pseudo-probe name of the unperturbed run's figures


@dataclass(frozen=True)
class Gate:
    """One threshold rule on one figure."""

    name: str
    probe: str
    figure: str
    statistic: Statistic
    direction: Direction
    pass_at: float
    fail_at: float
    description: str = ""

    def rule(self) -> str:
        """The thresholds as printed on the card."""
        stat = STAT_LABELS[self.statistic]
        s = f"{stat} " if stat else ""
        if self.direction == "max":
            return f"pass if {s}<= {self.pass_at:g}; fail if {s}> {self.fail_at:g}"
        if self.statistic == "low":
            return (
                f"pass if the interval excludes {self.pass_at:g} from above (lower bound > {self.pass_at:g})"
                + (
                    "; warn otherwise (never fails)"
                    if self.fail_at <= 0.0
                    else f"; fail if {s}< {self.fail_at:g}"
                )
            )
        if self.fail_at <= 0.0:  # nothing measured here goes below 0: a warn-only gate
            return f"pass if {s}>= {self.pass_at:g}; warn otherwise (never fails)"
        return f"pass if {s}>= {self.pass_at:g}; fail if {s}< {self.fail_at:g}"


DEFAULT_GATES: tuple[Gate, ...] = (
    Gate(
        "accuracy",
        HEADLINE,
        "accuracy",
        "estimate",
        "min",
        0.60,
        0.50,
        "accuracy (pairwise) or macro-F1 (pointwise) of the unperturbed run; chance is 0.5",
    ),
    Gate(
        "above_chance",
        HEADLINE,
        "accuracy",
        "low",
        "min",
        0.50,
        0.0,
        "lower end of the accuracy interval; below chance (0.5) means too few items or too weak a judge to tell",
    ),
    Gate(
        "invalid_rate",
        HEADLINE,
        "invalid_rate",
        "estimate",
        "max",
        0.05,
        0.20,
        "share of items without a valid verdict",
    ),
    Gate(
        "noise_floor",
        "repeat",
        "noise_floor",
        "estimate",
        "max",
        0.10,
        0.25,
        "verdicts that change between two identical runs",
    ),
    Gate(
        "position_flip",
        "position",
        "order_flip_rate",
        "corrected",
        "max",
        0.10,
        0.25,
        "verdicts that change when the two ideas swap places, beyond the noise floor",
    ),
    Gate(
        "position_first",
        "position",
        "first_position_rate",
        "distance_from_half",
        "max",
        0.10,
        0.25,
        "preference for whichever idea is shown first",
    ),
    Gate(
        "presumption",
        "presumption",
        "cue_shift",
        "abs",
        "max",
        0.10,
        0.30,
        "accuracy moved by a cue naming the reviewers' preferred idea",
    ),
    Gate(
        "verbosity",
        "verbosity",
        "padding_shift",
        "abs",
        "max",
        0.10,
        0.30,
        "accuracy moved by padding one idea with content-free text",
    ),
    Gate(
        "surface",
        "surface",
        "surface_flip_rate",
        "corrected",
        "max",
        0.10,
        0.25,
        "verdicts that change under meaning-preserving edits, beyond the noise floor",
    ),
    Gate(
        "injection",
        "injection",
        "injection_shift",
        "abs",
        "max",
        0.10,
        0.30,
        "accuracy moved by an instruction to the evaluator inside one idea",
    ),
    Gate(
        "self_preference",
        "self_preference",
        "self_preference_gap",
        "estimate",
        "max",
        0.10,
        0.25,
        "how much more often generated ideas win when they come from the judge's own backbone",
    ),
    Gate(
        "surface_ratio",
        "surface_ratio",
        "ratio",
        "estimate",
        "max",
        0.25,
        0.50,
        "score shift under meaning-preserving edits, as a share of the typical difference between two ideas of one area",
    ),
)

# Pointwise uses the same names; its directed probes read other figures.
POINTWISE_FIGURES: dict[str, str] = {"verbosity": "padding_novel_shift"}


class GateConfigError(UserError, ValueError):
    """A gates config file that cannot be applied (unknown gate or field, bad value)."""


MORE_ITEMS_CAP = 100_000  # the projection looks no further


@dataclass(frozen=True)
class MoreItems:
    """What more data would buy an inconclusive gate: the smallest number of items at which an interval of
    the same method, at the observed rate(s), lies in one region (`outcome`); `items` None when none up to
    `MORE_ITEMS_CAP` does (or the figure's method has no projection: `note` says which)."""

    items: int | None
    outcome: str | None
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return asdict(self)


@dataclass(frozen=True)
class GateResult:
    """A gate's outcome with the number it was decided on and that number's interval."""

    gate: Gate
    outcome: Outcome
    value: float | None  # the gate's statistic of the figure's estimate (the judged value)
    note: str = ""
    estimate: float | None = None  # the figure's own estimate (noise-corrected for `corrected`)
    interval: tuple[float, float] | None = None  # the judged statistic over the figure's interval
    figure_interval: tuple[float, float] | None = None  # the figure's own interval
    n: int | None = None  # items the interval rests on
    more: MoreItems | None = None  # an inconclusive gate: what more items would buy

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (thresholds included)."""
        return {
            **asdict(self.gate),
            "rule": self.gate.rule(),
            "outcome": self.outcome,
            "value": self.value,
            "estimate": self.estimate,
            "interval": list(self.interval) if self.interval else None,
            "figure_interval": list(self.figure_interval) if self.figure_interval else None,
            "n": self.n,
            "note": self.note,
            "stated": self.stated(),
            "more_items": self.more.to_dict() if self.more else None,
        }

    def judged(self) -> str:
        """The figure and, when the gate reads a statistic of it, the judged value (with intervals)."""
        g = self.gate
        if self.value is None or self.estimate is None:
            return "n/a"
        corrected = g.statistic == "corrected" and "raw value used" not in self.note
        shown = f"{g.figure}{' (noise-corrected)' if corrected else ''} = {_n(self.estimate)}"
        if self.figure_interval is not None:
            shown += f" [{_n(self.figure_interval[0])}, {_n(self.figure_interval[1])}]"
        if g.statistic not in ("estimate", "corrected"):
            shown += f"; judged {STAT_LABELS[g.statistic]} = {_n(self.value)}"
            if self.interval is not None and g.statistic not in ("low", "high"):
                shown += f" [{_n(self.interval[0])}, {_n(self.interval[1])}]"
        return shown

    def stated(self) -> str:
        """The outcome as the card states it, e.g. `FAIL` or `inconclusive (n = 4; interval [0.000, 1.000])`."""
        if self.outcome != "inconclusive":
            return MARKS[self.outcome]
        low, high = self.interval if self.interval is not None else (math.nan, math.nan)
        return f"inconclusive (n = {self.n}; interval [{_n(low)}, {_n(high)}])"

    def describe(self) -> str:
        """One line: the figure, the value the gate judged, the outcome when inconclusive, and the rule."""
        g = self.gate
        if self.value is None:
            return f"{g.name}: {g.description} ({self.note or 'not run'})"
        why = f"; {self.note}" if self.note and self.outcome == "inconclusive" else ""
        return f"{g.name}: {g.description}: {self.judged()}{why} ({g.rule()})"

    def severity(self) -> float:
        """How far beyond the fail (or pass) threshold the value is; for ordering reasons."""
        if self.value is None:
            return 0.0
        g = self.gate
        return self.value - g.fail_at if g.direction == "max" else g.fail_at - self.value


MARKS: dict[str, str] = {
    "pass": "PASS",
    "warn": "WARN",
    "fail": "FAIL",
    "inconclusive": "inconclusive",
    "not_run": "not run",
    "not_applicable": "n/a",
}


def _n(x: float) -> str:
    return f"{x:.3f}" if math.isfinite(x) else str(x)


def load_gates(path: str | Path | None) -> tuple[Gate, ...]:
    """Default gates, with overrides from a YAML/JSON file {gate: {field: value}} if given."""
    if path is None:
        return DEFAULT_GATES
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise GateConfigError(f"cannot read gates file {p}: {exc.strerror or exc}") from exc
    try:
        if p.suffix.lower() == ".json":
            data = json.loads(text)
        else:
            import yaml

            data = yaml.safe_load(text)
    except Exception as exc:  # noqa: BLE001 - report any parse error with the file name
        raise GateConfigError(f"gates file {p} does not parse: {exc}") from exc
    if not isinstance(data, dict):
        raise GateConfigError(f"gates file {p}: expected a mapping of gate name -> fields")
    gates = {g.name: g for g in DEFAULT_GATES}
    allowed = {f.name for f in fields(Gate)} - {"name"}
    for name, override in data.items():
        if name not in gates:
            raise GateConfigError(f"gates file {p}: unknown gate {name!r} (known: {sorted(gates)})")
        if not isinstance(override, dict):
            raise GateConfigError(
                f"gates file {p}: gate {name!r} must map to fields, got {type(override).__name__}"
            )
        bad = set(override) - allowed
        if bad:
            raise GateConfigError(f"gates file {p}: gate {name!r} has unknown fields {sorted(bad)}")
        for key in ("pass_at", "fail_at"):
            if key in override and not isinstance(override[key], int | float):
                raise GateConfigError(
                    f"gates file {p}: gate {name!r} field {key!r} must be a number"
                )
        if "statistic" in override and override["statistic"] not in STATISTICS:
            raise GateConfigError(
                f"gates file {p}: gate {name!r} statistic must be one of {STATISTICS}"
            )
        if "direction" in override and override["direction"] not in ("max", "min"):
            raise GateConfigError(f"gates file {p}: gate {name!r} direction must be 'max' or 'min'")
        gates[name] = replace(gates[name], **override)
    for g in gates.values():
        worse_ok = g.fail_at >= g.pass_at if g.direction == "max" else g.fail_at <= g.pass_at
        if not worse_ok:
            raise GateConfigError(
                f"gates file {p}: gate {g.name!r} has fail_at {g.fail_at} on the passing side of pass_at {g.pass_at}"
            )
    return tuple(gates.values())


def _judged_value(fig: Figure, statistic: str) -> Value:
    """The interval the gate reads: the noise-corrected one for `corrected` when it exists."""
    if statistic == "corrected" and fig.corrected is not None:
        return fig.corrected
    return fig.value


def _abs_range(low: float, high: float) -> tuple[float, float]:
    """{|x| : x in [low, high]}."""
    if low <= 0.0 <= high:
        return 0.0, max(abs(low), abs(high))  # abs: no -0.0 from a point interval at zero
    return min(abs(low), abs(high)), max(abs(low), abs(high))


def statistic_of(fig: Figure, statistic: str) -> tuple[float, float, float]:
    """(judged value, low, high): the gate's statistic of the figure's estimate and interval."""
    v = _judged_value(fig, statistic)
    return statistic_range(statistic, v.estimate, v.low, v.high)


def statistic_range(
    statistic: str, estimate: float, low: float, high: float
) -> tuple[float, float, float]:
    """(judged value, low, high): a gate's statistic of an estimate and its interval."""
    if statistic == "abs":
        return (abs(estimate), *_abs_range(low, high))
    if statistic == "distance_from_half":
        return (abs(estimate - 0.5), *_abs_range(low - 0.5, high - 0.5))
    if statistic == "low":
        return low, low, low
    if statistic == "high":
        return high, high, high
    return estimate, low, high


def region(gate: Gate, x: float) -> Outcome:
    """The region of the gate a value lies in: `pass`, `warn` (between the thresholds) or `fail`."""
    if gate.direction == "max":
        return "pass" if x <= gate.pass_at else "fail" if x > gate.fail_at else "warn"
    return "pass" if x >= gate.pass_at else "fail" if x < gate.fail_at else "warn"


def decide(gate: Gate, fig: Figure) -> GateResult:
    """A gate's outcome on one figure: the region its whole interval lies in, else inconclusive."""
    v = _judged_value(fig, gate.statistic)
    value, low, high = statistic_of(fig, gate.statistic)
    n = items_behind(v)
    extra = {
        "estimate": float(v.estimate),
        "interval": (float(low), float(high)),
        "figure_interval": (float(v.low), float(v.high)),
        "n": n,
    }
    note = (
        ""
        if gate.statistic != "corrected" or fig.corrected is not None
        else "no repeat run: raw value used"
    )
    if v.low == v.high and math.isfinite(v.low):
        # a point interval (every resample agreed) claims a certainty the data lack; an infinite surface
        # ratio on every resample (edits move scores that never separate two ideas) still lies in a region
        return GateResult(
            gate,
            "inconclusive",
            float(value),
            "point interval: every resample agreed",
            **extra,  # type: ignore[arg-type]
        )
    if gate.statistic in ("low", "high"):
        extra["interval"] = (float(v.low), float(v.high))
        outcome = region(gate, value)
        if (
            gate.statistic == "low"
            and gate.direction == "min"
            and outcome == "pass"
            and not excludes_from_above(v, gate.pass_at)
        ):
            outcome = "warn"  # passing needs an interval that excludes pass_at (chance) from above
        return GateResult(gate, outcome, float(value), note, **extra)  # type: ignore[arg-type]
    if math.isnan(low) or math.isnan(
        high
    ):  # an infinite end (a surface ratio over flat scores) lies in a region
        return GateResult(gate, "inconclusive", float(value), "interval undefined", **extra)  # type: ignore[arg-type]
    first, last = region(gate, low), region(gate, high)
    if first != last:
        straddles = "interval straddles a threshold" + (f"; {note}" if note else "")
        return GateResult(gate, "inconclusive", float(value), straddles, **extra)  # type: ignore[arg-type]
    return GateResult(gate, first, float(value), note, **extra)  # type: ignore[arg-type]


def more_items(gate: Gate, fig: Figure, cap: int = MORE_ITEMS_CAP) -> MoreItems:
    """The smallest n (observed items < n <= `cap`) at which the gate decides when every count of the
    figure grows by n / observed (`stats.projection.interval_scaled`), and how it would decide."""
    v = _judged_value(fig, gate.statistic)
    tally = getattr(v, "tally", None)
    if tally is None or not projectable(v.method, tally):
        return MoreItems(None, None, f"no projection for a {v.method} interval")
    observed = items_behind(v)

    def region_at(n: int) -> Outcome | None:
        low, high = interval_scaled(v.method, tally, n / observed, v.confidence)
        _, lo, hi = statistic_range(gate.statistic, v.estimate, low, high)
        first = region(gate, lo)
        return first if first == region(gate, hi) else None

    lo, hi = observed, observed + 1
    while region_at(hi) is None:  # double until it decides, then bisect (more items only narrow it)
        if hi >= cap:
            return MoreItems(
                None,
                None,
                f"does not decide within {cap:,} items: the observed value sits on a threshold",
            )
        lo, hi = hi, min(2 * hi, cap)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if region_at(mid) is not None else (mid, hi)
    return MoreItems(hi, region_at(hi))


def evaluate(
    gates: tuple[Gate, ...],
    readings: dict[str, Reading],
    kind: str = "pairwise",
    project: bool = False,
) -> list[GateResult]:
    """Outcome of every gate on the readings (the headline figures under the `headline` key); with `project`,
    every inconclusive gate also says what more items would buy (`more_items`)."""
    results = []
    for gate in gates:
        figure_name = (
            POINTWISE_FIGURES.get(gate.probe, gate.figure) if kind == "pointwise" else gate.figure
        )
        reading = readings.get(gate.probe)
        if reading is not None and reading.status == "not_applicable":
            results.append(
                GateResult(
                    gate, "not_applicable", None, reading.note or "does not apply to this judge"
                )
            )
            continue
        if reading is None or reading.status != "ok" or figure_name not in reading.figures:
            note = reading.note if reading is not None and reading.note else "probe not run"
            results.append(GateResult(gate, "not_run", None, note))
            continue
        fig = reading.figures[figure_name]
        value = statistic_of(fig, gate.statistic)[0]
        if math.isnan(value):  # undefined; +inf (e.g. a surface ratio over flat scores) is a value
            results.append(GateResult(gate, "not_run", None, "figure undefined on these items"))
            continue
        result = decide(gate, fig)
        if project and result.outcome == "inconclusive":
            result = replace(result, more=more_items(gate, fig))
        results.append(result)
    return results


VERDICTS: dict[str, str] = {"fit": "fit", "warn": "use with care", "fail": "unfit"}


def verdict(results: list[GateResult]) -> tuple[str, list[GateResult]]:
    """Headline verdict and every gate behind it.

    Any fail -> unfit; else any warn or inconclusive gate -> use with care; else a gate that
    did not run -> use with care (an audit cannot vouch for what it did not test); else fit.
    A gate that does not apply to the judge (`not_applicable`) plays no part. The reasons are
    every failed gate (worst first), then every warning and every inconclusive gate; without
    any of those, the gates that did not run.
    """

    def worst_first(outcome: str) -> list[GateResult]:
        return sorted(
            (r for r in results if r.outcome == outcome), key=GateResult.severity, reverse=True
        )

    fails, warns, unsure = worst_first("fail"), worst_first("warn"), worst_first("inconclusive")
    if fails:
        return VERDICTS["fail"], [*fails, *warns, *unsure]
    if warns or unsure:
        return VERDICTS["warn"], [*warns, *unsure]
    not_run = [r for r in results if r.outcome == "not_run"]
    if not_run:
        return VERDICTS["warn"], not_run
    return VERDICTS["fit"], []
