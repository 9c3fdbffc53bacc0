"""Built-in plugin: the offline heuristic extractor (language-model slot).

Registered through the ``memorist`` entry-point group like any third-party
plugin; the kernel never imports it by name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from memorist.plugin_api import LazyExports, hookimpl

if TYPE_CHECKING:
    from memorist.plugin_api import LanguageModel

    from .extractor import HeuristicExtractor

#: The provider classes, imported when a hook registers them (or on first attribute access):
#: loading the plugin to read its hooks imports none of them.
_exports = LazyExports(__name__, {"HeuristicExtractor": ".extractor"})


__all__ = ["HeuristicExtractor"]


@hookimpl
def register_language_models(register: Callable[[type[LanguageModel]], None]) -> None:
    register(_exports.load("HeuristicExtractor"))


def __getattr__(name: str) -> Any:
    return _exports.attribute(name)
