"""``memorist reembed``: give stored memories vectors of another embedder.

A vector store holds one embedder's vectors (:mod:`memorist.engine.vector_space`);
the text of every memory is stored beside its vector, so moving to another model
never needs the conversations again, only an embedding pass over the memories:

- ``--project P --multilingual on|off`` moves one project's memories into the
  multilingual vector space (or back, :mod:`memorist.spaces`), then sets the
  project's ``multilingual`` flag: the way to switch a project holding memories.
- ``--from-table T`` fills the configured vector store's table with every memory
  of table ``T`` (the store as it was), embedded by the configured embedder, and
  records that embedder as the maker of the store's vectors: the way to change the
  server's embedder (a new dimension cannot share the old table, so the new
  embedder writes a new ``vector_store.options.table``).

Both read and write ``--batch`` memories at a time (memory stays bounded whatever
the store's size), show a progress bar, and are resumable: a memory is written to
its new place before it leaves the old one (a project move), or is skipped when
the new table has it already (a table copy), so running the command again after an
interruption finishes the job and duplicates nothing. Stop the servers first, or
expect searches during the move to miss what is between the two places.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from ..cli.console import config_option, data_dir_option, writable_settings

if TYPE_CHECKING:
    from click._termui_impl import ProgressBar

    from ..engine.memory import MemoryEngine
    from ..plugin.contracts import Embedder, ProviderContext, VectorStore


@click.command("reembed")
@config_option
@data_dir_option
@click.option("--project", help="Move this project's memories between vector spaces (needs --multilingual).")
@click.option("--org", help="The project's organization (default: looked up).")
@click.option(
    "--multilingual", type=click.Choice(["on", "off"]), help="The space the project moves to (with --project)."
)
@click.option("--from-table", help="Copy every memory of this vector-store table into the configured one, re-embedded.")
@click.option("--batch", default=64, show_default=True, type=click.IntRange(1, 4096), help="Memories per step.")
def reembed_command(
    config: str | None,
    project: str | None,
    org: str | None,
    multilingual: str | None,
    from_table: str | None,
    batch: int,
) -> None:
    """Re-embed stored memories with the configured embedder (resumable); see docs/multilingual.md."""
    from ..errors import ConfigurationError

    if (project is None) == (from_table is None):
        raise ConfigurationError("reembed: give either --project (with --multilingual) or --from-table")
    if project is not None and multilingual is None:
        raise ConfigurationError("reembed: --project needs --multilingual on|off (the space it moves to)")
    settings, plugins = writable_settings(config)
    if project is not None:
        _move_project(settings, plugins, project, org, multilingual == "on", batch)
    else:
        _copy_table(settings, plugins, str(from_table), batch)


def _move_project(settings: object, plugins: object, project: str, org: str | None, on: bool, batch: int) -> None:
    from ..config.settings import Settings
    from ..engine.scope import tenant
    from ..errors import ConfigurationError
    from ..kernel.core import Kernel

    assert isinstance(settings, Settings)
    # Serve nothing through the spaces' routing: this command names both engines itself.
    plain = settings.model_copy(update={"multilingual": settings.multilingual.model_copy(update={"enabled": False})})
    kernel = Kernel.build(plain, plugins, watch=False)  # type: ignore[arg-type]
    try:
        tenancy = kernel.tenancy
        org_id = org or tenancy.org_of(project) or ("default" if project == "default" else None)
        if org_id is None:
            raise ConfigurationError(f"reembed: no project '{project}' (give --org for a self-hosted project)")
        default, spaced = kernel.runtime.memory, kernel.runtime.multilingual_memory()
        source, target = (default, spaced) if on else (spaced, default)
        where = tenant(org_id, project)
        moved = _move(source, target, where, batch)
        if tenancy.org_of(project) == org_id:  # a platform project (the self-hosted one is YAML's)
            tenancy.update_project(org_id, project, {"multilingual": on})
        click.echo(
            f"reembed: moved {moved} memories of project '{project}' into the "
            f"{'multilingual' if on else 'default'} vector space ({target.components.embedder.describe()})"
        )
    finally:
        kernel.close()


def _move(source: MemoryEngine, target: MemoryEngine, where: object, batch: int) -> int:
    """Embed ``where``'s memories with the target's embedder, write them there, then drop them
    from the source; in steps of ``batch``."""
    store: VectorStore = source.components.vector_store
    total = store.count(where)  # type: ignore[arg-type]
    moved = 0
    with _progress(total) as bar:
        while True:
            records = store.list(where, offset=0, limit=batch)  # type: ignore[arg-type]
            if not records:
                break
            vectors = target.components.embedder.embed([r.text for r in records], "document")
            target.components.vector_store.upsert(records, vectors)
            store.delete([r.id for r in records])
            for engine in (source, target):
                engine.generations.bump_now(records)
            moved += len(records)
            bar.update(len(records))
    return moved


def _copy_table(settings: object, plugins: object, table: str, batch: int) -> None:
    from ..config.settings import Settings
    from ..engine import vector_space
    from ..engine.components import validate_settings
    from ..engine.generations import ScopeGenerations
    from ..errors import ConfigurationError
    from ..kernel.context import close_context
    from ..kernel.core import open_context
    from ..plugin.registry import ProviderRegistry

    assert isinstance(settings, Settings)
    registry = ProviderRegistry.from_plugins(plugins)  # type: ignore[arg-type]
    validate_settings(settings, registry)
    context = open_context(settings, plugins, registry)  # type: ignore[arg-type]
    db = context.db
    store_settings = settings.vector_store
    if store_settings.options.get("table", "memories") == table:
        raise ConfigurationError(
            f"reembed: --from-table '{table}' is the configured table; set vector_store.options.table "
            "to a new name for the new embedder's vectors first"
        )
    recorded = vector_space._read(db)  # noqa: SLF001 - the record is this command's input
    if recorded is None:
        raise ConfigurationError("reembed: the store has no vector-space record: nothing says which table to read")
    embedder: Embedder = registry.build(  # type: ignore[assignment]
        "embedder", settings.embedder.provider, settings.embedder.options, _ctx(settings)
    )
    if recorded.get("label") == embedder.describe() and recorded.get("dimension") == embedder.dimension:
        embedder.close()
        close_context(context)
        click.echo(
            f"reembed: the store's vectors come from {embedder.describe()} already (a finished run); "
            f"nothing to do. The old table '{table}' can be dropped once you are satisfied."
        )
        return
    target: VectorStore = registry.build(  # type: ignore[assignment]
        "vector_store", store_settings.provider, store_settings.options, _ctx(settings, embedder.dimension)
    )
    source: VectorStore = registry.build(  # type: ignore[assignment]
        "vector_store",
        store_settings.provider,
        {**store_settings.options, "table": table},
        _ctx(settings, int(recorded.get("dimension") or 0)),
    )
    try:
        total, offset, copied = source.count(None), 0, 0
        with _progress(total) as bar:
            while True:
                records = source.list(None, offset=offset, limit=batch)
                if not records:
                    break
                offset += len(records)
                present = {r.id for r in target.get([r.id for r in records])}
                fresh = [r for r in records if r.id not in present]
                if fresh:
                    target.upsert(fresh, embedder.embed([r.text for r in fresh], "document"))
                    copied += len(fresh)
                bar.update(len(records))
        vector_space.record(db, embedder)
        ScopeGenerations(db).bump_everything()
        click.echo(
            f"reembed: {copied} memories of table '{table}' embedded by {embedder.describe()} into "
            f"'{store_settings.options.get('table', 'memories')}' ({total - copied} were there already); "
            f"the old table '{table}' is untouched: drop it once you are satisfied"
        )
    finally:
        for provider in (source, target, embedder):
            provider.close()
        close_context(context)


def _progress(total: int) -> ProgressBar[int]:
    """A progress bar on standard error (standard output keeps the one-line summary)."""
    return click.progressbar(length=total, label="re-embedding", file=sys.stderr)


def _ctx(settings: object, dimension: int | None = None) -> ProviderContext:
    from ..config.settings import Settings
    from ..plugin.contracts import ProviderContext

    assert isinstance(settings, Settings)
    return ProviderContext(data_dir=settings.data_dir, database_url=settings.database_url, dimension=dimension)
