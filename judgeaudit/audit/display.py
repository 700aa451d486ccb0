"""The `--display` values of `judgeaudit audit` (a module without imports: the argument parser
reads it at every start)."""

from __future__ import annotations

COMPACT = "compact"
"""The default: Inspect's display off, one progress line per battery task (`audit.progress`)."""

INSPECT_DISPLAYS: tuple[str, ...] = ("full", "rich", "plain", "conversation", "log", "none")
"""Inspect's own displays, passed to its eval-set as they are."""

DISPLAYS: tuple[str, ...] = (COMPACT, *INSPECT_DISPLAYS)
"""Every value `--display` accepts, the default first."""
