"""Built-in plugin: the offline heuristic extractor (language-model slot).

Registered through the ``memorist`` entry-point group like any third-party
plugin; the kernel never imports it by name.
"""

from __future__ import annotations

from collections.abc import Callable

from memorist.plugin_api import LanguageModel, hookimpl

from .extractor import HeuristicExtractor


@hookimpl
def register_language_models(register: Callable[[type[LanguageModel]], None]) -> None:
    register(HeuristicExtractor)
