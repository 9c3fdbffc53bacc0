"""The read side of :class:`~.memory.MemoryEngine`: search, list, get, history and links.

A mixin of the engine (kept apart so each module stays small); what it uses of
the engine is declared below for the type checker. Scores are calibrated here,
at the search entry every door calls, so every door agrees on them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import NotFoundError, ValidationError
from ..filters import Condition, conjoin, parse_filter
from ..limits import MAX_PAGE_SIZE, MAX_QUERY_CHARS, MAX_TOP_K
from ..records import DEFAULT_ORG, DEFAULT_PROJECT, ENTITY_SCOPE_FIELDS
from .browse import sorted_page
from .calibration import calibrate_hits, uncalibrate
from .over_time import TimeOptions
from .scope import id_condition, visible
from .supersession import Links, SupersessionLog, with_supersession

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from ..config.settings import Settings
    from ..filters import Filter
    from ..records import MemoryRecord
    from .add import AddPipeline
    from .changes import MemoryChanges
    from .components import Components
    from .history import HistoryLog
    from .hits import SearchHit
    from .scope_index import ScopeIndex
    from .search import HybridSearch


@dataclass
class Page:
    """One page of memories and how many the filter matches in all."""

    records: list[MemoryRecord]
    total: int


def conjoin_optional(*filters: Filter | None) -> Filter | None:
    """The conjunction of the filters given; None when none is."""
    present = [f for f in filters if f is not None]
    return conjoin(*present) if present else None


class MemoryReads:
    """Search, list, get, history and supersession links over the engine's providers."""

    settings: Settings
    components: Components
    history_log: HistoryLog
    adder: AddPipeline
    _searcher: HybridSearch
    _changes: MemoryChanges

    def search(
        self,
        query: str,
        *,
        filters: Mapping[str, Any] | None = None,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        app_id: str | None = None,
        org_id: str = DEFAULT_ORG,
        project_id: str = DEFAULT_PROJECT,
        top_k: int = 10,
        threshold: float = 0.1,
        rerank: bool = False,
        explain: bool = False,
        show_expired: bool = False,
        enable_graph: bool | None = None,
        where: Filter | None = None,
        latest_only: bool = False,
        as_of: Any = None,
        decay: bool | None = None,
        reference_date: Any = None,
    ) -> list[SearchHit]:
        """Hybrid search; ``enable_graph`` is accepted and ignored (the graph is always on).

        ``latest_only``: memories a newer one superseded are left out (:mod:`.supersession`).
        ``as_of`` (a date-time): only memories observed by then, each version as current then
        (with ``latest_only``: the versions current at that moment). ``decay``: older, rarely
        retrieved memories rank lower (:mod:`.decay`; None: the ``engine.decay`` setting).
        ``reference_date``: relative time in the query ("last week") means relative to this
        date (:mod:`.relative_time`)."""
        if not isinstance(query, str) or not query.strip():
            raise ValidationError("query: a non-empty string is required")
        if len(query) > MAX_QUERY_CHARS:
            raise ValidationError(f"query: {len(query)} characters; the limit is {MAX_QUERY_CHARS} (MAX_QUERY_CHARS)")
        if not 1 <= int(top_k) <= MAX_TOP_K:
            raise ValidationError(f"top_k: must be between 1 and {MAX_TOP_K}")
        if not 0.0 <= float(threshold) <= 1.0:
            raise ValidationError("threshold: must be between 0.0 and 1.0")
        where = conjoin_optional(
            where, self._where(filters, dict(user_id=user_id, agent_id=agent_id, run_id=run_id, app_id=app_id))
        )
        engine = self.settings.engine
        options = TimeOptions.parse(
            as_of=as_of,
            reference_date=reference_date,
            latest_only=latest_only,
            decay=engine.decay if decay is None else decay,
        )
        where, query = options.where(where), options.query(query)
        # Scores are calibrated here, at the engine's search entry, so every door agrees; the
        # caller's threshold is on the calibrated scale, the search compares raw scores.
        calibrated = self.settings.engine.calibrate_scores
        raw_threshold = uncalibrate(float(threshold)) if calibrated else float(threshold)
        hits = self._searcher.search(
            query,
            visible(where, org_id, project_id, show_expired),
            org_id=org_id,
            project_id=project_id,
            top_k=options.pool(int(top_k), MAX_TOP_K),
            threshold=raw_threshold,
            rerank=rerank,
            explain=explain,
        )
        hits = options.after_ranking(
            hits,
            query,
            int(top_k),
            supersessions=self.supersessions,
            usage=self._changes.usage,
            threshold=raw_threshold,
            half_life_days=engine.decay_half_life_days,
            explain=explain,
        )
        return calibrate_hits(hits, reranked=rerank) if calibrated else hits

    @property
    def supersessions(self) -> SupersessionLog:
        """Which memory replaced which (:mod:`.supersession`)."""
        return self.adder.supersessions

    def links(self, memory_ids: Sequence[str]) -> dict[str, Links]:
        """Each memory's ``linked_memory_ids`` / ``superseded_by`` / ``superseded_at``."""
        return self.supersessions.links(memory_ids)

    def get(self, memory_id: str, *, org_id: str = DEFAULT_ORG, project_id: str = DEFAULT_PROJECT) -> MemoryRecord:
        found = self.components.vector_store.get([memory_id])
        if not found or found[0].org_id != org_id or found[0].project_id != project_id:
            raise NotFoundError(f"memory '{memory_id}' not found")
        return found[0]

    def history(
        self, memory_id: str, *, org_id: str = DEFAULT_ORG, project_id: str = DEFAULT_PROJECT
    ) -> list[dict[str, Any]]:
        rows = self.history_log.for_memory(memory_id)
        rows = [r for r in rows if r["org_id"] == org_id and r["project_id"] == project_id]
        if not rows:
            raise NotFoundError(f"memory '{memory_id}' not found")
        return with_supersession(rows, self.links([memory_id])[memory_id])

    @property
    def scope_index(self) -> ScopeIndex | None:
        """The in-memory scope snapshots search uses (None when ``engine.scope_index`` is off)."""
        return self._searcher.index

    # Defined late: inside the class body the name shadows the builtin for type checkers.
    def list(
        self,
        filters: Mapping[str, Any] | None = None,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        app_id: str | None = None,
        org_id: str = DEFAULT_ORG,
        project_id: str = DEFAULT_PROJECT,
        page: int = 1,
        page_size: int = 100,
        show_expired: bool = False,
        where: Filter | None = None,
        latest_only: bool = False,
        as_of: Any = None,
        sort: str = "-created_at",
    ) -> Page:
        """One page of memories, newest first unless ``sort`` names another order
        (:data:`.browse.SORTS`), with the total count (``latest_only`` and ``as_of`` as for
        :meth:`search`)."""
        if page < 1:
            raise ValidationError("page: must be 1 or more")
        if not 1 <= page_size <= MAX_PAGE_SIZE:
            raise ValidationError(f"page_size: must be between 1 and {MAX_PAGE_SIZE}")
        where = conjoin_optional(
            where, self._where(filters, dict(user_id=user_id, agent_id=agent_id, run_id=run_id, app_id=app_id))
        )
        options = TimeOptions.parse(as_of=as_of, latest_only=latest_only)
        where = options.where(where)
        if latest_only and (gone := self.supersessions.superseded_in(org_id, project_id, options.as_of)):
            where = conjoin_optional(where, Condition("id", "nin", tuple(sorted(gone))))
        where = visible(where, org_id, project_id, show_expired)
        store = self.components.vector_store
        if sort == "-created_at":
            return Page(store.list(where, (page - 1) * page_size, page_size), store.count(where))
        total = store.count(where)
        return Page(sorted_page(store, where, total, sort, page, page_size), total)

    @staticmethod
    def _where(filters: Mapping[str, Any] | None, ids: Mapping[str, str | None]) -> Filter | None:
        parsed = parse_filter(filters) if filters else None
        pinned = [id_condition(f, v) for f, v in ids.items() if v is not None and f in ENTITY_SCOPE_FIELDS]
        return conjoin(parsed, *pinned) if (parsed or pinned) else None
