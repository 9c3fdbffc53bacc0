"""Browsing a scope's memories as a console does: sorted pages, and the entity graph behind them.

A store lists newest first (its index order). The other orders a table offers are
answered here without a new store method: oldest first reads the mirrored window of
the newest-first order (one page, whatever the total), and the orders no index keeps
(last change, text) sort the matching records in memory, which is bounded: past
:data:`MAX_SORTED_SCAN` matches the caller gets a 400 that says to filter first.

The entity graph view reads the partition's entities and links (what
:mod:`.entities` wrote when the memories were stored) and counts, for each pair of
entities, the memories that mention both: the edges of the explorer, each with the
memories behind it. It is bounded too (the most linked entities, the heaviest edges,
a few memory ids per edge).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from sqlalchemy import func, select

from ..db import Database
from ..db.schema import entities, entity_links
from ..errors import ValidationError
from ..filters import Filter
from ..plugin.contracts import VectorStore
from ..records import MemoryRecord

#: The orders of a page: a field, ``-`` in front for descending.
SORTS = ("-created_at", "created_at", "-updated_at", "updated_at", "memory", "-memory")
#: Most matches an in-memory order (``updated_at``, ``memory``) sorts: one request's cost stays bounded.
MAX_SORTED_SCAN = 20_000
#: Most memories an entity filter narrows to (their ids travel as one ``id in (...)`` condition).
MAX_ENTITY_MEMORIES = 20_000


def sorted_page(
    store: VectorStore, where: Filter | None, total: int, sort: str, page: int, page_size: int
) -> list[MemoryRecord]:
    """Page ``page`` of the records ``where`` accepts (``total`` of them), in the order ``sort`` names."""
    if sort not in SORTS:
        raise ValidationError(f"sort: must be one of {', '.join(SORTS)}; got '{sort}'")
    offset = (page - 1) * page_size
    if sort == "-created_at":
        return store.list(where, offset, page_size)
    if offset >= total:
        return []
    if sort == "created_at":  # oldest first: the newest-first window at the mirrored position, reversed
        end = total - offset
        start = max(0, end - page_size)
        return list(reversed(store.list(where, start, end - start)))
    if total > MAX_SORTED_SCAN:
        raise ValidationError(
            f"sort: '{sort}' sorts at most {MAX_SORTED_SCAN} matching memories and {total} match; "
            "narrow them with a filter (category, dates, metadata key, entity) or sort by created_at"
        )
    records = store.list(where, 0, total)
    descending = sort.startswith("-")
    if sort.lstrip("-") == "updated_at":
        records.sort(key=lambda r: (r.updated_at or r.created_at, r.id), reverse=descending)
    else:
        records.sort(key=lambda r: (r.text.casefold(), r.id), reverse=descending)
    return records[offset : offset + page_size]


@dataclass
class GraphEntity:
    id: str
    name: str
    kind: str
    memories: int


@dataclass
class GraphEdge:
    source: str
    target: str
    #: How many memories mention both ends.
    weight: int
    #: Some of those memories (at most ``memories_per_edge``, by id); the list route gives them all.
    memory_ids: list[str] = field(default_factory=list)


@dataclass
class EntityGraphView:
    entities: list[GraphEntity]
    edges: list[GraphEdge]
    #: Entities in the partition, of which ``entities`` shows the most linked.
    total_entities: int
    #: Memories with at least one entity.
    linked_memories: int

    def wire(self) -> dict[str, Any]:
        return {
            "entities": [vars(e) for e in self.entities],
            "edges": [vars(e) for e in self.edges],
            "total_entities": self.total_entities,
            "linked_memories": self.linked_memories,
        }


class EntityBrowser:
    """Read-only views of the entity graph (:class:`.entities.EntityGraph` writes it)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def graph(
        self,
        key: str,
        *,
        max_entities: int = 150,
        max_edges: int = 400,
        edges_per_entity: int = 30,
        memories_per_edge: int = 5,
    ) -> EntityGraphView:
        """The ``max_entities`` most linked entities of partition ``key`` and the edges among them:
        the ``max_edges`` heaviest, and each entity's ``edges_per_entity`` heaviest."""
        with self._db.connect() as conn:
            counted = conn.execute(
                select(entities.c.id, entities.c.name, entities.c.kind, func.count(entity_links.c.memory_id))
                .join(entity_links, entity_links.c.entity_id == entities.c.id)
                .where(entities.c.scope_key == key, entity_links.c.scope_key == key)
                .group_by(entities.c.id, entities.c.name, entities.c.kind)
            ).all()
            ranked = sorted(counted, key=lambda r: (-int(r[3]), str(r[1]).casefold()))
            shown = ranked[:max_entities]
            ids = [str(r[0]) for r in shown]
            by_memory: dict[str, list[str]] = {}
            linked: set[str] = set()
            for entity_id, memory_id in conn.execute(
                select(entity_links.c.entity_id, entity_links.c.memory_id).where(entity_links.c.scope_key == key)
            ).all():
                linked.add(str(memory_id))
                by_memory.setdefault(str(memory_id), []).append(str(entity_id))
        wanted = set(ids)
        weights: Counter[tuple[str, str]] = Counter()
        behind: dict[tuple[str, str], list[str]] = {}
        for memory_id in sorted(by_memory):  # a fixed order: the same graph for the same links
            present = sorted(e for e in set(by_memory[memory_id]) if e in wanted)
            for pair in combinations(present, 2):
                weights[pair] += 1
                held = behind.setdefault(pair, [])
                if len(held) < memories_per_edge:
                    held.append(memory_id)
        ranked_edges = sorted(weights.items(), key=lambda kv: (-kv[1], kv[0]))
        # The heaviest edges overall, and each entity's own heaviest ones: an entity's links stay
        # listed even where the hubs' edges outweigh all of them.
        kept = set(pair for pair, _ in ranked_edges[:max_edges])
        per_entity: Counter[str] = Counter()
        for pair, _ in ranked_edges:
            if any(per_entity[e] < edges_per_entity for e in pair):
                kept.add(pair)
            per_entity.update(pair)
        heaviest = [(pair, w) for pair, w in ranked_edges if pair in kept]
        return EntityGraphView(
            entities=[GraphEntity(str(i), str(n), str(k), int(c)) for i, n, k, c in shown],
            edges=[GraphEdge(a, b, w, behind[(a, b)]) for (a, b), w in heaviest],
            total_entities=len(counted),
            linked_memories=len(linked),
        )

    def memories_with_all(self, key: str, entity_ids: Sequence[str]) -> list[str]:
        """Ids of the memories of partition ``key`` that mention every one of ``entity_ids``."""
        found: set[str] | None = None
        with self._db.connect() as conn:
            for entity_id in entity_ids:
                ids = set(
                    conn.execute(
                        select(entity_links.c.memory_id)
                        .where(entity_links.c.scope_key == key, entity_links.c.entity_id == entity_id)
                        .limit(MAX_ENTITY_MEMORIES + 1)
                    ).scalars()
                )
                found = ids if found is None else found & ids
                if not found:
                    return []
        if found is not None and len(found) > MAX_ENTITY_MEMORIES:
            raise ValidationError(f"entity: more than {MAX_ENTITY_MEMORIES} memories mention it; add another filter")
        return sorted(found or ())

    def of_memory(self, memory_id: str) -> list[dict[str, str]]:
        """The entities one memory mentions: id, name and kind, by name."""
        with self._db.connect() as conn:
            rows = conn.execute(
                select(entities.c.id, entities.c.name, entities.c.kind)
                .join(entity_links, entity_links.c.entity_id == entities.c.id)
                .where(entity_links.c.memory_id == memory_id)
                .order_by(entities.c.name)
            ).all()
        return [{"id": str(i), "name": str(n), "kind": str(k)} for i, n, k in rows]
