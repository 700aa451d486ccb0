"""The index in tests/README.md: each module of judgeaudit and the test modules that cover it.

A test module covers a module when it has the mirrored path (tests/<package>/test_<module>.py) or
imports it. `python tests/helpers/tests_index.py` rewrites the index; tests/test_tests_index.py
checks that it is current.
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "judgeaudit"
TESTS = ROOT / "tests"
README = TESTS / "README.md"
BEGIN, END = "<!-- index:begin -->", "<!-- index:end -->"


def _modules() -> dict[str, str]:
    """Dotted module name -> its path relative to the repository, for every module of the package."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path.relative_to(ROOT).as_posix()
    return out


def _imported(tree: ast.AST, modules: dict[str, str]) -> set[str]:
    """The package's modules a test module imports (a module, or a name from one)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{a.name}" for a in node.names] + [node.module]
        for name in names:
            while name and name not in modules:
                name = name.rpartition(".")[0]
            if name and name != "judgeaudit":
                found.add(name)
    return found


def index() -> str:
    """The index as Markdown: one line per module of judgeaudit, with the test modules covering it."""
    modules = _modules()
    covered: dict[str, set[str]] = defaultdict(set)
    for path in sorted(TESTS.rglob("test_*.py")):
        if "helpers" in path.parts or "benchmarks" in path.parts:
            continue
        rel = path.relative_to(ROOT).as_posix()
        for module in _imported(ast.parse(path.read_text(encoding="utf-8")), modules):
            covered[module].add(rel)
        mirrored = ".".join(
            ["judgeaudit", *path.relative_to(TESTS).parent.parts, path.stem.removeprefix("test_")]
        )
        if mirrored in modules:
            covered[mirrored].add(rel)
    lines = ["| module | tests |", "|---|---|"]
    for name, rel in modules.items():
        tests = sorted(
            covered.get(name, ()), key=lambda t: (Path(t).stem != f"test_{Path(rel).stem}", t)
        )
        shown = ", ".join(f"`{t.removeprefix('tests/')}`" for t in tests[:6])
        more = f" (+{len(tests) - 6} more)" if len(tests) > 6 else ""
        lines.append(f"| `{rel}` | {shown or '(none)'}{more} |")
    return "\n".join(lines)


def rewritten(text: str) -> str:
    """`text` with the part between the index markers replaced by the current index."""
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    return f"{head}{BEGIN}\n{index()}\n{END}{tail}"


if __name__ == "__main__":
    README.write_text(rewritten(README.read_text(encoding="utf-8")), encoding="utf-8")
    sys.exit(0)
