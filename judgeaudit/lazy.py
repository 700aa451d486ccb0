"""Package-level names imported on first use (PEP 562), so a light module of the package stays light to import.

Importing any module of a package runs the package's `__init__` first: when that re-exports names from
modules that load numpy or Inspect, even the command line's option defaults would pay for them.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Collection, Sequence
from typing import Any


def lazy_names(package: str, names: Collection[str], homes: Sequence[str]) -> Callable[[str], Any]:
    """A module `__getattr__` for `package`: each of `names` is taken from the first of its submodules `homes`
    that has it, imported when the name is first used and kept in the package from then on.

    A name may not be a submodule's name too: importing that submodule would bind the module over it.
    """
    shared = sorted(set(names) & set(homes))
    if shared:
        raise ValueError(f"{package}: lazy names {shared} are also submodule names")

    def __getattr__(name: str) -> Any:
        if name in names:
            for home in homes:
                module = importlib.import_module(f"{package}.{home}")
                if hasattr(module, name):
                    value = getattr(module, name)
                    setattr(sys.modules[package], name, value)
                    return value
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
