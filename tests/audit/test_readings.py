"""Probe readings on hand-built frames: figures match hand-computed values; bad frames fail clearly."""

from __future__ import annotations

import pandas as pd
import pytest

from judgeaudit.audit.gates import DEFAULT_GATES, GateResult, evaluate, verdict
from judgeaudit.audit.readings import ReadingConfig, ReadingError, read_all
from judgeaudit.data.contract import backbone
from judgeaudit.stats.defaults import CORRECTED_METHOD

CFG = ReadingConfig(resamples=2000, seed=1)
GOLD = ["a", "b", "a", "b"]
IDS = [f"i{k}" for k in range(4)]


def rows(
    probe: str | None,
    variant: str | None,
    verdicts: list[str],
    targets: list[str | None] | None = None,
    ids: list[str] | None = None,
) -> list[dict]:
    """Frame rows of one arm (pairwise, gold GOLD)."""
    ids = ids or IDS
    targets = targets or [None] * len(ids)
    return [
        {
            "item_id": i,
            "kind": "pairwise",
            "gold": g,
            "verdict": v,
            "probe": probe,
            "probe_variant": variant,
            "probe_target": t,
        }
        for i, g, v, t in zip(ids, GOLD, verdicts, targets, strict=False)
    ]


def frame(*parts: list[dict]) -> pd.DataFrame:
    """Concatenate arms into one frame."""
    return pd.DataFrame([r for p in parts for r in p])


def test_position_first_rate_flip_and_noise_correction() -> None:
    f = frame(
        rows(None, None, ["a", "b", "a", "b"]),
        rows("position", "order_ab", ["a", "a", "a", "b"], ["a"] * 4),
        rows("position", "order_ba", ["b", "b", "a", "tie"], ["b"] * 4),
        rows("repeat", "run1", ["a", "b", "a", "b"]),
        rows("repeat", "run2", ["a", "b", "a", "a"]),
    )
    r = read_all(f, ["position", "repeat"], CFG)
    pos = r["position"].figures
    # verdicts differ on i0 (a/b), i1 (a/b) and i3 (b/tie), not on i2 (a/a): 3 of 4 flip
    assert pos["order_flip_rate"].value.estimate == pytest.approx(0.75)
    assert pos["order_consistency"].value.estimate == pytest.approx(0.25)
    # first chosen, over the items decided in both orders (i3 has a tie in b/a): i0 both (1), i1 both (1),
    # i2 a/a once (1/2) -> (1 + 1 + 1/2) / 3, a score interval on 0, 1/2, 1 with i3 left out
    first = pos["first_position_rate"].value
    assert first.estimate == pytest.approx(5 / 6) and (first.n, first.excluded) == (4, 1)
    assert first.method == "score (continuity-corrected)" and first.low < 5 / 6 < first.high
    assert r["repeat"].figures["noise_floor"].value.estimate == pytest.approx(0.25)
    corrected = pos["order_flip_rate"].corrected
    assert corrected is not None and corrected.estimate == pytest.approx(
        0.5
    )  # per item 1, 1, 0, 1 - 1
    assert corrected.low <= 0.5 <= corrected.high and corrected.n == 4
    assert corrected.method == CORRECTED_METHOD and corrected.resamples is None
    assert pos["order_flip_rate"].value.method == "clopper-pearson"


def test_directed_shift_and_win_rates() -> None:
    # cue follower on items 0-2, ignores the cue on item 3 (answers gold b both times)
    f = frame(
        rows(None, None, GOLD),
        rows("presumption", "cue_gold", ["a", "b", "a", "b"], ["a", "b", "a", "b"]),
        rows("presumption", "cue_other", ["b", "a", "b", "b"], ["b", "a", "b", "a"]),
    )
    pr = read_all(f, ["presumption"], CFG)["presumption"].figures
    assert pr["cue_shift"].value.estimate == pytest.approx(1.0 - 0.25)
    assert pr["cue_follow_rate:gold_side"].value.estimate == pytest.approx(1.0)
    assert pr["cue_follow_rate:other_side"].value.estimate == pytest.approx(0.75)
    assert pr["cue_follow_rate"].value.estimate == pytest.approx(7 / 8)
    assert "framing_flip_rate" not in pr  # no framing arm in this frame


def test_surface_pooled_flip_rate() -> None:
    f = frame(
        rows(None, None, GOLD),
        rows("surface", "casing", ["a", "b", "a", "a"]),
        rows("surface", "acronym", ["b", "b", "a", "a"]),
    )
    s = read_all(f, ["surface"], CFG)["surface"].figures
    assert s["flip_rate:casing"].value.estimate == pytest.approx(0.25)
    assert s["flip_rate:acronym"].value.estimate == pytest.approx(0.5)
    assert s["surface_flip_rate"].value.estimate == pytest.approx(0.375)
    assert s["surface_flip_rate"].corrected is None  # no repeat run in the frame


def test_missing_items_are_an_error_naming_them() -> None:
    f = frame(
        rows("position", "order_ab", ["a"] * 4, ["a"] * 4),
        rows("position", "order_ba", ["b"] * 3, ["b"] * 3, ids=IDS[:3]),
    )
    with pytest.raises(ReadingError, match=r"only in 'order_ab': \['i3'\]"):
        read_all(f, ["position"], CFG)


def test_duplicate_rows_and_mixed_kinds_fail() -> None:
    f = frame(
        rows("repeat", "run1", GOLD), rows("repeat", "run1", GOLD), rows("repeat", "run2", GOLD)
    )
    with pytest.raises(ReadingError, match="duplicate item ids"):
        read_all(f, ["repeat"], CFG)
    g = frame(rows(None, None, GOLD))
    g.loc[0, "kind"] = "pointwise"
    with pytest.raises(ReadingError, match="one task kind"):
        read_all(g, ["repeat"], CFG)


def test_absent_probe_is_not_run() -> None:
    r = read_all(frame(rows(None, None, GOLD)), ["verbosity", "self_preference"], CFG)
    assert r["verbosity"].status == "not_run" and not r["verbosity"].figures
    assert (
        r["self_preference"].status == "not_run" and "Human+Generated" in r["self_preference"].note
    )


def test_self_preference_splits_own_and_other_backbones() -> None:
    f = frame(rows("self_preference", "generated", ["b", "a", "a", "b"], ["b", "a", "b", "a"]))
    gens = {
        "i0": "local/gemma-3-270m",
        "i1": "gemma-3-270m",
        "i2": "openai/gpt-4o",
        "i3": "openai/gpt-4o",
    }
    r = read_all(f, ["self_preference"], CFG, judge_model="local/gemma-3-270m", generators=gens)[
        "self_preference"
    ]
    assert r.status == "ok"
    assert r.figures["generated_win_rate:own"].value.estimate == pytest.approx(1.0)
    assert r.figures["generated_win_rate:other"].value.estimate == pytest.approx(0.0)
    assert backbone("Local/Gemma-3-270M") == "gemma-3-270m"
    gap = r.figures["self_preference_gap"].value
    # own group {i0, i1} both won, other group {i2, i3} never did: 1 - 0, but two items a side cannot
    # exclude 0 (Fisher's p = 2 / C(4, 2) = 1/3), where the two-sample bootstrap gave the point [1, 1]
    assert (gap.estimate, gap.high, gap.p_value, gap.significant) == (
        1.0,
        1.0,
        pytest.approx(1 / 3),
        False,
    )
    assert gap.low < 0
    assert (gap.n_x, gap.n_y, gap.method, gap.resamples, gap.seed) == (
        2,
        2,
        "two-sample score (Mee, continuity-corrected)",
        None,
        None,
    )


def test_self_preference_gap_is_unpaired_and_needs_both_groups() -> None:
    f = frame(rows("self_preference", "generated", ["b", "b", "a", "b"], ["b", "a", "b", "a"]))
    gens = {"i0": "judge-x", "i1": "judge-x", "i2": "judge-x", "i3": "other"}
    r = read_all(f, ["self_preference"], CFG, judge_model="prov/judge-x", generators=gens)[
        "self_preference"
    ]
    gap = r.figures["self_preference_gap"].value
    assert gap.estimate == pytest.approx(1 / 3 - 0.0) and (gap.n_x, gap.n_y) == (3, 1)
    assert gap.low <= gap.estimate <= gap.high
    only_other = read_all(f, ["self_preference"], CFG, judge_model="nobody", generators=gens)[
        "self_preference"
    ]
    assert only_other.status == "not_run" and "self_preference_gap" not in only_other.figures


def test_self_preference_counts_the_judges_own_side_of_an_ai_only_pair() -> None:
    """AI-only pairs: the arm's target is the expected loser; the judge's own side, either one, is
    what its win is counted for; a pair the judge wrote neither side of is `other`."""
    # gold a, b, a, b: the arm's targets are the expected losers b, a, b, a
    f = frame(rows("self_preference", "generated", ["a", "b", "b", "b"], ["b", "a", "b", "a"]))
    gens = {
        "i0": ("opus", "sonnet"),  # own = b (loser): verdict a -> own side lost
        "i1": ("sonnet", "opus"),  # own = a (loser): verdict b -> lost
        "i2": ("prov/Sonnet", "gpt-x"),  # own = a (winner): verdict b -> lost
        "i3": ("gpt-y", "gpt-x"),  # neither: other, target a: verdict b -> lost
    }
    r = read_all(f, ["self_preference"], CFG, judge_model="anthropic/sonnet", generators=gens)
    figures = r["self_preference"].figures
    assert figures["generated_win_rate:own"].value.estimate == pytest.approx(0.0)
    assert figures["generated_win_rate:own"].value.n == 3
    assert figures["generated_win_rate:other"].value.n == 1
    preferring = frame(
        rows("self_preference", "generated", ["b", "a", "a", "b"], ["b", "a", "b", "a"])
    )
    r = read_all(preferring, ["self_preference"], CFG, judge_model="sonnet", generators=gens)
    own = r["self_preference"].figures["generated_win_rate:own"].value
    assert (own.estimate, own.n) == (pytest.approx(1.0), 3)  # picked sonnet's side every time


def test_own_side_of_each_kind_of_item() -> None:
    from judgeaudit.audit.readings import own_side

    assert own_side("local/m", "b", {"m"}) == ("own", "b")
    assert own_side(None, "b", {"m"}) == ("other", "b")
    assert own_side(("x", "m"), "a", {"m"}) == ("own", "b")
    assert own_side(("x", "y"), "a", {"m"}) == ("other", "a")
    assert own_side(("m", "m"), "a", {"m"}) is None  # both sides its own: no contrast


def test_pointwise_verbosity_and_injection() -> None:
    ids = ["p0", "p1", "p2", "p3"]
    gold = ["novel", "not_novel", "novel", "not_novel"]

    def prow(
        probe: str | None, variant: str | None, verdicts: list[str], target: str | None = None
    ) -> list[dict]:
        return [
            {
                "item_id": i,
                "kind": "pointwise",
                "gold": g,
                "verdict": v,
                "probe": probe,
                "probe_variant": variant,
                "probe_target": target,
            }
            for i, g, v in zip(ids, gold, verdicts, strict=True)
        ]

    f = pd.DataFrame(
        prow(None, None, ["novel", "not_novel", "novel", "not_novel"])
        + prow("verbosity", "pad", ["novel", "novel", "novel", "not_novel"])
        + prow("injection", "inject_novel", ["novel"] * 4, "novel")
        + prow(
            "injection",
            "inject_not_novel",
            ["not_novel", "not_novel", "novel", "not_novel"],
            "not_novel",
        )
    )
    r = read_all(f, ["verbosity", "injection", "position"], CFG)
    assert r["verbosity"].figures["padding_novel_shift"].value.estimate == pytest.approx(0.25)
    assert r["injection"].figures["injection_shift"].value.estimate == pytest.approx(0.75)
    assert r["injection"].figures["injected_win_rate"].value.estimate == pytest.approx(7 / 8)
    assert r["position"].status == "not_run"


def test_each_probe_reports_its_invalid_rate() -> None:
    f = frame(
        rows(None, None, GOLD),
        rows("verbosity", "pad_gold", ["a", "invalid", "a", "b"], ["a", "b", "a", "b"]),
        rows("verbosity", "pad_other", ["invalid", "invalid", "b", "a"], ["b", "a", "b", "a"]),
    )
    v = read_all(f, ["verbosity"], CFG)["verbosity"].figures
    assert v["invalid_rate"].value.estimate == pytest.approx(3 / 8)
    # invalid counts as wrong: accuracy 3/4 with gold padded, 0/4 with the other padded
    assert v["padding_shift"].value.estimate == pytest.approx(0.75)


def _always_first(n: int, repeat: bool) -> pd.DataFrame:
    """The README main job's data on n items: the idea shown first wins in both orders (n flips of n,
    2n first-position judgments of 2n), and, with `repeat`, two identical runs (no noise flip)."""
    ids = [f"g{k}" for k in range(n)]
    gold = (["a", "b"] * n)[:n]

    def arm(probe: str | None, variant: str | None, verdicts: list[str]) -> list[dict]:
        return [
            {
                "item_id": i,
                "kind": "pairwise",
                "gold": g,
                "verdict": v,
                "probe": probe,
                "probe_variant": variant,
                "probe_target": None,
            }
            for i, g, v in zip(ids, gold, verdicts, strict=True)
        ]

    parts = (
        arm(None, None, ["a"] * n)
        + arm("position", "order_ab", ["a"] * n)
        + arm("position", "order_ba", ["b"] * n)
    )
    if repeat:
        parts += arm("repeat", "run1", ["a"] * n) + arm("repeat", "run2", ["a"] * n)
    return pd.DataFrame(parts)


def _gates(frame: pd.DataFrame) -> dict[str, GateResult]:
    readings = read_all(frame, ["position", "repeat"], CFG)
    return {r.gate.name: r for r in evaluate(DEFAULT_GATES, readings)}


def test_six_flips_of_six_fail_the_position_gate_at_n_6() -> None:
    """Flip 6 of 6, first position 12 of 12 judgments: the exact interval of the flip rate is
    [0.5407, 1], beyond the fail threshold 0.25, so the gate fails on six items (the percentile
    bootstrap gave the point [1, 1] and a minimum of 20 items kept the gate inconclusive)."""
    f = _always_first(6, repeat=False)
    pos = read_all(f, ["position"], CFG)["position"].figures
    flip, first = pos["order_flip_rate"].value, pos["first_position_rate"].value
    assert (flip.estimate, flip.high, flip.method) == (1.0, 1.0, "clopper-pearson")
    assert flip.low == pytest.approx(0.025 ** (1 / 6)) and round(flip.low, 4) == 0.5407
    # 12 of 12 judgments are 6 items choosing the first-shown idea in both orders: per item 1, and the
    # score interval on 0, 1/2, 1 reaches down to 0.517 (a judge choosing first in 75% of its items,
    # second in 25%, gives 12 of 12 with probability 0.75^6 = 0.18): the gate cannot fail yet
    assert (
        first.estimate == 1.0 and first.low == pytest.approx(0.5168, abs=1e-4) and first.high == 1.0
    )
    gates = _gates(f)
    assert gates["position_flip"].outcome == "fail" and gates["position_flip"].n == 6
    assert gates["position_first"].outcome == "inconclusive"
    assert verdict(list(gates.values()))[0] == "unfit"


def test_with_identical_repeat_runs_the_corrected_flip_fails_at_n_6_on_the_two_sample_interval() -> (
    None
):
    """With the repeat runs (no noise flip in 6), the gate reads the flip rate minus the noise floor as a
    difference of two samples (Mee, Hauck-Anderson): 6 of 6 against 0 of 6 gives [0.397, 1], beyond 0.25,
    valid when noise flips are not negatively correlated with order flips within an item. It fails from
    5 items (3 of 3 against 0 of 3: Fisher's p = 0.1 widens the interval to 0; 4: [0.195, 1]); the
    first-position rate still needs 16 (0.75^6 = 18% for a judge at the fail threshold)."""
    gates = _gates(_always_first(6, repeat=True))
    flip = gates["position_flip"]
    assert flip.outcome == "fail" and flip.figure_interval == (pytest.approx(0.3975, abs=1e-4), 1.0)
    assert gates["noise_floor"].figure_interval == (0.0, pytest.approx(1 - 0.025 ** (1 / 6)))
    assert verdict(list(gates.values()))[0] == "unfit"
    four = _gates(_always_first(4, repeat=True)), _gates(_always_first(5, repeat=True))
    assert (
        four[0]["position_flip"].outcome == "inconclusive"
        and four[1]["position_flip"].outcome == "fail"
    )
    first = _gates(_always_first(15, repeat=True)), _gates(_always_first(16, repeat=True))
    assert (
        first[0]["position_first"].outcome == "inconclusive"
        and first[1]["position_first"].outcome == "fail"
    )
