"""Removing everything the engine keeps for one project (a platform project's delete).

The memories go through the engine's own delete path in batches (so the
per-memory ``memory_deleted`` hook, the scope counts and the entity links stay
coherent, as for any delete); then the rows a per-memory delete keeps on
purpose go too: the project's history (kept after a single memory's delete so
its timeline can be read, but a deleted project must leave nothing behind), its
entities and aliases (the graph partition ``org/project/...``) and any count
rows left at zero.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sqlalchemy import delete, select

from ..db import Database
from ..db.schema import entities, entity_aliases, entity_links, history, scope_counts, scope_generations
from ..records import MemoryRecord

BATCH = 500


def purge_memories(
    list_batch: Callable[[int], Sequence[MemoryRecord]], delete_batch: Callable[[Sequence[MemoryRecord]], None]
) -> int:
    """Delete batch after batch until the project lists nothing; the count deleted."""
    deleted = 0
    while batch := list_batch(BATCH):
        delete_batch(batch)
        deleted += len(batch)
    return deleted


def purge_rows(db: Database, org_id: str, project_id: str) -> None:
    """The project's history, graph partition and entity counts (ids cannot hold '/': the prefix is exact)."""
    prefix = f"{org_id}/{project_id}/"
    with db.begin() as conn:
        conn.execute(delete(history).where(history.c.org_id == org_id, history.c.project_id == project_id))
        for table in (entity_links, entity_aliases, entities):
            conn.execute(delete(table).where(table.c.scope_key.startswith(prefix, autoescape=True)))
        conn.execute(
            delete(scope_counts).where(scope_counts.c.org_id == org_id, scope_counts.c.project_id == project_id)
        )


def project_scope_keys(db: Database, org_id: str, project_id: str) -> list[str]:
    """Every scope generation key of the project: bumped once more after its graph rows went, so no
    process keeps a scope snapshot (with its entities) loaded between the memory and graph deletes."""
    prefix = f"{org_id}/{project_id}/"
    with db.connect() as conn:
        rows = conn.execute(
            select(scope_generations.c.scope_key).where(
                scope_generations.c.scope_key.startswith(prefix, autoescape=True)
            )
        )
        return [str(r[0]) for r in rows]


__all__ = ["BATCH", "project_scope_keys", "purge_memories", "purge_rows"]
