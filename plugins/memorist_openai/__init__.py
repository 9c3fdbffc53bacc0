"""Built-in plugin: a language model and an embedder for OpenAI-compatible APIs.

Configured as ``provider: openai`` under ``language_model`` or ``embedder``.
Works against OpenAI itself and any server speaking its protocol (Ollama's
``/v1``, vLLM, LM Studio, llama.cpp, Azure's OpenAI-compatible URLs) via
``base_url``. Importing this module does not import ``openai`` (an optional
extra); building a provider does, and says how to install it if missing.
"""

from __future__ import annotations

from collections.abc import Callable

from memorist.plugin_api import Embedder, LanguageModel, hookimpl

from .embedder import OpenAIEmbedder
from .language_model import OpenAILanguageModel

__all__ = ["OpenAIEmbedder", "OpenAILanguageModel"]


@hookimpl
def register_language_models(register: Callable[[type[LanguageModel]], None]) -> None:
    register(OpenAILanguageModel)


@hookimpl
def register_embedders(register: Callable[[type[Embedder]], None]) -> None:
    register(OpenAIEmbedder)
