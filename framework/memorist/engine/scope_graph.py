"""One graph partition in memory: the entity lookups of a pinned search without a query.

:meth:`EntityGraph.match` and :meth:`EntityGraph.memories_of` cost a few
SQLite or PostgreSQL round trips per search (2-3 ms). A search pinned to one
scope reads only that scope's partition, which changes only with the scope's
memories (links are written and removed in the transactions that bump the
scope's generation, see :mod:`.generations`), so the scope index loads the
partition once per generation beside the snapshot and answers both lookups here,
with the same results.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from sqlalchemy import select

from ..db import Database
from ..db.schema import entities, entity_aliases, entity_links
from ..records import EntityMention
from .entities import EntityMatch, _variant_of, normalize


@dataclass
class ScopeGraph:
    """Aliases, entities and links of one partition (``scope_key``)."""

    key: str
    #: normalized surface form -> entity id
    aliases: dict[str, str]
    #: entity id -> name
    names: dict[str, str]
    #: (id, name) of the partition's proper-noun entities, for variant matching
    proper: list[tuple[str, str]]
    #: entity id -> ids of the memories it is linked to
    links: dict[str, list[str]]
    #: distinct memories with any link in the partition
    total: int

    @classmethod
    def load(cls, db: Database, key: str) -> ScopeGraph:
        with db.connect() as conn:
            aliases = {
                str(n): str(e)
                for n, e in conn.execute(
                    select(entity_aliases.c.norm, entity_aliases.c.entity_id).where(entity_aliases.c.scope_key == key)
                )
            }
            rows = conn.execute(
                select(entities.c.id, entities.c.name, entities.c.kind).where(entities.c.scope_key == key)
            ).all()
            links: dict[str, list[str]] = {}
            for entity_id, memory_id in conn.execute(
                select(entity_links.c.entity_id, entity_links.c.memory_id).where(entity_links.c.scope_key == key)
            ):
                links.setdefault(str(entity_id), []).append(str(memory_id))
        names = {str(i): str(n) for i, n, _ in rows}
        proper = [(str(i), str(n)) for i, n, kind in rows if kind == "proper_noun"]
        total = len({m for memories in links.values() for m in memories})
        return cls(key, aliases, names, proper, links, total)

    def with_memories(self, db: Database, memory_ids: Sequence[str]) -> ScopeGraph:
        """This partition after this process stored ``memory_ids`` in it (write-through): their
        links, and the entities they link, read again with their names and aliases. A link
        only ever renames an entity or adds an alias to one it links, so this equals a full
        :meth:`load` at the same moment, at the cost of three small queries. ``self`` is left
        as it is (searches may be reading it)."""
        if not memory_ids:
            return self
        with db.connect() as conn:
            fresh = conn.execute(
                select(entity_links.c.entity_id, entity_links.c.memory_id).where(
                    entity_links.c.scope_key == self.key, entity_links.c.memory_id.in_(list(memory_ids))
                )
            ).all()
            touched = sorted({str(e) for e, _ in fresh})
            if not touched:
                return self
            rows = conn.execute(
                select(entities.c.id, entities.c.name, entities.c.kind).where(
                    entities.c.scope_key == self.key, entities.c.id.in_(touched)
                )
            ).all()
            aliases = dict(self.aliases)
            aliases.update(
                (str(n), str(e))
                for n, e in conn.execute(
                    select(entity_aliases.c.norm, entity_aliases.c.entity_id).where(
                        entity_aliases.c.scope_key == self.key, entity_aliases.c.entity_id.in_(touched)
                    )
                )
            )
        names = dict(self.names)
        names.update((str(i), str(n)) for i, n, _ in rows)
        renamed = {str(i) for i, _, _ in rows}
        proper = [(i, n) for i, n in self.proper if i not in renamed]
        proper += [(str(i), str(n)) for i, n, kind in rows if kind == "proper_noun"]
        # A search may have loaded this graph after the adds committed: a memory's links are
        # written in one transaction, so one it already holds is held with all of them.
        held = {m for entity_id in touched for m in self.links.get(entity_id, ())}
        links = dict(self.links)
        added: set[str] = set()
        for entity_id, memory_id in fresh:
            if str(memory_id) not in held:
                links[str(entity_id)] = [*links.get(str(entity_id), ()), str(memory_id)]
                added.add(str(memory_id))
        return ScopeGraph(self.key, aliases, names, proper, links, self.total + len(added))

    def match(self, mentions: Sequence[EntityMention]) -> list[EntityMatch]:
        """``EntityGraph.match(mentions, [key])``, from memory."""
        if not mentions:
            return []
        norms = [normalize(m.text) for m in mentions]
        found = {n for n in norms if n in self.aliases}
        ids = {self.aliases[n] for n in found}
        for mention in mentions:
            if mention.kind != "proper_noun" or normalize(mention.text) in found:
                continue
            ids.update(entity_id for entity_id, name in self.proper if _variant_of(mention.text, name))
        total = max(self.total, 1)
        out = []
        for entity_id in sorted(ids):
            count = len(self.links.get(entity_id, ()))
            if count == 0:
                continue
            weight = math.log(1 + total / count) / math.log(1 + total) if total > 1 else 1.0
            out.append(EntityMatch(entity_id, self.names.get(entity_id, ""), min(1.0, weight)))
        return out

    @cached_property
    def _entities_by_memory(self) -> dict[str, tuple[str, ...]]:
        by_memory: dict[str, list[str]] = {}
        for entity_id in sorted(self.links):
            for memory_id in self.links[entity_id]:
                by_memory.setdefault(memory_id, []).append(entity_id)
        return {m: tuple(e) for m, e in by_memory.items()}

    def entities_of(self, memory_id: str) -> tuple[str, ...]:
        """The entities ``memory_id`` is linked to (the inverse of :attr:`links`, built on first
        use: a partition is read-only once loaded, a write makes a new one)."""
        return self._entities_by_memory.get(memory_id, ())

    def memories_of(self, entity_ids: Sequence[str]) -> dict[str, set[str]]:
        """``EntityGraph.memories_of`` for this partition's entities (all their links)."""
        out: dict[str, set[str]] = {}
        for entity_id in entity_ids:
            for memory_id in self.links.get(entity_id, ()):
                out.setdefault(memory_id, set()).add(entity_id)
        return out
