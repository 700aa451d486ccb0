"""Lazily exported package names (judgeaudit.lazy): each resolves to its module's object, unknown names fail as usual."""

from __future__ import annotations

import importlib
import types

import pytest

from judgeaudit.lazy import lazy_names

LAZY_PACKAGES = ("judgeaudit.stats", "judgeaudit.data", "judgeaudit.report")


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_every_exported_name_is_its_modules_object(package: str) -> None:
    module = importlib.import_module(package)
    for name in module.__all__:
        value = getattr(module, name)
        assert not isinstance(value, types.ModuleType), name
        homes = [
            m
            for m in vars(module).values()
            if isinstance(m, types.ModuleType)
            and m.__name__.startswith(package + ".")
            and getattr(m, name, None) is value
        ]
        assert homes, f"{package}.{name} is no submodule's {name}"


def test_an_unknown_name_is_an_attribute_and_import_error() -> None:
    stats = importlib.import_module("judgeaudit.stats")
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        stats.nope  # noqa: B018
    with pytest.raises(ImportError):
        exec("from judgeaudit.stats import nope", {})


def test_a_submodule_is_still_importable_through_the_package() -> None:
    namespace: dict[str, object] = {}
    exec("from judgeaudit.stats import agreement", namespace)
    assert namespace["agreement"] is importlib.import_module("judgeaudit.stats.agreement")


def test_a_name_shared_with_a_submodule_is_refused() -> None:
    with pytest.raises(ValueError, match=r"\['surface_ratio'\]"):
        lazy_names(
            "judgeaudit.stats",
            ["surface_ratio", "weighted_medians"],
            ["bootstrap", "surface_ratio"],
        )
