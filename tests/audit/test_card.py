"""The audit card agrees with itself: cards built from scripted judges through real Inspect
eval-sets, their statements checked against their own gates table.

The judges are test doubles for an LLM (none is reachable in unit tests): Inspect's
`mockllm/model` answering through the scripted policies of tests/fixtures/probe_judges.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fixtures.probe_judges import scripted
from fixtures.probe_judges.items import widened_set
from helpers.items import FIXTURES
from inspect_ai.model import ModelOutput

from judgeaudit.audit.battery import AuditSpec
from judgeaudit.audit.run import run_audit

FIX = FIXTURES / "probe_items"
CELL = re.compile(r"(?<!\\)\|")


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test gets its own Inspect cache: scripted judges share the model name."""
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "inspect-cache"))


def build_card(
    reply: Callable[..., ModelOutput], dataset: Path, out: Path, probes: tuple[str, ...]
) -> tuple[str, dict[str, Any], float]:
    """Run an audit of a scripted judge; (card.md, card.json, real seconds around the run)."""
    spec = AuditSpec(
        model="mockllm/model",
        dataset=str(dataset),
        probes=probes,
        resamples=500,
        model_args={"custom_outputs": reply},
    )
    started = time.perf_counter()
    _, paths = run_audit(spec, out)
    seconds = time.perf_counter() - started
    return (
        paths["md"].read_text(encoding="utf-8"),
        json.loads(paths["json"].read_text(encoding="utf-8")),
        seconds,
    )


def verdict_block(md: str) -> list[str]:
    """The `- ...` lines under the card's `## Verdict` heading."""
    lines = md.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("## Verdict:"))
    block = []
    for line in lines[start + 2 :]:
        if not line.startswith("- "):
            break
        block.append(line[2:])
    return block


def gate_rows(md: str) -> dict[str, dict[str, str]]:
    """The gates table: gate name -> {outcome, judged} as printed."""
    lines = md.splitlines()
    start = lines.index("## Gates")
    rows = {}
    for line in lines[start + 4 :]:
        if not line.startswith("| "):
            break
        cells = [c.strip().replace("\\|", "|") for c in CELL.split(line)[1:-1]]
        rows[cells[0]] = {"outcome": cells[1], "judged": cells[2]}
    return rows


def check_agrees_with_itself(md: str, card: dict[str, Any], seconds: float) -> None:
    """Every FAIL, WARN and inconclusive gate of the table is in the verdict block, stated alike;
    the cost is unknown (mockllm has no price); the wall time is the run's real time."""
    block = verdict_block(md)
    rows = gate_rows(md)
    assert set(rows) == {g["name"] for g in card["gates"]}
    for name, row in rows.items():
        outcome = row["outcome"]
        stated = [line for line in block if line.startswith(f"{outcome} {name}:")]
        if outcome in ("FAIL", "WARN") or outcome.startswith("inconclusive"):
            assert len(stated) == 1, (name, outcome, block)
            assert row["judged"] in stated[0]  # the value the gate judged, as in the table
        else:
            assert not any(
                f" {name}:" in line for line in block if not line.startswith("gates ")
            ), (name, block)
    n_fail = sum(r["outcome"] == "FAIL" for r in rows.values())
    word = card["verdict"]
    assert (word == "unfit") == (n_fail > 0)
    if word != "unfit" and any(r["outcome"].startswith("inconclusive") for r in rows.values()):
        assert word == "use with care"
    assert f"## Verdict: **{word.upper()}**" in md
    cost = card["cost"]
    assert cost["usd"] is None and "- USD: unknown" in md
    more = {g["name"]: g["more_items"] for g in card["gates"] if g["more_items"]}
    assert set(more) == {
        name for name, row in rows.items() if row["outcome"].startswith("inconclusive")
    }
    for name, m in more.items():  # one row each in "What more data would buy", priced as unknown
        row = next(
            line
            for line in md.split("## What more data would buy")[1].splitlines()
            if line.startswith(f"| {name} |")
        )
        assert m["usd"] is None and (
            m["items"] is None or f"| {m['items']} |" in row and "cost unknown" in row
        )
    assert 0 < cost["battery_seconds"] <= seconds
    assert f"battery wall time: {cost['battery_seconds']:.1f} s" in md
    assert cost["logs_seconds"] is None or cost["logs_seconds"] <= cost["battery_seconds"] + 1.0


@pytest.mark.slow
def test_a_first_position_judge_on_enough_items_fails_both_position_gates_and_says_so(
    tmp_path: Path,
) -> None:
    dataset = widened_set(tmp_path / "set", "pairwise", copies=5)  # 20 pairs
    md, card, seconds = build_card(
        scripted.judge(scripted.always_first), dataset, tmp_path / "audit", ("position", "repeat")
    )
    check_agrees_with_itself(md, card, seconds)
    rows = gate_rows(md)
    assert rows["position_first"]["outcome"] == rows["position_flip"]["outcome"] == "FAIL"
    # the gate prints the figure and the value it judged, not one beside the other's name
    # 20 items all choosing the first-shown idea in both orders: the score interval on 0, 1/2, 1 is [0.800, 1]
    assert rows["position_first"]["judged"].startswith(
        "first_position_rate = 1.000 [0.800, 1.000]; judged |x - 0.5| = 0.500 [0.300, 0.500]"
    )
    # always "A" on gold-balanced pairs: accuracy 0.5 with an interval across both thresholds
    assert rows["accuracy"]["outcome"].startswith("inconclusive (n = 20; interval [")
    assert (
        card["verdict"] == "unfit"
        and len([r for r in card["reasons"] if r["outcome"] == "fail"]) == 2
    )


@pytest.mark.slow
def test_a_clean_judge_on_four_items_is_inconclusive_not_fit(tmp_path: Path) -> None:
    md, card, seconds = build_card(
        scripted.judge(scripted.accurate), FIX, tmp_path / "audit", ("repeat",)
    )
    check_agrees_with_itself(md, card, seconds)
    rows = gate_rows(md)
    # 4 of 4 right: Clopper-Pearson [0.025^(1/4), 1] = [0.398, 1], across both accuracy thresholds and chance
    assert rows["accuracy"]["outcome"] == "inconclusive (n = 4; interval [0.398, 1.000])"
    assert rows["above_chance"]["outcome"] == "WARN"
    assert rows["noise_floor"]["outcome"].startswith("inconclusive (n = 4;")
    # at the observed rates: 4 of 4 right passes accuracy from 8 items (0.025^(1/n) >= 0.6), no noise flip
    # passes the noise floor from 36 (1 - 0.025^(1/n) <= 0.1)
    more = {g["name"]: g["more_items"] for g in card["gates"]}
    assert (more["accuracy"]["items"], more["accuracy"]["outcome"]) == (8, "pass")
    assert (more["noise_floor"]["items"], more["noise_floor"]["outcome"]) == (36, "pass")
    assert card["verdict"] == "use with care"
    assert "Chance is 0.5; the interval does not exclude it." in md
    assert card["headline"]["above_chance"] is False


def refused(messages: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
    """A provider that cannot be reached."""
    raise ConnectionRefusedError("connection refused at http://127.0.0.1:9/v1")


@pytest.mark.slow
def test_failed_calls_refuse_a_verdict(tmp_path: Path) -> None:
    """Failed calls never rate the judge: their samples error (the evals' status is error) but are
    scored, so the card is written and says why it could not judge."""
    md, card, _ = build_card(refused, FIX, tmp_path / "audit", ("repeat",))
    assert card["verdict"] == "could not judge" and card["reasons"] == []
    statement = card["failed_calls"]["statement"]
    assert statement.startswith("could not judge: 8 of 8 calls failed: ")
    assert "connection refused at http://127.0.0.1:9/v1" in statement
    assert "## Verdict: **COULD NOT JUDGE**" in md and f"- {statement}" in md
    assert "UNFIT" not in md
    # it names the items and the command that retries them
    items = card["failed_calls"]["items"]
    lines = (FIX / "pairwise.jsonl").read_text(encoding="utf-8").splitlines()
    assert items == sorted(json.loads(line)["pair_id"] for line in lines)  # every call failed
    assert f"items: {', '.join(items)}" in statement
    retry = card["failed_calls"]["retry_command"]
    assert retry.startswith("judgeaudit audit --model ") and f"--out {tmp_path / 'audit'}" in retry
    assert f"- the command that retries them: `{retry}`" in md
