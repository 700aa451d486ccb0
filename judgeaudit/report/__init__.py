"""Inspect logs -> one frame of judged units -> metrics with intervals -> tables, figures, report.json.

`build_report(logdir, ...)` is the Python API of `judgeaudit report`.
"""

from __future__ import annotations

from judgeaudit.report.build import build_report
from judgeaudit.report.frame import load_frame

__all__ = ["build_report", "load_frame"]
