"""`judgeaudit mine generate` / `mine plan`: Human+Generated sets and plan rewrites.

Model calls go through Inspect's real model API with `mockllm/model` (a scripted callable, the
stand-in for hosted models that are unreachable here); files are real and checked with the
data layer's own validator (`judgeaudit validate`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.model import ModelOutput, ModelUsage

from judgeaudit.cli import build_parser, main
from judgeaudit.data.jsonl import read_pairs, read_points
from judgeaudit.data.manifest import read_manifest
from judgeaudit.mine.commands import handle_mine
from judgeaudit.mine.generate.actions import handle_generate, handle_plan
from judgeaudit.mine.generate.human_generated import (
    build_generated,
    generate_command,
    load_source_pairs,
    write_generated,
)
from judgeaudit.mine.generate.plans import parse_plan, plan_command, rewrite_set
from judgeaudit.mine.llm import CachedModel

MODEL = "mockllm/model"
DATASET = "iclr2026/human_only"


class Script:
    """A scripted mockllm callable that counts calls; `answer(prompt, seed)` decides the text."""

    def __init__(self, answer: Callable[[str, int], str], fail_after: int | None = None) -> None:
        self.answer = answer
        self.fail_after = fail_after
        self.calls = 0

    def __call__(
        self, messages: list[Any], tools: Any, tool_choice: Any, config: Any
    ) -> ModelOutput:
        if self.fail_after is not None and self.calls >= self.fail_after:
            raise KeyboardInterrupt("simulated interruption")
        self.calls += 1
        prompt = messages[-1].text
        out = ModelOutput.from_content(
            model="mockllm", content=self.answer(prompt, config.seed or 0)
        )
        out.usage = ModelUsage(input_tokens=10, output_tokens=10, total_tokens=20)
        return out


def _topic(prompt: str) -> str:
    m = re.search(r'on the topic "(.*)"\. It states', prompt)
    assert m, prompt
    return m.group(1)


def good_idea(prompt: str, seed: int) -> str:
    """A plausible abstract naming the topic, different per topic and seed."""
    tag = hashlib.sha256(f"{_topic(prompt)}|{seed}".encode()).hexdigest()[:8]
    lead = (
        "Abstract: We" if seed % 2 else ""
    )  # a chat model restates the lead-in, a base model continues it
    return (
        f"{lead} propose variant {tag}, a simple pipeline that combines a standard encoder with a retrieval "
        f"step and a small calibration head, trained end to end with a contrastive loss, for {_topic(prompt)}."
        "\n\nKeywords: junk after the first paragraph"
    )


def _model(tmp_path: Path, script: Script, **kw: Any) -> CachedModel:
    return CachedModel(
        model=MODEL, cache_dir=tmp_path / "cache", model_args={"custom_outputs": script}, **kw
    )


def _build(tmp_path: Path, script: Script, limit: int = 4, **kw: Any) -> tuple[Path, CachedModel]:
    source_path, pairs = load_source_pairs(DATASET)
    model = _model(tmp_path, script, **kw)
    gs = build_generated(pairs, model, seed=0, limit=limit, progress=False)
    set_dir = tmp_path / "out" / "human_generated" / "model"
    cmd = generate_command(
        MODEL,
        DATASET,
        str(tmp_path / "out"),
        0,
        limit,
        model.max_tokens,
        model.temperature,
        model.attempts,
    )
    write_generated(
        gs,
        set_dir,
        model,
        source_name=DATASET,
        source_path=source_path,
        command=cmd,
        seed=0,
        limit=limit,
    )
    return set_dir, model


def test_generated_ideas_recorded_and_paired(tmp_path: Path) -> None:
    script = Script(good_idea)
    set_dir, model = _build(tmp_path, script, limit=6)
    pairs = read_pairs(set_dir / "pairwise.jsonl")
    points = read_points(set_dir / "pointwise.jsonl")
    assert len(pairs) == 6 and len(points) == 12 and script.calls == 6 == model.calls
    golds = [p.gold for p in pairs]
    assert golds.count("a") == golds.count("b") == 3
    source = {
        p.idea_a.idea_id if p.gold == "a" else p.idea_b.idea_id: p
        for p in load_source_pairs(DATASET)[1]
    }
    for p in pairs:
        novel, gen = (p.idea_a, p.idea_b) if p.gold == "a" else (p.idea_b, p.idea_a)
        assert p.setup == "human_generated" and novel.label == "novel" and novel.source == "human"
        assert novel.idea_id in source and novel.area == p.area == gen.area
        assert gen.source == "generated" and gen.generator == MODEL and gen.label == "not_novel"
        assert (
            gen.idea_id == "gen-" + hashlib.sha256(f"{MODEL}\n{gen.text}".encode()).hexdigest()[:16]
        )
        # cleaned to the first paragraph; the prompt got the title, not the text
        assert gen.text.startswith("We propose variant") and "Keywords" not in gen.text
        assert str(novel.title) in gen.text and novel.text[:80] not in gen.text
    manifest = read_manifest(set_dir)
    assert manifest["generation"]["model"] == MODEL
    assert manifest["files"]["pointwise.jsonl"]["ideas"]["by_generator"] == {MODEL: 6}
    assert main(["validate", str(set_dir)]) == 0


def test_cache_resume_and_byte_identical_rerun(tmp_path: Path) -> None:
    interrupted = Script(good_idea, fail_after=2)
    with pytest.raises(BaseException, match="simulated interruption"):
        _build(tmp_path, interrupted, limit=4, max_connections=1)
    resumed = Script(good_idea)
    set_dir, model = _build(tmp_path, resumed, limit=4)
    assert (resumed.calls, model.cache_hits) == (
        2,
        2,
    )  # the two answers from before the interruption are reused
    first = {p.name: p.read_bytes() for p in sorted(set_dir.iterdir())}
    again = Script(good_idea)
    _, model2 = _build(tmp_path, again, limit=4)
    assert again.calls == 0 and model2.calls == 0 and model2.cache_hits == 4
    assert {p.name: p.read_bytes() for p in sorted(set_dir.iterdir())} == first


def test_bad_generations_retried_counted_and_reported(tmp_path: Path) -> None:
    def answer(prompt: str, seed: int) -> str:
        topic = _topic(prompt)
        if topic == doomed:
            return ["", "I'm sorry, but I cannot help with that.", "Too short."][seed % 3]
        if seed == 0:
            return f"{topic}."  # a copy of the input
        return good_idea(prompt, seed)

    source_path, all_pairs = load_source_pairs(DATASET)
    from judgeaudit.mine.generate.human_generated import novel_side, select_pairs

    chosen = select_pairs(all_pairs, 4, 0)
    doomed = str(novel_side(chosen[0]).title)
    assert doomed
    script = Script(answer)
    model = _model(tmp_path, script)
    gs = build_generated(all_pairs, model, seed=0, limit=4, progress=False)
    assert len(gs.pairs) == 3 and list(gs.skipped) == [chosen[0].pair_id]
    assert "empty, refusal, too short" in gs.skipped[chosen[0].pair_id]
    assert gs.counts["bad_attempts_by_reason"] == {
        "copy of the input": 3,
        "empty": 1,
        "refusal": 1,
        "too short": 1,
    }
    assert (
        gs.counts["failed"] == 1 and gs.counts["pairs_skipped"] == 1 and script.calls == 3 + 3 * 2
    )
    set_dir = tmp_path / "set"
    write_generated(
        gs,
        set_dir,
        model,
        source_name=DATASET,
        source_path=source_path,
        command="x",
        seed=0,
        limit=4,
    )
    assert read_manifest(set_dir)["generation"]["skipped"] == gs.skipped
    assert "left out" in (set_dir / "README.md").read_text()


def plan_answer(prompt: str, seed: int) -> str:
    """A continuation of 'Purpose:' with both fields, specific to the idea."""
    tag = hashlib.sha256(prompt.encode()).hexdigest()[:6]
    return (
        f" to make method {tag} dependable for practitioners.\n"
        f"Mechanism: it learns a compact model {tag} of the inputs and then adapts it per task with a few steps."
    )


def test_plan_files_validate_and_keep_ids(tmp_path: Path) -> None:
    set_dir, _ = _build(tmp_path, Script(good_idea), limit=4)
    script = Script(plan_answer)
    model = CachedModel(
        model=MODEL, cache_dir=tmp_path / "plan-cache", model_args={"custom_outputs": script}
    )
    result = rewrite_set(
        set_dir, model, command=plan_command(MODEL, str(set_dir), 0, 256, 0.3, 3), progress=False
    )
    assert script.calls == 8 and result.counts["failed"] == 0
    base, plan = read_pairs(set_dir / "pairwise.jsonl"), read_pairs(set_dir / "pairwise_plan.jsonl")
    assert [(p.pair_id, p.gold, p.idea_a.idea_id, p.idea_b.idea_id) for p in base] == [
        (p.pair_id, p.gold, p.idea_a.idea_id, p.idea_b.idea_id) for p in plan
    ]
    for p in plan:
        for idea in (p.idea_a, p.idea_b):
            assert idea.format == "plan" and idea.text.startswith("Purpose: to make method")
            assert "\nMechanism: it learns" in idea.text
    assert len(read_points(set_dir / "pointwise_plan.jsonl")) == 8
    manifest = read_manifest(set_dir)
    assert manifest["generation"]["model"] == MODEL and manifest["plan"]["model"] == MODEL
    assert set(manifest["files"]) == {
        "pairwise.jsonl",
        "pointwise.jsonl",
        "pairwise_plan.jsonl",
        "pointwise_plan.jsonl",
    }
    assert main(["validate", str(set_dir)]) == 0
    before = {p.name: p.read_bytes() for p in sorted(set_dir.iterdir())}
    again = CachedModel(
        model=MODEL,
        cache_dir=tmp_path / "plan-cache",
        model_args={"custom_outputs": Script(plan_answer)},
    )
    rewrite_set(
        set_dir, again, command=plan_command(MODEL, str(set_dir), 0, 256, 0.3, 3), progress=False
    )
    assert (
        again.calls == 0 and {p.name: p.read_bytes() for p in sorted(set_dir.iterdir())} == before
    )
    # a broken plan file is caught by the data layer's validator
    lines = (set_dir / "pointwise_plan.jsonl").read_text().splitlines()
    obj = json.loads(lines[0])
    obj["idea"]["label"] = "novel" if obj["idea"]["label"] == "not_novel" else "not_novel"
    obj["gold"] = obj["idea"]["label"]
    (set_dir / "pointwise_plan.jsonl").write_text("\n".join([json.dumps(obj), *lines[1:]]) + "\n")
    assert main(["validate", str(set_dir)]) == 2


def test_plan_failures_leave_items_out_counted(tmp_path: Path) -> None:
    set_dir, _ = _build(tmp_path, Script(good_idea), limit=2)
    points = read_points(set_dir / "pointwise.jsonl")
    victim = points[0].idea.text

    def answer(prompt: str, seed: int) -> str:
        return (
            "no fields here at all, just rambling text"
            if victim in prompt
            else plan_answer(prompt, seed)
        )

    model = CachedModel(
        model=MODEL,
        cache_dir=tmp_path / "pc",
        model_args={"custom_outputs": Script(answer)},
        attempts=2,
    )
    result = rewrite_set(set_dir, model, command="x", progress=False)
    assert result.failed_ideas == {
        points[0].item_id: "no purpose and mechanism fields, no purpose and mechanism fields"
    }
    assert result.skipped_items == {"pairwise_plan.jsonl": 1, "pointwise_plan.jsonl": 1}
    assert read_manifest(set_dir)["plan"]["items_left_out"] == result.skipped_items
    assert main(["validate", str(set_dir)]) == 0


def test_parse_plan_forms() -> None:
    assert parse_plan(" solve X.\nMechanism: do Y.") == ("solve X.", "do Y.")
    assert parse_plan("**Purpose:** solve X.\n**Mechanism:** do Y.\n\nExtra") == (
        "solve X.",
        "do Y.",
    )
    assert parse_plan("Purpose: only one field") is None
    assert parse_plan('{"purpose": "solve X.", "mechanism": "do  Y."}') == ("solve X.", "do Y.")
    assert parse_plan('{"purpose": "solve X.", "mechanism": ') is None  # truncated JSON


def test_clean_idea_restores_the_lead_in() -> None:
    from judgeaudit.mine.generate.human_generated import clean_idea

    assert clean_idea(" propose X.\n\nKeywords: y") == "We propose X."
    assert clean_idea("Abstract: We propose X.") == "We propose X."
    assert clean_idea("This paper proposes X.") == "This paper proposes X."
    assert clean_idea("- Abstract: We do X.") == "We do X."


def test_degenerate_loops_are_bad() -> None:
    from judgeaudit.mine.generate.human_generated import bad_reason

    ok = (
        "We propose a graph method that combines spectral filters with attention so that long range structure "
        "is captured, and we analyse when it helps and why it fails in sparse regimes."
    )
    assert bad_reason(ok, "some title", 10) is None
    assert bad_reason(ok + " 1" + "0" * 40, "some title", 10) == "repetitive"
    assert bad_reason("we do the thing. " * 8, "some title", 5) == "repetitive"
    prompt = 'Below is the abstract of a new research paper in vision, on the topic "T". It states things.'
    echo = "Below is the abstract of a new research paper in vision and it goes on with many other words here ok"
    assert bad_reason(echo, "T", 5, prompt) == "copy of the input"
    assert bad_reason(ok, "T", 5, prompt) is None


def test_cli_actions_and_plain_mine_still_parse(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    parser = build_parser()
    plain = parser.parse_args(["mine", "--source", "snapshot:x", "--no-progress"])
    assert plain.func.load() is handle_mine and plain.source == "snapshot:x"
    gen = parser.parse_args(["mine", "generate", "--model", MODEL, "--limit", "3"])
    assert gen.func.load() is handle_generate and gen.limit == 3 and gen.dataset == DATASET
    plan = parser.parse_args(["mine", "plan", "--model", MODEL, "--dataset", "d"])
    assert plan.func.load() is handle_plan
    # the CLI path end to end; only the model's answers are scripted (custom_outputs cannot pass through -M)
    import judgeaudit.mine.generate.actions as generate_module

    original = generate_module._cached_model
    scripts = {"generate": Script(good_idea), "plan": Script(plan_answer)}

    def scripted(args: Any, action: str) -> CachedModel:
        model = original(args, action)
        model.model_args["custom_outputs"] = scripts[action]
        return model

    monkeypatch.setattr(generate_module, "_cached_model", scripted)
    out = tmp_path / "o"
    code = main(
        [
            "mine",
            "generate",
            "--model",
            MODEL,
            "--limit",
            "2",
            "--out",
            str(out),
            "--cache",
            str(tmp_path / "c"),
            "--no-progress",
        ]
    )
    set_dir = out / "human_generated" / "model"
    assert code == 0 and scripts["generate"].calls == 2
    assert read_manifest(set_dir)["build_command"].startswith(
        "judgeaudit mine generate --model mockllm/model"
    )
    assert (
        main(
            [
                "mine",
                "plan",
                "--model",
                MODEL,
                "--dataset",
                str(set_dir),
                "--cache",
                str(tmp_path / "c"),
                "--no-progress",
            ]
        )
        == 0
    )
    assert scripts["plan"].calls == 4 and main(["validate", str(set_dir)]) == 0
    assert "model calls: 4, cached answers: 0" in capsys.readouterr().out
    assert main(["mine", "plan", "--model", MODEL, "--dataset", str(tmp_path / "missing")]) == 2
    assert "no pairwise.jsonl or pointwise.jsonl" in capsys.readouterr().err


def test_structured_plans_ask_for_the_schema(tmp_path: Path) -> None:
    from judgeaudit.mine.generate.plans import PLAN_SCHEMA

    set_dir, _ = _build(tmp_path, Script(good_idea), limit=1)
    seen: list[Any] = []

    def answer(messages: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        seen.append(config.response_schema)
        out = ModelOutput.from_content(
            model="mockllm",
            content=json.dumps(
                {
                    "purpose": "make idea " + str(len(seen)) + " work for users",
                    "mechanism": "it trains a small model "
                    "and then adapts it per task with a few gradient steps",
                }
            ),
        )
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out

    model = CachedModel(
        model=MODEL,
        cache_dir=tmp_path / "s",
        model_args={"custom_outputs": answer},
        response_schema=PLAN_SCHEMA,
    )
    rewrite_set(
        set_dir,
        model,
        command=plan_command(MODEL, "d", 0, 160, 0.3, 3, structured=True),
        progress=False,
    )
    assert len(seen) == 2 and all(
        s is not None and s.json_schema.required == ["purpose", "mechanism"] for s in seen
    )
    plan = read_points(set_dir / "pointwise_plan.jsonl")
    assert all(p.idea.text.startswith("Purpose: make idea ") for p in plan)
    assert read_manifest(set_dir)["plan"]["structured"] is True


def test_a_model_error_leaves_its_pair_out_with_the_cause(tmp_path: Path) -> None:
    """`mine generate` records a failed model call against its one idea (the run goes on), like `mine plan`."""
    _, all_pairs = load_source_pairs(DATASET)
    from judgeaudit.mine.generate.human_generated import novel_side, select_pairs

    chosen = select_pairs(all_pairs, 3, 0)
    doomed = str(novel_side(chosen[1]).title)

    def answer(prompt: str, seed: int) -> str:
        if _topic(prompt) == doomed:
            raise RuntimeError("provider refused the connection")
        return good_idea(prompt, seed)

    gs = build_generated(
        all_pairs, _model(tmp_path, Script(answer)), seed=0, limit=3, progress=False
    )
    assert len(gs.pairs) == 2 and list(gs.skipped) == [chosen[1].pair_id]
    assert (
        gs.skipped[chosen[1].pair_id]
        == "generation failed: model error (provider refused the connection)"
    )
    assert gs.counts["failed"] == 1


DATASETS = Path(__file__).resolve().parents[3] / "datasets" / "iclr2026"


def test_bundled_human_generated_example_is_built_from_the_bundled_human_only_set() -> None:
    # A re-mined Human-Only set leaves the example's human side stale until `mine generate` runs again.
    example = DATASETS / "human_generated" / "gemma-3-270m"
    source = read_manifest(example)["source"]
    human_only = DATASETS / "human_only" / "pairwise.jsonl"
    assert source["file"] == "pairwise.jsonl"
    assert source["sha256"] == hashlib.sha256(human_only.read_bytes()).hexdigest(), (
        "re-run `judgeaudit mine generate`"
    )
    ideas = {i.idea_id: i for p in read_pairs(human_only) for i in (p.idea_a, p.idea_b)}
    human = [
        i
        for p in read_pairs(example / "pairwise.jsonl")
        for i in (p.idea_a, p.idea_b)
        if i.source == "human"
    ]
    assert human and all(i == ideas[i.idea_id] for i in human)
