"""Built-in plugin: local sentence-transformers embedder (the embedded default).

Registered through the ``memorist`` entry-point group like any third-party
plugin; the kernel never imports it by name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from memorist.hookspecs import hookimpl

if TYPE_CHECKING:
    from memorist.providers import Embedder


@hookimpl
def register_embedders(register: Callable[[type[Embedder]], None]) -> None:
    from .embedder import SentenceTransformerEmbedder

    register(SentenceTransformerEmbedder)
