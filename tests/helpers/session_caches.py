"""The test process's private caches: every cache and log directory of Inspect, Hugging Face and ours
points into one tmp dir per test process (tests never read or write the user's caches).

A module of its own, not part of conftest.py: a test module that imported conftest.py (as helpers
once were) executes it a second time as a plain module under `--import-mode=importlib` (pytest's
own copy is `tests.conftest`); a second `mkdtemp` there pointed the variables at a directory nobody
removed (the assembled 250 MB Gemma file stayed in /tmp after every run). Python
imports this module once per process, so each pytest process (and each xdist worker) has exactly
one cache root, removed when that process's session ends (conftest's `pytest_unconfigure`).

Set at import (conftest imports this first) because some libraries (huggingface_hub, datasets)
fix their cache paths when first imported, which happens while test modules are collected,
before any fixture runs.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

SESSION_CACHES = Path(tempfile.mkdtemp(prefix="judgeaudit-test-caches-"))
CACHE_ENV: dict[str, str] = {
    "INSPECT_CACHE_DIR": "inspect_ai/cache",
    "INSPECT_LOG_DIR": "inspect_ai/logs",
    "XDG_CACHE_HOME": "xdg-cache",
    "XDG_DATA_HOME": "xdg-data",
    "HF_HOME": "huggingface",
    "HF_HUB_CACHE": "huggingface/hub",
    "HF_DATASETS_CACHE": "huggingface/datasets",
    "JUDGEAUDIT_CACHE": "judgeaudit",
}
for _name, _relative in CACHE_ENV.items():
    os.environ[_name] = str(SESSION_CACHES / _relative)
