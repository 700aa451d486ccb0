"""A corpus of broken contract files: every defect found with its line and field, by API and CLI."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.items import make_pairs, make_points

from judgeaudit.cli import main
from judgeaudit.data.contract import PairItem
from judgeaudit.data.jsonl import check_file, dumps_item, read_items, write_items
from judgeaudit.data.validate import ContractError


def _line(item: PairItem, **changes: object) -> str:
    obj = item.to_dict()
    for path, value in changes.items():
        *parents, leaf = path.split("__")
        node = obj
        for key in parents:
            node = node[key]
        if value is _DELETE:
            del node[leaf]
        else:
            node[leaf] = value
    return json.dumps(obj, ensure_ascii=False)


_DELETE = object()

# (line, field) of each defect planted in the broken pairwise file
EXPECTED_PAIRWISE = {
    (2, "area"),  # missing field
    (3, "idea_a.label"),  # unknown label
    (4, "pair_id"),  # duplicate id
    (5, "idea_b.idea_id"),  # the pair's two ideas are identical
    (5, "gold"),  # ... so both carry the same label, which gold contradicts
    (6, "idea_b.text"),  # empty text
    (7, ""),  # invalid UTF-8
    (8, "idea_a.evidence.review_count"),  # wrong type
    (8, "gold"),  # wrong type
    (9, "setup"),  # unknown setup
    (10, ""),  # truncated last line
}


def broken_pairwise(path: Path) -> Path:
    """Write the broken corpus: one valid line, then one planted defect per line."""
    p0, p1, p2, p3 = make_pairs(4)
    lines = [
        dumps_item(p0).encode(),
        _line(p1, area=_DELETE).encode(),
        _line(p1, pair_id="pair1b", idea_a__label="maybe").encode(),
        _line(p0).encode(),
        _line(p2, idea_b=p2.idea_a.to_dict(), gold="a").encode(),
        _line(p3, idea_b__text="   ").encode(),
        dumps_item(p3).encode().replace(b"Idea", b"Id\xffea", 1),
        _line(p3, pair_id="pair8", idea_a__evidence__review_count="4", gold=1).encode(),
        _line(p3, pair_id="pair9", setup="human-only").encode(),
    ]
    truncated = dumps_item(p3).replace('"pair3"', '"pair10"')[:-25]
    path.write_bytes(b"\n".join(lines) + b"\n" + truncated.encode())
    return path


def test_every_defect_found_with_line_and_field(tmp_path: Path) -> None:
    path = broken_pairwise(tmp_path / "pairwise.jsonl")
    items, problems = check_file(path)
    assert {(p.line, p.field) for p in problems} == EXPECTED_PAIRWISE
    assert [i.item_id for i in items] == ["pair0"]
    by_line = {p.line: p.message for p in problems if p.field != "gold"}
    assert "missing field" in by_line[2]
    assert "unknown value 'maybe'" in by_line[3]
    assert "duplicate id 'pair0' (first on line 1)" in by_line[4]
    assert "identical" in by_line[5]
    assert by_line[6] == "empty text"
    assert by_line[7].startswith("invalid UTF-8")
    assert "expected a non-negative integer" in by_line[8]
    assert "expected a non-negative integer" in by_line[8]
    assert by_line[10].startswith("truncated last line")
    assert all(p.file == str(path) for p in problems)
    with pytest.raises(ContractError) as err:
        read_items(path)
    assert f"{path}:3: idea_a.label:" in str(err.value)
    assert str(err.value).startswith(f"{len(EXPECTED_PAIRWISE)} contract problem(s):")


def test_pointwise_defects(tmp_path: Path) -> None:
    p0, p1 = make_points(2)
    bad_gold = p1.to_dict() | {"gold": "novelish"}
    wrong_label = p1.to_dict() | {
        "item_id": "item1b",
        "gold": "novel",
    }  # gold disagrees with idea.label
    not_object = [1, 2]
    path = tmp_path / "pointwise.jsonl"
    path.write_text(
        "\n".join(json.dumps(o) for o in (p0.to_dict(), bad_gold, wrong_label, not_object)) + "\n"
        "\n",
        encoding="utf-8",
    )
    _, problems = check_file(path)
    assert {(p.line, p.field) for p in problems} == {(2, "gold"), (3, "gold"), (4, ""), (5, "")}


def test_validate_cli_lists_all_problems_and_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "set").mkdir()
    broken = broken_pairwise(tmp_path / "set" / "pairwise.jsonl")
    write_items(tmp_path / "set" / "pointwise.jsonl", make_points())
    code = main(["validate", str(tmp_path / "set")])
    out = capsys.readouterr().out.splitlines()
    assert code == 2
    reported = [line for line in out if line.startswith(str(broken))]
    assert len(reported) == len(EXPECTED_PAIRWISE)
    for line, field in EXPECTED_PAIRWISE:
        assert any(r.startswith(f"{broken}:{line}: {field or '<line>'}:") for r in reported), (
            line,
            field,
        )
    assert (
        out[-1]
        == f"FAILED: 2 file(s), 5 valid item(s), {len(EXPECTED_PAIRWISE)} problem(s) in 1 file(s)"
    )


def test_validate_cli_ok_and_missing(
    set_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(["validate", str(set_dir / "pairwise.jsonl"), str(set_dir / "pointwise.jsonl")]) == 0
    )
    assert (
        capsys.readouterr().out.strip()
        == "OK: 2 file(s), 8 valid item(s), 0 problem(s) in 0 file(s)"
    )
    assert main(["validate", str(tmp_path / "nope.jsonl")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_validate_cli_checks_manifest_hashes(
    set_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from judgeaudit.data.manifest import write_manifest

    write_manifest(set_dir, source={}, command="c")
    items = read_items(set_dir / "pointwise.jsonl")
    write_items(
        set_dir / "pointwise.jsonl", list(reversed(items))
    )  # still valid, but not what was built
    assert main(["validate", str(set_dir)]) == 2
    assert "files.pointwise.jsonl.sha256" in capsys.readouterr().out
    assert main(["validate", "--no-manifest", str(set_dir)]) == 0


def test_validate_kind_override(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "items.jsonl"
    write_items(path, make_points(2))
    assert main(["validate", "--kind", "pairwise", str(path)]) == 2
    assert "idea_a: missing field" in capsys.readouterr().out


def test_empty_file(tmp_path: Path) -> None:
    (tmp_path / "pairwise.jsonl").write_text("", encoding="utf-8")
    _, problems = check_file(tmp_path / "pairwise.jsonl")
    assert [(p.line, p.message) for p in problems] == [(0, "file is empty")]


def test_atomic_write_leaves_no_partial_file(tmp_path: Path) -> None:
    path = tmp_path / "pairwise.jsonl"
    write_items(path, make_pairs(2))
    before = path.read_bytes()

    def failing() -> Iterator[PairItem]:
        yield from make_pairs(4)
        raise RuntimeError("disk on fire")

    with pytest.raises(RuntimeError, match="disk on fire"):
        write_items(path, failing())
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pairwise.jsonl"]
    fresh = tmp_path / "new" / "pointwise.jsonl"
    with pytest.raises(RuntimeError):
        write_items(fresh, failing())
    assert not fresh.exists() and list(fresh.parent.iterdir()) == []


def test_write_read_round_trip_is_canonical(tmp_path: Path) -> None:
    path = tmp_path / "pairwise.jsonl"
    items = make_pairs(4)
    assert write_items(path, items) == 4
    assert read_items(path) == items
    first = path.read_bytes()
    write_items(path, read_items(path))
    assert path.read_bytes() == first


def test_validate_dir_skips_other_jsonl_visibly(
    set_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (set_dir / "corpus.jsonl").write_text('{"not": "a contract item"}\n', encoding="utf-8")
    assert main(["validate", str(set_dir)]) == 0
    out = capsys.readouterr().out
    assert f"skipped (not named pairwise*/pointwise*/labelled*): {set_dir / 'corpus.jsonl'}" in out
    assert out.strip().endswith("1 other JSONL file(s) skipped")
    assert main(["validate", str(set_dir / "corpus.jsonl")]) == 2  # named explicitly: checked


def test_duplicate_found_even_when_first_occurrence_is_broken(tmp_path: Path) -> None:
    p0, p1 = make_pairs(2)
    first = p0.to_dict() | {"gold": "x"}
    path = tmp_path / "pairwise.jsonl"
    path.write_text(
        "\n".join(json.dumps(o) for o in (first, p1.to_dict(), p0.to_dict())) + "\n",
        encoding="utf-8",
    )
    _, problems = check_file(path)
    assert [(p.line, p.field) for p in problems] == [(1, "gold"), (3, "pair_id")]


def test_duplicate_line_still_gets_its_own_problems(tmp_path: Path) -> None:
    p0, _ = make_pairs(2)
    path = tmp_path / "pairwise.jsonl"
    path.write_text(
        "\n".join(json.dumps(o) for o in (p0.to_dict(), p0.to_dict() | {"gold": "x"})) + "\n",
        encoding="utf-8",
    )
    items, problems = check_file(path)
    assert [(p.line, p.field) for p in problems] == [(2, "pair_id"), (2, "gold")]
    assert len(items) == 1


def test_plan_variant_must_agree_with_abstract_file(
    set_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from judgeaudit.data.sets import variant_problems

    assert variant_problems(set_dir) == []
    plan = [i.to_dict() for i in read_items(set_dir / "pairwise_plan.jsonl")]
    swapped = plan[1] | {"gold": "a", "idea_a": plan[1]["idea_b"], "idea_b": plan[1]["idea_a"]}
    relabelled = json.loads(json.dumps(plan[0]))  # same idea ids, labels exchanged, other area
    relabelled["idea_a"]["label"], relabelled["idea_b"]["label"] = "not_novel", "novel"
    relabelled["gold"] = "b"
    relabelled["area"] = relabelled["idea_a"]["area"] = relabelled["idea_b"]["area"] = (
        "optimization"
    )
    path = set_dir / "pairwise_plan.jsonl"
    path.write_text(json.dumps(relabelled) + "\n" + json.dumps(swapped) + "\n", encoding="utf-8")
    assert check_file(path)[1] == []  # valid on its own; a position swap alone is no problem
    assert [(p.line, p.field) for p in variant_problems(set_dir)] == [
        (1, "area"),
        (1, "idea_a.label"),
        (1, "idea_b.label"),
    ]
    assert main(["validate", str(set_dir)]) == 2
    assert (
        "pairwise_plan.jsonl:1: idea_a.label: idea 'n0' is 'not_novel' here but 'novel' in pairwise.jsonl"
        in capsys.readouterr().out
    )


def test_an_ai_only_pair_holds_two_generated_ideas_each_naming_its_generator(
    tmp_path: Path,
) -> None:
    from dataclasses import replace

    pair = make_pairs(1)[0]
    good = replace(
        pair,
        setup="ai_only",
        idea_a=replace(pair.idea_a, source="generated", generator="strong-model"),
        idea_b=replace(pair.idea_b, source="generated", generator="weak-model"),
    )
    bad = [
        replace(
            good, pair_id="p-human", idea_b=replace(good.idea_b, source="human", generator=None)
        ),
        replace(good, pair_id="p-unnamed", idea_a=replace(good.idea_a, generator=None)),
    ]
    path = tmp_path / "pairwise.jsonl"
    path.write_text("".join(dumps_item(i) + "\n" for i in [good, *bad]), encoding="utf-8")
    items, problems = check_file(path)
    assert [i.item_id for i in items] == [good.pair_id]
    assert [(p.line, p.field) for p in problems] == [(2, "idea_b.source"), (3, "idea_a.generator")]
    assert all("two generated ideas, each naming its generator" in p.message for p in problems)
