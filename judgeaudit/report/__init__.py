"""Inspect logs -> one frame of judged units -> metrics with intervals -> tables, figures, report.json.

`build_report(logdir, ...)` is the Python API of `judgeaudit report`. Both names are imported on first
use (`judgeaudit.lazy`), so the command's argument parser (`judgeaudit.report.cli`) loads no Inspect.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from judgeaudit.lazy import lazy_names

if TYPE_CHECKING:
    from judgeaudit.report.build import build_report
    from judgeaudit.report.frame import load_frame

__all__ = ["build_report", "load_frame"]

__getattr__ = lazy_names(__name__, __all__, ("build", "frame"))
