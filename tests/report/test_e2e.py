"""`judgeaudit report` on logs of REAL Inspect runs of the judge tasks (`novelty_pairwise`,
`novelty_pointwise`) with mockllm judges of known behaviour; every number checked against
hand-computed expectations.

Mock judges (mockllm stands in for a hosted LLM, unreachable here; each reads the rendered
prompt, where idea texts carry `marker:novel` / `marker:plain` and `item:<i>`):
- `right`: always names the novel idea (pointwise: the right label);
- `always_a`: always answers A (pointwise: always NOVEL) - with both orders every pair ties;
- `half_tie`: TIE on items 0-3 (the human_only setup), right on 4-7 (pointwise: unparseable
  text on item 0, a failed call - the model raises - on item 1, right elsewhere; the grid runs
  with `fail_on_error=False`, so that log is a success with one `error` item).
Items: 8 pairs / 8 points, gold `a` (pointwise `novel`) on even items; items 0-3 human_only,
4-7 human_generated. Every call reports 100 input + 10 output tokens and USD 0.001.
"""

from __future__ import annotations

import json
import math
import re
import shutil
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from helpers.items import make_idea
from inspect_ai import Epochs, Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import match
from inspect_ai.solver import Generate, TaskState, solver
from scipy.stats import norm

from judgeaudit.cli import main
from judgeaudit.data.contract import PairItem, PointItem
from judgeaudit.data.jsonl import write_items
from judgeaudit.judges.tasks import novelty_pairwise, novelty_pointwise
from judgeaudit.report.build import build_report
from judgeaudit.report.compute import ItemMismatchError
from judgeaudit.report.frame import load_frame

pytestmark = pytest.mark.slow

B = 2000
N = 8
REF = "prompt=reference · k=1"
BOTH = "prompt=reference · k=1 · both_orders=true"
ONE_ORDER = BOTH + " · agg=one_order"
COST_PER_CALL = 0.001


def _items(set_dir: Path) -> None:
    pairs, points = [], []
    for i in range(N):
        setup = "human_only" if i < 4 else "human_generated"
        novel = make_idea(f"n{i}", "novel", text=f"marker:novel item:{i} a new way to do things")
        plain = make_idea(f"p{i}", "not_novel", text=f"marker:plain item:{i} the usual way")
        gold = "a" if i % 2 == 0 else "b"
        a, b = (novel, plain) if gold == "a" else (plain, novel)
        pairs.append(
            PairItem(
                pair_id=f"pair{i}",
                setup=setup,
                area="learning theory",
                idea_a=a,
                idea_b=b,
                gold=gold,
            )
        )  # type: ignore[arg-type]
        idea = novel if i % 2 == 0 else plain
        points.append(PointItem(item_id=f"point{i}", setup=setup, idea=idea, gold=idea.label))  # type: ignore[arg-type]
    write_items(set_dir / "pairwise.jsonl", pairs)
    write_items(set_dir / "pointwise.jsonl", points)


def _judge(behaviour: str):  # type: ignore[no-untyped-def]
    def respond(input: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        text = input[-1].text
        item = int(re.search(r"item:(\d+)", text).group(1))  # type: ignore[union-attr]
        if "Verdict: NOT NOVEL" in text:  # pointwise prompt
            right = "NOVEL" if "marker:novel" in text else "NOT NOVEL"
            answer = {"right": right, "always_a": "NOVEL", "half_tie": right}[behaviour]
            if behaviour == "half_tie" and item == 1:
                raise ConnectionRefusedError("connection refused at http://127.0.0.1:9/v1")
            content = (
                "I cannot tell."
                if behaviour == "half_tie" and item < 2
                else f"Reasoning.\nVerdict: {answer}"
            )
        else:
            right = "A" if text.index("marker:novel") < text.index("marker:plain") else "B"
            answer = {"right": right, "always_a": "A", "half_tie": "TIE" if item < 4 else right}[
                behaviour
            ]
            content = f"Reasoning.\nVerdict: {answer}"
        out = ModelOutput.from_content(model=behaviour, content=content)
        out.usage = ModelUsage(
            input_tokens=100, output_tokens=10, total_tokens=110, total_cost=COST_PER_CALL
        )
        return out

    return respond


def _plain(input: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
    out = ModelOutput.from_content(model="plain", content="x")
    out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return out


@solver
def _boom():  # type: ignore[no-untyped-def]
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        raise RuntimeError("deliberate failure")

    return solve


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Real Inspect logs: 3 judges x (2 pairwise variants + 1 pointwise), one foreign log, one failed log."""
    root = tmp_path_factory.mktemp("report")
    set_dir = root / "toyset"
    _items(set_dir)
    logs = root / "logs"
    models = [
        get_model(f"mockllm/{b}", custom_outputs=_judge(b))
        for b in ("right", "always_a", "half_tie")
    ]
    tasks = [
        novelty_pairwise(dataset=str(set_dir), cache=False),
        novelty_pairwise(dataset=str(set_dir), both_orders=True, cache=False),
        novelty_pointwise(dataset=str(set_dir), cache=False),
    ]
    t0 = time.perf_counter()
    results = eval(
        tasks, model=models, log_dir=str(logs), display="none", max_tasks=4, fail_on_error=False
    )
    results += eval(
        novelty_pairwise(dataset=str(set_dir), probe="position", cache=False),
        model=models[1],
        log_dir=str(logs),
        display="none",
    )
    assert all(r.status == "success" for r in results)
    print("grid", time.perf_counter() - t0)
    foreign = Task(
        dataset=[Sample(input="hi", target="x", id="s1")], scorer=match(), name="foreign"
    )
    eval(
        foreign,
        model=get_model("mockllm/right", custom_outputs=_plain),
        log_dir=str(logs),
        display="none",
    )
    failing = novelty_pairwise(dataset=str(set_dir), cache=False)
    failing.solver = _boom()
    t0 = time.perf_counter()
    eval(failing, model=get_model("mockllm/broken"), log_dir=str(logs), display="none")
    print("failing", time.perf_counter() - t0)
    return logs


@pytest.fixture(scope="module")
def report(logdir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("out")
    assert (
        main(["report", str(logdir), "--out", str(out), "--resamples", str(B), "--seed", "5"]) == 0
    )
    return {"out": out, "json": json.loads((out / "report.json").read_text())}


def _group(rep: dict[str, Any], kind: str) -> dict[str, Any]:
    return next(g for g in rep["json"]["groups"] if g["kind"] == kind)


def _cfg(group: dict[str, Any], judge: str, variant: str) -> dict[str, Any]:
    return group["configs"][f"{judge} · {variant}"]


def test_frame_rows_and_skips(logdir: Path) -> None:
    loaded = load_frame(logdir)
    frame = loaded.frame
    assert len(frame) == 3 * 3 * N + 2 * N  # 3 judges x 3 tasks x 8 items + 2 position arms
    reasons = sorted(s["reason"] for s in loaded.skipped_logs)
    assert len(reasons) == 2
    assert (
        reasons[0].startswith("not a judgeaudit log")
        and reasons[1] == "status error: deliberate failure"
    )
    row = frame[(frame["config"] == f"always_a · {BOTH}") & (frame["item_id"] == "pair0")].iloc[0]
    assert row["verdict"] == "tie" and row["call_verdicts"] == "ab#0:a,ba#0:b"
    assert (
        row["model"] == "always_a"
        and row["model_id"] == "mockllm/always_a"
        and row["judge"] == "prompted"
        and row["dataset"] == "toyset"
        and row["setup"] == "human_only"
    )
    assert row["total_tokens"] == 220 and row["cost"] == pytest.approx(2 * COST_PER_CALL)


EXPECTED_PAIRWISE = {
    # (judge, variant): strict, soft, no-ties, tie rate, invalid rate
    ("right", REF): (1.0, 1.0, 1.0, 0.0, 0.0),
    ("always_a", REF): (0.5, 0.5, 0.5, 0.0, 0.0),
    ("half_tie", REF): (0.5, 0.75, 1.0, 0.5, 0.0),
    ("right", BOTH): (1.0, 1.0, 1.0, 0.0, 0.0),
    ("always_a", BOTH): (0.0, 0.5, None, 1.0, 0.0),
    ("half_tie", BOTH): (0.5, 0.75, 1.0, 0.5, 0.0),
    ("always_a", ONE_ORDER): (0.5, 0.5, 0.5, 0.0, 0.0),  # recomputed from the ab calls only
}


@pytest.mark.parametrize(("key", "expected"), list(EXPECTED_PAIRWISE.items()))
def test_pairwise_metrics_match_hand_computation(
    report: dict[str, Any], key: tuple[str, str], expected: tuple
) -> None:
    m = _cfg(_group(report, "pairwise"), *key)["metrics"]
    names = ("strict_accuracy", "soft_accuracy", "accuracy_no_ties", "tie_rate", "invalid_rate")
    for name, value in zip(names, expected, strict=True):
        assert m[name]["estimate"] == (pytest.approx(value) if value is not None else None), name
        # shares of 0/1 outcomes get Clopper-Pearson, soft accuracy (0, 1/2, 1 per item) the score interval;
        # neither resamples
        method = "score (continuity-corrected)" if name == "soft_accuracy" else "clopper-pearson"
        assert (m[name]["method"], m[name]["resamples"], m[name]["seed"]) == (method, None, None), (
            name
        )
    for name, value in zip(names, expected, strict=True):
        if value in (0.0, 1.0) and name in (
            "strict_accuracy",
            "tie_rate",
            "invalid_rate",
        ):  # 0 or 8 of 8 by hand: [0, 1 - 0.025^(1/8)] or [0.025^(1/8), 1]
            end = 0.025 ** (1 / N)
            assert (m[name]["low"], m[name]["high"]) == (
                (pytest.approx(end), 1.0) if value else (0.0, pytest.approx(1 - end))
            )


def test_paired_differences_and_flip_rates(report: dict[str, Any]) -> None:
    g = _group(report, "pairwise")
    assert g["reference"]["by_model"] == {
        j: f"{j} · {REF}" for j in ("always_a", "half_tie", "right")
    }
    d = _cfg(g, "always_a", BOTH)["vs_reference"]["strict_accuracy"]
    # per item: -1 on the four gold-a pairs, 0 elsewhere -> -0.5; four discordant pairs, all one way:
    # exact McNemar 2 / 2^4 = 0.125, so no claim, and the paired interval reaches 0 (the percentile
    # bootstrap excluded 0 here, and only a minimum of items kept it from a claim)
    assert (
        d["estimate"] == pytest.approx(-0.5)
        and d["low"] < -0.5 < 0 < d["high"]
        and not d["significant"]
    )
    # p: the larger of exact McNemar (0.125) and the interval's own test at 0, (|0 - 4| - 1) / sqrt(4) = 1.5
    assert (
        d["p_value"] == pytest.approx(2 * norm.sf(1.5))
        and d["method"] == "paired score (Tango, continuity-corrected)"
    )
    assert d["test"].startswith("exact McNemar") and d["resamples"] is None
    assert _cfg(g, "always_a", BOTH)["flip_rate_vs_reference"]["estimate"] == 1.0
    same = _cfg(g, "right", BOTH)["vs_reference"]["strict_accuracy"]
    assert same["estimate"] == 0 and not same["significant"] and same["p_value"] == 1.0
    assert _cfg(g, "half_tie", BOTH)["flip_rate_vs_reference"]["estimate"] == 0.0
    soft = _cfg(g, "half_tie", REF)["metrics"]["soft_accuracy"]
    assert _cfg(g, "half_tie", REF)["is_reference"] and soft["low"] <= 0.75 <= soft["high"]


def test_position_probe_arms(report: dict[str, Any]) -> None:
    """always_a on forced orders: order_ab answers a (right on gold-a pairs), order_ba answers b."""
    g = _group(report, "pairwise")
    ab = _cfg(g, "always_a", REF + " · probe=position/order_ab")
    ba = _cfg(g, "always_a", REF + " · probe=position/order_ba")
    assert ab["verdict_counts"] == {"a": N} and ba["verdict_counts"] == {"b": N}
    assert (
        ab["metrics"]["strict_accuracy"]["estimate"]
        == 0.5
        == ba["metrics"]["strict_accuracy"]["estimate"]
    )
    assert (
        ba["flip_rate_vs_reference"]["estimate"] == 1.0
        and ab["flip_rate_vs_reference"]["estimate"] == 0.0
    )
    assert ab["probe"] == "position" and ba["probe_variant"] == "order_ba"


def test_tie_rates_by_setup(report: dict[str, Any]) -> None:
    ties = _cfg(_group(report, "pairwise"), "half_tie", REF)["tie_rate_by_setup"]
    assert ties["human_only"]["estimate"] == 1.0 and ties["human_generated"]["estimate"] == 0.0
    csv = pd.read_csv(report["out"] / "tie_rates_toyset.csv")
    row = csv[
        (csv["model"] == "always_a")
        & (csv["variant"] == BOTH)
        & (csv["setup"] == "human_generated")
    ]
    assert row["estimate"].tolist() == [1.0]
    md = (report["out"] / "tie_rates_toyset.md").read_text()
    header = next(line for line in md.splitlines() if line.startswith("| configuration"))
    assert header.rstrip().endswith(
        "| invalid rate | error rate |"
    )  # beside the tie rates, in the Markdown too
    assert set(csv["metric"]) == {"tie_rate", "invalid_rate", "error_rate"}


def test_pointwise_decomposition(report: dict[str, Any]) -> None:
    g = _group(report, "pointwise")
    always = _cfg(g, "always_a", REF)["metrics"]
    # always NOVEL: novel TP 4 / predicted 8 / gold 4 -> P 0.5, R 1, F1 8/12; not_novel never predicted -> F1 0
    assert (
        always["precision_novel"]["estimate"] == 0.5 and always["recall_novel"]["estimate"] == 1.0
    )
    assert (
        always["f1_novel"]["estimate"] == pytest.approx(2 / 3)
        and always["f1_not_novel"]["estimate"] == 0.0
    )
    assert always["macro_f1"]["estimate"] == pytest.approx(1 / 3)
    garbled = _cfg(g, "half_tie", REF)["metrics"]
    # invalid on point0 (novel), error on point1 (not_novel), right elsewhere: both classes TP 3 / pred 3 / gold 4
    assert (
        garbled["invalid_rate"]["estimate"] == 0.125 and garbled["error_rate"]["estimate"] == 0.125
    )
    entry = _cfg(g, "half_tie", REF)
    assert entry["invalid_items"] == 1 and entry["error_items"] == 1 and entry["failed_calls"] == 1
    assert entry["verdict_counts"]["error"] == 1
    assert entry["error"].startswith(  # retried first (providers.replies), then given up
        "ConnectionRefusedError: connection refused at http://127.0.0.1:9/v1"
    )
    assert _cfg(g, "right", REF)["error_items"] == 0 and _cfg(g, "right", REF)["error"] is None
    assert (
        garbled["recall_novel"]["estimate"] == 0.75
        and garbled["precision_novel"]["estimate"] == 1.0
    )
    assert garbled["macro_f1"]["estimate"] == pytest.approx(6 / 7)
    assert _cfg(g, "right", REF)["metrics"]["macro_f1"]["estimate"] == 1.0
    md = (report["out"] / "pointwise_f1_toyset.md").read_text()
    assert "0.857 [" in md and "0.333 [" in md
    header = next(line for line in md.splitlines() if line.startswith("| configuration"))
    assert "| invalid rate | error rate |" in header
    row = next(
        line for line in md.splitlines() if "| half_tie |" in line and line.startswith(f"| {REF} |")
    )
    assert row.count("0.125 [") == 2  # invalid rate and error rate


def test_cost_table(report: dict[str, Any]) -> None:
    csv = pd.read_csv(report["out"] / "cost.csv")
    one = csv[
        (csv["model"] == "right") & (csv["variant"] == REF) & (csv["kind"] == "pairwise")
    ].iloc[0]
    both = csv[(csv["model"] == "right") & (csv["variant"] == BOTH)].iloc[0]
    assert one["cost_usd"] == pytest.approx(N * COST_PER_CALL) and one["total_tokens"] == N * 110
    assert both["cost_usd"] == pytest.approx(2 * N * COST_PER_CALL)
    sub = csv[csv["variant"] == ONE_ORDER].iloc[0]
    assert math.isnan(sub["cost_usd"]) and sub["cost_unknown_items"] == N


def test_ablation_table_cells(report: dict[str, Any]) -> None:
    md = (report["out"] / "ablation_pairwise_toyset.md").read_text()
    lines = {
        line.split(" | ")[0].strip("| "): line
        for line in md.splitlines()
        if line.startswith("| prompt")
    }
    assert ONE_ORDER not in lines and REF in lines  # derived aggregations: a table of their own
    agg = (report["out"] / "aggregations_pairwise_toyset.md").read_text().splitlines()
    agg_rows = [line.split(" | ")[0].strip("| ") for line in agg if line.startswith("| prompt")]
    assert agg_rows[0] == REF and ONE_ORDER in agg_rows and BOTH not in agg_rows
    header = next(line for line in md.splitlines() if line.startswith("| configuration"))
    cols = [c.strip() for c in header.strip("|").split("|")]
    judges = ["always_a", "half_tie", "right"]
    assert cols == [
        "configuration",
        *judges,
        *(f"{rate} rate ({j})" for j in judges for rate in ("tie", "invalid", "error")),
    ]
    both = [c.strip() for c in lines[BOTH].strip("|").split("|")]
    assert both[1].startswith("-0.500 [") and both[1].endswith(
        "]"
    )  # no star: 4 discordant pairs cannot show it
    # identical verdicts on 8 items: all at 0, the upper end solves (8 m - 1)^2 = z^2 8 m (1 - m): 0.471
    assert both[3] == "+0.000 [-0.471, +0.471]"
    ref = [c.strip() for c in lines[REF].strip("|").split("|")]
    assert (
        ref[3] == "1.000 [0.631, 1.000] (reference)"
    )  # 8 of 8: Clopper-Pearson 0.025^(1/8) = 0.631
    assert ref[4:7] == [
        "0.000",
        "0.000",
        "0.000",
    ]  # always_a on the reference: no ties, invalid or errors
    assert ref[7] == "0.500"  # half_tie ties on the human_only half
    assert (
        "[95% CI, clopper-pearson]" in md and "[paired score (Tango, continuity-corrected)]" in md
    )
    tex = (report["out"] / "ablation_pairwise_toyset.tex").read_text()
    assert "\\begin{tabular}" in tex and "always\\_a" in tex
    csv = pd.read_csv(report["out"] / "ablation_pairwise_toyset.csv")
    row = csv[(csv["model"] == "always_a") & (csv["variant"] == BOTH)].iloc[0]
    assert row["delta"] == pytest.approx(-0.5) and not bool(row["significant"])


def test_agreement_with_human_scores(report: dict[str, Any]) -> None:
    g = _group(report, "pairwise")
    right = _cfg(g, "right", REF)["agreement"]
    assert right["pearson"]["estimate"] == pytest.approx(1.0) and right["cohen_kappa"][
        "estimate"
    ] == pytest.approx(1.0)
    # half_tie: ties on 4 items, right on 4; kappa over {b, tie, a}: p_o 1/2, p_e 1/4 -> 1/3
    assert _cfg(g, "half_tie", REF)["agreement"]["cohen_kappa"]["estimate"] == pytest.approx(1 / 3)
    assert (
        _cfg(g, "always_a", REF)["agreement"]["pearson"]["estimate"] is None
    )  # constant judge: undefined
    md = (report["out"] / "agreement_pairwise_toyset.md").read_text()
    assert "| prompt=reference · k=1 | half_tie | 8 |" in md and "0.333 [" in md


def test_flip_rates(report: dict[str, Any]) -> None:
    matrix = _group(report, "pairwise")["flip_rates"]  # every pair: report.json only
    # always_a says a everywhere; half_tie ties on 0-3 and is right on 4-7 (a on 4 and 6) -> 6 of 8 differ
    assert matrix[f"always_a · {REF}"][f"half_tie · {REF}"] == 0.75
    csv = pd.read_csv(report["out"] / "flip_rates_pairwise_toyset.csv")  # against the reference
    row = csv[(csv["model"] == "always_a") & (csv["variant"] == BOTH)]
    assert row["estimate"].tolist() == [1.0] and set(csv["reference"]) == {
        f"{j} · {REF}" for j in ("always_a", "half_tie", "right")
    }
    md = (report["out"] / "flip_rates_pairwise_toyset.md").read_text()
    header = next(line for line in md.splitlines() if line.startswith("| change"))
    assert header == "| change | always_a | half_tie | right |"


def test_figures_and_json(report: dict[str, Any]) -> None:
    out = report["out"]
    for stem in (
        "cost_vs_quality",
        "tie_rates_toyset",
        "deltas_pairwise_toyset",
        "deltas_pointwise_toyset",
        "heatmap_pairwise_toyset",
        "heatmap_pointwise_toyset",
    ):
        for ext in ("png", "svg"):
            assert (out / f"{stem}.{ext}").stat().st_size > 1000, stem
    summary = (out / "report.md").read_text()
    assert "B = 2000, seed 5" in summary and "![cost_vs_quality](cost_vs_quality.png)" in summary
    assert summary.count("status error") == 1
    data = report["json"]
    assert data["bootstrap"]["resamples"] == B and data["bootstrap"]["seed"] == 5
    assert data["input"]["logs_read"] == 10 and len(data["input"]["skipped_logs"]) == 2


def test_item_mismatch_is_an_error_unless_intersect(logdir: Path, tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    shutil.copytree(logdir, logs)
    set_dir = (
        logdir.parent / "toyset"
    )  # the same dataset as the grid (another path would be another dataset)
    eval(
        novelty_pairwise(dataset=str(set_dir), prompt="p1_no_guardrails", cache=False),
        model=get_model("mockllm/right", custom_outputs=_judge("right")),
        log_dir=str(logs),
        display="none",
        limit=6,
    )
    with pytest.raises(ItemMismatchError, match=r"lacks 2: pair6, pair7"):
        build_report(logs, tmp_path / "out", resamples=200)
    assert (
        main(
            [
                "report",
                str(logs),
                "--out",
                str(tmp_path / "o2"),
                "--resamples",
                "200",
                "--no-figures",
            ]
        )
        == 2
    )
    rep = build_report(logs, tmp_path / "out", resamples=200, intersect=True, figures=False)
    g = next(g for g in rep.groups if g["kind"] == "pairwise")
    assert g["n_items"] == 6 and g["intersection"]["items_dropped"] == ["pair6", "pair7"]
    assert (
        "6 items kept, 2 dropped" in (tmp_path / "out" / "ablation_pairwise_toyset.md").read_text()
    )


def test_reference_by_full_config_name(logdir: Path, tmp_path: Path) -> None:
    rep = build_report(logdir, tmp_path, reference=f"right · {REF}", resamples=200, figures=False)
    g = next(g for g in rep.groups if g["kind"] == "pairwise")
    d = g["configs"][f"always_a · {REF}"]["vs_reference"]["strict_accuracy"]
    assert d["estimate"] == pytest.approx(-0.5)
    with pytest.raises(KeyError, match="matches no configuration"):
        build_report(logdir, tmp_path, reference="nonesuch", resamples=200, figures=False)


def test_rerun_supersedes_older_log(logdir: Path, tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    shutil.copytree(logdir, logs)
    set_dir = logdir.parent / "toyset"
    eval(
        novelty_pairwise(dataset=str(set_dir), cache=False),
        model=get_model("mockllm/right", custom_outputs=_judge("right")),
        log_dir=str(logs),
        display="none",
    )
    loaded = load_frame(logs)
    superseded = [s for s in loaded.skipped_logs if s["reason"].startswith("superseded")]
    assert len(superseded) == 1 and f"right · {REF}" in superseded[0]["reason"]
    assert len(loaded.frame) == 3 * 3 * N + 2 * N


def test_epochs_pooled_by_the_task_and_bad_files_skipped(tmp_path: Path) -> None:
    """--epochs 2: the task's pool_calls reduction is one verdict per item from both epochs' calls;
    with a reducer that keeps no calls (mean) every epoch is read as its own run."""
    set_dir = tmp_path / "toyset"
    _items(set_dir)
    logs = tmp_path / "logs"
    model = get_model("mockllm/half_tie", custom_outputs=_judge("half_tie"))
    eval(
        novelty_pairwise(dataset=str(set_dir), cache=False),
        model=model,
        log_dir=str(logs),
        display="none",
        epochs=2,
    )
    (logs / "2026-01-01T00-00-00-00-00_broken_abc.eval").write_bytes(b"not a zip file")
    loaded = load_frame(logs)
    assert [s["reason"].split(":")[0] for s in loaded.skipped_logs] == ["unreadable"]
    frame = loaded.frame
    assert frame["variant"].unique().tolist() == [REF + " · epochs=2"] and len(frame) == N
    row = frame[frame["item_id"] == "pair5"].iloc[0]
    assert row["call_verdicts"] == "ab#0:b,ab#1:b" and row["epochs"] == 2
    assert row["total_tokens"] == 220 and row["cost"] == pytest.approx(2 * COST_PER_CALL)
    rep = build_report(logs, tmp_path / "out", resamples=200, figures=False)
    cfg = rep.groups[0]["configs"][f"half_tie · {REF} · epochs=2 · agg=k1"]
    assert (
        cfg["flip_rate_vs_reference"]["estimate"] == 0.0
        and cfg["reference"] == f"half_tie · {REF} · epochs=2"
    )

    other = tmp_path / "other"
    eval(
        novelty_pairwise(dataset=str(set_dir), cache=False),
        model=model,
        log_dir=str(other),
        display="none",
        epochs=Epochs(2, "mean"),
    )
    frame = load_frame(other).frame
    assert sorted(frame["variant"].unique()) == [REF + " · epoch=1", REF + " · epoch=2"]
    assert len(frame) == 2 * N and set(frame["epochs"]) == {1}
