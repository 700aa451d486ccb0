"""`judgeaudit report` on a panel's log beside single-judge runs of its members (real Inspect runs of
planted members): each member as a configuration of its own read from the panel's log, the panel
table (overrule rates, members' agreement, cost as made), the panel in the cost and Pareto figures,
and the stored panel verdict checked against its calls."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from helpers.inspect_runs import eval_ok

from judgeaudit.cli import main
from judgeaudit.judges.tasks import novelty_pairwise
from judgeaudit.report.aggregations import reconcile_stored
from judgeaudit.report.frame import load_frame

BUNDLED = "iclr2026/human_only"
MEMBERS = ("planted/first_shown", "planted/accurate/x", "planted/accurate/y")
PANEL = "panel(first_shown+x+y)"
ITEMS = 12
SEP = " · "


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Single runs of each member and of the panel, unperturbed and under the position probe."""
    root = tmp_path_factory.mktemp("panel-report")
    for probe, samples in (
        (None, ITEMS),
        ("position", 2 * ITEMS),
    ):  # the position probe: two arms per item
        for member in MEMBERS:
            eval_ok(
                novelty_pairwise(dataset=BUNDLED, probe=probe, resamples=200),
                root,
                model=member,
                limit=samples,
            )
        eval_ok(
            novelty_pairwise(
                dataset=BUNDLED, probe=probe, judge="panel", panel=",".join(MEMBERS), resamples=200
            ),
            root,
            limit=samples,
        )
    return root / "logs"


@pytest.fixture(scope="module")
def report(logdir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("out")
    assert main(["report", str(logdir), "--out", str(out), "--resamples", "500"]) == 0
    return out, json.loads((out / "report.json").read_text(encoding="utf-8"))


def alpha_nominal(data: np.ndarray) -> float:
    """Krippendorff's alpha (nominal) of a coders x units matrix with NaN missing, from its definition
    (coincidence matrix over units with at least two values), written apart from judgeaudit.stats."""
    values = sorted({v for v in data.ravel() if v == v})
    index = {v: i for i, v in enumerate(values)}
    o = np.zeros((len(values), len(values)))
    for unit in data.T:
        present = [index[v] for v in unit if v == v]
        m = len(present)
        if m < 2:
            continue
        for i, a in enumerate(present):
            for j, b in enumerate(present):
                if i != j:
                    o[a, b] += 1 / (m - 1)
    n_c = o.sum(axis=1)
    n = n_c.sum()
    observed = o.sum() - np.trace(o)
    expected = (n * n - (n_c**2).sum()) / (n - 1)
    return float(1 - observed / expected)


def unperturbed(rep: dict[str, Any]) -> dict[str, Any]:
    (group,) = [g for g in rep["groups"] if g["kind"] == "pairwise"]
    return group


def test_members_are_configurations_read_from_the_panels_log(
    report: tuple[Path, dict[str, Any]],
) -> None:
    out, rep = report
    items = pd.read_csv(out / "items.csv")
    base = items[~items["variant"].str.contains("probe=")]
    panel_config = f"{PANEL}{SEP}prompt=reference{SEP}k=1{SEP}judge=panel"
    for short in ("first_shown", "x", "y"):
        single = base[base["config"] == f"{short}{SEP}prompt=reference{SEP}k=1"].set_index(
            "item_id"
        )["verdict"]
        member = base[
            base["config"] == f"{short}{SEP}prompt=reference{SEP}k=1{SEP}member of {PANEL}"
        ]
        assert len(member) == ITEMS and set(member["member_of"]) == {panel_config}
        # the member's verdicts read from the panel's log are the ones its single run gave
        assert (
            member.set_index("item_id")["verdict"].sort_index().tolist()
            == single.sort_index().tolist()
        )
    group = unperturbed(rep)
    assert panel_config in group["configs"] and group["configs"][panel_config]["model"] == PANEL


def test_the_panel_table_counts_overrules_agreement_and_cost_by_hand(
    report: tuple[Path, dict[str, Any]],
) -> None:
    out, rep = report
    items = pd.read_csv(out / "items.csv")
    base = items[~items["variant"].str.contains("probe=")]
    panel_config = f"{PANEL}{SEP}prompt=reference{SEP}k=1{SEP}judge=panel"
    summary = unperturbed(rep)["panels"][panel_config]
    panel_v = base[base["config"] == panel_config].set_index("item_id")["verdict"].sort_index()
    codes = {"a": 0.0, "b": 1.0, "tie": 2.0}
    rows = []
    for name, short in zip(MEMBERS, ("first_shown", "x", "y"), strict=True):
        member_v = (
            base[base["config"] == summary["members"][name]["config"]]
            .set_index("item_id")["verdict"]
            .sort_index()
        )
        both = panel_v.isin(list(codes)) & member_v.isin(list(codes))
        expected = float((panel_v[both] != member_v[both]).mean())
        assert summary["members"][name]["overruled"]["estimate"] == pytest.approx(expected)
        assert summary["members"][name]["config"].startswith(f"{short}{SEP}")
        rows.append([codes.get(v, np.nan) for v in member_v])
    assert (
        summary["members"]["planted/first_shown"]["overruled"]["estimate"] > 0
    )  # the biased member is overruled
    assert summary["agreement"]["estimate"] == pytest.approx(alpha_nominal(np.array(rows)))
    assert summary["items_below_quorum"] == 0 and summary["mean_answered"] == 3.0
    # cost as made: the panel's calls are its members' calls
    member_tokens = sum(m["cost_as_made"]["tokens"] for m in summary["members"].values())
    assert summary["cost_as_made"]["tokens"] == member_tokens > 0
    assert summary["cost_as_made"]["calls"] == 3 * ITEMS
    table = Path(
        rep["files"]["tables"]["panels_pairwise_iclr2026/human_only"]["markdown"]
    ).read_text(encoding="utf-8")
    assert "Krippendorff's alpha (nominal)" in table
    assert (
        f"| prompt=reference · k=1 · judge=panel | {PANEL} | panel (majority, 2 of 3 must answer) |"
        in table
    )
    assert (
        table.count("| planted/first_shown |") == 3
    )  # one member row per panel configuration (3: the probe arms too)


def test_the_panel_has_a_lower_first_position_rate_than_its_biased_member(
    report: tuple[Path, dict[str, Any]],
) -> None:
    """From the report's own items (the position probe's two arms): share of decided judgments that
    chose the idea shown first (a in a/b order, b in b/a order)."""
    out, _ = report
    items = pd.read_csv(out / "items.csv")

    def first_rate(model: str) -> float:
        rows = items[
            (items["model"] == model) & (items["probe"] == "position") & items["member_of"].notna()
            if model != PANEL
            else (items["model"] == model) & (items["probe"] == "position")
        ]
        decided = rows[rows["verdict"].isin(["a", "b"])]
        first = ((decided["probe_variant"] == "order_ab") & (decided["verdict"] == "a")) | (
            (decided["probe_variant"] == "order_ba") & (decided["verdict"] == "b")
        )
        return float(first.mean())

    biased, panel, accurate = first_rate("first_shown"), first_rate(PANEL), first_rate("x")
    assert biased > 0.75 and panel < biased and abs(accurate - 0.5) < 0.2


def test_the_panel_is_placed_among_single_judges(report: tuple[Path, dict[str, Any]]) -> None:
    out, rep = report
    configs = unperturbed(rep)["configs"]
    models = {e["model"] for e in configs.values()}
    assert {PANEL, "first_shown", "x", "y"} <= models
    assert all(
        e["cost_per_item_usd"] == 0.0 for e in configs.values()
    )  # planted calls are free, and known
    assert (
        "cost_vs_quality" in rep["files"]["figures"]
        and (out / "cost_vs_quality.png").stat().st_size > 0
    )
    cost = (out / "cost.md").read_text(encoding="utf-8")
    assert f"| {PANEL} |" in cost and "member of" in cost


def test_a_stored_panel_verdict_that_its_calls_do_not_give_is_recounted(logdir: Path) -> None:
    """The panel's rule decides: a stored verdict its calls do not give is replaced and named."""
    frame = load_frame(logdir).frame
    assert reconcile_stored(frame)[1] == []
    panel_rows = frame.index[frame["model"] == PANEL]
    right = frame.loc[panel_rows[0], "verdict"]
    frame.loc[panel_rows[0], "verdict"] = "tie" if right != "tie" else "a"
    fixed, notes = reconcile_stored(frame)
    assert fixed.loc[panel_rows[0], "verdict"] == right
    assert len(notes) == 1 and notes[0]["sample_id"] == frame.loc[panel_rows[0], "sample_id"]
