"""Built-in plugin: search rerankers (``mmr``, ``cross-encoder``, ``llm``).

Registered through the ``memorist`` entry-point group like any third-party
plugin; the kernel never imports it by name. Importing this package is cheap:
the cross-encoder imports torch and sentence-transformers only when it first
reranks, so the default (``mmr``) costs no model load at startup.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from memorist.plugin_api import hookimpl

if TYPE_CHECKING:
    from memorist.plugin_api import Reranker

    from .cross_encoder import CrossEncoderReranker
    from .llm import LLMReranker
    from .mmr import MMRReranker

#: Provider classes and their modules, imported when a hook registers them (or on first
#: attribute access): loading the plugin to read its hooks imports none of them.
_PROVIDERS = {"CrossEncoderReranker": ".cross_encoder", "LLMReranker": ".llm", "MMRReranker": ".mmr"}

__all__ = ["CrossEncoderReranker", "LLMReranker", "MMRReranker", "register_rerankers"]


@hookimpl
def register_rerankers(register: Callable[[type[Reranker]], None]) -> None:
    register(_provider("MMRReranker"))
    register(_provider("CrossEncoderReranker"))
    register(_provider("LLMReranker"))


def _provider(name: str) -> Any:
    return getattr(importlib.import_module(_PROVIDERS[name], __name__), name)


def __getattr__(name: str) -> Any:
    if name in _PROVIDERS:
        return _provider(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
