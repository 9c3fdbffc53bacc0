"""Built-in plugin: search rerankers (``mmr``, ``cross-encoder``, ``llm``).

Registered through the ``memorist`` entry-point group like any third-party
plugin; the kernel never imports it by name. Importing this package is cheap:
the cross-encoder imports torch and sentence-transformers only when it first
reranks, so the default (``mmr``) costs no model load at startup.
"""

from __future__ import annotations

from collections.abc import Callable

from memorist.plugin_api import Reranker, hookimpl

from .cross_encoder import CrossEncoderReranker
from .llm import LLMReranker
from .mmr import MMRReranker

__all__ = ["CrossEncoderReranker", "LLMReranker", "MMRReranker", "register_rerankers"]


@hookimpl
def register_rerankers(register: Callable[[type[Reranker]], None]) -> None:
    register(MMRReranker)
    register(CrossEncoderReranker)
    register(LLMReranker)
