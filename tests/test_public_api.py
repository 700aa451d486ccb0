"""Every package of judgeaudit declares its public API in `__init__.__all__`, and each name there is
a submodule or subpackage of it or a name its `__init__` defines or imports (read with `ast`,
nothing imported)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "judgeaudit"
INITS = sorted(
    p
    for p in PACKAGE.rglob("__init__.py")
    if not {"prompts", "bundled_datasets"} & set(p.relative_to(PACKAGE).parts)
)


def _declared(tree: ast.Module) -> list[str] | None:
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign):
            targets = [node.target]
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            assert node.value is not None
            return list(ast.literal_eval(node.value))
    return None


def _bound(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom | ast.Import):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names


@pytest.mark.parametrize("init", INITS, ids=[str(p.parent.relative_to(PACKAGE)) for p in INITS])
def test_each_package_declares_a_public_api_that_exists(init: Path) -> None:
    tree = ast.parse(init.read_text(encoding="utf-8"))
    declared = _declared(tree)
    assert declared is not None, f"{init} declares no __all__"
    here = init.parent
    children = {p.stem for p in here.glob("*.py")} | {
        d.name for d in here.iterdir() if (d / "__init__.py").is_file()
    }
    assert [n for n in declared if n not in children | _bound(tree)] == []
