"""The docs site's own checks that `mkdocs build --strict` (run by .ci/run) does not make.

The build itself fails on a broken link, a page missing from the navigation and an unknown generated
part. Here: the pages cite nothing outside the repository; the generated parts render what the code
holds (every subcommand, every default gate, every benchmark script); the JSON fields the card page
documents are the fields a card has; the gates-file example loads.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from types import ModuleType

import pytest

from judgeaudit.audit.gates import DEFAULT_GATES, load_gates

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md"))
# Paths that exist only on the machine the project was built on, and a design note kept outside it.
OUTSIDE = ("DESIGN.md", "../shared", "/work/")


@pytest.fixture(scope="module")
def hooks() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_hooks", DOCS / "hooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("page", [ROOT / "README.md", *PAGES], ids=lambda p: p.name)
def test_pages_cite_nothing_outside_the_repository(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    assert not [s for s in OUTSIDE if s in text], (
        f"{page.relative_to(ROOT)} cites a path outside the repository"
    )


TEXT_SUFFIXES = {".py", ".md", ".json", ".yaml", ".yml", ".toml", ".txt", ".cfg"}
SKIPPED_DIRS = {".git", "site", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache"}


def test_no_file_of_the_repository_cites_a_path_outside_it() -> None:
    # test modules are left out: they hold these strings to check that output does not
    cited = []
    for path in ROOT.rglob("*"):
        rel = path.relative_to(ROOT)
        if (
            path.suffix not in TEXT_SUFFIXES
            or not path.is_file()
            or path.is_symlink()
            or SKIPPED_DIRS & set(rel.parts)
            or (rel.parts[0] == "tests" and path.name.startswith("test_"))
        ):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        cited += [f"{rel}: {s}" for s in OUTSIDE if s in text]
    assert cited == []


def test_cli_reference_has_every_subcommand(hooks: ModuleType) -> None:
    text = hooks.cli_reference()
    for command in ("validate", "convert", "mine", "mine generate", "mine plan", "report", "audit"):
        assert f"## `judgeaudit {command}`" in text
    assert "usage: judgeaudit audit" in text
    assert not [s for s in OUTSIDE if s in text], (
        "a --help text cites a path outside the repository"
    )


def test_gates_table_has_every_default_gate(hooks: ModuleType) -> None:
    rows = [line for line in hooks.gates_table().splitlines() if line.startswith("| `")]
    assert [row.split("`")[1] for row in rows] == [g.name for g in DEFAULT_GATES]
    assert all(row.count(" | ") == 7 for row in rows), "a cell's '|' was not escaped"


def test_benchmark_list_names_every_script(hooks: ModuleType) -> None:
    text = hooks.benchmarks_list()
    for script in (ROOT / "tests" / "benchmarks").glob("*.py"):
        assert f"`tests/benchmarks/{script.name}`: " in text


def test_unknown_generated_part_fails_the_build(hooks: ModuleType) -> None:
    class Page:
        class file:
            src_path = "x.md"

    with pytest.raises(ValueError, match="unknown generated part 'gate'"):
        hooks.on_page_markdown("a\n<!-- generated:gate -->\n", page=Page)


def test_card_page_documents_every_field_of_a_card() -> None:
    page = (DOCS / "reference" / "card-schema.md").read_text(encoding="utf-8")
    card_section = page.split("## report.json", 1)[0]
    documented = set(re.findall(r"^\| `(\w+)` \|", card_section, flags=re.M))
    card = json.loads((ROOT / "reports" / "audit-gemma-3-270m" / "card.json").read_text("utf-8"))
    # `members` (a panel) and `looks` (--until-decided) appear only on those audits' cards.
    assert documented == set(card) | {"members", "looks"}


def test_gates_file_example_loads(tmp_path: Path) -> None:
    page = (DOCS / "reference" / "gates.md").read_text(encoding="utf-8")
    [example] = re.findall(r"```yaml\n(.*?)```", page, flags=re.S)
    path = tmp_path / "gates.yaml"
    path.write_text(example, encoding="utf-8")
    changed = {g.name: g for g in load_gates(path)}["position_flip"]
    assert (changed.pass_at, changed.fail_at) == (0.05, 0.20)
