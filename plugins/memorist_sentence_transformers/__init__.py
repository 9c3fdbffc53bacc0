"""Built-in plugin: local sentence-transformers embedder (the embedded default).

Registered through the ``memorist`` entry-point group like any third-party
plugin; the kernel never imports it by name.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from memorist.plugin_api import hookimpl

if TYPE_CHECKING:
    from memorist.plugin_api import Embedder

    from .embedder import SentenceTransformerEmbedder

#: Provider classes and their modules, imported when a hook registers them (or on first
#: attribute access): loading the plugin to read its hooks imports none of them.
_PROVIDERS = {"SentenceTransformerEmbedder": ".embedder"}


__all__ = ["SentenceTransformerEmbedder"]


@hookimpl
def register_embedders(register: Callable[[type[Embedder]], None]) -> None:
    register(_provider("SentenceTransformerEmbedder"))


def _provider(name: str) -> Any:
    return getattr(importlib.import_module(_PROVIDERS[name], __name__), name)


def __getattr__(name: str) -> Any:
    if name in _PROVIDERS:
        return _provider(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
