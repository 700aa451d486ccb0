"""Every probe end to end with planted judges: the audit's battery (`run_audit`, real Inspect
eval-sets of the judge tasks on real bundled items, `planted/<preset>` answering) measures each
preset's planted figure back.

Each preset's battery runs once through Inspect, and its verdicts must be exactly the ones
`audit.planted` rebuilds without Inspect from the same prompts (`battery_calls`, `frame_of_calls`).
The readings' claim is then checked over replays of that battery by planted judges of the same
behaviour under other names (independent draws, same items): the planted figure's true value
(`expected_figures`, for the audited items' mix) must lie inside the reading's 95% interval in at
least `MIN_COVERAGE` of `REPLAYS` replays, the Inspect run's name among them. A valid 95% interval,
whatever its method, covers it about 19 times in 20; one draw alone misses one time in twenty
(the first runs of this test drew two such misses, both on surface edits: the pooled pairwise
surface figure 0.700 [0.638, 0.763] against 0.770, the pointwise casing flip rate 0.625
[0.475, 0.775] against 0.800, on 40 items). An unbiased planted judge's bias figures are zero.
20 items and 20 replays keep the suite short (a valid interval covers at any n); which gate each
preset fails at 10 items is tests/audit/test_planted_gates.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest

from judgeaudit.audit.battery import (
    AuditResult,
    AuditSpec,
    generators_of,
    headline,
    label_runs,
    select_items,
)
from judgeaudit.audit.frame import frame_from_logdir
from judgeaudit.audit.planted import (
    BatteryCall,
    Design,
    battery_calls,
    design_of,
    expected_figures,
    frame_of_calls,
    with_generated_sides,
)
from judgeaudit.audit.readings import COLUMNS, ReadingConfig, read_all
from judgeaudit.audit.run import run_audit
from judgeaudit.cli import main
from judgeaudit.data.contract import Item
from judgeaudit.data.jsonl import write_items
from judgeaudit.providers.planted.behaviour import PRESETS
from judgeaudit.providers.planted.key import load_key

REPLAYS = 20
MIN_COVERAGE = 0.75
BUNDLED = "iclr2026/human_only"
ITEMS = {"pairwise": 20, "pointwise": 20}
OWN = "x/self_preferring"  # a generator whose backbone is the judge's own name (planted/self_preferring)
# (preset, probes run, (probe, figure) planted by the preset)
PAIRWISE = [
    (
        "first_shown",
        ("position", "repeat"),
        [("position", "first_position_rate"), ("position", "order_flip_rate")],
    ),
    ("cue_follower", ("presumption",), [("presumption", "cue_shift")]),
    ("padding_chooser", ("verbosity",), [("verbosity", "padding_shift")]),
    ("injection_follower", ("injection",), [("injection", "injection_shift")]),
    ("surface_sensitive", ("surface", "repeat"), [("surface", "surface_flip_rate")]),
    ("noisy", ("repeat",), [("repeat", "noise_floor")]),
    ("rambling", ("repeat",), [("headline", "invalid_rate"), ("repeat", "invalid_rate")]),
    ("self_preferring", ("self_preference",), [("self_preference", "self_preference_gap")]),
]
POINTWISE = [
    ("cue_follower", ("presumption",), [("presumption", "cue_shift")]),
    ("padding_chooser", ("verbosity",), [("verbosity", "padding_novel_shift")]),
    ("injection_follower", ("injection",), [("injection", "injection_shift")]),
    ("surface_sensitive", ("surface", "repeat"), [("surface", "surface_flip_rate")]),
    ("noisy", ("repeat",), [("repeat", "noise_floor")]),
    ("rambling", ("repeat",), [("headline", "invalid_rate")]),
]
ALL = {
    "pairwise": ("position", "presumption", "verbosity", "surface", "injection", "repeat"),
    "pointwise": ("presumption", "verbosity", "surface", "injection", "repeat"),
}


def self_preference_set(root: Path) -> Path:
    """Bundled pairs whose not-novel side is marked generated: by the judge's own backbone on even
    items, by another on odd ones (the planted judge's answer key is this set)."""
    items = with_generated_sides(
        select_items(BUNDLED, "pairwise", ITEMS["pairwise"]), OWN, "openai/gpt-4o"
    )
    write_items(root / "pairwise.jsonl", items)
    return root


@dataclass(frozen=True)
class Battery:
    """One planted preset's audit: its result, the items' design, the battery's calls and items."""

    result: AuditResult
    design: Design
    calls: list[BatteryCall]
    items: list[Item]


def audit(kind: str, preset: str, probes: tuple[str, ...], out: Path) -> Battery:
    """The battery of `planted/<preset>` through Inspect on the first items of the bundled set (or the
    self-preference set); its verdicts must be the ones rebuilt without Inspect."""
    dataset, args = BUNDLED, dict[str, str]()
    if preset == "self_preferring":
        dataset = str(self_preference_set(out.parent / "hg"))
        args = {"dataset": dataset}
    spec = AuditSpec(
        model=f"planted/{preset}",
        dataset=dataset,
        kind=kind,
        limit=ITEMS[kind],
        probes=probes,
        resamples=2000,
        model_args=args,
    )
    result, _ = run_audit(spec, out)
    items = select_items(dataset, kind, ITEMS[kind])
    calls = battery_calls(kind, items, probes, load_key(args.get("dataset")), spec.seed, preset)
    logged = label_runs(frame_from_logdir(out / "logs").frame, spec.seed)
    replayed = frame_of_calls(PRESETS[preset].behaviour, preset, calls)
    assert rows(logged) == rows(replayed) and len(rows(logged)) > len(items)
    return Battery(result, design_of(items, spec.seed), calls, items)


def rows(frame: pd.DataFrame) -> list[tuple[str, ...]]:
    """A verdict frame as sorted rows of text (missing values as '-')."""
    return sorted(
        tuple("-" if v is None or v != v else str(v) for v in row)
        for row in frame[list(COLUMNS)].itertuples(index=False)
    )


def measured(result: AuditResult, probe: str, figure: str) -> tuple[float, float, float]:
    reading = result.headline if probe == "headline" else result.readings[probe]
    value = reading.figures[figure].value
    return value.estimate, value.low, value.high


def replay_interval(
    battery: Battery,
    kind: str,
    preset: str,
    judge: str,
    probes: tuple[str, ...],
    probe: str,
    figure: str,
    cfg: ReadingConfig,
) -> tuple[float, float]:
    """The interval of one figure when the judge `judge` (behaviour of `preset`) answers the battery."""
    frame = frame_of_calls(PRESETS[preset].behaviour, judge, battery.calls)
    if probe == "headline":
        value = headline(frame, kind, cfg).figures[figure].value
    else:
        # only the figure's own probe: each probe's reading depends on the frame alone, not on which
        # other probes are read beside it (`read_all`), so the interval is the one the full read gives
        readings = read_all(
            frame,
            (probe,),
            cfg,
            judge_model=f"planted/{judge}",
            generators=generators_of(battery.items),
        )
        value = readings[probe].figures[figure].value
    return value.low, value.high


@pytest.mark.slow
@pytest.mark.parametrize(
    ("kind", "preset", "probes", "planted"),
    [("pairwise", *case) for case in PAIRWISE] + [("pointwise", *case) for case in POINTWISE],
)
def test_each_planted_bias_is_measured_back_inside_its_interval(
    kind: str, preset: str, probes: tuple[str, ...], planted: list[tuple[str, str]], tmp_path: Path
) -> None:
    battery = audit(kind, preset, probes, tmp_path / "audit")
    assert battery.result.failures is None or not battery.result.failures.failed
    truths = expected_figures(PRESETS[preset].behaviour, kind, battery.design)
    unbiased = expected_figures(PRESETS["accurate"].behaviour, kind, battery.design)
    judges = [
        preset,
        *(f"replay{j}/{preset}" for j in range(1, REPLAYS)),
    ]  # the last part: the own backbone
    cfg = ReadingConfig(resamples=500, seed=7)
    for probe, figure in planted:
        true, none = truths[probe][figure].value, unbiased[probe][figure].value
        assert abs(true - none) >= 0.2  # the planted figure is far from an unbiased judge's
        inside = [
            low <= true <= high
            for low, high in (
                replay_interval(battery, kind, preset, judge, probes, probe, figure, cfg)
                for judge in judges
            )
        ]
        assert sum(inside) >= MIN_COVERAGE * REPLAYS, (preset, probe, figure, true, sum(inside))
        estimate = measured(battery.result, probe, figure)[0]
        assert abs(estimate - none) > abs(true - none) / 2  # the Inspect run itself sees the bias


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["pairwise", "pointwise"])
def test_an_unbiased_planted_judge_shows_no_bias(kind: str, tmp_path: Path) -> None:
    battery = audit(kind, "accurate", ALL[kind], tmp_path / "audit")
    result, design = battery.result, battery.design
    zero = [
        "noise_floor",
        "order_flip_rate",
        "cue_shift",
        "framing_flip_rate",
        "padding_shift",
        "padding_novel_shift",
        "surface_flip_rate",
        "injection_shift",
        "invalid_rate",
    ]
    seen = 0
    for probe, reading in result.readings.items():
        for name in zero:
            if name in reading.figures:
                value = reading.figures[name].value
                # zero on every item: the estimate is 0 and its interval (valid at this n, so never the
                # bootstrap's point [0, 0]) holds 0 and claims no bias
                assert value.estimate == 0.0 and value.low <= 0.0 < value.high, (probe, name, value)
                assert value.method in (
                    "clopper-pearson",
                    "score (continuity-corrected)",
                    "paired score (Tango, continuity-corrected)",
                ), (probe, name, value.method)
                seen += 1
    assert seen >= (12 if kind == "pairwise" else 10)
    if kind == "pairwise":
        assert measured(result, "position", "first_position_rate")[0] == 0.5
    true_accuracy = expected_figures(PRESETS["accurate"].behaviour, kind, design)["headline"][
        "accuracy"
    ].value
    low, high = measured(result, "headline", "accuracy")[1:]
    assert low <= true_accuracy <= high
    bias_gates = {
        g.gate.name: g.outcome
        for g in result.gates
        if g.gate.probe not in ("headline", "surface_ratio")
    }
    assert "fail" not in bias_gates.values(), bias_gates


def test_an_unknown_planted_preset_stops_the_audit_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "audit",
            "--model",
            "planted/nope",
            "--dataset",
            BUNDLED,
            "--limit",
            "2",
            "--out",
            str(tmp_path / "audit"),
        ]
    )
    err = capsys.readouterr().err.strip()
    assert code == 2 and err.startswith(
        "error: judgeaudit audit: unknown planted preset 'nope'; choose one of: accurate"
    )
    assert len(err.splitlines()) == 1
