"""Every shell command of the README and of the docs pages runs as written, or at least parses.

The commands are extracted from the ```bash blocks of README.md and docs/**/*.md (each distinct command
once, README first, then the pages in path order). Cheap ones run for real (validate, the
report on a small mockllm grid, every `inspect eval`/`eval-set` with mockllm standing in for the hosted
or local model and `--limit 1`); expensive ones (hosted models, local Gemma, the live miner, a full
audit) are parsed by the real argument parser, with the reason in `PARSE_ONLY`. `--help` of every
subcommand runs too. The cheap commands run in one fresh interpreter, each through the console-script
entry point of its first word, in a temporary directory that links the checkout's datasets/ and
tasks/ (outputs such as logs/ and reports/ land there, never in the checkout).
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from judgeaudit.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
# The README's two set-up commands: CI (.ci/run) and newcomers run exactly these.
SETUP_COMMANDS = (
    'pip install -e ".[local,embed,dev]" && judgeaudit audit --model local/gemma-3-270m -M grammar=pairwise '
    "--dataset iclr2026/human_only --limit 6 --out reports/audit-gemma-3-270m",
    'pip install -e ".[local,embed,dev]" && python -m pytest -q',
)
README_MAX_LINES = 105  # the front page: what it is, set-up, three journeys, links
# Commands that are parsed, not run: first words -> why.
PARSE_ONLY: dict[tuple[str, ...], str] = {
    ("pip", "install"): "installs the package (CI's own set-up step)",
    ("python", "-m", "pytest"): "the test suite itself",
    ("python", "-m", "mkdocs"): "builds or serves the docs site (.ci/run builds it with --strict)",
    (
        "judgeaudit",
        "audit",
    ): "a full probe battery on the whole set (hosted, local Gemma or minutes of CPU)",
    (
        "judgeaudit",
        "mine",
    ): "mining reads the live OpenReview API or a full raw cache, or calls a hosted model",
    (
        "judgeaudit",
        "convert",
    ): "needs the published benchmark's files (./novelty-judge-bench), not in the repo",
    (
        "judgeaudit",
        "adjudicate",
    ): "needs a judge's logs and an expert's filled sheet (tests/audit/test_adjudicate.py runs both)",
    (
        "judgeaudit",
        "study",
        "run",
    ): "the whole reference protocol against hosted judges (tests/study runs its cells)",
    (
        "judgeaudit",
        "study",
        "estimate",
    ): "tests/study/test_commands.py runs the estimate for a hosted and a planted judge",
    ("judgeaudit", "report", "logs/study"): "reports the study run above, which is not run here",
    ("inspect", "eval-set", "$(judgeaudit"): "a shell substitution of `judgeaudit study tasks`; "
    "tests/study runs the cells",
}
SUBCOMMANDS: tuple[tuple[str, ...], ...] = (
    (),
    ("validate",),
    ("convert",),
    ("mine",),
    ("mine", "generate"),
    ("mine", "plan"),
    ("report",),
    ("audit",),
    ("adjudicate",),
    ("adjudicate", "export"),
    ("adjudicate", "import"),
    ("study",),
    ("study", "run"),
    ("study", "estimate"),
    ("study", "tasks"),
)


def documented_pages() -> list[Path]:
    """README.md, then every Markdown page of the docs site, in path order."""
    return [README, *sorted(DOCS.rglob("*.md"))]


def page_commands(text: str) -> list[list[str]]:
    """Every command of a page's bash blocks, as argv lists (continuations joined, `&&` split)."""
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S):
        joined = re.sub(r"\\\n\s*", " ", block)
        for line in joined.splitlines():
            line = line.split(" #", 1)[0].strip()
            if not line or line.startswith("#"):
                continue
            commands += [_without_env(shlex.split(part)) for part in line.split("&&")]
    return commands


def readme_commands() -> list[list[str]]:
    """Every distinct command of the README and the docs pages, in page order (first occurrence kept)."""
    seen: set[tuple[str, ...]] = set()
    out = []
    for page in documented_pages():
        for argv in page_commands(page.read_text(encoding="utf-8")):
            if tuple(argv) not in seen:
                seen.add(tuple(argv))
                out.append(argv)
    return out


def _without_env(argv: list[str]) -> list[str]:
    """`argv` without leading `NAME=value` environment settings (e.g. `PIP_NO_CACHE_DIR=1`)."""
    while argv and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", argv[0]):
        argv = argv[1:]
    return argv


def parse_only_reason(argv: list[str]) -> str | None:
    """Why `argv` is parsed but not run, or None for a command this test runs."""
    for prefix, reason in PARSE_ONLY.items():
        if tuple(argv[: len(prefix)]) == prefix:
            return reason
    return None


def test_readme_keeps_the_setup_commands_and_stays_a_front_page() -> None:
    text = README.read_text(encoding="utf-8")
    for command in SETUP_COMMANDS:
        assert f"```bash\n{command}\n```" in text, f"README lost a set-up command: {command}"
    assert len(text.splitlines()) <= README_MAX_LINES, (
        "the README is a front page; move text to docs/"
    )


def test_readme_links_point_at_files_of_the_repository() -> None:
    """Relative links (they must work on GitHub): each names a file that exists; none leaves the checkout."""
    text = README.read_text(encoding="utf-8")
    links = [t.split("#", 1)[0] for t in re.findall(r"\]\(([^)\s]+)\)", text)]
    relative = [t for t in links if t and "://" not in t]
    assert any(t.startswith("docs/") for t in relative), "the README links to no docs page"
    missing = [t for t in relative if not (ROOT / t).resolve().is_file()]
    assert not missing, f"README links to files that do not exist: {missing}"


def test_every_documented_command_is_run_or_parsed() -> None:
    """A command this test can neither run (judgeaudit, inspect) nor parse would go unchecked."""
    unchecked = [
        shlex.join(c)
        for c in readme_commands()
        if c[0] not in ("judgeaudit", "inspect") and not parse_only_reason(c)
    ]
    assert not unchecked, (
        f"documented commands nobody checks (add a PARSE_ONLY reason): {unchecked}"
    )


def test_readme_has_the_commands_of_each_stage() -> None:
    firsts = {tuple(c[:2]) for c in readme_commands()}
    assert {
        ("judgeaudit", "validate"),
        ("judgeaudit", "report"),
        ("inspect", "eval"),
        ("inspect", "eval-set"),
        ("judgeaudit", "mine"),
        ("judgeaudit", "audit"),
    } <= firsts


@pytest.mark.parametrize(
    "argv", [c for c in readme_commands() if c[0] == "judgeaudit"], ids=shlex.join
)
def test_every_judgeaudit_command_parses(argv: list[str]) -> None:
    """The real parser accepts each judgeaudit command exactly as written (no usage error)."""
    args = build_parser().parse_args(argv[1:])
    assert callable(args.func)


@pytest.mark.parametrize("sub", SUBCOMMANDS, ids=lambda s: " ".join(s) or "judgeaudit")
def test_help_of_every_subcommand(sub: tuple[str, ...], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main([*sub, "--help"])
    out = capsys.readouterr().out
    assert info.value.code == 0
    assert out.startswith("usage: judgeaudit") and len(out.splitlines()) > 3


@pytest.mark.parametrize("sub", SUBCOMMANDS, ids=lambda s: " ".join(s) or "judgeaudit")
def test_help_describes_the_command_without_outside_files(
    sub: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main([*sub, "--help"])
    out = capsys.readouterr().out
    assert "DESIGN.md" not in out, "help cites DESIGN.md, which is not in the repository"
    usage_end = out.index("\n\n")
    assert not out[usage_end:].lstrip().startswith(("positional arguments", "options")), (
        "no description"
    )


def _mockllm(argv: list[str]) -> list[str]:
    """An `inspect` command with mockllm/model for its model, no model args, and --limit 1; a command
    run with `--model none` (a panel: its members, planted or local, are named in `-T panel`) keeps it."""
    out, skip = [], False
    for i, word in enumerate(argv):
        if skip:
            skip = False
            continue
        if word in ("--model", "-M", "--limit"):
            skip = True
            if word == "--model":
                out += ["--model", "none" if argv[i + 1] == "none" else "mockllm/model"]
            continue
        out.append(word)
    return [*out, "--limit", "1"]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("readme")
    for name in ("datasets", "tasks"):
        (work / name).symlink_to(ROOT / name)
    return work


# `python -c README_DRIVER COMMANDS_JSON`: run each command (an argv list) in README order in this one
# interpreter, through the console-script entry point its first word names (`inspect` ->
# inspect_ai's, `judgeaudit` -> ours: exactly the function the installed script calls, with sys.argv
# set as the script would set it); stop at the first that fails. One interpreter instead of one per
# command: each start re-imported Inspect and the report stack (~4 s of the ~6 s a command took).
README_DRIVER = """
import json, shlex, sys
from importlib.metadata import entry_points
for argv in json.loads(sys.argv[1]):
    print("$ " + shlex.join(argv), file=sys.stderr, flush=True)
    sys.argv = list(argv)
    [script] = entry_points(group="console_scripts", name=argv[0])
    try:
        code = script.load()()
    except SystemExit as exc:
        code = exc.code
    if code not in (0, None):
        print(f"README command failed with exit code {code}: {shlex.join(argv)}", file=sys.stderr, flush=True)
        sys.exit(1)
"""


def _run_all(commands: list[list[str]], cwd: Path) -> subprocess.CompletedProcess[str]:
    """`commands` run in order in one fresh interpreter (README_DRIVER) in `cwd`."""
    return subprocess.run(
        [sys.executable, "-c", README_DRIVER, json.dumps(commands)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


@pytest.mark.slow
def test_cheap_readme_commands_run(workdir: Path) -> None:
    """validate, each inspect command (mockllm, --limit 1) and the report on the grid they wrote, in README order."""
    commands = [
        _mockllm(argv) if argv[0] == "inspect" else argv
        for argv in readme_commands()
        if not parse_only_reason(argv)
    ]
    assert {tuple(c[:2]) for c in commands} >= {
        ("judgeaudit", "report"),
        ("inspect", "eval-set"),
        ("judgeaudit", "validate"),
    }
    proc = _run_all(commands, workdir)
    assert proc.returncode == 0, f"{proc.stdout[-1500:]}\n{proc.stderr[-3000:]}"
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert [line[2:] for line in proc.stderr.splitlines() if line.startswith("$ ")] == [
        shlex.join(c) for c in commands
    ]
    report = (workdir / "reports" / "grid" / "report.json").read_text(encoding="utf-8")
    assert '"reference": "prompt=reference"' in report
