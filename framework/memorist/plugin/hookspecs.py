"""Hook specifications: every way a plugin extends Memorist.

Provider hooks use the register-callback style: the kernel calls each hook
with a ``register`` function and a plugin passes it provider *classes*;
configuration later picks one by name and builds it with validated options.
A plugin declares its own settings section and its own database migrations
the same way. Lifecycle hooks receive ``context`` (a
:class:`~memorist.kernel.context.PluginContext`: a read-only view of the running system,
settings, database, engine, ...), as
datasette's hooks receive ``datasette``; no plugin needs module globals to find
the database. The plugin author guide lists these hooks with their exact
signatures, and a test keeps the two in step. Plugins import everything they
use from :mod:`memorist.plugin_api`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    import click
    import falcon
    from pydantic import BaseModel

    from ..kernel.context import PluginContext
    from ..records import MemoryRecord
    from .contracts import Embedder, EntityExtractor, LanguageModel, Reranker, VectorStore

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
def register_settings(register: Callable[[str, type[BaseModel]], None]) -> None:
    """Declare the plugin's settings section: ``register("webhooks", WebhooksSettings)``.

    The section is validated with the plugin's own pydantic model, read like every
    other section (YAML ``webhooks:``, ``MEMORIST_WEBHOOKS__MAX_ATTEMPTS``), and its
    errors name the key (``webhooks.max_attempts: ...``). Hooks find the validated
    model in ``context.plugin_settings["webhooks"]``.
    """


@hookspec
def register_migrations(register: Callable[[str, Path], None]) -> None:
    """Declare a directory of Alembic revisions for the plugin's own tables: ``register(name, path)``.

    They run after the kernel's migrations, in every process that opens the
    database, with their own version table (``alembic_version_<name>``), so
    disabling the plugin later leaves the kernel's migrations untouched.
    """


@hookspec
def configure_app(app: falcon.App[falcon.Request, falcon.Response], context: PluginContext) -> None:
    """Add routes, sinks or middleware to the WSGI app while it is being built.

    Called once per app, after the built-in routes exist and before the first
    request; ``context.add_route(path, resource)`` adds a route that also appears in
    /openapi.json, and ``context`` gives the settings, database and engine.
    """


@hookspec
def database_ready(context: PluginContext) -> None:
    """The relational database is migrated and open in this process (a server, a worker, the Python API).

    For plugins that keep background threads over their own tables (e.g. webhook
    delivery), in processes that serve HTTP and in ``memorist worker`` alike.
    ``context.db`` is the database; the engine is not built yet at this point.
    """


@hookspec
def register_commands(cli: click.Group) -> None:
    """Add subcommands to the ``memorist`` command line."""


@hookspec
def memory_added(memory: MemoryRecord, context: PluginContext) -> None:
    """A memory was stored (by extraction, a verbatim add, or an import)."""


@hookspec
def memory_updated(memory: MemoryRecord, previous: MemoryRecord, context: PluginContext) -> None:
    """A memory's text or payload was changed by an explicit update."""


@hookspec
def memory_deleted(memory: MemoryRecord, context: PluginContext) -> None:
    """A memory was deleted (singly, by filter, or with its entity)."""


@hookspec
def project_deleted(org_id: str, project_id: str, context: PluginContext) -> None:
    """A platform project is being deleted: drop what your plugin keeps for it.

    Called before the project's memories are deleted (so per-memory hooks that
    notify outside systems find nothing left to notify) and before its row goes.
    """
