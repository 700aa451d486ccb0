"""Offline defaults, applied once where the project starts (the CLI and the Inspect entry point).

Inspect's `mockllm/model` counts tokens with tiktoken, which downloads its BPE file on
first use. litellm ships that file; pointing tiktoken's cache at litellm's tokenizer
directory makes `mockllm/model` work with no network and no set-up. A user's own
`TIKTOKEN_CACHE_DIR` is never overridden.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

TIKTOKEN_ENV = "TIKTOKEN_CACHE_DIR"
_LITELLM_TOKENIZERS = ("litellm_core_utils", "tokenizers")
_applied = False


def litellm_tokenizer_dir() -> Path | None:
    """litellm's bundled tiktoken cache directory, located without importing litellm (None if absent)."""
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in spec.submodule_search_locations:
        path = Path(root).joinpath(*_LITELLM_TOKENIZERS)
        if path.is_dir():
            return path
    return None


def apply_offline_defaults() -> None:
    """Set TIKTOKEN_CACHE_DIR to litellm's bundled tokenizers unless the user set it (once per process)."""
    global _applied
    if _applied:
        return
    _applied = True
    if os.environ.get(TIKTOKEN_ENV):
        return
    path = litellm_tokenizer_dir()
    if path is not None:
        os.environ[TIKTOKEN_ENV] = str(path)
