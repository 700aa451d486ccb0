"""The data the mining benchmarks read, named by the environment (the repository holds no path to it).

`JUDGEAUDIT_SNAPSHOT`: the ICLR 2026 raw OpenReview snapshot folder (`notes-*.jsonl.gz`, API v2 notes).
`JUDGEAUDIT_REFERENCE_DEV`: the reference study's development labels (`human_only_dev.jsonl`).
"""

from __future__ import annotations

import os
from pathlib import Path


def env_path(variable: str, what: str) -> Path:
    """The path `variable` names, or a placeholder that says which variable to set for `what`."""
    value = os.environ.get(variable)
    return Path(value) if value else Path(f"<set {variable} to {what}>")


SNAPSHOT = env_path("JUDGEAUDIT_SNAPSHOT", "the ICLR 2026 raw OpenReview snapshot folder")
DEV = env_path("JUDGEAUDIT_REFERENCE_DEV", "the reference study's development labels")
