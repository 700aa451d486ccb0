"""Audit gates: outcomes at the thresholds, verdict and reasons, config-file overrides and errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgeaudit.audit.gates import (
    DEFAULT_GATES,
    HEADLINE,
    GateConfigError,
    evaluate,
    load_gates,
    verdict,
)
from judgeaudit.audit.readings import Figure, Reading
from judgeaudit.stats import Interval, PairedDifference, SurfaceRatio, UnpairedDifference

N = 30  # items behind the synthetic intervals (a gate decides on its interval alone, at any n)


def _iv(x: float, width: float = 0.02, n: int = N) -> Interval:
    return Interval(x, x - width, x + width, 0.95, "percentile", 100, 1, n)


def _pd(x: float, width: float = 0.02, n: int = N) -> PairedDifference:
    return PairedDifference(
        x, x - width, x + width, 0.5, False, 0.95, "paired percentile", 100, 1, n
    )


def _ud(x: float) -> UnpairedDifference:
    return UnpairedDifference(
        x, x - 0.02, x + 0.02, 0.5, False, 0.95, "two-sample percentile", 100, 1, 15, 15
    )


def _sr(x: float) -> SurfaceRatio:
    return SurfaceRatio(
        Interval(x, x * 0.95, x * 1.05, 0.95, "percentile over ideas", 100, 1, N),
        90,
        60,
        x * 0.1,
        0.1,
    )


ALL_RAN = {
    "self_preference": Reading(
        "self_preference",
        "ok",
        10,
        {"self_preference_gap": Figure("self_preference_gap", "", _ud(0.0))},
    ),
    "surface_ratio": Reading("surface_ratio", "not_applicable", 0, note="LLM judge"),
}


def readings(
    acc: float = 0.9,
    first: float = 0.5,
    flip: float = 0.0,
    noise: float = 0.0,
    cue: float = 0.0,
    pad: float = 0.0,
) -> dict[str, Reading]:
    """Readings with chosen figure values (corrected flip = flip - noise)."""
    return {
        HEADLINE: Reading(
            HEADLINE,
            "ok",
            10,
            {
                "accuracy": Figure("accuracy", "", _iv(acc)),
                "invalid_rate": Figure("invalid_rate", "", _iv(0.0)),
            },
        ),
        "repeat": Reading(
            "repeat", "ok", 10, {"noise_floor": Figure("noise_floor", "", _iv(noise))}
        ),
        "position": Reading(
            "position",
            "ok",
            10,
            {
                "order_flip_rate": Figure("order_flip_rate", "", _iv(flip), _pd(flip - noise)),
                "first_position_rate": Figure("first_position_rate", "", _iv(first)),
            },
        ),
        "presumption": Reading(
            "presumption", "ok", 10, {"cue_shift": Figure("cue_shift", "", _pd(cue))}
        ),
        "verbosity": Reading(
            "verbosity", "ok", 10, {"padding_shift": Figure("padding_shift", "", _pd(pad))}
        ),
    }


def outcomes(**kw: float) -> dict[str, str]:
    """Gate name -> outcome for readings built with `kw`."""
    return {r.gate.name: r.outcome for r in evaluate(DEFAULT_GATES, readings(**kw))}


def test_clean_judge_passes_and_missing_probes_are_not_run() -> None:
    out = outcomes()
    assert {
        out[g]
        for g in (
            "accuracy",
            "invalid_rate",
            "noise_floor",
            "position_flip",
            "position_first",
            "presumption",
            "verbosity",
        )
    } == {"pass"}
    assert (
        out["surface"]
        == out["injection"]
        == out["self_preference"]
        == out["surface_ratio"]
        == "not_run"
    )
    # Nothing failed, but an audit cannot vouch for what it did not test.
    word, reasons = verdict(evaluate(DEFAULT_GATES, readings()))
    assert word == "use with care"
    assert [r.gate.name for r in reasons] == [
        "surface",
        "injection",
        "self_preference",
        "surface_ratio",
    ]
    ran = tuple(g for g in DEFAULT_GATES if g.name not in ("surface", "injection"))
    word, reasons = verdict(evaluate(ran, {**readings(), **ALL_RAN}))
    assert word == "fit" and reasons == []


def test_not_applicable_gates_do_not_touch_the_verdict() -> None:
    # A score judge: position, presumption and self-preference cannot apply; its surface ratio does.
    na = {
        p: Reading(p, "not_applicable", 0, note=f"{p} cannot apply")
        for p in ("position", "presumption", "self_preference")
    }
    rs = {
        **readings(),
        **na,
        "surface": Reading(
            "surface", "ok", 10, {"surface_flip_rate": Figure("surface_flip_rate", "", _iv(0.0))}
        ),
        "injection": Reading(
            "injection", "ok", 10, {"injection_shift": Figure("injection_shift", "", _pd(0.0))}
        ),
        "surface_ratio": Reading(
            "surface_ratio", "ok", 10, {"ratio": Figure("ratio", "", _sr(0.03))}
        ),
    }
    results = evaluate(DEFAULT_GATES, rs)
    out = {r.gate.name: r.outcome for r in results}
    assert {g for g, o in out.items() if o == "not_applicable"} == {
        "position_flip",
        "position_first",
        "presumption",
        "self_preference",
    }
    assert out["surface_ratio"] == "pass"
    assert (
        next(r for r in results if r.gate.name == "presumption").note == "presumption cannot apply"
    )
    assert verdict(results) == ("fit", [])
    # the same readings with a gate merely not run are not fit
    del rs["injection"]
    assert verdict(evaluate(DEFAULT_GATES, rs))[0] == "use with care"


def _with(name: str, figure: str, value: SurfaceRatio | UnpairedDifference) -> dict[str, Reading]:
    return {
        **readings(),
        **ALL_RAN,
        name: Reading(name, "ok", 10, {figure: Figure(figure, "", value)}),
    }


@pytest.mark.parametrize(
    ("ratio", "expected"),
    [
        (0.03, "pass"),
        (0.2, "pass"),
        (0.3, "warn"),
        (0.45, "warn"),
        (0.25, "inconclusive"),  # [0.2375, 0.2625] straddles 0.25
        (0.6, "fail"),
        (float("inf"), "fail"),
    ],
)  # inf: edits move flat scores
def test_surface_ratio_gate(ratio: float, expected: str) -> None:
    out = {
        r.gate.name: r for r in evaluate(DEFAULT_GATES, _with("surface_ratio", "ratio", _sr(ratio)))
    }
    assert out["surface_ratio"].outcome == expected


@pytest.mark.parametrize(
    ("gap", "expected"),
    [
        (-0.5, "pass"),
        (0.0, "pass"),
        (0.07, "pass"),
        (0.2, "warn"),
        (0.3, "fail"),
        (0.1, "inconclusive"),
    ],
)
def test_self_preference_gate(gap: float, expected: str) -> None:
    out = {
        r.gate.name: r
        for r in evaluate(DEFAULT_GATES, _with("self_preference", "self_preference_gap", _ud(gap)))
    }
    assert out["self_preference"].outcome == expected
    assert out["self_preference"].value == pytest.approx(gap)


@pytest.mark.parametrize(
    ("kw", "gate", "expected"),
    [
        ({"acc": 0.55}, "accuracy", "warn"),
        ({"acc": 0.45}, "accuracy", "fail"),
        ({"acc": 0.63}, "accuracy", "pass"),
        (
            {"acc": 0.60},
            "accuracy",
            "inconclusive",
        ),  # interval 0.58-0.62 straddles the pass threshold
        ({"acc": 0.65}, "above_chance", "pass"),  # interval 0.63-0.67 excludes chance
        ({"acc": 0.51}, "above_chance", "warn"),  # interval 0.49-0.53 includes chance
        ({"acc": 0.15}, "above_chance", "warn"),  # warns only; the accuracy gate does the failing
        ({"first": 0.95}, "position_first", "fail"),
        ({"first": 0.05}, "position_first", "fail"),
        ({"first": 0.68}, "position_first", "warn"),
        ({"flip": 0.35, "noise": 0.3}, "position_flip", "pass"),  # only 0.05 beyond the noise floor
        ({"flip": 0.4, "noise": 0.0}, "position_flip", "fail"),
        ({"cue": -0.5}, "presumption", "fail"),  # contrarian to the cue is a bias too
        ({"pad": 0.2}, "verbosity", "warn"),
    ],
)
def test_thresholds(kw: dict[str, float], gate: str, expected: str) -> None:
    assert outcomes(**kw)[gate] == expected


def test_verdict_names_every_fail_worst_first_then_warnings() -> None:
    results = evaluate(DEFAULT_GATES, readings(first=1.0, cue=0.35, pad=0.2, flip=0.4))
    word, reasons = verdict(results)
    assert word == "unfit"
    assert [(r.gate.name, r.outcome) for r in reasons] == [
        ("position_first", "fail"),
        ("position_flip", "fail"),
        ("presumption", "fail"),
        ("verbosity", "warn"),
    ]
    assert (
        reasons[0]
        .describe()
        .startswith(
            "position_first: preference for whichever idea is shown first: first_position_rate = 1.000 [0.980, 1.020]; "
            "judged |x - 0.5| = 0.500 [0.480, 0.520] (pass if |x - 0.5| <= 0.1"
        )
    )
    word, reasons = verdict(evaluate(DEFAULT_GATES, readings(pad=0.2)))
    assert word == "use with care" and [r.gate.name for r in reasons] == ["verbosity"]


def _few(n: int = 4) -> dict[str, Reading]:
    """Readings of a clean judge on `n` items: a bootstrapped point interval for accuracy, a wide invalid rate."""
    return {
        **readings(),
        HEADLINE: Reading(
            HEADLINE,
            "ok",
            n,
            {
                "accuracy": Figure(
                    "accuracy", "", Interval(1.0, 1.0, 1.0, 0.95, "percentile", 100, 1, n)
                ),
                "invalid_rate": Figure(
                    "invalid_rate", "", Interval(0.0, 0.0, 1.0, 0.95, "percentile", 100, 1, n)
                ),
            },
        ),
    }


def test_point_intervals_and_straddling_intervals_are_inconclusive() -> None:
    results = {r.gate.name: r for r in evaluate(DEFAULT_GATES, _few())}
    # a point interval (every resample agreed) claims nothing, however good its estimate
    assert results["accuracy"].outcome == results["above_chance"].outcome == "inconclusive"
    assert results["accuracy"].note == "point interval: every resample agreed"
    assert results["invalid_rate"].stated() == "inconclusive (n = 4; interval [0.000, 1.000])"
    word, reasons = verdict(list(results.values()))
    assert word == "use with care"
    assert {r.gate.name for r in reasons} == {"accuracy", "above_chance", "invalid_rate"}
    # nor on many items: the rule is about the interval, not the count
    many = {r.gate.name: r for r in evaluate(DEFAULT_GATES, _few(500))}
    assert many["accuracy"].outcome == many["above_chance"].outcome == "inconclusive"
    # |x| of an interval across zero starts at 0: [-0.05, 0.15] -> [0, 0.15] straddles 0.1
    wide = {
        r.gate.name: r
        for r in evaluate(
            DEFAULT_GATES,
            {
                **readings(),
                "presumption": Reading(
                    "presumption",
                    "ok",
                    N,
                    {"cue_shift": Figure("cue_shift", "", _pd(0.05, width=0.1))},
                ),
            },
        )
    }
    assert wide["presumption"].outcome == "inconclusive" and wide[
        "presumption"
    ].interval == pytest.approx((0.0, 0.15))
    point = {
        r.gate.name: r
        for r in evaluate(
            DEFAULT_GATES,
            {
                **readings(),
                "position": Reading(
                    "position",
                    "ok",
                    N,
                    {
                        "order_flip_rate": Figure(
                            "order_flip_rate", "", _iv(0.0, width=0.0), _pd(0.0, width=0.0)
                        ),
                        "first_position_rate": Figure(
                            "first_position_rate", "", _iv(1.0, width=0.0)
                        ),
                    },
                ),
            },
        )
    }
    assert point["position_first"].outcome == point["position_flip"].outcome == "inconclusive"
    zero = {
        r.gate.name: r
        for r in evaluate(
            DEFAULT_GATES,
            {
                **readings(),
                "presumption": Reading(
                    "presumption",
                    "ok",
                    N,
                    {"cue_shift": Figure("cue_shift", "", _pd(0.0, width=0.0))},
                ),
            },
        )
    }
    assert (
        "[0.000, 0.000]" in zero["presumption"].judged()
        and "-0.000" not in zero["presumption"].judged()
    )


def test_gates_decide_at_any_n_when_the_interval_lies_in_one_region() -> None:
    """Six items: the exact interval of 6 flips of 6 is [0.54, 1], beyond the fail threshold 0.25."""
    six = {
        r.gate.name: r
        for r in evaluate(
            DEFAULT_GATES,
            {
                **readings(),
                "position": Reading(
                    "position",
                    "ok",
                    6,
                    {
                        "order_flip_rate": Figure(
                            "order_flip_rate",
                            "",
                            Interval(1.0, 0.5407, 1.0, 0.95, "clopper-pearson", None, None, 6),
                        ),
                        "first_position_rate": Figure("first_position_rate", "", _iv(0.5, n=6)),
                    },
                ),
            },
        )
    }
    assert (
        six["position_flip"].outcome == "fail"
        and six["position_flip"].note == "no repeat run: raw value used"
    )
    assert six["position_first"].outcome == "pass" and six["position_first"].n == 6
    above = {
        r.gate.name: r
        for r in evaluate(
            DEFAULT_GATES,
            {
                **readings(),
                HEADLINE: Reading(
                    HEADLINE,
                    "ok",
                    6,
                    {
                        "accuracy": Figure(
                            "accuracy",
                            "",
                            Interval(1.0, 0.5407, 1.0, 0.95, "clopper-pearson", None, None, 6),
                        ),
                        "invalid_rate": Figure("invalid_rate", "", _iv(0.0)),
                    },
                ),
            },
        )
    }
    assert (
        above["above_chance"].outcome == "pass"
    )  # 6 of 6 right: the exact interval excludes chance
    assert above["accuracy"].outcome == "inconclusive"  # [0.54, 1] straddles the pass threshold 0.6


def test_override_file_yaml_and_json(tmp_path: Path) -> None:
    y = tmp_path / "gates.yaml"
    y.write_text("verbosity:\n  pass_at: 0.25\n  fail_at: 0.5\n", encoding="utf-8")
    gates = load_gates(y)
    v = next(g for g in gates if g.name == "verbosity")
    assert (v.pass_at, v.fail_at) == (0.25, 0.5)
    assert {r.gate.name: r.outcome for r in evaluate(gates, readings(pad=0.2))}[
        "verbosity"
    ] == "pass"
    j = tmp_path / "gates.json"
    j.write_text(json.dumps({"accuracy": {"pass_at": 0.8, "fail_at": 0.7}}), encoding="utf-8")
    assert {r.gate.name: r.outcome for r in evaluate(load_gates(j), readings(acc=0.75))}[
        "accuracy"
    ] == "warn"
    assert (
        "pass if >= 0.8; fail if < 0.7"
        in next(g for g in load_gates(j) if g.name == "accuracy").rule()
    )
    assert next(g for g in DEFAULT_GATES if g.name == "above_chance").rule() == (
        "pass if the interval excludes 0.5 from above (lower bound > 0.5); warn otherwise (never fails)"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("loudness:\n  pass_at: 1\n", "unknown gate 'loudness'"),
        ("verbosity:\n  pass_at: high\n", "must be a number"),
        ("verbosity:\n  colour: red\n", "unknown fields"),
        ("verbosity:\n  pass_at: 0.5\n  fail_at: 0.1\n", "passing side"),
        ("- just a list\n", "expected a mapping"),
        ("verbosity: [unclosed\n", "does not parse"),
    ],
)
def test_bad_override_files_name_file_and_problem(tmp_path: Path, text: str, message: str) -> None:
    p = tmp_path / "g.yaml"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(GateConfigError, match=message) as err:
        load_gates(p)
    assert str(p) in str(err.value)
    with pytest.raises(GateConfigError, match="cannot read"):
        load_gates(tmp_path / "absent.yaml")
