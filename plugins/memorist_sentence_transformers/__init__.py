"""Built-in plugin: local embedders: sentence-transformers (the embedded default) and the
multilingual Universal Sentence Encoder (``multilingual-use``).

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
    from .multilingual_use import MultilingualUseEmbedder

#: The provider classes, imported when a hook registers them (or on first attribute access):
#: loading the plugin to read its hooks imports none of them.
_exports = LazyExports(
    __name__,
    {"SentenceTransformerEmbedder": ".embedder", "MultilingualUseEmbedder": ".multilingual_use"},
)


__all__ = ["MultilingualUseEmbedder", "SentenceTransformerEmbedder"]


@hookimpl
def register_embedders(register: Callable[[type[Embedder]], None]) -> None:
    register(_exports.load("SentenceTransformerEmbedder"))
    register(_exports.load("MultilingualUseEmbedder"))


def __getattr__(name: str) -> Any:
    return _exports.attribute(name)
