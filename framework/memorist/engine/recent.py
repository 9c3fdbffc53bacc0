"""A scope's latest memories, for an extractor that must resolve a reference to one.

"Actually, make that $4000" sent in its own add refers to a fact stored by an
earlier add. The extractor says when it needs such context
(``recent`` in :meth:`~memorist.plugin.contracts.LanguageModel.context_wanted`); only then does an add
read the scope's latest memories, so the common add reads nothing more.
"""

from __future__ import annotations

from ..plugin.contracts import VectorStore
from ..records import RecentMemory, Scope
from .scope import exact_scope


def recent_memories(store: VectorStore, scope: Scope, count: int) -> list[RecentMemory]:
    """The ``count`` latest memories of exactly ``scope``, oldest first (within one add, in
    the order of the messages they came from)."""
    records = store.list(exact_scope(scope), offset=0, limit=count)
    records.sort(key=lambda r: (r.created_at, r.updated_at, -1 if r.source_message is None else r.source_message))
    return [
        RecentMemory(text=r.text, attributed_to=r.attributed_to, speaker=r.speaker, observed_at=r.observed_at)
        for r in records
    ]
