"""Built-in plugin: the offline heuristic extractor (language-model slot).

Registered through the ``memorist`` entry-point group like any third-party
plugin; the kernel never imports it by name.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from memorist.plugin_api import hookimpl

if TYPE_CHECKING:
    from memorist.plugin_api import LanguageModel

    from .extractor import HeuristicExtractor

#: Provider classes and their modules, imported when a hook registers them (or on first
#: attribute access): loading the plugin to read its hooks imports none of them.
_PROVIDERS = {"HeuristicExtractor": ".extractor"}


__all__ = ["HeuristicExtractor"]


@hookimpl
def register_language_models(register: Callable[[type[LanguageModel]], None]) -> None:
    register(_provider("HeuristicExtractor"))


def _provider(name: str) -> Any:
    return getattr(importlib.import_module(_PROVIDERS[name], __name__), name)


def __getattr__(name: str) -> Any:
    if name in _PROVIDERS:
        return _provider(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
