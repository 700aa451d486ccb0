"""A set directory is replaced as a whole: a failed build leaves the old set untouched."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgeaudit.mine.staging import staged_dir


def test_success_replaces_the_directory_as_a_whole(tmp_path: Path) -> None:
    final = tmp_path / "set"
    final.mkdir()
    (final / "old.jsonl").write_text("old\n")
    with staged_dir(final) as d:
        (d / "new.jsonl").write_text("new\n")
        assert not (final / "new.jsonl").exists()  # nothing visible until the swap
    assert sorted(p.name for p in final.iterdir()) == ["new.jsonl"]
    assert [p.name for p in tmp_path.iterdir()] == ["set"]  # no temporary directory left


def test_a_crash_leaves_the_old_set_and_no_half_written_one(tmp_path: Path) -> None:
    final = tmp_path / "set"
    final.mkdir()
    (final / "pairwise.jsonl").write_text("old\n")
    with pytest.raises(RuntimeError), staged_dir(final) as d:
        (d / "pairwise.jsonl").write_text("half")
        raise RuntimeError("killed between files")
    assert (final / "pairwise.jsonl").read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["set"]


def test_copy_existing_starts_from_the_old_files(tmp_path: Path) -> None:
    final = tmp_path / "set"
    final.mkdir()
    (final / "a.jsonl").write_text("a\n")
    with staged_dir(final, copy_existing=True) as d:
        (d / "b.jsonl").write_text("b\n")
    assert sorted(p.name for p in final.iterdir()) == ["a.jsonl", "b.jsonl"]


def test_a_killed_runs_staging_directory_is_removed_by_the_next_run(tmp_path: Path) -> None:
    final = tmp_path / "set"
    killed = tmp_path / ".set.new-abc123"  # what a run killed mid-write leaves
    killed.mkdir()
    (killed / "pairwise.jsonl").write_text("half")
    with staged_dir(final) as d:
        (d / "pairwise.jsonl").write_text("new\n")
    assert [p.name for p in tmp_path.iterdir()] == ["set"]
    assert (final / "pairwise.jsonl").read_text() == "new\n"
