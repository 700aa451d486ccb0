"""The paper-style outputs of a report, built from small frames (no Inspect run): the study grid
(changes x judges), its heatmap and table, flip rates against the reference, tie rates by judge and
setup, the derived aggregations apart, LaTeX that compiles, one colour per judge, the cost figure
when every cost is 0, and sets given by path named by where they came from."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from helpers.frame_rows import frame_row

from judgeaudit.report.aggregations import with_aggregations
from judgeaudit.report.compute import align_group, compute_group
from judgeaudit.report.figures import (
    cost_figure,
    heatmap_figure,
    judge_colors,
    label_positions,
    tie_figure,
)
from judgeaudit.report.frame import dataset_label
from judgeaudit.report.grid import change_label, study_grid
from judgeaudit.report.tables import (
    all_tables,
    grid_table,
    judge_tie_table,
    latex_text,
    write_table,
)
from judgeaudit.resources import datasets_root

REF = "prompt=reference · k=2"
P1 = "prompt=p1_no_guardrails · k=2"
N = 20


def _row(model: str, variant: str, i: int, verdicts: list[str], dataset: str) -> dict[str, Any]:
    """One judged pair: gold `a` on even items, the first ten human_only, the rest human_generated;
    two calls of the item's own order with the given verdicts (stored verdict: their mean vote)."""
    gold = "a" if i % 2 == 0 else "b"
    votes = [{"a": 1.0, "b": 0.0, "tie": 0.5}[v] for v in verdicts]
    mean = sum(votes) / len(votes)
    verdict = "a" if mean > 0.5 else "b" if mean < 0.5 else "tie"
    calls = [("ab", k, v) for k, v in enumerate(verdicts)]
    setup = "human_only" if i < 10 else "human_generated"
    row = frame_row(f"{model} · {variant}", f"i{i}", gold, calls, verdict, model, variant, setup)
    return {**row, "dataset": dataset, "model_id": f"planted/{model}", "panel": None, "cost": 0.0}


def _frame(dataset: str = "d") -> pd.DataFrame:
    """Judge `good` right everywhere on the reference and wrong on items 0-7 under P1; judge `tie`
    ties on the human_only items (0-9) on both, its first call right everywhere."""
    rows = []
    for i in range(N):
        gold = "a" if i % 2 == 0 else "b"
        wrong = "b" if gold == "a" else "a"
        rows.append(_row("good", REF, i, [gold, gold], dataset))
        rows.append(_row("good", P1, i, [wrong, wrong] if i < 8 else [gold, gold], dataset))
        for variant in (REF, P1):
            rows.append(_row("tie", variant, i, [gold, wrong] if i < 10 else [gold, gold], dataset))
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def group() -> dict[str, Any]:
    frame = with_aggregations(_frame())
    return compute_group(align_group(frame, "pairwise", "d"), None, 200, 1, human_agreement=False)


def test_change_labels() -> None:
    assert (
        change_label(P1, REF) == "prompt=p1_no_guardrails" and change_label(REF, REF) == "reference"
    )
    assert change_label(f"{REF} · agg=k1", REF) == "agg=k1"
    assert change_label("prompt=reference", REF) == "without k=2"
    assert change_label(P1, None) == P1


def test_grid_rows_reference_first_aggregations_apart(group: dict[str, Any]) -> None:
    grid = study_grid(group)
    assert grid.rows == [REF, P1] and grid.judges == ["good", "tie"]
    assert [grid.labels[v] for v in grid.rows] == ["reference", "prompt=p1_no_guardrails"]
    # good loses 8 of 20 under P1: paired difference -0.4, significant (exact McNemar p = 2^-7)
    d = grid.delta(P1, "good")
    assert d is not None and d["estimate"] == pytest.approx(-0.4) and d["significant"]
    assert grid.delta(REF, "good") is None
    agg = study_grid(group, aggregations=True)
    assert agg.rows == [f"{REF} · agg=k1", f"{P1} · agg=k1"]  # no controlled change among them
    # tie's first call is right everywhere: k1 lifts its accuracy from 0.5 to 1 vs its reference
    k1 = agg.delta(f"{REF} · agg=k1", "tie")
    assert k1 is not None and k1["estimate"] == pytest.approx(0.5)


def test_grid_table_cells(group: dict[str, Any]) -> None:
    table = grid_table(group)
    assert list(table.display.columns) == ["change", "good", "tie"]
    assert table.display.iloc[0].tolist() == ["reference", "1.000 (reference)", "0.500 (reference)"]
    assert table.display.iloc[1].tolist() == [
        "prompt=p1_no_guardrails",
        "-0.400* (0.600)",
        "+0.000 (0.500)",
    ]
    row = table.data[(table.data["model"] == "good") & ~table.data["is_reference"]].iloc[0]
    assert row["delta"] == pytest.approx(-0.4) and row["p_value"] < 0.05


def test_every_table_keeps_the_grid_readable(group: dict[str, Any]) -> None:
    tables = {t.name: t for t in all_tables([group])}
    ablation = tables["ablation_pairwise_d"].display["configuration"].tolist()
    assert ablation == [REF, P1]  # the reference first, no agg= rows
    aggregations = tables["aggregations_pairwise_d"].display["configuration"].tolist()
    assert aggregations == [REF, f"{REF} · agg=k1", f"{P1} · agg=k1"]
    flips = tables["flip_rates_pairwise_d"].display
    assert list(flips.columns) == ["change", "good", "tie"] and len(flips) == 4  # not 8 x 8
    assert flips.iloc[1]["good"].startswith("0.400 [")  # 8 of 20 flipped
    ties = tables["tie_rates_pairwise_d".replace("_pairwise", "")].display
    assert "all" in ties.columns  # two setups: 'all' beside them


def test_tie_table_by_judge_and_setup(group: dict[str, Any]) -> None:
    other = compute_group(
        align_group(_frame("gen").assign(setup="ai_only"), "pairwise", "gen"),
        None,
        200,
        1,
        human_agreement=False,
    )
    table = judge_tie_table([group, other])
    assert table is not None
    assert list(table.display.columns) == ["judge", "Human-Only", "Human+Generated", "AI-Only"]
    tie = table.display.set_index("judge").loc["tie"]
    assert tie["Human-Only"].startswith("1.000 [") and tie["Human+Generated"].startswith("0.000 [")
    # the same setup in two datasets: the dataset is named
    again = judge_tie_table([group, {**group, "dataset": "d2"}])
    assert again is not None and "Human-Only (d2)" in again.display.columns


def test_one_setup_has_no_duplicate_all(tmp_path: Path) -> None:
    frame = _frame().assign(setup="human_only")
    g = compute_group(align_group(frame, "pairwise", "d"), None, 200, 1, human_agreement=False)
    tables = {t.name: t for t in all_tables([g])}
    assert "all" not in tables["tie_rates_d"].display.columns
    svg = Path(tie_figure(g, tmp_path, judge_colors([g]))["svg"]).read_text()
    assert "Human-Only" in svg and "all items" not in svg


def test_heatmap_cells_and_files(group: dict[str, Any], tmp_path: Path) -> None:
    paths = heatmap_figure(group, tmp_path)
    assert Path(paths["png"]).name == "heatmap_pairwise_d.png" and Path(paths["png"]).stat().st_size
    svg = Path(paths["svg"]).read_text()
    for text in ("−0.40* (0.60)", "+0.00 (0.50)", "(1.00)", "prompt=p1_no_guardrails", "reference"):
        assert text.replace("−", "-") in svg.replace("−", "-"), text
    assert "agg=k1" not in svg


def test_judge_colours_are_shared_across_groups(group: dict[str, Any]) -> None:
    solo = {**group, "configs": {k: v for k, v in group["configs"].items() if v["model"] == "tie"}}
    assert judge_colors([group, solo])["tie"] == judge_colors([group])["tie"]
    assert judge_colors([group])["good"] != judge_colors([group])["tie"]


def test_cost_figure_says_when_every_cost_is_zero(group: dict[str, Any], tmp_path: Path) -> None:
    svg = Path(cost_figure([group], tmp_path, judge_colors([group]))["svg"]).read_text()
    assert "cost USD 0" in svg and "-0.06" not in svg


def test_label_positions_do_not_overlap() -> None:
    heights = label_positions([(0.0, 0.5), (1.0, 0.5), (2.0, 0.51), (3.0, 0.9)], 0.05)
    assert sorted(heights) == pytest.approx([0.5, 0.55, 0.6, 0.9])


def test_latex_escaping() -> None:
    assert latex_text("iclr2026/human_only & 50% #1 {x} ~ ^") == (
        r"iclr2026/human\_only \& 50\% \#1 \{x\} \textasciitilde{} \textasciicircum{}"
    )
    assert latex_text("Δ ρ") == r"$\Delta$ $\rho$" and latex_text("a\\b") == r"a\textbackslash{}b"


def test_latex_tables_compile(group: dict[str, Any], tmp_path: Path) -> None:
    if shutil.which("pdflatex") is None:
        pytest.skip("no TeX engine: apt-get install texlive-latex-base (pdflatex) to compile")
    inputs = []
    for table in all_tables([group]):
        table.caption += " strict_accuracy on iclr2026/human_only, 5% of ties & more"
        inputs.append(Path(write_table(table, tmp_path)["latex"]).name)
    body = "\n".join(f"\\input{{{name}}}" for name in inputs)
    doc = tmp_path / "paper.tex"
    doc.write_text(
        "\\documentclass{article}\n\\usepackage[T1]{fontenc}\n\\usepackage{graphicx}\n"
        f"\\begin{{document}}\n{body}\n\\end{{document}}\n"
    )
    done = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", doc.name],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:]
    assert (tmp_path / "paper.pdf").stat().st_size > 1000


def test_sets_given_by_path_are_named_by_where_they_came_from(tmp_path: Path) -> None:
    bundled = datasets_root() / "iclr2026" / "human_only"
    assert dataset_label(str(bundled)) == "iclr2026/human_only"  # the bundled set, by path
    assert dataset_label(str(bundled / "pairwise.jsonl")) == "iclr2026/human_only"
    mine = tmp_path / "mine" / "human_only"
    assert dataset_label(str(mine)) == ".../mine/human_only"  # not the bundled human_only
    assert dataset_label(str(tmp_path / "toyset")) == "toyset"


def test_rows_of_study_cells_read_as_the_changes_they_make() -> None:
    """Cells of the reference study (task metadata `judgeaudit.study.change`) are labelled by their
    change, derived aggregations with theirs; a row some judge ran outside the study keeps the
    label of what its variant changes."""
    from judgeaudit.report.frame import study_change

    assert study_change({"study": {"change": "plan"}}) == "plan"
    assert study_change({"kind": "pairwise"}) is None and study_change(None) is None
    cells = {REF: "reference", P1: "p1_no_guardrails"}
    frame = _frame().assign(study_change=lambda f: f["variant"].map(cells))
    frame = with_aggregations(frame)
    group = compute_group(align_group(frame, "pairwise", "d"), None, 200, 1, human_agreement=False)
    grid = study_grid(group)
    assert [grid.labels[v] for v in grid.rows] == ["reference", "p1_no_guardrails"]
    agg = study_grid(group, aggregations=True)
    assert [agg.labels[v] for v in agg.rows] == ["reference · agg=k1", "p1_no_guardrails · agg=k1"]
    one_outside = _frame().assign(
        study_change=lambda f: [
            None if m == "tie" else cells[v] for m, v in zip(f["model"], f["variant"], strict=True)
        ]
    )
    group = compute_group(
        align_group(one_outside, "pairwise", "d"), None, 200, 1, human_agreement=False
    )
    assert study_grid(group).labels[P1] == "prompt=p1_no_guardrails"
