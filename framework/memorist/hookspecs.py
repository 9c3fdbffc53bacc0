"""Hook specifications: every way a plugin extends Memorist.

Provider hooks use the register-callback style: the kernel calls each hook
with a ``register`` function and a plugin passes it provider *classes*;
configuration later picks one by name and builds it with validated options.
The README's plugin author guide lists these hooks with their exact
signatures, and a test keeps the two in step.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    import click
    import falcon

    from .context import PluginContext as AppServices
    from .db import Database
    from .providers import Embedder, EntityExtractor, LanguageModel, Reranker, VectorStore
    from .records import MemoryRecord

PROJECT_NAME = "memorist"

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


@hookspec
def register_language_models(register: Callable[[type[LanguageModel]], None]) -> None:
    """Register language-model provider classes (the extraction slot)."""


@hookspec
def register_embedders(register: Callable[[type[Embedder]], None]) -> None:
    """Register embedder provider classes."""


@hookspec
def register_vector_stores(register: Callable[[type[VectorStore]], None]) -> None:
    """Register vector-store provider classes."""


@hookspec
def register_rerankers(register: Callable[[type[Reranker]], None]) -> None:
    """Register reranker provider classes."""


@hookspec
def register_entity_extractors(register: Callable[[type[EntityExtractor]], None]) -> None:
    """Register entity-extractor provider classes."""


@hookspec
def configure_app(app: falcon.App, services: AppServices) -> None:
    """Add routes, sinks or middleware to the WSGI app while it is being built.

    Called once per app, after the built-in routes exist and before the first
    request; ``services`` gives the engine, settings and database.
    """


@hookspec
def database_ready(db: Database) -> None:
    """The relational database is migrated and open in this process (a server or a worker).

    For plugins that keep their own tables or background threads (e.g. webhook
    delivery), in processes that serve HTTP and in ``memorist worker`` alike.
    """


@hookspec
def register_commands(cli: click.Group) -> None:
    """Add subcommands to the ``memorist`` command line."""


@hookspec
def memory_added(memory: MemoryRecord) -> None:
    """A memory was stored (by extraction, a verbatim add, or an import)."""


@hookspec
def memory_updated(memory: MemoryRecord, previous: MemoryRecord) -> None:
    """A memory's text or payload was changed by an explicit update."""


@hookspec
def memory_deleted(memory: MemoryRecord) -> None:
    """A memory was deleted (singly, by filter, or with its entity)."""
