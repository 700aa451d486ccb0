"""Pairing rules, the written set (contract-valid, manifest, card), byte-identical re-runs, atomic writes."""

from __future__ import annotations

import gzip
import io
import json
import shutil
from collections import Counter
from collections.abc import Callable
from contextlib import redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from helpers.mine_options import LOOSE

from judgeaudit.cli import main
from judgeaudit.data.contract import Idea, LabelledIdea
from judgeaudit.data.jsonl import read_pairs, read_points
from judgeaudit.data.labelled import check_labelled_file
from judgeaudit.data.manifest import verify_manifest
from judgeaudit.mine.pairing import make_pairs, make_points, pair_ideas

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "openreview_small"


def idea(idea_id: str, label: str, area: str) -> Idea:
    return Idea(
        idea_id=idea_id,
        text=f"text {idea_id}",
        format="abstract",
        source="human",
        area=area,
        label=label,
    )  # type: ignore[arg-type]


def test_each_novel_idea_once_not_novel_drawn_without_replacement_and_reused_only_once_run_out() -> (
    None
):
    ideas = (
        [idea(f"n{i}", "novel", "A") for i in range(5)]
        + [idea(f"x{i}", "not_novel", "A") for i in range(2)]
        + [idea(f"m{i}", "novel", "B") for i in range(3)]
        + [idea(f"y{i}", "not_novel", "B") for i in range(6)]
        + [idea("lonely", "novel", "C")]
        + [idea("z0", "not_novel", "D")]
    )
    pairs, report = make_pairs(ideas, seed=7)
    novel_ids = [p.idea_a.idea_id if p.gold == "a" else p.idea_b.idea_id for p in pairs]
    plain_ids = [p.idea_b.idea_id if p.gold == "a" else p.idea_a.idea_id for p in pairs]
    assert sorted(novel_ids) == sorted(
        [f"n{i}" for i in range(5)] + [f"m{i}" for i in range(3)]
    )  # each once
    for p in pairs:
        assert p.idea_a.area == p.idea_b.area == p.area
        assert {p.idea_a.label, p.idea_b.label} == {"novel", "not_novel"}
        assert (p.idea_a.label == "novel") == (p.gold == "a")
    counts = Counter(plain_ids)
    assert sorted(c for i, c in counts.items() if i.startswith("y")) == [
        1,
        1,
        1,
    ]  # B has enough: 3 distinct, no reuse
    assert sorted(c for i, c in counts.items() if i.startswith("x")) == [
        2,
        3,
    ]  # A ran out twice: each drawn again
    assert report.reused_not_novel_by_area == {"A": 3} and report.distinct_not_novel_by_area == {
        "A": 2,
        "B": 3,
    }
    # an area lacking either class is dropped whole, the other class's ideas included
    assert report.dropped_areas == {
        "C": {"novel": 1, "not_novel": 0},
        "D": {"novel": 0, "not_novel": 1},
    }
    assert report.unused_not_novel_by_area == {"B": 3}
    assert report.draws["lonely"] == report.draws["z0"] == 0 and report.draws["n0"] == 1
    assert report.novel_at_a + report.novel_at_b == 8


def test_reuse_waits_until_every_not_novel_idea_of_the_area_was_drawn() -> None:
    for seed in range(20):
        ideas = [idea(f"n{i}", "novel", "A") for i in range(7)] + [
            idea(f"x{i}", "not_novel", "A") for i in range(3)
        ]
        pairs, report = make_pairs(ideas, seed=seed)
        counts = Counter(p.idea_b.idea_id if p.gold == "a" else p.idea_a.idea_id for p in pairs)
        assert sorted(counts.values()) == [
            2,
            2,
            3,
        ]  # 7 draws over 3 ideas: refilled only when the pool is empty


def test_pairing_is_seeded_and_order_independent() -> None:
    ideas = [idea(f"n{i}", "novel", "A") for i in range(6)] + [
        idea(f"x{i}", "not_novel", "A") for i in range(9)
    ]
    a, _ = make_pairs(ideas, seed=1)
    b, _ = make_pairs(list(reversed(ideas)), seed=1)
    c, _ = make_pairs(ideas, seed=2)
    assert a == b
    assert [p.pair_id for p in a] != [p.pair_id for p in c] or [p.gold for p in a] != [
        p.gold for p in c
    ]


def test_positions_are_random_per_pair_or_balanced_on_request() -> None:
    ideas = [idea(f"n{i}", "novel", "A") for i in range(40)] + [
        idea(f"x{i}", "not_novel", "A") for i in range(40)
    ]
    golds = [Counter(p.gold for p in make_pairs(ideas, seed=s)[0]) for s in range(10)]
    assert any(
        g["a"] != g["b"] for g in golds
    )  # random per pair: some seeds put more novel ideas at one side
    for s in range(10):
        _, report = make_pairs(ideas, seed=s, positions="balanced")
        assert report.novel_at_a == report.novel_at_b == 20
    with pytest.raises(ValueError, match="positions"):
        make_pairs(ideas, seed=0, positions="left")


def test_the_point_set_is_the_ideas_of_the_pairs_each_once() -> None:
    ideas = [idea(f"n{i}", "novel", "A") for i in range(3)] + [
        idea(f"x{i}", "not_novel", "A") for i in range(5)
    ]
    pairs, report = make_pairs(ideas, seed=3)
    drawn = pair_ideas(pairs)
    assert len(drawn) == len({i.idea_id for i in drawn}) == 6  # 3 novel, 3 distinct not_novel
    assert {i.idea_id for i in drawn} == {k for k, n in report.draws.items() if n}


def test_points_hold_every_idea_once() -> None:
    ideas = [idea("n1", "novel", "A"), idea("x1", "not_novel", "A"), idea("n2", "novel", "B")]
    points = make_points(ideas)
    assert sorted(p.item_id for p in points) == ["n1", "n2", "x1"]
    assert all(p.gold == p.idea.label for p in points)


def run_mine(out: Path, *extra: str) -> int:
    return main(
        [
            "mine",
            "--source",
            f"snapshot:{FIXTURE}",
            "--out",
            str(out),
            "--no-progress",
            "--workers",
            "1",
            *LOOSE,
            *extra,
        ]
    )


@dataclass(frozen=True)
class Mined:
    """One run of the default (loose) command over the fixture, shared by the module's tests: read it, or copy it."""

    out: Path
    printed: str

    @property
    def set_dir(self) -> Path:
        """Its Human-Only set directory."""
        return self.out / "human_only"

    def copy(self, dest: Path) -> Path:
        """A copy of the whole output root at `dest` (for a test that changes the set); returns `dest`."""
        shutil.copytree(self.out, dest)
        return dest


@pytest.fixture(scope="module")
def mined(tmp_path_factory: pytest.TempPathFactory) -> Mined:
    """The fixture mined once with the default options (each test that needs another cut mines its own)."""
    out = tmp_path_factory.mktemp("mined") / "out"
    printed = io.StringIO()
    with redirect_stdout(printed):
        assert run_mine(out) == 0
    return Mined(out, printed.getvalue())


def test_end_to_end_on_the_fixture_writes_a_valid_set(mined: Mined) -> None:
    printed = mined.printed
    assert "counts after each step" in printed and "by area" in printed
    set_dir = mined.set_dir
    pairs = read_pairs(set_dir / "pairwise.jsonl")
    points = read_points(set_dir / "pointwise.jsonl")
    assert pairs and points
    labels = Counter(p.gold for p in points)
    assert labels["novel"] >= 1 and labels["not_novel"] >= 1
    for p in points:
        i = p.idea
        assert (
            i.provenance.dataset == "openreview:ICLR.cc/2026/Conference"
            and i.provenance.forum == i.idea_id
        )
        assert i.original_text and i.text and i.source == "human" and i.format == "abstract"
        assert i.evidence.review_count and i.evidence.review_count >= 1
        quotes = i.evidence.positive_signals if i.label == "novel" else i.evidence.negative_signals
        assert quotes
    # the point set is the ideas of the pairs, each once; every labelled idea is in labelled.jsonl
    assert {i.idea_id for p in pairs for i in (p.idea_a, p.idea_b)} == {p.item_id for p in points}
    rows, problems = check_labelled_file(set_dir / "labelled.jsonl")
    assert not problems and {p.item_id for p in points} == {r.idea_id for r in rows if r.paired}
    assert all(
        r.pairs == sum(r.idea_id in (p.idea_a.idea_id, p.idea_b.idea_id) for p in pairs)
        for r in rows
    )
    assert verify_manifest(set_dir) == []
    manifest = json.loads((set_dir / "manifest.json").read_text())
    mining = manifest["mining"]
    assert mining["thresholds"]["top_quantile"] == 0.6
    assert mining["stages"]["submissions parsed"] == 40
    assert mining["extractor"] == "offline"
    assert len(manifest["source"]["sha256"]) == 64
    assert "--top-quantile 0.6" in manifest["build_command"]
    card = (set_dir / "README.md").read_text()
    assert (
        card.startswith("---\n")
        and "## Labels" in card
        and "## Funnel" in card
        and "## Counts by area" in card
    )
    labelled = mining["labelled"]
    assert mining["labelled_file"]["rows"] == labelled["novel"] + labelled["not_novel"] == len(rows)
    assert_funnel_adds_up(mining, rows, pairs)
    assert manifest["files"]["labelled.jsonl"]["by_label"] == {
        k: v for k, v in sorted(labelled.items()) if v
    }
    assert "seed **0**" in card and "Decision filter: not applied" in card
    assert main(["validate", str(set_dir)]) == 0


def test_same_inputs_and_seed_give_byte_identical_files(tmp_path: Path) -> None:
    names = ("labelled.jsonl", "pairwise.jsonl", "pointwise.jsonl", "manifest.json", "README.md")
    set_dir = tmp_path / "out" / "human_only"
    assert run_mine(tmp_path / "out") == 0
    first = {n: (set_dir / n).read_bytes() for n in names}
    assert run_mine(tmp_path / "out") == 0
    assert {n: (set_dir / n).read_bytes() for n in names} == first
    assert run_mine(tmp_path / "other", "--seed", "5") == 0
    other = tmp_path / "other" / "human_only"
    assert (other / "pairwise.jsonl").read_bytes() != first["pairwise.jsonl"]

    def labels(d: Path) -> set[tuple[str, str]]:
        return {(r.idea_id, r.label) for r in check_labelled_file(d / "labelled.jsonl")[0]}

    assert labels(other) == labels(set_dir)  # the seed draws the pairs, not the labels


def test_a_crash_while_writing_leaves_the_previous_set_intact(
    mined: Mined, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mined.copy(tmp_path / "out")
    set_dir = tmp_path / "out" / "human_only"
    before = (set_dir / "pairwise.jsonl").read_bytes()

    import judgeaudit.data.jsonl as jsonl

    real = jsonl.dumps_item
    calls = {"n": 0}

    def crash_after_two(item):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] > 2:
            raise RuntimeError("injected crash")
        return real(item)

    monkeypatch.setattr(jsonl, "dumps_item", crash_after_two)
    with pytest.raises(RuntimeError, match="injected crash"):
        run_mine(tmp_path / "out", "--seed", "9")
    assert (set_dir / "pairwise.jsonl").read_bytes() == before
    assert not [p for p in set_dir.iterdir() if p.name.endswith(".tmp")]


def test_bad_source_and_thresholds_are_clear_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(
            [
                "mine",
                "--source",
                f"snapshot:{tmp_path / 'missing'}",
                "--out",
                str(tmp_path),
                "--no-progress",
            ]
        )
        == 2
    )
    assert "does not exist" in capsys.readouterr().err
    assert main(["mine", "--source", str(FIXTURE), "--out", str(tmp_path)]) == 2
    assert "snapshot:PATH" in capsys.readouterr().err
    assert (
        main(
            [
                "mine",
                "--source",
                f"snapshot:{FIXTURE}",
                "--top-quantile",
                "0.05",
                "--out",
                str(tmp_path),
            ]
        )
        == 2
    )
    assert "--bottom-quantile" in capsys.readouterr().err
    # default thresholds on 40 forums keep nothing: an error, and nothing is written
    assert (
        main(
            [
                "mine",
                "--source",
                f"snapshot:{FIXTURE}",
                "--out",
                str(tmp_path / "none"),
                "--no-progress",
                "--workers",
                "1",
            ]
        )
        == 2
    )
    assert "nothing written" in capsys.readouterr().err
    assert not (tmp_path / "none" / "human_only" / "pairwise.jsonl").exists()


def test_live_path_fetches_then_mines_the_same_set(
    mined: Mined,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Without --source the miner fetches with the real openreview-py client.

    The live API is unreachable here; tests/servers/openreview_server.py is the stand-in on
    127.0.0.1, serving the same 40-forum fixture, so the mined set must equal the snapshot run's.
    """
    from servers.openreview_server import OpenReviewTestServer

    monkeypatch.delenv("OPENREVIEW_USERNAME", raising=False)
    monkeypatch.delenv("OPENREVIEW_PASSWORD", raising=False)
    with OpenReviewTestServer.from_cache(FIXTURE) as srv:
        code = main(
            [
                "mine",
                "--venue",
                "ICLR.cc/2026/Conference",
                "--cache",
                str(tmp_path / "cache"),
                "--baseurl",
                srv.baseurl,
                "--out",
                str(tmp_path / "live"),
                "--no-progress",
                "--workers",
                "1",
                *LOOSE,
            ]
        )
        assert code == 0
        assert (
            main(
                [
                    "mine",
                    "--venue",
                    "Nope.cc/2099/Conference",
                    "--cache",
                    str(tmp_path / "nope"),
                    "--baseurl",
                    srv.baseurl,
                    "--out",
                    str(tmp_path / "x"),
                    "--no-progress",
                ]
            )
            == 2
        )
    assert "Nope.cc/2099/Conference" in capsys.readouterr().err
    for name in ("pairwise.jsonl", "pointwise.jsonl"):
        assert (tmp_path / "live" / "human_only" / name).read_bytes() == (
            mined.set_dir / name
        ).read_bytes()
    manifest = json.loads((tmp_path / "live" / "human_only" / "manifest.json").read_text())
    assert manifest["source"]["kind"] == "fetch"


BUNDLED = Path(__file__).resolve().parents[2] / "datasets" / "iclr2026" / "human_only"


def labels_of(rows: list[LabelledIdea], *, paired: bool | None = None) -> Counter[str]:
    return Counter(r.label for r in rows if paired is None or r.paired == paired)


def test_bundled_set_is_valid_and_built_by_the_current_extractor() -> None:
    from judgeaudit.mine.signals.cues import offline_fingerprint

    assert verify_manifest(BUNDLED) == []
    points = read_points(BUNDLED / "pointwise.jsonl")
    pairs = read_pairs(BUNDLED / "pairwise.jsonl")
    labels = Counter(p.gold for p in points)
    assert labels["novel"] == len(
        pairs
    )  # every novel idea of an area with both classes is paired once
    rows, problems = check_labelled_file(BUNDLED / "labelled.jsonl")
    assert not problems and labels_of(rows, paired=True) == Counter(p.idea.label for p in points)
    assert main(["validate", str(BUNDLED)]) == 0
    calibration = json.loads((BUNDLED / "calibration.json").read_text())
    # the figures in the card belong to this exact extractor source; re-run the bundled command if this fails
    assert calibration["extractor_fingerprint"] == offline_fingerprint()
    assert (
        calibration["labels"]["novel"]["swapped"]
        == calibration["labels"]["not_novel"]["swapped"]
        == 0
    )
    manifest = json.loads((BUNDLED / "manifest.json").read_text())
    assert manifest["mining"]["calibration"] == calibration
    assert_funnel_adds_up(manifest["mining"], rows, pairs)


def assert_funnel_adds_up(
    mining: dict[str, Any], rows: list[LabelledIdea], pairs: list[Any]
) -> None:
    """The card's funnel: every count is the one before minus the papers that stopped there, and the last ones are
    the files' (labelled pool, pairs, point set); per area they add up to the totals."""
    population = list(mining["funnel"]["population"].values())
    assert population == sorted(population, reverse=True)
    sides = mining["funnel"]["sides"]
    assert list(sides["novel"].values())[0] + list(sides["not_novel"].values())[0] == population[-1]
    stopped = Counter(mining["not_candidates"])
    for side in ("novel", "not_novel"):
        counts = list(sides[side].values())
        assert counts == sorted(counts, reverse=True)
        assert (
            counts[-1] - mining["sanitise_skipped"][side]
            == mining["labelled"][side]
            == labels_of(rows)[side]
        )
        candidates = counts[len(counts) - 4]  # the decision step: the candidates
        assert candidates == sum(a[f"candidates_{side}"] for a in mining["by_area"].values())
        assert candidates == sum(mining["candidate_outcomes"][side].values())
        assert counts[0] - candidates == sum(
            n for k, n in stopped.items() if k.startswith(f"{side}: ")
        )
        assert sum(a[side] for a in mining["by_area"].values()) == mining["labelled"][side]
    assert population[0] - population[-1] == sum(n for k, n in stopped.items() if ":" not in k)
    pairing = mining["pairing"]
    assert (
        sum(pairing["pairs_by_area"].values())
        == len(pairs)
        == labels_of(rows, paired=True)["novel"]
    )
    assert (
        sum(pairing["distinct_not_novel_by_area"].values())
        == labels_of(rows, paired=True)["not_novel"]
    )
    dropped = {
        side: sum(c[side] for c in pairing["dropped_areas"].values())
        for side in ("novel", "not_novel")
    }
    assert labels_of(rows)["novel"] - dropped["novel"] == len(pairs)


def test_validate_refuses_a_card_left_from_another_build(
    mined: Mined, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mined.copy(tmp_path / "a")
    assert run_mine(tmp_path / "b", "--min-reviews", "4") == 0
    a, b = tmp_path / "a" / "human_only", tmp_path / "b" / "human_only"
    (a / "README.md").write_bytes(
        (b / "README.md").read_bytes()
    )  # a new card beside the old manifest
    capsys.readouterr()
    assert main(["validate", str(a)]) == 2
    assert "card and manifest come from different builds" in capsys.readouterr().out


def test_the_learned_extractor_mines_the_fixture_and_is_recorded(tmp_path: Path) -> None:
    assert (
        run_mine(
            tmp_path / "out",
            "--extractor",
            "ngram",
            "--max-opposing",
            "2",
            "--majority",
            "0.2",
            "--weak-affirmations",
            "oppose",
        )
        == 0
    )
    manifest = json.loads((tmp_path / "out" / "human_only" / "manifest.json").read_text())
    assert manifest["mining"]["extractor"] == "ngram"
    assert (
        "--extractor ngram" in manifest["build_command"]
        and "--weak-affirmations" in manifest["build_command"]
    )
    assert main(["validate", str(tmp_path / "out" / "human_only")]) == 0


def test_files_alternate_classes_for_small_limit_runs(mined: Mined) -> None:
    set_dir = mined.set_dir
    golds = [p.gold for p in read_points(set_dir / "pointwise.jsonl")]
    n = min(golds.count("novel"), golds.count("not_novel"))
    assert golds[: 2 * n] == ["novel", "not_novel"] * n
    pair_golds = [p.gold for p in read_pairs(set_dir / "pairwise.jsonl")]
    k = min(
        pair_golds.count("a"), pair_golds.count("b")
    )  # positions are random per pair: the counts may differ
    assert pair_golds[: 2 * k] == ["a", "b"] * k


def test_the_larger_point_set_holds_every_labelled_idea(mined: Mined, tmp_path: Path) -> None:
    assert run_mine(tmp_path / "all", "--point-set", "labelled") == 0
    rows, _ = check_labelled_file(tmp_path / "all" / "human_only" / "labelled.jsonl")
    points = read_points(tmp_path / "all" / "human_only" / "pointwise.jsonl")
    assert {p.item_id for p in points} == {r.idea_id for r in rows}
    assert len(points) > len(read_points(mined.set_dir / "pointwise.jsonl"))
    manifest = json.loads((tmp_path / "all" / "human_only" / "manifest.json").read_text())
    assert (
        manifest["mining"]["point_set"] == "labelled"
        and "--point-set labelled" in manifest["build_command"]
    )


def test_validate_finds_a_pair_set_that_disagrees_with_the_labelled_pool(
    mined: Mined, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    set_dir = mined.copy(tmp_path / "out") / "human_only"
    lines = (set_dir / "labelled.jsonl").read_text().splitlines()
    row = json.loads(lines[0])
    row["pairs"] += 1
    lines[0] = json.dumps(row, sort_keys=True)
    (set_dir / "labelled.jsonl").write_text("\n".join(lines) + "\n")
    capsys.readouterr()
    assert main(["validate", "--no-manifest", str(set_dir)]) == 2
    out = capsys.readouterr().out
    assert f"{row['idea_id']!r}: pairs is {row['pairs']}" in out and "labelled.jsonl" in out


def _rewrite_fixture(dest: Path, venueid: Callable[[dict[str, Any]], str]) -> None:
    """A copy of the fixture whose submissions' venueid is `venueid(note)` (decisions as after ICLR's decisions)."""
    dest.mkdir()
    for shard in sorted(FIXTURE.glob("notes-*.jsonl.gz")):
        out = []
        with gzip.open(shard, "rt", encoding="utf-8") as fh:
            for line in fh:
                note = json.loads(line)
                if any(i.endswith("/-/Submission") for i in note.get("invitations", [])):
                    if "Withdrawn" not in str(note["content"].get("venueid", {}).get("value", "")):
                        note["content"]["venueid"] = {"value": venueid(note)}
                out.append(json.dumps(note))
        with gzip.open(dest / shard.name, "wt", encoding="utf-8") as fh:
            fh.write("\n".join(out) + "\n")


def test_the_decision_filter_applies_when_the_source_carries_decisions(
    mined: Mined, tmp_path: Path
) -> None:
    before, _ = check_labelled_file(
        mined.set_dir / "labelled.jsonl"
    )  # the fixture predates decisions: no filter
    novel = sorted(r.idea_id for r in before if r.label == "novel")
    accepted = set(novel[1:])  # one novel idea's paper is rejected after all, every other paper too
    venue = "ICLR.cc/2026/Conference"
    _rewrite_fixture(
        tmp_path / "decided",
        lambda note: venue if note["id"] in accepted else f"{venue}/Rejected_Submission",
    )
    assert (
        main(
            [
                "mine",
                "--source",
                f"snapshot:{tmp_path / 'decided'}",
                "--out",
                str(tmp_path / "out"),
                "--no-progress",
                "--workers",
                "1",
                *LOOSE,
            ]
        )
        == 0
    )
    set_dir = tmp_path / "out" / "human_only"
    manifest = json.loads((set_dir / "manifest.json").read_text())
    assert manifest["mining"]["decisions_applied"] is True
    assert manifest["mining"]["funnel"]["sides"]["novel"]["decision"] == len(
        accepted
    )  # only accepted papers go on
    rows, _ = check_labelled_file(set_dir / "labelled.jsonl")
    assert {r.idea_id for r in rows if r.label == "novel"} == accepted
    assert {r.idea_id for r in rows if r.label == "not_novel"} == {
        r.idea_id for r in before if r.label == "not_novel"
    }
    assert "Decision filter: applied" in (set_dir / "README.md").read_text()
    # `--decisions ignore` leaves the filter off on the same source
    assert (
        main(
            [
                "mine",
                "--source",
                f"snapshot:{tmp_path / 'decided'}",
                "--out",
                str(tmp_path / "all"),
                "--no-progress",
                "--workers",
                "1",
                "--decisions",
                "ignore",
                *LOOSE,
            ]
        )
        == 0
    )
    unfiltered, _ = check_labelled_file(tmp_path / "all" / "human_only" / "labelled.jsonl")
    assert {r.idea_id for r in unfiltered} == {r.idea_id for r in before}


def test_a_blocklisted_title_is_left_out_and_counted(mined: Mined, tmp_path: Path) -> None:
    rows, _ = check_labelled_file(mined.set_dir / "labelled.jsonl")
    victim = next(r for r in rows if r.title)
    blocklist = tmp_path / "blocked.txt"
    blocklist.write_text(f"# titles providers refuse\n\n  {victim.title.upper()}  \n")
    assert run_mine(tmp_path / "b", "--blocklist", str(blocklist)) == 0
    after, _ = check_labelled_file(tmp_path / "b" / "human_only" / "labelled.jsonl")
    assert victim.idea_id not in {r.idea_id for r in after} and len(after) == len(rows) - 1
    manifest = json.loads((tmp_path / "b" / "human_only" / "manifest.json").read_text())
    population = manifest["mining"]["funnel"]["population"]
    assert population["outside the excluded areas"] - population["title not blocklisted"] == 1
    assert f"--blocklist {blocklist}" in manifest["build_command"]
