"""Packaging: the explicit package list is complete; a built wheel ships prompts, datasets, entry points."""

from __future__ import annotations

import configparser
import json
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
SETUPTOOLS = PYPROJECT["tool"]["setuptools"]
PACKAGE_DIRS: dict[str, str] = {"judgeaudit": "judgeaudit", **SETUPTOOLS.get("package-dir", {})}
SHIPPED_TREES = {"prompts": "judgeaudit/prompts", "datasets": "judgeaudit/bundled_datasets"}
_JUNK_DIRS = {"__pycache__", ".ipynb_checkpoints"}


def _source_packages() -> set[str]:
    """Every package in the source tree: dirs with __init__.py under each mapped root."""
    found: set[str] = set()
    for package, directory in PACKAGE_DIRS.items():
        base = ROOT / directory
        for init in base.rglob("__init__.py"):
            rel = init.parent.relative_to(base)
            if _JUNK_DIRS & set(rel.parts):
                continue
            found.add(".".join([package, *rel.parts]) if rel.parts else package)
    return found


def test_package_list_covers_every_package() -> None:
    listed = set(SETUPTOOLS["packages"])
    missing = sorted(_source_packages() - listed)
    assert not missing, f"add to [tool.setuptools] packages in pyproject.toml: {missing}"
    # bundled_datasets is a data-only namespace portion: an __init__.py in the top-level
    # datasets/ folder would shadow the Hugging Face `datasets` library at the checkout root.
    absent = sorted(
        p for p in listed if p not in _source_packages() and p != "judgeaudit.bundled_datasets"
    )
    assert not absent, f"listed packages without an __init__.py: {absent}"


def test_entry_points_declared() -> None:
    project = PYPROJECT["project"]
    assert project["scripts"]["judgeaudit"] == "judgeaudit.cli:main"
    assert project["entry-points"]["inspect_ai"]["judgeaudit"] == "judgeaudit._registry"


def test_readme_exists_for_the_build() -> None:
    assert (ROOT / PYPROJECT["project"]["readme"]).is_file(), (
        "pyproject names a readme that does not exist"
    )


def _shipped_files() -> dict[str, str]:
    """Source file -> wheel path of every data file under prompts/ and datasets/ (no dotfiles, no caches)."""
    out: dict[str, str] = {}
    for src, dest in SHIPPED_TREES.items():
        for path in (ROOT / src).rglob("*"):
            rel = path.relative_to(ROOT / src)
            if (
                path.is_dir()
                or _JUNK_DIRS & set(rel.parts)
                or any(p.startswith(".") for p in rel.parts)
            ):
                continue
            if path.suffix == ".pyc":
                continue
            out[f"{src}/{rel.as_posix()}"] = f"{dest}/{rel.as_posix()}"
    return out


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Build a wheel from a copy of the working tree (no build isolation, no network)."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    src.mkdir()
    shutil.copy2(ROOT / "pyproject.toml", src)
    readme = ROOT / PYPROJECT["project"]["readme"]
    if readme.is_file():
        shutil.copy2(readme, src)
    else:  # test_readme_exists_for_the_build reports this; here we check packaging only
        (src / readme.name).write_text("placeholder\n", encoding="utf-8")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", ".keep")
    for directory in {"judgeaudit", *PACKAGE_DIRS.values()}:
        shutil.copytree(ROOT / directory, src / directory, ignore=ignore)
    env = {**os.environ, "PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(tmp / "dist"),
            str(src),
        ],
        check=True,
        capture_output=True,
        env=env,
        cwd=tmp,
    )
    [built] = list((tmp / "dist").glob("judgeaudit-*.whl"))
    return built


def test_wheel_ships_prompts_and_datasets(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert any(n.startswith("judgeaudit/prompts/") and n.endswith(".txt") for n in names)
    assert "judgeaudit/bundled_datasets/__init__.py" not in names  # must never shadow HF `datasets`
    missing = sorted(src for src, dest in _shipped_files().items() if dest not in names)
    assert not missing, f"not in the wheel (extend [tool.setuptools.package-data]): {missing}"
    for package in SETUPTOOLS["packages"]:
        if package != "judgeaudit.bundled_datasets":
            assert f"{package.replace('.', '/')}/__init__.py" in names, package


def test_wheel_declares_console_script_and_inspect_entry_point(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as zf:
        [ep_name] = [n for n in zf.namelist() if n.endswith(".dist-info/entry_points.txt")]
        parser = configparser.ConfigParser()
        parser.read_string(zf.read(ep_name).decode("utf-8"))
    assert parser["console_scripts"]["judgeaudit"].strip() == "judgeaudit.cli:main"
    assert parser["inspect_ai"]["judgeaudit"].strip() == "judgeaudit._registry"


def test_installed_wheel_finds_its_resources(wheel: Path, tmp_path: Path) -> None:
    """Unpacked wheel first on sys.path (a pure-Python wheel installs by unzipping): resources resolve inside it."""
    target = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(target)
    code = (
        "import judgeaudit, judgeaudit.resources as r; "
        "print(judgeaudit.__file__); print(r.datasets_root()); "
        "import json; print(json.dumps(sorted(p.name for p in r.prompts_root().iterdir() if p.is_dir())))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(target)},
    )
    module_file, data_root, prompt_dirs = out.stdout.strip().splitlines()
    assert module_file.startswith(str(target))
    assert data_root.startswith(str(target))
    expected_dirs = sorted(
        p.name
        for p in (ROOT / "prompts").iterdir()
        if p.is_dir()
        and p.name not in _JUNK_DIRS
        and any(f.is_file() and not f.name.startswith(".") for f in p.rglob("*"))
    )
    assert json.loads(prompt_dirs) == expected_dirs
