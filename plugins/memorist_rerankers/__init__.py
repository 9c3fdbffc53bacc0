"""Built-in plugin: search rerankers (``mmr``, ``cross-encoder``, ``llm``).

Registered through the ``memorist`` entry-point group like any third-party
plugin; the kernel never imports it by name. Importing this package is cheap:
the cross-encoder imports torch and sentence-transformers only when it first
reranks, so the default (``mmr``) costs no model load at startup.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from memorist.hookspecs import hookimpl

if TYPE_CHECKING:
    from memorist.providers import Reranker

    from .cross_encoder import CrossEncoderReranker
    from .llm import LLMReranker
    from .mmr import MMRReranker

__all__ = ["CrossEncoderReranker", "LLMReranker", "MMRReranker", "register_rerankers"]
#: Provider classes, imported on first use: loading plugins (every command does) stays cheap.
_LAZY = {"CrossEncoderReranker": ".cross_encoder", "LLMReranker": ".llm", "MMRReranker": ".mmr"}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(name)


@hookimpl
def register_rerankers(register: Callable[[type[Reranker]], None]) -> None:
    from .cross_encoder import CrossEncoderReranker
    from .llm import LLMReranker
    from .mmr import MMRReranker

    register(MMRReranker)
    register(CrossEncoderReranker)
    register(LLMReranker)
