"""Start `python -m judgeaudit ARGS` in a fresh interpreter: its wall time, and the heavy libraries it imported.

Shared by tests/cli/test_startup_imports.py (which heavy libraries each subcommand may import) and
tests/benchmarks/bench_startup.py (start-up figures). The child is the interpreter that runs the
caller (`sys.executable`), never a `judgeaudit` found on PATH. To list what a command imported, the
child runs the package's `__main__` as `-m` does (`runpy`), and writes `sys.modules` to a file when it
exits (`-X importtime` is no substitute: it does not see modules loaded by `importlib.import_module`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from helpers.mine_options import LOOSE as MINE_LOOSE

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
BUNDLED_SET = ROOT / "datasets" / "iclr2026" / "human_only"
SMALL_SNAPSHOT = FIXTURES / "openreview_small"
BENCH_SOURCE = FIXTURES / "novelty_judge_bench" / "good"
# The 40-forum snapshot is too small for the default rule: mining it needs looser thresholds
# (the same ones tests/mine uses, tests/helpers/mine_options.py).
LOOSE = tuple(MINE_LOOSE)

# Libraries that cost from a tenth of a second (numpy) to seconds (inspect_ai, torch) to import. llama.cpp
# is loaded with ctypes from the xllamacpp wheel (never imported as a Python package), so it is named
# by the one module that loads it.
LLAMA_ENGINE = "judgeaudit.providers.llama_engine"
HEAVY: tuple[str, ...] = (
    "inspect_ai",
    "pandas",
    "matplotlib",
    "torch",
    "litellm",
    "sentence_transformers",
    LLAMA_ENGINE,
    "sklearn",
    "datasets",
    "scipy",
    "numpy",
)
# `python -c MODULES_DRIVER OUT MODULE ARGS...`: run MODULE as `python -m MODULE ARGS...` would, then
# write the names in sys.modules to OUT as JSON when the interpreter exits (forked workers leave
# through os._exit, so only the command's own process writes).
MODULES_DRIVER = """
import atexit, json, runpy, sys
out, module = sys.argv[1], sys.argv[2]
del sys.argv[1:3]
atexit.register(lambda: open(out, "w", encoding="utf-8").write(json.dumps(sorted(sys.modules))))
runpy.run_module(module, run_name="__main__", alter_sys=True)
"""


@dataclass(frozen=True)
class Start:
    """One run of the command line in a fresh interpreter."""

    returncode: int
    wall: float  # seconds, start of the child to its exit
    stdout: str
    stderr: str
    modules: frozenset[
        str
    ]  # every module in sys.modules at exit (empty unless run with imports=True)

    def heavy(self) -> tuple[str, ...]:
        """The HEAVY libraries among the imported modules, in HEAVY's order."""
        tops = {name.partition(".")[0] for name in self.modules}
        return tuple(h for h in HEAVY if h in tops or h in self.modules)


def command_argv(
    args: Sequence[str], *, python: str = sys.executable, module: str = "judgeaudit"
) -> list[str]:
    """The child's argv: `python -m judgeaudit ARGS`."""
    return [python, "-m", module, *args]


def start(
    args: Sequence[str],
    *,
    cwd: Path,
    python: str = sys.executable,
    module: str = "judgeaudit",
    imports: bool = False,
    env: Mapping[str, str] | None = None,
    timeout: float = 600,
) -> Start:
    """Run `python -m judgeaudit ARGS` once in `cwd`; with `imports`, also record every module it imported."""
    child_env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", **(env or {})}
    with tempfile.TemporaryDirectory(prefix="cli-starts-") as tmp:
        out = Path(tmp) / "modules.json"
        argv = (
            [python, "-c", MODULES_DRIVER, str(out), module, *args]
            if imports
            else command_argv(args, python=python, module=module)
        )
        began = time.perf_counter()
        done = subprocess.run(
            argv,
            cwd=cwd,
            env=child_env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        wall = time.perf_counter() - began
        modules = frozenset(json.loads(out.read_text(encoding="utf-8"))) if imports else frozenset()
    return Start(done.returncode, wall, done.stdout, done.stderr, modules)
