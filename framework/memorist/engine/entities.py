"""The entity graph: entities per user scope, their variants, and their memories.

Every memory's entities are linked to it within its scope (an organization,
project and user, or agent/run/app when there is no user). Variants of one
entity are merged: case and whitespace always; a short form of a proper noun
("Mel") with the longer name that starts with it ("Melanie"); near-identical
spellings (rapidfuzz ratio >= 92). Links are written once, when the memory is
stored: a later change of the rules never re-processes old memories.
"""

from __future__ import annotations

import math
import re
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from rapidfuzz import fuzz
from sqlalchemy import bindparam, delete, func, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from ..db import Database
from ..db.schema import entities, entity_aliases, entity_links
from ..language import DEFAULT, lexicon
from ..records import ENTITY_SCOPE_FIELDS, EntityMention, MemoryRecord, Scope, utcnow

_SPACE = re.compile(r"\s+")
#: The articles a name drops ("the Louvre" is "Louvre"): the lexicon's ``articles``.
_LEADING_ARTICLE = re.compile(rf"^(?:{'|'.join(sorted(lexicon(DEFAULT).words('articles')))})\s+", re.I)
FUZZY_RATIO = 92
MIN_PREFIX = 3

# The statements of linking, built once: every add runs several, and building a statement
# costs more than SQLite running it.
_KNOWN_ALIASES = select(entity_aliases.c.norm, entity_aliases.c.entity_id).where(
    entity_aliases.c.scope_key == bindparam("p_key"), entity_aliases.c.norm.in_(bindparam("p_norms", expanding=True))
)
_ALIAS_OF = select(entity_aliases.c.entity_id).where(
    entity_aliases.c.scope_key == bindparam("p_key"), entity_aliases.c.norm == bindparam("p_norm")
)
_PROPER_NOUNS = select(entities.c.id, entities.c.name).where(
    entities.c.scope_key == bindparam("p_key"), entities.c.kind == "proper_noun"
)
_RENAME = (
    update(entities)
    .where(entities.c.id == bindparam("p_id"))
    .values(name=bindparam("p_name"), updated_at=bindparam("p_now"))
)
_CREATE_ENTITY = insert(entities)
_CREATE_ALIAS = insert(entity_aliases)
_LINK = insert(entity_links)
#: A new entity and its alias, each inserted unless its name is already taken, per dialect:
#: two statements where a savepoint around plain inserts took four (SAVEPOINT and RELEASE,
#: which SQLAlchemy compiles anew each time), for the one or two entities most adds create.
#: PostgreSQL's tell whether a row went in by RETURNING it (psycopg answers no row count for
#: them); SQLite's by their row count (RETURNING needs SQLite 3.35, newer than some systems').
_CREATE_IF_NEW = {
    "sqlite": (
        sqlite.insert(entities).on_conflict_do_nothing(),
        sqlite.insert(entity_aliases).on_conflict_do_nothing(),
    ),
    "postgresql": (
        postgresql.insert(entities).on_conflict_do_nothing().returning(entities.c.id),
        postgresql.insert(entity_aliases).on_conflict_do_nothing().returning(entity_aliases.c.entity_id),
    ),
}
_DROP_ENTITY = delete(entities).where(entities.c.id == bindparam("p_id"))


def _inserted(conn: Connection, statement: Any, row: dict[str, Any]) -> bool:
    """Run one of :data:`_CREATE_IF_NEW`'s inserts; whether its row went in."""
    result = conn.execute(statement, row)
    return result.first() is not None if result.returns_rows else result.rowcount == 1


def normalize(surface: str) -> str:
    """Case- and whitespace-insensitive key of an entity name."""
    text = _SPACE.sub(" ", surface).strip().casefold()
    return _LEADING_ARTICLE.sub("", text)[:255]


def scope_key(scope: Scope) -> str:
    """The graph partition of a scope: per user, else per agent/run/app."""
    for field in ENTITY_SCOPE_FIELDS:
        value = getattr(scope, field)
        if value is not None:
            return f"{scope.org_id}/{scope.project_id}/{field}={value}"
    return f"{scope.org_id}/{scope.project_id}/-"


@dataclass(frozen=True)
class EntityMatch:
    """A query entity found in the graph, with how specific it is (0-1]."""

    entity_id: str
    name: str
    weight: float


def _variant_of(mention: str, name: str) -> bool:
    """Whether two proper-noun forms name one entity ("Mel" / "Melanie")."""
    a, b = mention.casefold(), name.casefold()
    if a == b:
        return True
    short, long = sorted((a, b), key=len)
    first = re.split(r"[^\w]", long, maxsplit=1)[0]
    if " " not in short and len(short) >= MIN_PREFIX and first.startswith(short):
        return True
    return min(len(a), len(b)) >= 5 and fuzz.ratio(a, b) >= FUZZY_RATIO


class EntityGraph:
    """Reads and writes the entity tables; every method is one short transaction."""

    def __init__(self, db: Database) -> None:
        self._db = db

    # -- writing -----------------------------------------------------------------
    def link(self, memory: MemoryRecord, mentions: Sequence[EntityMention], conn: Connection) -> list[str]:
        """Resolve (or create) each mention's entity in the memory's scope and link it."""
        key = scope_key(memory.scope)
        # Known aliases in one query, the links in one insert: every add links a few
        # mentions, and a round trip each was most of an add's relational cost.
        norms = list(dict.fromkeys(normalize(m.text) for m in mentions))
        known: dict[str, str] = {}
        if norms:
            rows = conn.execute(_KNOWN_ALIASES, {"p_key": key, "p_norms": norms})
            known = {str(norm): str(entity_id) for norm, entity_id in rows}
        linked: list[str] = []
        proper_nouns: list[tuple[str, str]] | None = None  # read once, on the first unknown proper noun
        for mention in mentions:
            norm = normalize(mention.text)
            entity_id = known.get(norm)
            if entity_id is None:
                if mention.kind == "proper_noun" and proper_nouns is None:
                    proper_nouns = self._proper_nouns(conn, key)
                # The list itself, even empty: a name created now must be seen by the next mention.
                entity_id = self._resolve_or_create(
                    conn, key, mention, proper_nouns if proper_nouns is not None else []
                )
            known[norm] = entity_id
            if entity_id not in linked:
                linked.append(entity_id)
        if linked:
            conn.execute(_LINK, [{"entity_id": e, "memory_id": memory.id, "scope_key": key} for e in linked])
        return linked

    @staticmethod
    def _proper_nouns(conn: Connection, key: str) -> list[tuple[str, str]]:
        """The scope's proper-noun entities as ``(id, name)``, for :meth:`link` to match variants against.

        Why once per add: every unknown proper noun is compared with all of them, and a
        memory naming three new people read the scope's list three times.
        """
        return [(str(entity_id), str(name)) for entity_id, name in conn.execute(_PROPER_NOUNS, {"p_key": key})]

    def _resolve_or_create(
        self, conn: Connection, key: str, mention: EntityMention, proper_nouns: list[tuple[str, str]]
    ) -> str:
        """The entity of a mention whose alias :meth:`link` did not find in this transaction:
        a variant of a known proper noun, else a new entity (a concurrent writer's alias for
        the same name surfaces as an IntegrityError, and that entity is used).

        ``proper_nouns`` is the scope's list as :meth:`link` read it; it is kept current
        (a new proper noun is appended, a longer name replaces the one it extends), so a
        later mention of the same add matches what the database now holds.
        """
        norm = normalize(mention.text)
        if mention.kind == "proper_noun":
            for position, (entity_id, name) in enumerate(proper_nouns):
                if _variant_of(mention.text, name):
                    self._add_alias(conn, key, norm, entity_id)
                    if mention.text.startswith(f"{name} "):  # "Melanie Smith" over "Melanie"
                        conn.execute(_RENAME, {"p_id": entity_id, "p_name": mention.text[:255], "p_now": utcnow()})
                        proper_nouns[position] = (entity_id, mention.text[:255])
                    return entity_id
        entity_id = str(uuid.uuid4())
        now = utcnow()
        entity = {"id": entity_id, "scope_key": key, "name": mention.text[:255], "norm": norm}
        row = {**entity, "kind": mention.kind, "created_at": now, "updated_at": now}
        alias = {"scope_key": key, "norm": norm, "entity_id": entity_id}
        if_new = _CREATE_IF_NEW.get(conn.dialect.name)
        if if_new is not None:
            created = _inserted(conn, if_new[0], row) and _inserted(conn, if_new[1], alias)
            if not created:  # another writer created the name (or its alias) first: use theirs
                conn.execute(_DROP_ENTITY, {"p_id": entity_id})  # nothing when the name was taken
                return str(conn.execute(_ALIAS_OF, {"p_key": key, "p_norm": norm}).scalar_one())
        else:
            try:
                with conn.begin_nested():
                    conn.execute(_CREATE_ENTITY, row)
                    conn.execute(_CREATE_ALIAS, alias)
            except IntegrityError:  # another writer created it first
                existing = conn.execute(_ALIAS_OF, {"p_key": key, "p_norm": norm}).scalar_one()
                return str(existing)
        if mention.kind == "proper_noun":
            proper_nouns.append((entity_id, mention.text[:255]))
        return entity_id

    @staticmethod
    def _add_alias(conn: Connection, key: str, norm: str, entity_id: str) -> None:
        if_new = _CREATE_IF_NEW.get(conn.dialect.name)
        if if_new is not None:
            _inserted(conn, if_new[1], {"scope_key": key, "norm": norm, "entity_id": entity_id})
            return
        try:
            with conn.begin_nested():
                conn.execute(_CREATE_ALIAS, {"scope_key": key, "norm": norm, "entity_id": entity_id})
        except IntegrityError:
            pass

    def unlink(self, memory_ids: Iterable[str], conn: Connection | None = None) -> None:
        ids = list(memory_ids)
        if not ids:
            return
        if conn is None:
            with self._db.begin() as c:
                self.unlink(ids, c)
            return
        for start in range(0, len(ids), 500):
            conn.execute(delete(entity_links).where(entity_links.c.memory_id.in_(ids[start : start + 500])))

    def clear(self) -> None:
        with self._db.begin() as conn:
            for table in (entity_links, entity_aliases, entities):
                conn.execute(delete(table))

    # -- reading -----------------------------------------------------------------
    def match(
        self, mentions: Sequence[EntityMention], keys: Sequence[str] | None, project: str | None = None
    ) -> list[EntityMatch]:
        """Query entities found in the graph (no writes), weighted by rarity.

        ``keys`` limits the lookup to scope partitions; None searches the project-wide set
        of ``project`` (``"org/project"``): a search not pinned to one user never looks at
        another tenant's entities (their writes must not move this tenant's scores).
        A weight is ``log(1 + N/df) / log(1 + N)``: 1 for an entity named by a single
        memory, near 0 for one named by every memory in the scope.
        """
        if not mentions or keys == []:
            return []
        inside = entity_aliases.c.scope_key.startswith(f"{project}/", autoescape=True) if project else None
        with self._db.connect() as conn:
            alias_q = select(entity_aliases.c.norm, entity_aliases.c.entity_id, entity_aliases.c.scope_key)
            norms = [normalize(m.text) for m in mentions]
            if keys is not None:
                alias_q = alias_q.where(entity_aliases.c.scope_key.in_(keys))
            elif inside is not None:
                alias_q = alias_q.where(inside)
            rows = conn.execute(alias_q.where(entity_aliases.c.norm.in_(norms))).all()
            ids = {str(r.entity_id) for r in rows}
            for mention in mentions:
                if mention.kind != "proper_noun" or normalize(mention.text) in {r.norm for r in rows}:
                    continue
                ent_q = select(entities.c.id, entities.c.name).where(entities.c.kind == "proper_noun")
                if keys is not None:
                    ent_q = ent_q.where(entities.c.scope_key.in_(keys))
                elif project:
                    ent_q = ent_q.where(entities.c.scope_key.startswith(f"{project}/", autoescape=True))
                ids.update(str(e.id) for e in conn.execute(ent_q) if _variant_of(mention.text, e.name))
            if not ids:
                return []
            df: dict[str, int] = dict(
                conn.execute(
                    select(entity_links.c.entity_id, func.count())
                    .where(entity_links.c.entity_id.in_(ids))
                    .group_by(entity_links.c.entity_id)
                ).all()
            )
            total_q = select(func.count(func.distinct(entity_links.c.memory_id)))
            if keys is not None:
                total_q = total_q.where(entity_links.c.scope_key.in_(keys))
            elif project:
                total_q = total_q.where(entity_links.c.scope_key.startswith(f"{project}/", autoescape=True))
            total = max(int(conn.execute(total_q).scalar() or 0), 1)
            names = dict(conn.execute(select(entities.c.id, entities.c.name).where(entities.c.id.in_(ids))).all())
        out = []
        for entity_id in sorted(ids):
            count = int(df.get(entity_id, 0))
            if count == 0:
                continue
            weight = math.log(1 + total / count) / math.log(1 + total) if total > 1 else 1.0
            out.append(EntityMatch(entity_id, str(names.get(entity_id, "")), min(1.0, weight)))
        return out

    def memories_of(self, entity_ids: Sequence[str], limit: int) -> dict[str, set[str]]:
        """``memory_id -> {entity_id}`` for memories linked to any of ``entity_ids``."""
        if not entity_ids:
            return {}
        with self._db.connect() as conn:
            rows = conn.execute(
                select(entity_links.c.memory_id, entity_links.c.entity_id)
                .where(entity_links.c.entity_id.in_(list(entity_ids)))
                .limit(limit)
            ).all()
        out: dict[str, set[str]] = {}
        for memory_id, entity_id in rows:
            out.setdefault(str(memory_id), set()).add(str(entity_id))
        return out

    def entities_of(self, memory_id: str) -> list[str]:
        with self._db.connect() as conn:
            return [
                str(n)
                for n in conn.execute(
                    select(entities.c.name)
                    .join(entity_links, entity_links.c.entity_id == entities.c.id)
                    .where(entity_links.c.memory_id == memory_id)
                    .order_by(entities.c.name)
                ).scalars()
            ]
