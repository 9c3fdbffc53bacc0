"""Built-in plugin: rule-based entity extraction (the default extractor).

Registered through the ``memorist`` entry-point group like any third-party
plugin; the kernel never imports it by name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from memorist.hookspecs import hookimpl

if TYPE_CHECKING:
    from memorist.providers import EntityExtractor


@hookimpl
def register_entity_extractors(register: Callable[[type[EntityExtractor]], None]) -> None:
    from .rules import RuleEntityExtractor

    register(RuleEntityExtractor)
