"""Provider registry: ``(kind, name) -> class``, and building instances.

The registry is filled by calling each ``register_*`` hook with a callback;
startup then asks it to build the configured provider of each kind. Errors
name the configuration key they concern, e.g.
``vector_store.provider 'lancdb' is not installed; installed: lancedb, pgvector``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

import pydantic

from ..errors import ConfigurationError, PluginError, UnknownProviderError, format_validation_error
from .contracts import PROVIDER_KINDS, Provider, ProviderContext
from .slots import SLOTS

__all__ = ["ProviderRegistry", "format_validation_error"]


class HasHooks(Protocol):
    """Anything with a pluggy hook relay (``Plugins``); the registry needs no more of it."""

    @property
    def hook(self) -> Any: ...


class ProviderRegistry:
    """Every installed provider class, by kind and name."""

    def __init__(self) -> None:
        self._classes: dict[str, dict[str, type[Provider]]] = {k: {} for k in PROVIDER_KINDS}

    @classmethod
    def from_plugins(cls, plugins: HasHooks) -> ProviderRegistry:
        registry = cls()
        for slot in SLOTS:
            getattr(plugins.hook, slot.hook)(register=lambda c, kind=slot.kind: registry.add(kind, c))
        return registry

    def add(self, kind: str, provider: type[Provider]) -> None:
        contract = PROVIDER_KINDS[kind]
        if not (isinstance(provider, type) and issubclass(provider, contract)):
            raise PluginError(f"{kind} provider {provider!r} is not a subclass of {contract.__name__}")
        name = getattr(provider, "name", None)
        if not isinstance(name, str) or not name:
            raise PluginError(f"{kind} provider {provider.__qualname__} has no 'name'")
        existing = self._classes[kind].get(name)
        if existing is not None and existing is not provider:
            raise PluginError(
                f"{kind} provider '{name}' is registered twice: "
                f"{existing.__module__}.{existing.__qualname__} and {provider.__module__}.{provider.__qualname__}"
            )
        self._classes[kind][name] = provider

    def names(self, kind: str) -> list[str]:
        return sorted(self._classes[kind])

    def get(self, kind: str, name: str) -> type[Provider]:
        try:
            return self._classes[kind][name]
        except KeyError:
            installed = ", ".join(self.names(kind)) or "none"
            raise UnknownProviderError(f"{kind}.provider '{name}' is not installed; installed: {installed}") from None

    def validate_options(self, kind: str, name: str, options: Mapping[str, Any]) -> pydantic.BaseModel:
        """The provider's ``Options`` built from ``options``; errors name ``kind.options.key``."""
        provider = self.get(kind, name)
        try:
            return provider.Options.model_validate(dict(options))
        except pydantic.ValidationError as exc:
            raise ConfigurationError(format_validation_error(exc, f"{kind}.options", provider.Options)) from None

    def build(self, kind: str, name: str, options: Mapping[str, Any], context: ProviderContext) -> Provider:
        validated = self.validate_options(kind, name, options)
        return self.get(kind, name)(validated, context)  # type: ignore[arg-type]
