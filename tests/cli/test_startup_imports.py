"""Which heavy libraries each `judgeaudit` command may import, read from a fresh `python -m judgeaudit` (issue 29).

`--help`, argument errors, `validate`, `convert` and `mine` (offline, cue extractor) must not load
Inspect, pandas, matplotlib, torch, litellm, the embedders, llama.cpp, scikit-learn, Hugging Face
`datasets` or scipy; `report` and `audit` load the judge stack when they run, but neither torch,
litellm, llama.cpp nor the embedders before a model or embedder is asked for. The children are the
interpreter running the tests (tests/helpers/cli_starts.py). Nothing is timed here: the start-up figures are
tests/benchmarks/bench_startup.py's.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.cli_starts import BENCH_SOURCE, BUNDLED_SET, HEAVY, LOOSE, SMALL_SNAPSHOT, start

# What `report` and `audit` load to run: Inspect's log reader, the frames, the figures, the statistics.
JUDGE_STACK = frozenset({"inspect_ai", "pandas", "matplotlib", "scipy", "numpy"})

PARSER_ONLY: list[tuple[list[str], int]] = [
    (["--help"], 0),
    (["validate", "--help"], 0),
    (["convert", "--help"], 0),
    (["mine", "--help"], 0),
    (["mine", "generate", "--help"], 0),
    (["mine", "plan", "--help"], 0),
    (["report", "--help"], 0),
    (["audit", "--help"], 0),
    (["bogus"], 2),
    (["validate"], 2),
    (["convert", "somewhere", "--out", "x"], 2),
    (["mine", "--bogus"], 2),
    (["mine", "generate"], 2),
    (["report"], 2),
    (["audit", "--model", "none", "--seed", "abc"], 2),
]


@pytest.mark.parametrize(("argv", "code"), PARSER_ONLY, ids=[" ".join(a) for a, _ in PARSER_ONLY])
def test_help_and_argument_errors_import_no_heavy_library(
    tmp_path: Path, argv: list[str], code: int
) -> None:
    done = start(argv, cwd=tmp_path, imports=True)
    assert done.returncode == code, done.stderr
    assert done.modules, "no import was recorded: the check would pass whatever the command imports"
    assert done.heavy() == ()
    assert "judgeaudit.cli" in done.modules and not any(
        m.endswith(".commands") for m in done.modules
    )


def test_validate_of_the_bundled_set_imports_no_heavy_library(tmp_path: Path) -> None:
    done = start(["validate", str(BUNDLED_SET)], cwd=tmp_path, imports=True)
    assert done.returncode == 0 and done.stdout.startswith("OK: "), done.stdout + done.stderr
    assert "judgeaudit.data.commands" in done.modules
    assert done.heavy() == ()


def test_convert_imports_no_heavy_library(tmp_path: Path) -> None:
    out = tmp_path / "njb"
    done = start(
        ["convert", "--from", "novelty-judge-bench", str(BENCH_SOURCE), "--out", str(out)],
        cwd=tmp_path,
        imports=True,
    )
    assert done.returncode == 0, done.stderr
    assert (out / "human_only" / "pairwise.jsonl").is_file()
    assert done.heavy() == ()


def test_mine_with_the_cue_extractor_imports_numpy_only(tmp_path: Path) -> None:
    out = tmp_path / "mined"
    done = start(
        [
            "mine",
            "--source",
            f"snapshot:{SMALL_SNAPSHOT}",
            "--out",
            str(out),
            "--no-progress",
            "--workers",
            "1",
            *LOOSE,
        ],
        cwd=tmp_path,
        imports=True,
    )
    assert done.returncode == 0, done.stderr
    assert (out / "human_only" / "pairwise.jsonl").is_file()
    assert done.heavy() == ("numpy",)


@pytest.mark.slow
@pytest.mark.parametrize(
    "argv",
    [
        ["report", "{tmp}"],
        [
            "audit",
            "--model",
            "none",
            "--judge",
            "distance_nn",
            "--out",
            "{tmp}/audit",
            "--display",
            "loud",
        ],
    ],
    ids=["report", "audit"],
)
def test_report_and_audit_load_the_judge_stack_and_nothing_more(
    tmp_path: Path, argv: list[str]
) -> None:
    """Each refuses its input after its handler's imports (no logs; a bad --display): exit 2, one line."""
    done = start([a.replace("{tmp}", str(tmp_path)) for a in argv], cwd=tmp_path, imports=True)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert f"judgeaudit.{argv[0]}.commands" in done.modules
    assert "inspect_ai" in done.heavy() and set(done.heavy()) <= JUDGE_STACK, done.heavy()


def test_the_heavy_list_names_installed_libraries() -> None:
    """A misspelt name in HEAVY would never be found imported, and every check above would pass."""
    from importlib.util import find_spec

    missing = [
        name
        for name in HEAVY
        if name not in ("torch", "sentence_transformers") and find_spec(name) is None
    ]
    assert not missing, missing
