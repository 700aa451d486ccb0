"""Contract items -> Inspect Samples: stable ids, gold as target and in metadata."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgeaudit.data.contract import PairItem, PointItem
from judgeaudit.data.jsonl import read_items
from judgeaudit.data.samples import (
    UNIT,
    human_scores,
    item_to_sample,
    items_to_dataset,
    load_items,
    unit_of,
)


def test_pair_sample_carries_gold_and_item(pairs: list[PairItem]) -> None:
    item = pairs[1]
    s = item_to_sample(item)
    assert s.id == "pair1"
    assert s.target == item.gold == "b"
    assert s.metadata is not None
    assert s.metadata["gold"] == "b" and s.metadata["kind"] == "pairwise"
    assert s.metadata["item"] == item.to_dict()
    b = item.idea_b.evidence
    assert human_scores(unit_of(s.metadata)["human"], "pairwise")["b"] == {
        "rating_mean": b.rating_mean,
        "contribution_mean": b.contribution_mean,
    }
    assert isinstance(s.input, str)
    assert s.input.index(item.idea_a.text) < s.input.index(item.idea_b.text)


def test_point_sample_carries_gold(points: list[PointItem]) -> None:
    s = item_to_sample(points[1])
    assert (s.id, s.target) == ("item1", "not_novel")
    assert s.metadata is not None and s.metadata["gold"] == "not_novel"
    assert s.metadata["item"]["idea"]["idea_id"] == "q1"


def test_ids_are_stable_across_reloads(set_dir: Path) -> None:
    first = [item_to_sample(i).id for i in read_items(set_dir / "pairwise.jsonl")]
    second = [item_to_sample(i).id for i in read_items(set_dir / "pairwise.jsonl")]
    assert first == second == ["pair0", "pair1", "pair2", "pair3"]


def test_sample_id_override_and_extra_metadata(points: list[PointItem]) -> None:
    s = item_to_sample(
        points[0],
        sample_id="item0:swap",
        extra={"cue": "c"},
        arm={"probe": "swap", "probe_target": None},
    )
    assert s.id == "item0:swap" and s.metadata is not None and s.metadata["cue"] == "c"
    assert s.metadata[UNIT] == {
        "item_id": "item0",
        "setup": points[0].setup,
        "area": points[0].area,
        "human": [7.5, 3.25],
        "probe": "swap",
    }  # the arm's unset fields are left out
    assert unit_of(s.metadata) is s.metadata[UNIT]


def test_unit_of_reads_the_flat_fields_of_older_logs() -> None:
    older = {
        "item_id": "p1",
        "area": "x",
        "human": [1.0, 2.0],
    }  # schema judgeaudit.score/3 and earlier
    assert unit_of(older) is older
    assert unit_of({UNIT: "not a dict", "item_id": "p2"})["item_id"] == "p2"


def test_metadata_rebuilds_the_item(pairs: list[PairItem]) -> None:
    from judgeaudit.data.validate import parse_item

    s = item_to_sample(pairs[0])
    assert s.metadata is not None
    item, problems = parse_item(s.metadata["item"], "pairwise")
    assert problems == [] and item == pairs[0]


def test_dataset_and_load_items(set_dir: Path) -> None:
    ds = items_to_dataset(load_items(str(set_dir), "pairwise"), name="demo")
    assert len(ds) == 4 and ds.name == "demo"
    assert [s.id for s in ds] == ["pair0", "pair1", "pair2", "pair3"]
    plan = load_items(str(set_dir), "pairwise", "plan")
    assert {i.idea_a.format for i in plan if isinstance(i, PairItem)} == {"plan"}
    with pytest.raises(FileNotFoundError, match="pointwise_plan.jsonl"):
        load_items(str(set_dir), "pointwise", "plan")


def test_samples_run_through_inspect_eval(set_dir: Path, tmp_path: Path) -> None:
    """A real Inspect eval (mockllm) keeps ids, targets and metadata in the log."""
    from inspect_ai import Task, eval
    from inspect_ai.model import ModelOutput, ModelUsage
    from inspect_ai.scorer import match

    def reply(*_args: object) -> ModelOutput:
        out = ModelOutput.from_content("mockllm/model", "a")
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out

    from inspect_ai.model import get_model

    task = Task(dataset=items_to_dataset(load_items(str(set_dir), "pairwise")), scorer=match())
    model = get_model("mockllm/model", custom_outputs=reply)
    [log] = eval(task, model=model, log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success", log.error
    assert log.samples is not None
    got = {s.id: (s.target, s.metadata["gold"]) for s in log.samples}
    assert got == {
        "pair0": ("a", "a"),
        "pair1": ("b", "b"),
        "pair2": ("a", "a"),
        "pair3": ("b", "b"),
    }


def test_lean_pair_sample_keeps_what_solver_scorer_and_reports_read(pairs: list[PairItem]) -> None:
    """Lean metadata: ids, gold, setup, area, human scores, the idea texts and the set extras; no item."""
    item = pairs[0]
    arm = {"probe": "verbosity", "probe_variant": "pad_gold"}
    full = item_to_sample(item, extra={"cue": None}, arm=arm)
    lean = item_to_sample(item, extra={"cue": None}, lean=True, arm=arm)
    assert full.metadata is not None and lean.metadata is not None
    assert "item" not in lean.metadata and "cue" not in lean.metadata  # None extras are dropped
    assert lean.metadata["texts"] == {"idea_a": item.idea_a.text, "idea_b": item.idea_b.text}
    shared = {"kind", "gold", UNIT}
    assert {key: lean.metadata[key] for key in shared} == {
        key: full.metadata[key] for key in shared
    }
    assert set(lean.metadata) == shared | {"texts"}
    assert set(lean.metadata[UNIT]) == {
        "item_id",
        "setup",
        "area",
        "human",
        "probe",
        "probe_variant",
    }
    assert (lean.id, lean.target) == (full.id, full.target)
    assert (
        lean.input
        == f"pairwise item {item.pair_id} ({item.area}): which of two ideas is more novel?"
    )
    # the full item (evidence quotes, original text, provenance) stays out of lean samples
    assert item.idea_a.original_text and item.idea_a.original_text not in json.dumps(lean.metadata)
    assert full.metadata["item"] == item.to_dict() and full.metadata["cue"] is None


def test_lean_point_sample(points: list[PointItem]) -> None:
    s = item_to_sample(points[0], lean=True)
    assert s.metadata is not None
    assert s.metadata["texts"] == {"idea": points[0].idea.text}
    unit = s.metadata[UNIT]
    assert unit["human"] == [7.5, 3.25]  # one flat list: a single node for Inspect to copy and thin
    assert human_scores(unit["human"], "pointwise") == {
        "idea": {"rating_mean": 7.5, "contribution_mean": 3.25}
    }
    assert (s.metadata["kind"], s.metadata["gold"], unit["item_id"]) == (
        "pointwise",
        "novel",
        "item0",
    )


def test_prompts_render_the_same_from_lean_and_full_metadata(
    pairs: list[PairItem], points: list[PointItem]
) -> None:
    """The judge prompt of every order is identical whichever metadata form a sample carries."""
    from judgeaudit.judges.prompts import render_call

    extra = {"cue": "Reviewers found one of these ideas novel."}
    for kind, item, orders in (
        ("pairwise", pairs[1], ("ab", "ba")),
        ("pointwise", points[1], ("single",)),
    ):
        full = item_to_sample(item, extra=extra).metadata or {}
        lean = item_to_sample(item, extra=extra, lean=True).metadata or {}
        for order in orders:
            text = render_call(kind, "reference", lean, order)  # type: ignore[arg-type]
            assert text == render_call(kind, "reference", full, order)  # type: ignore[arg-type]
            assert extra["cue"] in text


def test_metadata_without_texts_or_item_is_a_clear_error() -> None:
    from judgeaudit.judges.prompts import render_call

    with pytest.raises(ValueError, match="'x1'.*neither 'texts' nor 'item'"):
        render_call("pairwise", "reference", {"item_id": "x1", "area": "a"}, "ab")


def test_human_scores_name_the_flat_list_and_read_older_logs() -> None:
    assert human_scores([6.0, 3.0, 2.5, None], "pairwise") == {
        "a": {"rating_mean": 6.0, "contribution_mean": 3.0},
        "b": {"rating_mean": 2.5, "contribution_mean": None},
    }
    older = {"idea": {"rating_mean": 4.0, "contribution_mean": 2.0}}  # schema judgeaudit.score/2
    assert human_scores(older, "pointwise") == older
    # a list of the wrong length, an unknown kind or nothing at all gives no scores, never misplaced ones
    assert human_scores([6.0, 3.0], "pairwise") == {} and human_scores([1.0, 2.0], "metric") == {}
    assert human_scores(None, "pointwise") == {}
