"""Built-in plugin: a language model and an embedder for OpenAI-compatible APIs.

Configured as ``provider: openai`` under ``language_model`` or ``embedder``.
Works against OpenAI itself and any server speaking its protocol (Ollama's
``/v1``, vLLM, LM Studio, llama.cpp, Azure's OpenAI-compatible URLs) via
``base_url``. Importing this module does not import ``openai`` (an optional
extra); building a provider does, and says how to install it if missing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from memorist.hookspecs import hookimpl

if TYPE_CHECKING:
    from memorist.providers import Embedder, LanguageModel

    from .embedder import OpenAIEmbedder
    from .language_model import OpenAILanguageModel

__all__ = ["OpenAIEmbedder", "OpenAILanguageModel"]
#: Provider classes, imported on first use: loading plugins (every command does) stays cheap.
_LAZY = {"OpenAIEmbedder": ".embedder", "OpenAILanguageModel": ".language_model"}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(name)


@hookimpl
def register_language_models(register: Callable[[type[LanguageModel]], None]) -> None:
    from .language_model import OpenAILanguageModel

    register(OpenAILanguageModel)


@hookimpl
def register_embedders(register: Callable[[type[Embedder]], None]) -> None:
    from .embedder import OpenAIEmbedder

    register(OpenAIEmbedder)
