"""Built-in plugin: a language model and an embedder for OpenAI-compatible APIs.

Configured as ``provider: openai`` under ``language_model`` or ``embedder``.
Works against OpenAI itself and any server speaking its protocol (Ollama's
``/v1``, vLLM, LM Studio, llama.cpp, Azure's OpenAI-compatible URLs) via
``base_url``. Importing this module does not import ``openai`` (an optional
extra); building a provider does, and says how to install it if missing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from memorist.plugin_api import LazyExports, hookimpl

if TYPE_CHECKING:
    from memorist.plugin_api import Embedder, LanguageModel

    from .embedder import OpenAIEmbedder
    from .language_model import OpenAILanguageModel

#: The provider classes, imported when a hook registers them (or on first attribute access):
#: loading the plugin to read its hooks imports none of them.
_exports = LazyExports(__name__, {"OpenAIEmbedder": ".embedder", "OpenAILanguageModel": ".language_model"})

__all__ = ["OpenAIEmbedder", "OpenAILanguageModel"]


@hookimpl
def register_language_models(register: Callable[[type[LanguageModel]], None]) -> None:
    register(_exports.load("OpenAILanguageModel"))


@hookimpl
def register_embedders(register: Callable[[type[Embedder]], None]) -> None:
    register(_exports.load("OpenAIEmbedder"))


def __getattr__(name: str) -> Any:
    return _exports.attribute(name)
