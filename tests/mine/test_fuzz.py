"""The miner fuzzer on a small budget: mutated real notes never crash `judgeaudit mine` or move a label.

The full budget (1,000 cases) runs from tests/benchmarks/bench_mine_fuzz.py; see tests/helpers/mine_fuzz.py.
"""

from __future__ import annotations

from pathlib import Path

from helpers.mine_fuzz import Case, encode, fixture_notes, fuzz, run, write_cache


def test_a_small_fuzz_budget_has_no_traceback_no_lost_note_and_no_corrupted_label(
    tmp_path: Path,
) -> None:
    report = fuzz(5, tmp_path, seed=7)
    assert report.runs == 5
    assert report.to_dict()["failures"] == []
    assert (
        report.tracebacks,
        report.unaccounted,
        report.invalid_outputs,
        report.corrupted_labels,
    ) == (0, 0, 0, 0)


def test_the_checks_can_fail_a_forum_collision_would_show_as_a_corrupted_label(
    tmp_path: Path,
) -> None:
    # Replace one kept paper's notes by another paper's under its id: the labels must differ from the clean run,
    # which is exactly what the fuzzer's label check compares (so it is able to fail).
    notes = fixture_notes()
    clean = run(_cache(tmp_path / "a", notes), tmp_path / "a" / "out")
    assert clean.code == 0 and clean.labels
    kept = next(iter(clean.labels))
    without = [n for n in notes if n.get("forum") != kept and n.get("id") != kept]
    other = run(_cache(tmp_path / "b", without), tmp_path / "b" / "out")
    assert other.labels != clean.labels


def test_a_forum_collision_is_skipped_and_counted_not_merged(tmp_path: Path) -> None:
    notes = fixture_notes()
    subs = [n for n in notes if str(n["invitations"][0]).endswith("/-/Submission")]
    hostile = dict(subs[1], forum=subs[0]["id"])
    mutated = [hostile if n is subs[1] else n for n in notes]
    got = run(_cache(tmp_path / "c", mutated), tmp_path / "c" / "out")
    assert got.error is None and got.code == 0
    assert got.accounting is not None and got.accounting["unaccounted"] == 0
    manifest = (tmp_path / "c" / "out" / "human_only" / "manifest.json").read_text()
    assert "submission whose forum names another note" in manifest


def _cache(root: Path, notes: list[dict]) -> Path:
    write_cache(root / "cache", Case("x", {"notes-00.jsonl.gz": [encode(n) for n in notes]}, notes))
    return root / "cache"
