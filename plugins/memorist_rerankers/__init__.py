"""Built-in plugin: search rerankers (``mmr``, ``cross-encoder``, ``llm``).

Registered through the ``memorist`` entry-point group like any third-party
plugin; the kernel never imports it by name. Importing this package is cheap:
the cross-encoder imports torch and sentence-transformers only when it first
reranks, so the default (``mmr``) costs no model load at startup.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from memorist.plugin_api import LazyExports, hookimpl

if TYPE_CHECKING:
    from memorist.plugin_api import Reranker

    from .cross_encoder import CrossEncoderReranker
    from .llm import LLMReranker
    from .mmr import MMRReranker

#: The provider classes, imported when a hook registers them (or on first attribute access):
#: loading the plugin to read its hooks imports none of them.
_exports = LazyExports(
    __name__, {"CrossEncoderReranker": ".cross_encoder", "LLMReranker": ".llm", "MMRReranker": ".mmr"}
)

__all__ = ["CrossEncoderReranker", "LLMReranker", "MMRReranker", "register_rerankers"]


@hookimpl
def register_rerankers(register: Callable[[type[Reranker]], None]) -> None:
    register(_exports.load("MMRReranker"))
    register(_exports.load("CrossEncoderReranker"))
    register(_exports.load("LLMReranker"))


def __getattr__(name: str) -> Any:
    return _exports.attribute(name)
