"""The published plugin API: the one module a Memorist plugin imports.

Everything a plugin needs is here: the ``hookimpl`` marker, the provider
contracts and the records they exchange, filters, errors, the context hooks
receive (settings, database, engine), and the helpers route-adding plugins use.
Built-in plugins import nothing else from ``memorist`` (a test checks it), so
what they can do, a third-party plugin can do too.

Every name but ``hookimpl`` is imported on first use: loading a plugin to read
its hooks (``memorist --help`` lists plugin commands) imports only what the plugin
itself uses at import, and a process that never serves HTTP (``memorist worker``)
never imports the web layer.

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

import importlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .hookspecs import hookimpl

if TYPE_CHECKING:
    from .context import PluginContext
    from .db import Database
    from .engine.supersession_rule import states_attribute
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
    from .http.operations import operation
    from .http.platform.access import Access, access
    from .language import (
        CASELESS,
        DEFAULT,
        SPACELESS,
        Form,
        Lexicon,
        PersonTable,
        Phrases,
        Token,
        at_sentence_start,
        capitalized,
        fold,
        language_of,
        lexicon,
        person_table,
        phrases,
        script_of,
        shift,
        tokens,
        user_voice_forms,
    )
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
        RecentMemory,
        Scope,
        SkippedInput,
        StoreHit,
        StoreMatch,
        as_utc,
        utcnow,
    )
    from .settings import LimitsSettings
    from .tenancy import ProjectError, Tenancy

__version__: str

#: The module each name comes from, imported on first use (``__getattr__``): loading a plugin
#: to read its hooks (``memorist --help`` loads every plugin to list their commands) then
#: imports none of the engine, the database layer or the web layer, only what the plugin uses.
_HOMES: dict[str, tuple[str, ...]] = {
    "memorist.context": ("PluginContext",),
    "memorist.db": ("Database",),
    "memorist.engine.supersession_rule": ("states_attribute",),
    "memorist.errors": (
        "CapabilityError",
        "ConfigurationError",
        "DimensionMismatchError",
        "InvalidFilterError",
        "MemoristError",
        "NotFoundError",
        "ProviderError",
        "ValidationError",
    ),
    "memorist.filters": (
        "DATE_FIELDS",
        "And",
        "Condition",
        "Filter",
        "Not",
        "Or",
        "evaluate",
        "is_metadata_field",
        "parse_filter",
    ),
    "memorist.http.operations": ("operation",),
    #: The language layer: lexicons, the tokenizer, person shift (see ``memorist.language``).
    "memorist.language": (
        "CASELESS",
        "DEFAULT",
        "SPACELESS",
        "Form",
        "Lexicon",
        "PersonTable",
        "Phrases",
        "Token",
        "at_sentence_start",
        "capitalized",
        "fold",
        "language_of",
        "lexicon",
        "person_table",
        "phrases",
        "script_of",
        "shift",
        "tokens",
        "user_voice_forms",
    ),
    "memorist.http.platform.access": ("Access", "access"),
    "memorist.models": ("resolve_model_path",),
    "memorist.outbound": ("OutboundGuard", "OutboundRefused", "guarded_transport", "pinned_connection"),
    "memorist.providers": (
        "PROVIDER_KINDS",
        "Embedder",
        "EntityExtractor",
        "LanguageModel",
        "ModelT",
        "Provider",
        "ProviderContext",
        "ProviderOptions",
        "Reranker",
        "VectorStore",
        "account_for_messages",
    ),
    "memorist.records": (
        "ChatMessage",
        "EntityMention",
        "ExtractedFact",
        "Extraction",
        "ExtractionRequest",
        "MemoryRecord",
        "Message",
        "RecentMemory",
        "Scope",
        "SkippedInput",
        "StoreHit",
        "StoreMatch",
        "as_utc",
        "utcnow",
    ),
    "memorist.settings": ("LimitsSettings",),
    "memorist.tenancy": ("ProjectError", "Tenancy"),
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}


class LazyExports:
    """Names a plugin package exports from its own submodules, each imported on first use.

    Why: every ``memorist`` process loads every plugin (``memorist --help`` to list
    their commands, the gunicorn master before it forks), so a plugin whose package
    imports its providers at the top makes all of them pay for its model library or
    database driver. With this, the package registers ``_exports.load("Name")`` from its
    hook and keeps ``from the_plugin import Name`` working through a module
    ``__getattr__`` (PEP 562)::

        _exports = LazyExports(__name__, {"MyStore": ".store"})

        @hookimpl
        def register_vector_stores(register):
            register(_exports.load("MyStore"))

        def __getattr__(name):
            return _exports.attribute(name)
    """

    def __init__(self, package: str, homes: Mapping[str, str]) -> None:
        self.package = package
        #: Exported name -> the (relative) module that defines it.
        self.homes = dict(homes)

    def load(self, name: str) -> Any:
        """The exported object ``name``, importing its module if needed."""
        return getattr(importlib.import_module(self.homes[name], self.package), name)

    def attribute(self, name: str) -> Any:
        """:meth:`load` for a module ``__getattr__``: an unknown name is an ``AttributeError``."""
        if name in self.homes:
            return self.load(name)
        raise AttributeError(f"module {self.package!r} has no attribute {name!r}")


__all__ = [
    "CASELESS",
    "DATE_FIELDS",
    "DEFAULT",
    "PROVIDER_KINDS",
    "SPACELESS",
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
    "Form",
    "InvalidFilterError",
    "LanguageModel",
    "LazyExports",
    "Lexicon",
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
    "PersonTable",
    "Phrases",
    "PluginContext",
    "ProjectError",
    "Provider",
    "ProviderContext",
    "ProviderError",
    "ProviderOptions",
    "RecentMemory",
    "Reranker",
    "Scope",
    "SkippedInput",
    "StoreHit",
    "StoreMatch",
    "Tenancy",
    "Token",
    "ValidationError",
    "VectorStore",
    "__version__",
    "access",
    "account_for_messages",
    "as_utc",
    "at_sentence_start",
    "capitalized",
    "evaluate",
    "fold",
    "guarded_transport",
    "hookimpl",
    "is_metadata_field",
    "language_of",
    "lexicon",
    "operation",
    "parse_filter",
    "person_table",
    "phrases",
    "pinned_connection",
    "resolve_model_path",
    "script_of",
    "shift",
    "states_attribute",
    "tokens",
    "user_voice_forms",
    "utcnow",
]


def __getattr__(name: str) -> Any:
    if name == "__version__":
        from . import __version__ as version

        return version
    if name in _HOME_OF:
        value = getattr(importlib.import_module(_HOME_OF[name]), name)
        globals()[name] = value  # once imported, a plain module attribute
        return value
    raise AttributeError(f"module 'memorist.plugin_api' has no attribute {name!r}")
