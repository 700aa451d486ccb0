"""`@modelapi` registrations for our providers; the local one (the `local` extra) is imported only when used."""

from __future__ import annotations

from inspect_ai.model import ModelAPI, modelapi

from judgeaudit.providers.litellm_api import LiteLLMAPI
from judgeaudit.providers.planted.api import PlantedAPI


@modelapi(name="litellm")
def litellm() -> type[ModelAPI]:
    """`litellm/<litellm model>`: any model litellm reaches, with USD cost from its price map."""
    return LiteLLMAPI


@modelapi(name="local")
def local() -> type[ModelAPI]:
    """`local/gemma-3-270m` or `local/<path.gguf>`: a GGUF run in process by llama.cpp."""
    from judgeaudit.providers.local_llama import LocalLlamaAPI

    return LocalLlamaAPI


@modelapi(name="planted")
def planted() -> type[ModelAPI]:
    """`planted/<preset>[/<name>]`: a judge of declared behaviour for testing audits, no network."""
    return PlantedAPI
