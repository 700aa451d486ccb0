"""Report building blocks without Inspect runs: configuration names, aggregations recomputed
from per-call verdicts, item alignment, reference choice, Pareto front, Markdown rendering."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest
from helpers.frame_rows import frame_row

from judgeaudit.report.aggregations import reconcile_stored, with_aggregations
from judgeaudit.report.compute import (
    ItemMismatchError,
    align_group,
    choose_reference,
    compute_group,
    groups_of,
)
from judgeaudit.report.figures import pareto_front
from judgeaudit.report.frame import dataset_label, probe_label, short_model, variant_name
from judgeaudit.report.tables import ablation_table, diff_cell, interval_cell, to_markdown


def test_variant_name_shows_prompt_k_and_changed_args() -> None:
    defaults = {
        "dataset": "x",
        "prompt": "reference",
        "k": 1,
        "both_orders": False,
        "seed": 1,
        "cache": True,
        "probe": None,
    }
    args = {
        "dataset": "/data/set",
        "prompt": "p1_no_guardrails",
        "k": 1,
        "both_orders": True,
        "seed": 1,
        "cache": False,
        "probe": "position",
    }
    name = variant_name(
        "judgeaudit/novelty_pairwise",
        args,
        None,
        {"reasoning_effort": "high", "max_connections": 4},
        defaults,
    )
    assert name == "prompt=p1_no_guardrails · k=1 · both_orders=true · reasoning_effort=high"
    # without known defaults, only the args that were passed are shown
    name = variant_name("judgeaudit/retrieval_pairwise", args, ["both_orders"], {}, None)
    assert name == "retrieval_pairwise · prompt=p1_no_guardrails · k=1 · both_orders=true"


def test_names() -> None:
    assert (
        short_model("litellm/openai/gpt-4o") == "gpt-4o" and short_model("mockllm/model") == "model"
    )
    assert (
        dataset_label("/tmp/x/toyset") == "toyset"
        and dataset_label("iclr2026/human_only") == "iclr2026/human_only"
    )
    assert dataset_label("/tmp/x/toyset/pairwise.jsonl") == "toyset"
    assert (
        probe_label("position", "order_ba") == "probe=position/order_ba"
        and probe_label(None, None) is None
    )


def test_dataset_labels_disambiguated() -> None:
    from judgeaudit.report.frame import _name_datasets

    frame = pd.DataFrame({"dataset": ["set", "set", "x"], "dataset_arg": ["/a/set", "/b/set", "x"]})
    assert _name_datasets(frame)["dataset"].tolist() == ["/a/set", "/b/set", "x"]


_row = frame_row


def test_aggregations_recomputed_from_calls() -> None:
    calls = [("ab", 0, "a"), ("ab", 1, "tie"), ("ba", 0, "b"), ("ba", 1, "b")]
    # all four: votes 1, .5, 0, 0 -> mean 0.375 -> b; k1: a, b -> tie; one order: a, tie -> a; single call: a
    frame = pd.DataFrame([_row("j · v", "i1", "a", calls, "b")])
    assert reconcile_stored(frame)[1] == []
    out = with_aggregations(frame).set_index("variant")["verdict"].to_dict()
    assert out == {
        "v": "b",
        "v · agg=k1": "tie",
        "v · agg=one_order": "a",
        "v · agg=k1_one_order": "a",
    }
    bad = pd.DataFrame([_row("j · v", "i1", "a", calls, "a")])
    fixed, notes = reconcile_stored(bad)
    assert (
        list(fixed["verdict"]) == ["b"]
        and "stored verdict 'a', counted as 'b'" in notes[0]["reason"]
    )


def test_a_lost_order_is_an_error_item_and_derived_configs_keep_only_whole_calls() -> None:
    """Both orders asked, the ba calls failed: the item is `error` (never the ab verdict), and so is
    k1 (it uses ba#0); one_order is made of ab calls only, all answered, so it keeps a verdict."""
    calls = [("ab", 0, "a"), ("ab", 1, "a"), ("ba", 0, "error"), ("ba", 1, "error")]
    old = pd.DataFrame([_row("j · v", "i1", "a", calls, "a")])  # an older version stored 'a'
    frame, notes = reconcile_stored(old)
    assert list(frame["verdict"]) == ["error"] and notes[0]["item_id"] == "i1"
    out = with_aggregations(frame).set_index("variant")["verdict"].to_dict()
    assert out == {
        "v": "error",
        "v · agg=k1": "error",
        "v · agg=one_order": "a",
        "v · agg=k1_one_order": "a",
    }


def test_a_sample_the_log_marks_errored_is_an_error_item() -> None:
    """Calls that all answered do not make a verdict of a sample that errored (e.g. cancelled)."""
    row = _row("j · v", "i1", "a", [("ab", 0, "a")], "a")
    frame, notes = reconcile_stored(pd.DataFrame([{**row, "sample_error": "cancelled"}]))
    assert list(frame["verdict"]) == ["error"] and "cancelled" in notes[0]["reason"]
    assert reconcile_stored(pd.DataFrame([{**row, "sample_error": None}]))[1] == []


def test_a_panel_whose_member_failed_is_an_error_item_not_the_survivors_verdict() -> None:
    """A panel log of an older version stored the verdict of the 2 of 3 members that answered; the
    report counts the item as `error` (its sample errored, one member's call failed) and names it."""
    row = _row("panel(p+q+r) · v", "i1", "a", [], "a")
    row["calls"] = [
        {"member": m, "order": "ab", "call_index": 0, "verdict": v}
        for m, v in (("p", "a"), ("q", "a"), ("r", "error"))
    ]
    row["panel"] = {"members": ["p", "q", "r"], "rule": "majority", "quorum": 0, "weights": None}
    cause = "1 of 3 calls failed (member r; 2 of 3 members answered, 2 needed): refused"
    frame, notes = reconcile_stored(pd.DataFrame([{**row, "sample_error": cause}]))
    assert list(frame["verdict"]) == ["error"] and notes[0]["item_id"] == "i1"
    assert "stored verdict 'a', counted as 'error'" in notes[0]["reason"]


def test_pointwise_split_recounted_per_aggregation() -> None:
    row = _row(
        "j · v", "i1", "novel", [("single", 0, "novel"), ("single", 1, "not_novel")], "not_novel"
    )
    row.update(kind="pointwise", split_rule="not_novel", split=True)
    frame = pd.DataFrame([row])
    assert reconcile_stored(frame)[1] == []
    out = with_aggregations(frame).set_index("variant")[["verdict", "split"]].to_dict("index")
    assert out == {
        "v": {"verdict": "not_novel", "split": True},
        "v · agg=k1": {"verdict": "novel", "split": False},
    }


def test_item_mismatch_lists_missing_items() -> None:
    rows = [_row("j · v1", f"i{i}", "a", [("ab", 0, "a")], "a") for i in range(3)]
    rows += [_row("j · v2", f"i{i}", "a", [("ab", 0, "b")], "b") for i in range(2)]
    frame = pd.DataFrame(rows)
    with pytest.raises(ItemMismatchError, match=r"'j · v2' lacks 1: i2.*--intersect"):
        align_group(frame, "pairwise", "d")
    g = align_group(frame, "pairwise", "d", intersect=True)
    assert g.items == ["i0", "i1"] and g.intersected["items_dropped"] == ["i2"]


def _formatted(config: str, item: str, fmt: str) -> dict[str, object]:
    return {**_row(config, item, "a", [("ab", 0, "a")], "a"), "idea_format": fmt}


def test_a_format_run_on_fewer_items_is_compared_apart_on_the_items_it_shares() -> None:
    # the abstract configurations keep all 4 items; the plan one (3 items, one unknown to the
    # others) is compared with them on the 2 items they share, the third counted and named
    rows = [_formatted(c, f"i{i}", "abstract") for c in ("j · ref", "j · p1") for i in range(4)]
    rows += [_formatted("j · plan", i, "plan") for i in ("i1", "i3", "x9")]
    main, plans = groups_of(pd.DataFrame(rows))
    assert main.items == ["i0", "i1", "i2", "i3"] and main.configs == ["j · p1", "j · ref"]
    assert plans.dataset == "d · plan items" and plans.items == ["i1", "i3"]
    assert plans.configs == ["j · p1", "j · plan", "j · ref"]
    assert plans.intersected["format_apart"].endswith(
        "2 items shared with the other configurations; 1 left out: x9"
    )


def test_a_format_sharing_no_item_is_left_out_with_a_note() -> None:
    rows = [_formatted("j · ref", f"i{i}", "abstract") for i in range(3)]
    rows += [_formatted("j · plan", "x1", "plan")]
    [main] = groups_of(pd.DataFrame(rows))
    assert main.configs == ["j · ref"] and "share no item" in main.intersected["format_apart"]


def test_mismatched_items_within_one_format_are_still_an_error() -> None:
    rows = [_formatted("j · ref", f"i{i}", "abstract") for i in range(3)]
    rows += [_formatted("j · p1", f"i{i}", "abstract") for i in range(2)]
    with pytest.raises(ItemMismatchError, match="'j · p1' lacks 1: i2"):
        groups_of(pd.DataFrame(rows))


def test_compute_group_and_reference_choice() -> None:
    rows = []
    for i in range(10):
        gold = "a" if i % 2 == 0 else "b"
        rows.append(_row("j · v1", f"i{i}", gold, [("ab", 0, gold)], gold))
        wrong = "tie" if i < 4 else gold
        rows.append(_row("j · v1 · x", f"i{i}", gold, [("ab", 0, wrong)], wrong))
        rows.append(_row("k · v1", f"i{i}", gold, [("ab", 0, "a")], "a", model="k"))
    g = align_group(pd.DataFrame(rows), "pairwise", "d")
    refs, single = choose_reference(g, None)
    assert refs == {"j": "j · v1", "k": "k · v1"} and not single
    res = compute_group(g, None, resamples=500, seed=3, human_agreement=False)
    x = res["configs"]["j · v1 · x"]
    assert x["metrics"]["tie_rate"]["estimate"] == pytest.approx(0.4)
    assert x["vs_reference"]["strict_accuracy"]["estimate"] == pytest.approx(-0.4)
    assert x["flip_rate_vs_reference"]["estimate"] == pytest.approx(0.4)
    assert res["configs"]["k · v1"]["is_reference"] and res["configs"]["k · v1"][
        "cost_usd"
    ] == pytest.approx(5.0)
    table = ablation_table(res).display.set_index("configuration")
    assert table.loc["v1 · x", "k"] == "–" and table.loc["v1", "k"].endswith("(reference)")
    with pytest.raises(KeyError, match="neither a configuration nor a variant"):
        choose_reference(g, "nope")
    refs, single = choose_reference(g, "j · v1")
    assert single and set(refs.values()) == {"j · v1"}


def test_pareto_front() -> None:
    pts = [(1.0, 0.5), (2.0, 0.7), (1.5, 0.4), (3.0, 0.7), (0.5, 0.2)]
    assert pareto_front(pts) == [4, 0, 1]


def test_cells_and_markdown() -> None:
    iv = {"estimate": 0.5, "low": 0.25, "high": 0.75}
    assert interval_cell(iv) == "0.500 [0.250, 0.750]"
    assert (
        diff_cell({"estimate": -0.1, "low": -0.2, "high": -0.01, "significant": True})
        == "-0.100 [-0.200, -0.010]*"
    )
    assert interval_cell({"estimate": float("nan"), "low": None, "high": 1}) == "n/a [n/a, 1.000]"
    md = to_markdown(pd.DataFrame({"a|b": ["x|y"], "c": [1]}))
    assert md.splitlines() == ["| a\\|b | c |", "|---|---|", "| x\\|y | 1 |"]


def test_write_table_formats(tmp_path: Path) -> None:
    from judgeaudit.report.tables import Table, write_table

    table = Table(
        "demo/table",
        "Caption with κ",
        pd.DataFrame({"Spearman ρ": ["0.5 [0.1, 0.9]"], "judge": ["a_b"]}),
        pd.DataFrame({"estimate": [0.5], "low": [0.1]}),
    )
    paths = write_table(table, tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "demo_table.csv",
        "demo_table.md",
        "demo_table.tex",
    ]
    tex = Path(paths["latex"]).read_text()
    assert "Spearman $\\rho$" in tex and "$\\kappa$" in tex and "a\\_b" in tex and "ρ" not in tex
    assert pd.read_csv(paths["csv"])["estimate"].tolist() == [0.5]
    assert Path(paths["markdown"]).read_text().startswith("**Caption with κ**")


def test_usage_and_cost() -> None:
    from types import SimpleNamespace

    from inspect_ai.model import ModelUsage

    from judgeaudit.report.frame import _usage

    priced = SimpleNamespace(
        model_usage={
            "m": ModelUsage(input_tokens=10, output_tokens=2, total_tokens=12, total_cost=0.5)
        }
    )
    unpriced = SimpleNamespace(
        model_usage={"m": ModelUsage(input_tokens=10, output_tokens=2, total_tokens=12)}
    )
    cached = SimpleNamespace(model_usage={})
    assert _usage([priced, priced]) == (20, 4, 24, 1.0)
    assert _usage([cached]) == (0, 0, 0, 0.0)  # served from the cache: nothing billed
    inp, _, _, cost = _usage([priced, unpriced])
    assert inp == 20 and math.isnan(cost)
