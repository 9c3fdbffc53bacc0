"""Built-in plugin: the offline heuristic extractor (language-model slot).

Registered through the ``memorist`` entry-point group like any third-party
plugin; the kernel never imports it by name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from memorist.hookspecs import hookimpl

if TYPE_CHECKING:
    from memorist.providers import LanguageModel


@hookimpl
def register_language_models(register: Callable[[type[LanguageModel]], None]) -> None:
    from .extractor import HeuristicExtractor

    register(HeuristicExtractor)
