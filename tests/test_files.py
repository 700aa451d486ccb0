"""Output directories (judgeaudit/files.py): one writer at a time, manifest-last moves, a killed run's leftovers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from filelock import FileLock

from judgeaudit.files import (
    LOCK_NAME,
    OutputBusyError,
    OutputDirError,
    clean_leftovers,
    locked_output_dir,
    staged_outputs,
)


def test_a_held_lock_makes_the_second_writer_refuse_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGEAUDIT_LOCK_WAIT", "0.2")
    out = tmp_path / "out"
    out.mkdir()
    holder = FileLock(str(out / LOCK_NAME), is_singleton=False, thread_local=False)
    with holder:
        with pytest.raises(OutputBusyError) as err:
            with locked_output_dir(out):
                pytest.fail("entered a directory another run holds")
    message = str(err.value)
    assert (
        "\n" not in message
        and str(out) in message
        and "another run" in message
        and "0.2 s" in message
    )
    with locked_output_dir(out) as got:  # released: the next run gets in
        assert got == out


def test_a_file_in_place_of_the_directory_and_a_bad_wait_are_one_line_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    with pytest.raises(OutputDirError, match="is a file, not a directory"):
        with locked_output_dir(blocker):
            pass
    monkeypatch.setenv("JUDGEAUDIT_LOCK_WAIT", "soon")
    with pytest.raises(OutputDirError, match="JUDGEAUDIT_LOCK_WAIT='soon'"):
        with locked_output_dir(tmp_path / "out"):
            pass


def test_leftovers_of_a_killed_run_are_removed_and_nothing_else(tmp_path: Path) -> None:
    (tmp_path / ".staging-k1ll3d0").mkdir()
    (tmp_path / ".staging-k1ll3d0" / "report.md").write_text("half", encoding="utf-8")
    leftovers = [".cost.png.ab12cd34.png", ".cost.svg.ab12cd34.svg", ".report.json.zz99yy88.tmp"]
    keep = ["report.json", "cost.png", ".gitignore", "notes.tmp"]
    for name in leftovers + keep:
        (tmp_path / name).write_text("x", encoding="utf-8")
    removed = clean_leftovers(tmp_path)
    assert sorted(p.name for p in removed) == sorted([".staging-k1ll3d0", *leftovers])
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(keep)


def _manifest(staging: Path, names: list[str]) -> None:
    for n in names:
        (staging / n).write_text(f"new {n}", encoding="utf-8")
    (staging / "report.json").write_text(
        json.dumps({"files": {"t": [str(staging / n) for n in names]}}), encoding="utf-8"
    )


def test_staged_outputs_move_in_manifest_last_and_drop_the_previous_runs_files(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out"
    with staged_outputs(out, "report.json") as staging:
        _manifest(staging, ["a.csv", "b.csv"])
    # the manifest names staged paths; rewrite them as the report does (relocate_paths), here by hand
    (out / "report.json").write_text(
        json.dumps({"files": {"t": [str(out / "a.csv"), str(out / "b.csv")]}}), encoding="utf-8"
    )
    (out / "user.txt").write_text("mine", encoding="utf-8")
    with staged_outputs(out, "report.json") as staging:
        _manifest(staging, ["a.csv", "c.csv"])
    names = sorted(p.name for p in out.iterdir())
    assert names == [
        "a.csv",
        "c.csv",
        "report.json",
        "user.txt",
    ]  # b.csv was the old run's, user.txt is not ours
    assert (out / "a.csv").read_text(encoding="utf-8") == "new a.csv"


def test_a_failing_run_leaves_the_previous_outputs_untouched(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with staged_outputs(out, "report.json") as staging:
        _manifest(staging, ["a.csv"])
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    with pytest.raises(RuntimeError):
        with staged_outputs(out, "report.json") as staging:
            (staging / "a.csv").write_text("half-written", encoding="utf-8")
            raise RuntimeError("killed")
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    with pytest.raises(FileNotFoundError, match="lack their manifest"):
        with staged_outputs(out, "report.json") as staging:
            (staging / "a.csv").write_text("no manifest", encoding="utf-8")
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_the_lock_file_goes_on_release_and_writers_still_take_turns(tmp_path: Path) -> None:
    """No lock file stays in the output directory, and removing it on release keeps one writer at
    a time: threads that each take the lock many times never overlap (each opens its own lock
    file descriptor, which is how two processes contend)."""
    import threading

    out = tmp_path / "out"
    with locked_output_dir(out):
        assert (out / LOCK_NAME).exists()
    assert not (out / LOCK_NAME).exists()
    inside: list[int] = []
    overlaps: list[int] = []
    start = threading.Barrier(4)

    def writer() -> None:
        start.wait()
        for _ in range(25):
            with locked_output_dir(out):
                inside.append(1)
                if len(inside) > 1:
                    overlaps.append(len(inside))
                threading.Event().wait(0.001)
                inside.pop()

    threads = [threading.Thread(target=writer) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert overlaps == [] and not (out / LOCK_NAME).exists()
