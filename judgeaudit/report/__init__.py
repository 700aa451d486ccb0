"""judgeaudit.report: Inspect logs -> tidy frame -> metrics -> tables, figures, report.json.

`build_report(logdir, ...)` is the Python API of `judgeaudit report` (imported lazily so the
CLI stays fast to start).
"""

from __future__ import annotations

from typing import Any

__all__ = ["build_report", "load_frame"]


def __getattr__(name: str) -> Any:
    if name == "build_report":
        from judgeaudit.report.build import build_report

        return build_report
    if name == "load_frame":
        from judgeaudit.report.frame import load_frame

        return load_frame
    raise AttributeError(f"module 'judgeaudit.report' has no attribute {name!r}")
