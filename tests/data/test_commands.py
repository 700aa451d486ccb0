"""`judgeaudit validate` / `convert` on bad paths: one line on stderr naming the path, non-zero exit, no traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgeaudit.cli import main

PUBLISHED = Path(__file__).resolve().parents[1] / "fixtures" / "novelty_judge_bench" / "published"


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_validate_missing_path_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nonexistent"
    code, out, err = _run(["validate", str(missing)], capsys)
    assert code == 2 and out == ""
    assert err.splitlines() == [
        f"error: judgeaudit validate: {missing}: no such file or directory, and not a bundled set"
    ]


def test_validate_accepts_a_bundled_set_name(capsys: pytest.CaptureFixture[str]) -> None:
    """`validate iclr2026/human_only` finds the bundled set, as every other command does."""
    code, out, err = _run(["validate", "iclr2026/human_only"], capsys)
    assert code == 0 and err == "", err
    assert out.splitlines()[-1].startswith("OK: ")


def test_validate_dir_without_contract_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run(["validate", str(tmp_path)], capsys)
    assert code == 2 and out == ""
    assert err.splitlines() == [
        f"error: judgeaudit validate: {tmp_path}: no pairwise*/pointwise* JSONL files found"
    ]


def test_validate_missing_path_next_to_a_good_one_is_refused_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_dir = tmp_path / "njb"
    assert (
        main(["convert", "--from", "novelty-judge-bench", str(PUBLISHED), "--out", str(out_dir)])
        == 0
    )
    capsys.readouterr()
    code, out, err = _run(["validate", str(out_dir), str(tmp_path / "nope")], capsys)
    assert code == 2
    assert "no such file or directory" in err and out == ""  # refused before any file is checked


@pytest.mark.parametrize("case", ["missing_source", "file_source", "out_is_file", "out_below_file"])
def test_convert_bad_paths_are_one_line(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a_file = tmp_path / "a_file.txt"
    a_file.write_text("x", encoding="utf-8")
    source, out, named = str(PUBLISHED), tmp_path / "out", ""
    if case == "missing_source":
        source = named = str(tmp_path / "no" / "such" / "dir")
    elif case == "file_source":
        source = named = str(a_file)
    elif case == "out_is_file":
        out, named = a_file, f"--out {a_file}"
    else:
        out, named = a_file / "sub", f"--out {a_file / 'sub'}"
    code, stdout, err = _run(
        ["convert", "--from", "novelty-judge-bench", source, "--out", str(out)], capsys
    )
    assert code == 2 and stdout == ""
    lines = err.splitlines()
    assert (
        len(lines) == 1 and lines[0].startswith("error: judgeaudit convert: ") and named in lines[0]
    ), err
    assert "Traceback" not in err
