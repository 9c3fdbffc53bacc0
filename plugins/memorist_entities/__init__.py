"""Built-in plugin: rule-based entity extraction (the default extractor).

Registered through the ``memorist`` entry-point group like any third-party
plugin; the kernel never imports it by name.
"""

from __future__ import annotations

from collections.abc import Callable

from memorist.plugin_api import EntityExtractor, hookimpl

from .rules import RuleEntityExtractor


@hookimpl
def register_entity_extractors(register: Callable[[type[EntityExtractor]], None]) -> None:
    register(RuleEntityExtractor)
