"""Built-in plugin: rule-based entity extraction (the default extractor).

Registered through the ``memorist`` entry-point group like any third-party
plugin; the kernel never imports it by name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from memorist.plugin_api import LazyExports, hookimpl

if TYPE_CHECKING:
    from memorist.plugin_api import EntityExtractor

    from .rules import RuleEntityExtractor

#: The provider classes, imported when a hook registers them (or on first attribute access):
#: loading the plugin to read its hooks imports none of them.
_exports = LazyExports(__name__, {"RuleEntityExtractor": ".rules"})


__all__ = ["RuleEntityExtractor"]


@hookimpl
def register_entity_extractors(register: Callable[[type[EntityExtractor]], None]) -> None:
    register(_exports.load("RuleEntityExtractor"))


def __getattr__(name: str) -> Any:
    return _exports.attribute(name)
