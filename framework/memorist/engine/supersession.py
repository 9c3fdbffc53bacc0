"""The supersession record: which stored memory replaced which.

ADD-only keeps every version of a changed fact ("...phone number is 555-1234."
Monday, "...changed their number, it's 555-9876 now." Friday). The add that
stores the newer one decides, once, that it replaces the older (the rule is in
:mod:`.supersession_rule`) and this log keeps that as a fact: the newer
memory's ``linked_memory_ids`` (the older ones it supersedes, the platform v3
name) and, on the older one, ``superseded_by`` and ``superseded_at`` (the newer
fact's observation time). ``latest_only`` leaves superseded memories out,
``as_of`` asks which version was current at a date, and ``delete_linked``
follows the chain. A deleted memory takes its rows with it: deleting the
current version alone makes the older one current again (that is what
``delete_linked`` is for), and the history of both stays.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import delete, insert, or_, select
from sqlalchemy.engine import Connection

from ..db import Database
from ..db.schema import memory_supersessions as table
from ..records import MemoryRecord, as_utc

#: Ids per IN list of one query (SQLite's bound-parameter limit is far above; PostgreSQL's too).
CHUNK = 500
#: Most memories one ``delete_linked`` follows: a chain is a fact's versions, never thousands.
MAX_CHAIN = 10_000


@dataclass
class Links:
    """One memory's place in its fact's versions."""

    #: The older memories this one supersedes (the platform's ``linked_memory_ids``).
    linked_memory_ids: list[str] = field(default_factory=list)
    #: The memory that superseded this one (the earliest, when several did), or None: current.
    superseded_by: str | None = None
    #: When the fact changed: the superseding memory's observation time.
    superseded_at: datetime | None = None


@dataclass(frozen=True)
class Supersession:
    """``newer`` replaces ``older`` (both stored in one scope)."""

    older: MemoryRecord
    newer: MemoryRecord


def _chunks(ids: Sequence[str]) -> Iterable[Sequence[str]]:
    for start in range(0, len(ids), CHUNK):
        yield ids[start : start + CHUNK]


class SupersessionLog:
    """The ``memory_supersessions`` rows of the relational database."""

    def __init__(self, db: Database) -> None:
        self._db = db

    @staticmethod
    def rows(links: Sequence[Supersession]) -> list[dict[str, Any]]:
        return [
            {
                "memory_id": s.older.id,
                "superseded_by": s.newer.id,
                "org_id": s.newer.org_id,
                "project_id": s.newer.project_id,
                "superseded_at": s.newer.observed_at,
            }
            for s in links
        ]

    def record(self, links: Sequence[Supersession], conn: Connection) -> None:
        """Store ``links`` in the add's own transaction (a redone queued add writes them again)."""
        rows = {(r["memory_id"], r["superseded_by"]): r for r in self.rows(links)}
        if not rows:
            return
        pairs = list(rows)
        # A queued add redone after a crash recomputes the same links: keep one row each.
        known = {
            tuple(row)
            for row in conn.execute(
                select(table.c.memory_id, table.c.superseded_by).where(
                    table.c.superseded_by.in_({newer for _, newer in pairs})
                )
            )
        }
        fresh = [row for pair, row in rows.items() if pair not in known]
        if fresh:
            conn.execute(insert(table), fresh)

    def links(self, memory_ids: Sequence[str]) -> dict[str, Links]:
        """Each memory's links (an empty :class:`Links` for one with none)."""
        out = {mid: Links() for mid in memory_ids}
        if not memory_ids:
            return out
        ids = list(dict.fromkeys(memory_ids))
        with self._db.connect() as conn:
            for part in _chunks(ids):
                rows = conn.execute(
                    select(table.c.memory_id, table.c.superseded_by, table.c.superseded_at)
                    .where(or_(table.c.memory_id.in_(part), table.c.superseded_by.in_(part)))
                    .order_by(table.c.superseded_at, table.c.superseded_by)
                )
                for older, newer, when in rows:
                    if newer in out and older not in out[newer].linked_memory_ids:
                        out[newer].linked_memory_ids.append(older)
                    if older in out and out[older].superseded_by is None:
                        out[older].superseded_by = newer
                        out[older].superseded_at = as_utc(when)
        return out

    def superseded(self, memory_ids: Sequence[str], as_of: datetime | None = None) -> set[str]:
        """Which of ``memory_ids`` a stored memory superseded (by ``as_of``, when given)."""
        found: set[str] = set()
        ids = list(dict.fromkeys(memory_ids))
        with self._db.connect() as conn:
            for part in _chunks(ids):
                stmt = select(table.c.memory_id, table.c.superseded_at).where(table.c.memory_id.in_(part))
                for older, when in conn.execute(stmt):
                    if as_of is None or as_utc(when) <= as_of:
                        found.add(older)
        return found

    def superseded_in(self, org_id: str, project_id: str, as_of: datetime | None = None) -> set[str]:
        """Every superseded memory of a project (by ``as_of``, when given): what a ``latest_only``
        list leaves out."""
        stmt = select(table.c.memory_id, table.c.superseded_at).where(
            table.c.org_id == org_id, table.c.project_id == project_id
        )
        if as_of is not None:
            stmt = stmt.where(table.c.superseded_at <= as_of)
        with self._db.connect() as conn:
            return {older for older, _ in conn.execute(stmt)}

    def chain(self, memory_id: str) -> list[str]:
        """The older memories ``memory_id`` superseded, transitively (nearest first), itself excluded."""
        seen: dict[str, None] = {memory_id: None}
        frontier = [memory_id]
        with self._db.connect() as conn:
            while frontier and len(seen) < MAX_CHAIN:
                older: list[str] = []
                for part in _chunks(frontier):
                    rows = conn.execute(select(table.c.memory_id).where(table.c.superseded_by.in_(part))).scalars()
                    older.extend(r for r in rows if r not in seen)
                frontier = list(dict.fromkeys(older))
                seen.update(dict.fromkeys(frontier))
        return [mid for mid in seen if mid != memory_id]

    def forget(self, memory_ids: Sequence[str], conn: Connection) -> None:
        """Drop the rows of deleted memories (either side), in the delete's transaction."""
        ids = list(dict.fromkeys(memory_ids))
        for part in _chunks(ids):
            conn.execute(delete(table).where(or_(table.c.memory_id.in_(part), table.c.superseded_by.in_(part))))

    def clear(self) -> None:
        with self._db.begin() as conn:
            conn.execute(delete(table))


def by_newer(links: Sequence[Supersession]) -> dict[str, list[str]]:
    """``{newer id: [older ids]}``."""
    out: dict[str, list[str]] = defaultdict(list)
    for link in links:
        out[link.newer.id].append(link.older.id)
    return dict(out)


def with_supersession(rows: list[dict[str, Any]], links: Links) -> list[dict[str, Any]]:
    """A memory's history rows with its place among its fact's versions: the ADD row names the
    memories the add superseded (``linked_memory_ids``), and a last ``SUPERSEDED`` row (derived
    from the record, not stored: it goes when the newer memory is deleted) says what replaced it
    and when (``created_at``: the newer fact's observation time, which an add's ``timestamp``
    may set before the memory's own rows). Every row carries both keys, so each door shows one shape."""
    out = []
    for row in rows:
        item = dict(row, linked_memory_ids=[], superseded_by=None)
        if row["event"] == "ADD":
            item["linked_memory_ids"] = list(links.linked_memory_ids)
        out.append(item)
    if links.superseded_by is not None and links.superseded_at is not None and rows:
        last = rows[-1]
        out.append(
            {
                **{key: None for key in last},
                "id": f"superseded:{last['memory_id']}:{links.superseded_by}",
                "memory_id": last["memory_id"],
                "org_id": last["org_id"],
                "project_id": last["project_id"],
                "event": "SUPERSEDED",
                "old_memory": last["new_memory"] or last["old_memory"],
                "new_memory": last["new_memory"] or last["old_memory"],
                "linked_memory_ids": [],
                "superseded_by": links.superseded_by,
                "created_at": links.superseded_at,
            }
        )
    return out
