"""`judgeaudit audit --judge panel`: the battery on a panel of planted members (real Inspect eval-sets),
the card with the panel's gates and each member's figures beside them, self-preference per member
backbone, and a panel run under another eval model refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgeaudit.audit.battery import AuditError, AuditSpec, check_spec, select_items
from judgeaudit.audit.gates import Gate, GateResult
from judgeaudit.audit.panel import against_best
from judgeaudit.audit.planted import with_generated_sides
from judgeaudit.audit.run import run_audit
from judgeaudit.cli import main
from judgeaudit.data.jsonl import write_items

BUNDLED = "iclr2026/human_only"
PANEL = "planted/first_shown,planted/accurate/x,planted/accurate/y"
ITEMS = 20


def test_a_panel_audit_shows_the_panel_beside_its_members(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "audit"
    code = main(
        [
            "audit",
            "--model",
            "none",
            "--judge",
            "panel",
            "-T",
            f"panel={PANEL}",
            "--dataset",
            BUNDLED,
            "--limit",
            str(ITEMS),
            "--probes",
            "position,repeat",
            "--resamples",
            "1000",
            "--out",
            str(out),
            "--display",
            "none",
        ]
    )
    assert code == 0, capsys.readouterr().err
    card = json.loads((out / "card.json").read_text(encoding="utf-8"))
    members = card["members"]
    assert list(members) == ["planted/first_shown", "planted/accurate/x", "planted/accurate/y"]

    def first(figures: dict) -> float:
        return float(figures["position"]["figures"]["first_position_rate"]["value"]["estimate"])

    biased, panel = first(members["planted/first_shown"]["probes"]), first(card["probes"])
    assert biased > 0.9 and panel < biased  # the unbiased members outvote the biased one
    assert all(
        first(members[m]["probes"]) == 0.5 for m in ("planted/accurate/x", "planted/accurate/y")
    )
    gates = {g["name"]: g["outcome"] for g in members["planted/first_shown"]["gates"]}
    assert gates["position_first"] == "fail" and gates["surface_ratio"] == "not_applicable"
    md = (out / "card.md").read_text(encoding="utf-8")
    assert md.startswith(
        "# Audit card: panel of planted/first_shown, planted/accurate/x, planted/accurate/y"
    )
    assert "## Panel members" in md and "| position_first | " in md and "than its best member" in md
    assert f"-T panel={PANEL}" in md  # the reproduce command names the members


def test_self_preference_is_read_per_member_backbone(tmp_path: Path) -> None:
    """Even items' generated sides come from the self-preferring member's backbone: that member
    prefers them, its accurate co-members outvote it, and the accurate members, whose backbones
    generated nothing, have no self-preference reading."""
    hg = tmp_path / "hg"
    write_items(
        hg / "pairwise.jsonl",
        with_generated_sides(
            select_items(BUNDLED, "pairwise", ITEMS), "x/self_preferring", "openai/gpt-4o"
        ),
    )
    key = {"dataset": str(hg)}
    panel = [
        {"model": f"planted/{m}", "model_args": key}
        for m in ("self_preferring", "accurate/x", "accurate/y")
    ]
    spec = AuditSpec(
        model="none",
        judge="panel",
        judge_options={"panel": panel},
        dataset=str(hg),
        limit=ITEMS,
        probes=("self_preference",),
        resamples=1000,
    )
    result, paths = run_audit(spec, tmp_path / "audit")
    assert result.members is not None

    def gap(readings: dict) -> float:
        return readings["self_preference"].figures["self_preference_gap"].value.estimate

    assert gap(result.members["planted/self_preferring"].readings) > 0.5
    assert gap(result.readings) < gap(result.members["planted/self_preferring"].readings) - 0.3
    for accurate in ("planted/accurate/x", "planted/accurate/y"):
        reading = result.members[accurate].readings["self_preference"]
        assert reading.status == "not_run" and "own backbone (" in reading.note
    assert "self_preference" in paths["md"].read_text(encoding="utf-8")


def test_a_panel_audit_needs_model_none_and_members() -> None:
    with pytest.raises(AuditError, match="give --model none, not --model planted/accurate"):
        check_spec(
            AuditSpec(model="planted/accurate", judge="panel", judge_options={"panel": PANEL})
        )
    check_spec(AuditSpec(model="none", judge="panel", judge_options={"panel": PANEL}))


def _result(value: float, direction: str = "max") -> GateResult:
    gate = Gate("g", "p", "f", "estimate", direction, 0.1, 0.25)  # type: ignore[arg-type]
    return GateResult(gate, "pass", value)


def test_the_panel_is_compared_with_its_best_member() -> None:
    members = {"m1": _result(0.3), "m2": _result(0.1)}
    assert against_best(_result(0.05), members) == "better than its best member (m2)"
    assert against_best(_result(0.1), members) == "as good as its best member (m2)"
    assert against_best(_result(0.2), members) == "worse than its best member (m2)"
    up = {"m1": _result(0.7, "min"), "m2": _result(0.9, "min")}
    assert against_best(_result(0.8, "min"), up) == "worse than its best member (m2)"
    assert against_best(GateResult(_result(0.1).gate, "not_run", None), members) == "n/a"
