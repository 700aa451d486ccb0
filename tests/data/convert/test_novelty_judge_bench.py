"""novelty-judge-bench YAML -> contract conversion, on the made-up fixture in tests/fixtures."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.items import FIXTURES

from judgeaudit.cli import main
from judgeaudit.data.contract import PairItem, PointItem
from judgeaudit.data.convert.novelty_judge_bench import (
    BenchSourceError,
    convert_dir,
    convert_strict,
    fetch_from_hub,
    text_idea_id,
)
from judgeaudit.data.jsonl import read_items
from judgeaudit.data.manifest import read_manifest, verify_manifest
from judgeaudit.data.validate import ContractError

FIX = FIXTURES / "novelty_judge_bench"
GOOD, BAD = FIX / "good", FIX / "bad"


def test_good_fixture_converts_every_file() -> None:
    conv = convert_strict(GOOD)
    got = {(f.set_path, f.stem): len(f.items) for f in conv.files}
    assert got == {
        ("human_only", "pairwise"): 3,
        ("human_only", "pairwise_plan"): 2,
        ("human_only", "pointwise"): 4,
        ("human_only", "pointwise_plan"): 2,
        ("human_generated/tiny-ideator-1", "pairwise"): 2,
        ("human_generated/tiny-ideator-1", "pointwise"): 2,
    }
    assert [(s.path, s.reason) for s in conv.skipped] == [("README.md", "documentation")]


def test_pair_fields_mapped() -> None:
    conv = convert_strict(GOOD)
    pairs = {
        i.pair_id: i
        for f in conv.files
        if f.relative == "human-only/pairwise.yaml"
        for i in f.items
        if isinstance(i, PairItem)
    }
    p1 = pairs["ho-pair-001"]
    assert (p1.gold, p1.area, p1.setup) == ("b", "optimization", "human_only")
    assert (p1.idea_a.label, p1.idea_b.label) == ("not_novel", "novel")
    assert p1.idea_b.idea_id == "AbCdEf123" and p1.idea_b.provenance.forum == "AbCdEf123"
    assert p1.idea_a.idea_id == text_idea_id(p1.idea_a.text) and p1.idea_a.idea_id.startswith(
        "njb-"
    )
    assert p1.idea_b.evidence.rating_mean == 7.5 and p1.idea_b.evidence.contribution_mean == 3.333
    assert p1.idea_a.evidence.similar_papers == ("Bengio 2012, practical recommendations",)
    assert p1.idea_a.evidence.negative_signals[1] == "incremental over prior tuning studies"
    assert p1.idea_a.provenance.dataset == "novelty-judge-bench"
    assert p1.idea_a.provenance.source_id == "human-only/pairwise.yaml#ho-pair-001/0"
    assert {p1.idea_a.source, p1.idea_b.source} == {"human"} and p1.idea_a.generator is None
    # string keys '0'/'1' and a string winner index are read like integers
    assert pairs["ho-pair-003"].gold == "a"
    assert pairs["ho-pair-002"].idea_b.title is None


def test_plan_files_have_plan_format() -> None:
    conv = convert_strict(GOOD)
    plan = next(f for f in conv.files if f.relative == "human-only/pairwise_plan.yaml")
    assert {i.idea_a.format for i in plan.items if isinstance(i, PairItem)} == {"plan"}


def test_generated_side_marked_with_backbone_generator() -> None:
    conv = convert_strict(GOOD)
    hg = next(f for f in conv.files if f.relative.endswith("backbone-tiny-ideator-1/pairwise.yaml"))
    for item in hg.items:
        assert isinstance(item, PairItem) and item.setup == "human_generated"
        novel, other = (
            (item.idea_a, item.idea_b) if item.gold == "a" else (item.idea_b, item.idea_a)
        )
        assert (novel.source, novel.generator) == ("human", None)
        assert (other.source, other.generator) == ("generated", "tiny-ideator-1")
        assert other.provenance.forum is None


def test_ids_are_stable_between_runs() -> None:
    a = [i.to_dict() for f in convert_strict(GOOD).files for i in f.items]
    b = [i.to_dict() for f in convert_strict(GOOD).files for i in f.items]
    assert a == b


def test_bad_fixture_names_file_id_and_field() -> None:
    conv = convert_dir(BAD)
    pw = str(BAD / "human-only" / "pairwise.yaml")
    pt = str(BAD / "human-only" / "pointwise.yaml")
    got = {(p.file, p.line, p.field) for p in conv.problems}
    expected = {
        (pw, 1, "bad-no-winner.expected_winners"),
        (pw, 5, "bad-label.metadata.0.type"),
        (pw, 10, "bad-identical.idea_b.idea_id"),
        (pw, 15, "bad-rating.metadata.0.rating"),
        (pw, 20, "bad-winner-range.expected_winners"),
        (pw, 24, "bad-empty.ideas.0"),
        (pw, 28, "bad-contradiction.metadata.0.type"),
        (pw, 28, "bad-contradiction.metadata.1.type"),
        (pw, 37, "good-one"),
        (pt, 1, "bad-point-label.label"),
        (pt, 5, "bad-point-missing-idea.idea"),
        (pt, 8, "bad-point-type.context"),
    }
    assert got == expected
    messages = {p.field: p.message for p in conv.problems}
    assert messages["bad-no-winner.expected_winners"] == "missing field"
    assert "unknown label 'NOVEL'" in messages["bad-label.metadata.0.type"]
    assert "unknown label 'MAYBE'" in messages["bad-point-label.label"]
    assert "duplicate instance id" in messages["good-one"]
    with pytest.raises(ContractError) as err:
        convert_strict(BAD)
    assert f"{pw}:1: bad-no-winner.expected_winners: missing field" in str(err.value)


def test_yaml_level_defects(tmp_path: Path) -> None:
    d = tmp_path / "src" / "human-only"
    d.mkdir(parents=True)
    (d / "pairwise.yaml").write_text("a: [unclosed\n", encoding="utf-8")
    (d / "pointwise.yaml").write_bytes(b"x:\n  idea: caf\xe9\n")
    (d / "pointwise_plan.yaml").write_text("- just\n- a list\n", encoding="utf-8")
    (d / "notes.yaml").write_text("other: file\n", encoding="utf-8")
    conv = convert_dir(tmp_path / "src")
    msgs = {Path(p.file).name: p.message for p in conv.problems}
    assert msgs["pairwise.yaml"].startswith("invalid YAML")
    assert msgs["pointwise.yaml"].startswith("invalid UTF-8")
    assert "expected a mapping of instance id" in msgs["pointwise_plan.yaml"]
    assert [str(s) for s in conv.skipped] == [
        "skipped (not a benchmark file name (expected pairwise.yaml, pairwise_plan.yaml, "
        "pointwise.yaml, pointwise_plan.yaml)): human-only/notes.yaml"
    ]


def test_idea_id_reused_with_other_content_is_reported(tmp_path: Path) -> None:
    d = tmp_path / "src" / "human-only"
    d.mkdir(parents=True)
    (d / "pointwise.yaml").write_text(
        "p1: {context: opt, idea: First text., label: POSITIVE, metadata: {forum: F1}}\n"
        "p2: {context: opt, idea: Other text., label: POSITIVE, metadata: {forum: F1}}\n",
        encoding="utf-8",
    )
    conv = convert_dir(tmp_path / "src")
    assert [(p.line, p.field) for p in conv.problems] == [(2, "p2.idea.idea_id")]


def test_not_a_benchmark_dir(tmp_path: Path) -> None:
    with pytest.raises(BenchSourceError, match="no novelty-judge-bench files"):
        convert_dir(tmp_path)


def test_hub_offline_error_names_hub_id_and_suggests_local_dir(tmp_path: Path) -> None:
    """HF_HUB_OFFLINE=1 is set for the test session (conftest): the Hub is unreachable here anyway."""
    with pytest.raises(BenchSourceError) as err:
        fetch_from_hub("noystl/novelty-judge-bench", cache_dir=str(tmp_path))
    text = str(err.value)
    assert "'noystl/novelty-judge-bench'" in text and "local directory" in text


def test_convert_cli_writes_contract_card_and_manifest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "njb"
    assert main(["convert", "--from", "novelty-judge-bench", str(GOOD), "--out", str(out)]) == 0
    ho = out / "human_only"
    assert sorted(p.name for p in ho.iterdir()) == [
        "README.md",
        "manifest.json",
        "pairwise.jsonl",
        "pairwise_plan.jsonl",
        "pointwise.jsonl",
        "pointwise_plan.jsonl",
    ]
    assert len(read_items(ho / "pairwise.jsonl")) == 3
    points = read_items(out / "human_generated" / "tiny-ideator-1" / "pointwise.jsonl")
    assert {p.idea.source for p in points if isinstance(p, PointItem)} == {"human", "generated"}
    m = read_manifest(ho)
    assert m["source"]["dataset"] == "novelty-judge-bench" and m["source"]["kind"] == "local"
    assert "human-only/pairwise.yaml" in m["source"]["files"]
    assert m["build_command"].startswith("judgeaudit convert --from novelty-judge-bench")
    assert verify_manifest(ho) == []
    assert (ho / "README.md").read_text(encoding="utf-8").startswith("---\nlicense: cc-by-4.0\n")
    # the written set validates, and a second run refuses a non-empty --out without --force
    capsys.readouterr()
    assert main(["validate", str(out)]) == 0
    assert "OK: 6 file(s), 15 valid item(s), 0 problem(s)" in capsys.readouterr().out
    assert main(["convert", "--from", "novelty-judge-bench", str(GOOD), "--out", str(out)]) == 2
    assert (
        main(["convert", "--from", "novelty-judge-bench", str(GOOD), "--out", str(out), "--force"])
        == 0
    )


def test_convert_cli_writes_nothing_on_bad_source(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "njb"
    assert main(["convert", "--from", "novelty-judge-bench", str(BAD), "--out", str(out)]) == 2
    printed = capsys.readouterr().out
    assert "FAILED: 12 problem(s)" in printed
    assert "pairwise.yaml:1: bad-no-winner.expected_winners: missing field" in printed
    assert not out.exists()


def test_convert_cli_offline_hub_id(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "convert",
                "--from",
                "novelty-judge-bench",
                "noystl/novelty-judge-bench",
                "--out",
                str(tmp_path / "o"),
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert "noystl/novelty-judge-bench" in err and "local directory" in err


def test_fixture_copy_with_hf_style_nesting(tmp_path: Path) -> None:
    """A Hub snapshot may nest the folders (e.g. under data/); discovery is recursive."""
    shutil.copytree(GOOD, tmp_path / "snap" / "data")
    conv = convert_strict(tmp_path / "snap")
    assert len(conv.files) == 6
    assert conv.files[0].relative.startswith("data/")


def test_console_script_help() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "judgeaudit.cli", "convert", "--help"],
        capture_output=True,
        text=True,
        check=True,
        cwd="/",
    )
    assert "noystl/novelty-judge-bench" in out.stdout and "--force" in out.stdout


def test_instance_not_a_mapping_and_generated_without_backbone(tmp_path: Path) -> None:
    d = tmp_path / "src" / "human-plus-generated"
    d.mkdir(parents=True)
    (d / "pointwise.yaml").write_text(
        "p1: just text\n"
        "p2: {context: opt, idea: A generated idea., label: NEGATIVE}\n"
        "p3: {context: opt, idea: A human idea., label: POSITIVE}\n",
        encoding="utf-8",
    )
    conv = convert_dir(tmp_path / "src")
    assert [(p.line, p.field, p.message) for p in conv.problems] == [
        (1, "p1", "expected a mapping, got str")
    ]
    [bench_file] = conv.files
    assert bench_file.set_path == "human_generated"
    gen, human = (i.idea for i in bench_file.items if isinstance(i, PointItem))
    # no backbone folder, no metadata generator: the release's stated ideator
    assert (gen.source, gen.generator) == ("generated", "claude-sonnet-4-5")
    assert (human.source, human.generator) == ("human", None)
