"""The package's import graph: no cycle between files or packages, public Inspect API only, no
call-stack inspection, and the project's own modules imported at module top (an `if TYPE_CHECKING:`
block at module top counts: a lazy package's names, see judgeaudit/lazy.py).

Read from the source with `ast` (nothing is imported), over every module of `judgeaudit/`.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path
from typing import TypeGuard

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "judgeaudit"
# Function-local imports of our own modules allowed: the `local` extra's provider loads only when used.
LOCAL_IMPORTS_ALLOWED = {
    ("judgeaudit.providers.register", "judgeaudit.providers.local_llama"),
    # scipy (Cohen's kappa) only for a venue form with a direct originality score
    ("judgeaudit.mine.venues.setup", "judgeaudit.mine.venues.gold"),
    # Inspect's hooks are registered only when an audit runs (its banner otherwise prints at start)
    ("judgeaudit.audit.battery.run", "judgeaudit.audit.progress"),
}
STACK_CALLS = {
    ("sys", "_getframe"),
    ("inspect", "stack"),
    ("inspect", "currentframe"),
    ("sys", "_current_frames"),
}


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _resolve(name: str) -> str | None:
    """The module of ours a dotted import name refers to (a module, or a name inside one)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _type_checking(node: ast.stmt) -> TypeGuard[ast.If]:
    """Whether `node` is an `if TYPE_CHECKING:` block (the imports of a lazy package's names, for type checkers)."""
    return (
        isinstance(node, ast.If)
        and isinstance(node.test, ast.Name)
        and node.test.id == "TYPE_CHECKING"
    )


def _imports(module: str) -> list[tuple[ast.stmt, list[str], bool]]:
    """(node, imported dotted names, at module top) of every import statement of `module`."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    tops = {id(node) for node in tree.body}
    tops |= {id(node) for block in tree.body if _type_checking(block) for node in block.body}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.append((node, [a.name for a in node.names], id(node) in tops))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                if not MODULES[module].name == "__init__.py":
                    base = base[:-1]
                base = base[: len(base) - node.level + 1]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            out.append(
                (node, [prefix] + [f"{prefix}.{a.name}" for a in node.names], id(node) in tops)
            )
    return out


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = defaultdict(set)
    for module in MODULES:
        for _, names, _ in _imports(module):
            for name in names:
                target = _resolve(name) if name.split(".")[0] == "judgeaudit" else None
                if target is not None and target != module:
                    graph[module].add(target)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """Strongly connected components with more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(component)

    for v in sorted(set(graph) | {w for ws in graph.values() for w in ws}):
        if v not in index:
            visit(v)
    return out


def _package(module: str) -> str:
    return ".".join(module.split(".")[:2])


def test_the_graph_sees_every_module_and_a_known_edge() -> None:
    graph = _graph()
    assert (
        "judgeaudit.judges.tasks" in MODULES
        and "judgeaudit.judges.catalog" in graph["judgeaudit.judges.tasks"]
    )


def test_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]


def test_no_file_imports_another_that_imports_it_back() -> None:
    cycles = _cycles(_graph())
    assert not cycles, f"file import cycles: {cycles}"


def test_no_package_cycle() -> None:
    packages: dict[str, set[str]] = defaultdict(set)
    for a, targets in _graph().items():
        for b in targets:
            if _package(a) != _package(b):
                packages[_package(a)].add(_package(b))
    assert not _cycles(packages), f"package import cycles: {_cycles(packages)}"


def test_public_inspect_api_only_and_no_stack_inspection() -> None:
    private, stack = [], []
    for module, path in MODULES.items():
        for node, names, _ in _imports(module):
            if isinstance(node, ast.ImportFrom) and node.level:
                continue
            for name in names[:1] if isinstance(node, ast.ImportFrom) else names:
                parts = name.split(".")
                if parts[0] == "inspect_ai" and any(p.startswith("_") for p in parts[1:]):
                    private.append(f"{module}: {name}")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and (node.value.id, node.attr) in STACK_CALLS
            ):
                stack.append(f"{module}: {node.value.id}.{node.attr}")
    assert not private, f"private inspect_ai imports: {private}"
    assert not stack, f"call-stack inspection: {stack}"


def test_own_modules_are_imported_at_module_top() -> None:
    local = []
    for module in MODULES:
        for node, names, top in _imports(module):
            targets = {_resolve(n) for n in names if n.split(".")[0] == "judgeaudit"} - {
                None,
                module,
            }
            if not top and targets and not {(module, t) for t in targets} <= LOCAL_IMPORTS_ALLOWED:
                local.append(f"{module}:{node.lineno}")
    assert not local, f"function-local imports of our own modules: {local}"


STUDY = "judgeaudit.mine.study"
CLI_OF_THE_MINER = (
    "judgeaudit.mine.commands"  # `judgeaudit mine --dev` measures with the study's calibration
)


def _reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for target in graph.get(todo.pop(), ()):
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return seen


def test_the_miner_pipeline_and_its_export_never_import_the_extractor_study() -> None:
    graph = _graph()
    assert any(
        t.startswith(STUDY) for t in graph[CLI_OF_THE_MINER]
    )  # the check below sees study imports
    offenders = sorted(
        f"{m} -> {t}"
        for m, targets in graph.items()
        for t in targets
        if m.startswith("judgeaudit.")
        and not m.startswith(STUDY)
        and m != CLI_OF_THE_MINER
        and t.startswith(STUDY)
    )
    assert not offenders, f"pipeline modules importing the study: {offenders}"
    assert not {t for t in _reachable(graph, "judgeaudit.mine.export") if t.startswith(STUDY)}
