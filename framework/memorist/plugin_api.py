"""The published plugin API: the one module a Memorist plugin imports.

Everything a plugin needs is here: the ``hookimpl`` marker, the provider
contracts and the records they exchange, filters, errors, the context hooks
receive (settings, database, engine), and the helpers route-adding plugins use.
Built-in plugins import nothing else from ``memorist`` (a test checks it), so
what they can do, a third-party plugin can do too.

The HTTP helpers (``operation``, ``access``, ``Access``) are loaded on first use:
a process that never serves HTTP (``memorist worker``) never imports the web layer.

A minimal plugin::

    from memorist.plugin_api import Reranker, ProviderOptions, hookimpl

    class Shuffle(Reranker):
        name = "shuffle"
        class Options(ProviderOptions):
            seed: int = 0
        def rerank(self, query, hits, top_k): ...

    @hookimpl
    def register_rerankers(register):
        register(Shuffle)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .context import PluginContext
from .db import Database
from .errors import (
    CapabilityError,
    ConfigurationError,
    DimensionMismatchError,
    InvalidFilterError,
    MemoristError,
    NotFoundError,
    ProviderError,
    ValidationError,
)
from .filters import DATE_FIELDS, And, Condition, Filter, Not, Or, evaluate, is_metadata_field, parse_filter
from .hookspecs import hookimpl
from .models import resolve_model_path
from .outbound import OutboundGuard, OutboundRefused, guarded_transport, pinned_connection
from .providers import (
    PROVIDER_KINDS,
    Embedder,
    EntityExtractor,
    LanguageModel,
    ModelT,
    Provider,
    ProviderContext,
    ProviderOptions,
    Reranker,
    VectorStore,
    account_for_messages,
)
from .records import (
    ChatMessage,
    EntityMention,
    ExtractedFact,
    Extraction,
    ExtractionRequest,
    MemoryRecord,
    Message,
    Scope,
    SkippedInput,
    StoreHit,
    StoreMatch,
    as_utc,
    utcnow,
)
from .settings import LimitsSettings
from .tenancy import ProjectError, Tenancy

if TYPE_CHECKING:
    from .http.operations import operation
    from .http.platform.access import Access, access

__version__: str
_LAZY_HTTP = {
    "operation": ("memorist.http.operations", "operation"),
    "access": ("memorist.http.platform.access", "access"),
    "Access": ("memorist.http.platform.access", "Access"),
}

__all__ = [
    "DATE_FIELDS",
    "PROVIDER_KINDS",
    "Access",
    "And",
    "CapabilityError",
    "ChatMessage",
    "Condition",
    "ConfigurationError",
    "Database",
    "DimensionMismatchError",
    "Embedder",
    "EntityExtractor",
    "EntityMention",
    "ExtractedFact",
    "Extraction",
    "ExtractionRequest",
    "Filter",
    "InvalidFilterError",
    "LanguageModel",
    "LimitsSettings",
    "MemoristError",
    "MemoryRecord",
    "Message",
    "ModelT",
    "Not",
    "NotFoundError",
    "Or",
    "OutboundGuard",
    "OutboundRefused",
    "PluginContext",
    "ProjectError",
    "Provider",
    "ProviderContext",
    "ProviderError",
    "ProviderOptions",
    "Reranker",
    "Scope",
    "SkippedInput",
    "StoreHit",
    "StoreMatch",
    "Tenancy",
    "ValidationError",
    "VectorStore",
    "__version__",
    "access",
    "account_for_messages",
    "as_utc",
    "evaluate",
    "guarded_transport",
    "hookimpl",
    "is_metadata_field",
    "operation",
    "parse_filter",
    "pinned_connection",
    "resolve_model_path",
    "utcnow",
]


def __getattr__(name: str) -> Any:
    if name == "__version__":
        from . import __version__ as version

        return version
    if name in _LAZY_HTTP:
        import importlib

        module, attribute = _LAZY_HTTP[name]
        return getattr(importlib.import_module(module), attribute)
    raise AttributeError(f"module 'memorist.plugin_api' has no attribute {name!r}")
