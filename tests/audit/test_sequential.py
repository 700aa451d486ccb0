"""Audits that stop when they have decided (`judgeaudit audit --until-decided`, `audit.sequential`).

The end-to-end tests run the real command (Inspect eval-sets, `planted/<preset>` answering on bundled
items) and count the calls that reach the planted provider (`PlantedAPI.generate`), which sees only
the calls Inspect's cache does not serve.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from judgeaudit.audit.gates import DEFAULT_GATES, GateResult
from judgeaudit.audit.sequential import FIRST_LOOK, look_confidence, look_sizes, settled
from judgeaudit.cli import main
from judgeaudit.errors import UserError
from judgeaudit.providers.planted.api import PlantedAPI

BUNDLED = "iclr2026/human_only"


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test gets its own Inspect cache (the calls counted below are the cache's misses)."""
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "inspect-cache"))


def test_looks_double_from_the_first_and_end_at_max_items() -> None:
    assert look_sizes(10, 40) == [10, 20, 40]
    assert look_sizes(10, 50) == [10, 20, 40, 50]
    assert look_sizes(10, 21) == [10, 20, 21]
    assert look_sizes(6, 6) == [6] and FIRST_LOOK == 10
    with pytest.raises(UserError, match="--max-items"):
        look_sizes(10, 5)


def test_bonferroni_spends_five_percent_over_the_looks() -> None:
    assert look_confidence(1) == pytest.approx(0.95)
    assert look_confidence(3) == pytest.approx(1 - 0.05 / 3) and look_confidence(
        4
    ) == pytest.approx(0.9875)
    with pytest.raises(ValueError):
        look_confidence(0)


def _results(**outcomes: str) -> list[GateResult]:
    gates = {g.name: g for g in DEFAULT_GATES}
    return [GateResult(gates[name], outcome, None) for name, outcome in outcomes.items()]  # type: ignore[arg-type]


def test_the_verdict_is_settled_when_every_gate_decided_or_one_failed() -> None:
    assert settled(
        _results(
            accuracy="pass", noise_floor="warn", surface="not_run", surface_ratio="not_applicable"
        )
    )
    assert settled(_results(accuracy="inconclusive", position_flip="fail")) == (
        "position_flip failed: the verdict is unfit whatever the open gates show"
    )
    assert settled(_results(accuracy="inconclusive", noise_floor="pass")) is None


def _count_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the calls reaching the planted provider (cache misses)."""
    calls = [0]
    generate = PlantedAPI.generate

    async def counted(self: PlantedAPI, *args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return await generate(self, *args, **kwargs)

    monkeypatch.setattr(PlantedAPI, "generate", counted)
    return calls


def _audit(preset: str, out: Path, limit: int, max_items: int) -> tuple[int, dict[str, Any], str]:
    code = main(
        [
            "audit",
            "--model",
            f"planted/{preset}",
            "--dataset",
            BUNDLED,
            "--probes",
            "position,repeat",
            "--limit",
            str(limit),
            "--until-decided",
            "--max-items",
            str(max_items),
            "--out",
            str(out),
        ]
    )
    return (
        code,
        json.loads((out / "card.json").read_text(encoding="utf-8")),
        (out / "card.md").read_text("utf-8"),
    )


def _looks_table(md: str) -> list[list[str]]:
    lines = md.split("## Looks")[1].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| look |"))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("| "):
            break
        rows.append([c.strip() for c in line.strip("|").split(" | ")])
    return rows


@pytest.mark.slow
def test_a_strongly_biased_judge_stops_at_the_first_look(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """planted/first_shown (first = 0.8): on 10 items the order flips 9 or 10 times with no noise flip,
    beyond the fail threshold at the 98.33% of three planned looks: it stops there, unfit."""
    calls = _count_calls(monkeypatch)
    code, card, md = _audit("first_shown", tmp_path / "audit", 10, 40)
    looks = card["looks"]
    assert code == 0 and card["verdict"] == "unfit" and looks["planned"] == [10, 20, 40]
    assert [look["items"] for look in looks["looks"]] in ([10], [10, 20])
    assert (
        looks["confidence"] == pytest.approx(1 - 0.05 / 3)
        and card["judge"]["confidence"] == looks["confidence"]
    )
    assert (
        looks["looks"][-1]["outcomes"]["position_flip"] == "fail" and "failed" in looks["stopped"]
    )
    assert "98.33% interval" in md and "--until-decided --max-items 40" in md
    table = _looks_table(md)
    assert [row[1] for row in table] == [str(look["items"]) for look in looks["looks"]]
    assert "position_flip" in table[-1][2] and table[-1][4] == "unfit"
    assert calls[0] > 0 and (tmp_path / "audit" / "looks" / "n10" / "card.md").is_file()


@pytest.mark.slow
def test_an_unbiased_judge_runs_to_max_items_and_a_rerun_makes_no_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """planted/accurate: no invalid answer in 20 items cannot show an invalid rate at most 0.05 (that takes
    ln(0.0125) / ln(0.95) = 86 items at the 97.5% of two looks): the audit runs both looks. The second look's calls on the
    first look's items come from the cache, and running the command again calls nothing."""
    calls = _count_calls(monkeypatch)
    code, card, md = _audit("accurate", tmp_path / "audit", 10, 20)
    looks = card["looks"]
    assert code == 0 and [look["items"] for look in looks["looks"]] == [10, 20] == looks["planned"]
    assert looks["stopped"] == "the last planned look" and card["verdict"] == "use with care"
    assert "fail" not in looks["looks"][-1]["outcomes"].values()
    first_run = calls[0]
    assert (
        0
        < first_run
        <= looks["looks"][-1]["judge_calls"]
        < sum(look["judge_calls"] for look in looks["looks"])
    )
    invalid = next(g for g in card["gates"] if g["name"] == "invalid_rate")
    assert invalid["outcome"] == "inconclusive" and invalid["more_items"]["items"] == math.ceil(
        math.log(0.025 / 2) / math.log(0.95)
    )  # 1 - (0.0125)^(1/n) <= 0.05 at the looks' 97.5%
    assert [row[1] for row in _looks_table(md)] == ["10", "20"]
    code, again, _ = _audit("accurate", tmp_path / "audit", 10, 20)
    assert code == 0 and calls[0] == first_run and again["looks"]["looks"] == looks["looks"]


def test_until_decided_options_are_checked_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        ["audit", "--model", "planted/accurate", "--until-decided", "--out", str(tmp_path / "a")]
    )
    assert code == 2 and capsys.readouterr().err.strip() == (
        "error: judgeaudit audit: --until-decided needs --max-items N (the most items to audit)"
    )
    code = main(
        ["audit", "--model", "planted/accurate", "--max-items", "5", "--out", str(tmp_path / "a")]
    )
    assert code == 2 and "--max-items goes with --until-decided" in capsys.readouterr().err
    code = main(
        [
            "audit",
            "--model",
            "planted/accurate",
            "--dataset",
            BUNDLED,
            "--limit",
            "10",
            "--until-decided",
            "--max-items",
            "5",
            "--out",
            str(tmp_path / "a"),
        ]
    )
    err = capsys.readouterr().err.strip()
    assert (
        code == 2
        and err.startswith("error: judgeaudit audit: --max-items (5) must be at least")
        and len(err.splitlines()) == 1
    )
