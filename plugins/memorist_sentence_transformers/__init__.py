"""Built-in plugin: local sentence-transformers embedder (the embedded default).

Registered through the ``memorist`` entry-point group like any third-party
plugin; the kernel never imports it by name.
"""

from __future__ import annotations

from collections.abc import Callable

from memorist.plugin_api import Embedder, hookimpl

from .embedder import SentenceTransformerEmbedder


@hookimpl
def register_embedders(register: Callable[[type[Embedder]], None]) -> None:
    register(SentenceTransformerEmbedder)
