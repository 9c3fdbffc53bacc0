"""Built-in plugin: local sentence-transformers embedder (the embedded default).

Registered through the ``memorist`` entry-point group like any third-party
plugin; the kernel never imports it by name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from memorist.plugin_api import LazyExports, hookimpl

if TYPE_CHECKING:
    from memorist.plugin_api import Embedder

    from .embedder import SentenceTransformerEmbedder

#: The provider classes, imported when a hook registers them (or on first attribute access):
#: loading the plugin to read its hooks imports none of them.
_exports = LazyExports(__name__, {"SentenceTransformerEmbedder": ".embedder"})


__all__ = ["SentenceTransformerEmbedder"]


@hookimpl
def register_embedders(register: Callable[[type[Embedder]], None]) -> None:
    register(_exports.load("SentenceTransformerEmbedder"))


def __getattr__(name: str) -> Any:
    return _exports.attribute(name)
