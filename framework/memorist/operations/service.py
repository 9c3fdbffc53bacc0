"""The operations every door calls: add, search, list, get, update, delete, history, entities, events.

A door (the self-hosted REST API, the platform API, the queue worker, the
dashboard, MCP, the Python facade) parses its wire format into the typed
inputs of :mod:`.inputs`, calls one method here with a :class:`~.caller.Caller`,
and shapes the answer with :mod:`.results`. The rules live here once (with
the mixins :mod:`.memory_changes` for updates and deletes and
:mod:`.project_data` for project-wide data): the scope rule
(:func:`~memorist.engine.scope.require_entity`), confinement to the caller's
organization and project, the "give at least one change" rule of an update,
the entity types of an entity delete.

The engine is read per call (``engine()``): ``POST /configure`` may swap it
between two requests, never during one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..auth.roles import Role
from ..config.settings import LimitsSettings
from ..engine.browse import EntityGraphView
from ..engine.counts import EntityCount
from ..engine.entities import scope_key
from ..engine.hits import SearchHit
from ..engine.memory import MemoryEngine
from ..engine.memory_reads import Page, conjoin_optional
from ..engine.scope import require_entity
from ..engine.supersession import Links
from ..filters import Condition
from ..queue.admission import QUEUE, RUN_NOW, admit
from ..queue.events import Event, EventStore
from ..records import MemoryRecord, Scope
from ..spaces import SpaceDirectory
from . import batch
from .authorize import requires
from .caller import Caller
from .confine import confined_add, confined_ids, entity_tally
from .export_store import ExportStore
from .inputs import AddInput, EntityIds, ListInput, SearchInput
from .memory_changes import MemoryChangeOperations
from .project_data import ProjectData
from .results import AddResult
from .wire import MemoryItem


class Operations(MemoryChangeOperations, ProjectData):
    """The operations layer over the serving engine and the event store.

    Each method acting for a caller declares the role it needs (``@requires``,
    checked before it runs) and keeps the caller inside its pinned identifiers
    (:mod:`.confine`): the doors only say who is calling.
    """

    def __init__(
        self,
        engine: Callable[[], MemoryEngine],
        events: EventStore | None = None,
        limits: LimitsSettings | None = None,
        exports: ExportStore | None = None,
        *,
        engine_for: Callable[[str, str], MemoryEngine] | None = None,
        engines: Callable[[], Sequence[MemoryEngine]] | None = None,
        spaces: SpaceDirectory | None = None,
        prepare: Callable[[], None] | None = None,
        batch_caps: bool = True,
    ) -> None:
        self._engine = engine
        #: The engine of the vector space a project lives in (``memorist.spaces``); None: one space.
        self._engine_for = engine_for
        self._engines = engines
        self._spaces = spaces
        #: Starts building the multilingual engine in the background (a project just turned it on).
        self._prepare = prepare
        self._events = events
        self._limits = limits
        #: False for the in-process doors: a batch's item and character caps bound one request.
        self._batch_caps = batch_caps
        #: Stored exports with quotas and retention; without it (bare test setups) exports are unbounded.
        self._exports = exports

    @property
    def engine(self) -> MemoryEngine:
        """The engine serving now."""
        return self._engine()

    def engine_of(self, caller: Caller) -> MemoryEngine:
        """The engine of the vector space the caller's project lives in."""
        if self._engine_for is None:
            return self._engine()
        return self._engine_for(caller.org_id, caller.project_id)

    def space_change_problem(self, caller: Caller, multilingual: bool) -> str | None:
        """Why the caller's project may not move to (or out of) the multilingual space now:
        its memories live in the other space and would vanish from searches; None when it may."""
        if self._spaces is None or self._spaces.multilingual(caller.org_id, caller.project_id) == multilingual:
            return None
        held = self.count(caller, None, show_expired=True)
        if not held:
            return None
        now, then = ("default", "multilingual") if multilingual else ("multilingual", "default")
        return (
            f"multilingual: project '{caller.project_id}' holds {held} memories embedded in the {now} vector "
            f"space; searches in the {then} space would not find them. Re-embed them first: "
            f"`memorist reembed --project {caller.project_id} --multilingual {'on' if multilingual else 'off'}` "
            "(it moves them and sets the flag)"
        )

    def space_changed(self, caller: Caller) -> None:
        """Forget this process's cached space of the caller's project (its flag just changed)."""
        if self._spaces is not None:
            self._spaces.forget(caller.org_id, caller.project_id)
            if self._prepare is not None and self._spaces.multilingual(caller.org_id, caller.project_id):
                self._prepare()

    @property
    def events(self) -> EventStore:
        if self._events is None:
            raise RuntimeError("this operations layer has no event store")
        return self._events

    # -- add -------------------------------------------------------------------------
    @requires(Role.OWNER)
    def add(self, caller: Caller, request: AddInput) -> AddResult:
        """A synchronous add: extract (or store verbatim), store, answer what happened
        (413 past one add's limits, whatever the door: :mod:`memorist.queue.admission`)."""
        request = confined_add(caller, request)
        self.admit_add(request)
        require_entity(request.ids.all())
        memory = self.engine_of(caller)
        payload = request.payload(caller.org_id, caller.project_id, caller.actor)
        return AddResult.of(memory.add_outcome(memory.add_request(**payload)))

    @requires(Role.OWNER)
    def add_payload(self, caller: Caller, request: AddInput) -> dict[str, Any]:
        """The validated arguments of an add (a bad add is a 400 here, never a FAILED event later)."""
        request = confined_add(caller, request)
        require_entity(request.ids.all())
        payload = request.payload(caller.org_id, caller.project_id, caller.actor)
        self.engine_of(caller).add_request(**payload)
        return payload

    @requires(Role.OWNER)
    def add_recorded(self, caller: Caller, request: AddInput) -> tuple[AddResult | None, Event]:
        """An add answered at once, acknowledged like a queued one: the result plus a finished event.

        A large add is queued instead (:meth:`add_or_queue`): then ``(None, pending event)``.
        """
        request = confined_add(caller, request)
        outcome = self.add_or_queue(caller, request)
        if isinstance(outcome, Event):
            return None, outcome
        payload = request.payload(caller.org_id, caller.project_id, caller.actor)
        return outcome, self.events.record(caller.org_id, caller.project_id, payload, outcome.event_results())

    @requires(Role.OWNER)
    def submit_add(self, caller: Caller, request: AddInput) -> Event:
        """An asynchronous add: validated now (413 past the add limits), queued durably, processed by a worker."""
        self.admit_add(request)
        payload = self.add_payload(caller, request)
        return self.events.submit(caller.org_id, caller.project_id, payload)

    def admit_add(self, request: AddInput) -> str:
        """``RUN_NOW`` or ``QUEUE`` for a door's add; 413 past the limits (:mod:`memorist.queue.admission`)."""
        return admit(request.messages, self._limits) if self._limits is not None else RUN_NOW

    @requires(Role.OWNER)
    def add_or_queue(self, caller: Caller, request: AddInput) -> AddResult | Event:
        """What a door answering at once calls: small adds run now, large ones are queued (an Event back)."""
        if self.admit_add(request) == QUEUE and self._events is not None:
            return self.submit_add(caller, request)
        return self.add(caller, request)

    # -- batch add (bulk import doors; rules in .batch) ---------------------------------------
    def admit_batch(self, items: Sequence[AddInput]) -> str:
        """``RUN_NOW`` or ``QUEUE`` for a batch; 400 when empty, 413 naming the limit or the item past it."""
        return batch.admit_batch(items, self._limits, capped=self._batch_caps)

    @requires(Role.OWNER)
    def check_batch(self, caller: Caller, items: Sequence[AddInput]) -> None:
        """The whole batch's checks without storing anything (a door splitting a batch checks it first)."""
        items = [confined_add(caller, item) for item in items]
        self.admit_batch(items)
        batch.validated(self.engine_of(caller), caller, items)

    @requires(Role.OWNER)
    def add_batch(self, caller: Caller, items: Sequence[AddInput]) -> list[AddResult]:
        """Many synchronous adds: every item validated first (400 naming it, nothing stored),
        then stored through the engine's batch seam; one result per item, in order."""
        items = [confined_add(caller, item) for item in items]
        self.admit_batch(items)
        memory = self.engine_of(caller)
        requests = [request for _, request in batch.validated(memory, caller, items)]
        outcomes = []
        for start in range(0, len(requests), batch.CHUNK):  # bounded memory for a long Python list
            outcomes.extend(memory.add_many(requests[start : start + batch.CHUNK]))
        return [AddResult.of(outcome) for outcome in outcomes]

    @requires(Role.OWNER)
    def submit_batch(self, caller: Caller, items: Sequence[AddInput]) -> list[Event]:
        """A batch queued durably, one event per item, all committed together (validated first)."""
        items = [confined_add(caller, item) for item in items]
        self.admit_batch(items)
        payloads = batch.batch_payloads(self.engine_of(caller), caller, items)
        return self.events.submit_many(caller.org_id, caller.project_id, payloads)

    @requires(Role.OWNER)
    def add_batch_or_queue(self, caller: Caller, items: Sequence[AddInput]) -> list[AddResult] | list[Event]:
        """What a door answering at once calls: a small batch runs now, a large one is queued (events back)."""
        if self.admit_batch(items) == QUEUE and self._events is not None:
            return self.submit_batch(caller, items)
        return self.add_batch(caller, items)

    @requires(Role.OWNER)
    def add_batch_recorded(
        self, caller: Caller, items: Sequence[AddInput]
    ) -> tuple[list[AddResult] | None, list[Event]]:
        """A batch answered at once, acknowledged like the platform's add: results plus one finished
        event per item; a large batch is queued instead (``(None, pending events)``)."""
        items = [confined_add(caller, item) for item in items]
        outcome = self.add_batch_or_queue(caller, items)
        if not outcome or isinstance(outcome[0], Event):
            return None, [e for e in outcome if isinstance(e, Event)]
        results = [r for r in outcome if isinstance(r, AddResult)]
        done = [
            (item.payload(caller.org_id, caller.project_id, caller.actor), result.event_results())
            for item, result in zip(items, results, strict=True)
        ]
        return results, self.events.record_many(caller.org_id, caller.project_id, done)

    # -- read ------------------------------------------------------------------------
    @requires(Role.READER)
    def search(self, caller: Caller, request: SearchInput) -> list[SearchHit]:
        request = confined_add(caller, request)
        ids = request.ids
        if request.scoped:
            require_entity(ids.all(), filters=request.filters, filters_allowed=True)
        return self.engine_of(caller).search(
            request.query,
            filters=request.filters,
            user_id=ids.user_id,
            agent_id=ids.agent_id,
            run_id=ids.run_id,
            app_id=ids.app_id,
            org_id=caller.org_id,
            project_id=caller.project_id,
            top_k=request.top_k,
            threshold=request.threshold,
            rerank=request.rerank,
            explain=request.explain,
            show_expired=request.show_expired,
            where=request.where,
            latest_only=request.latest_only,
            as_of=request.as_of,
            decay=request.decay,
            reference_date=request.reference_date,
        )

    @requires(Role.READER)
    def list_memories(self, caller: Caller, request: ListInput) -> Page:
        request = confined_add(caller, request)
        ids = request.ids
        if request.scoped:
            require_entity(ids.all())
        where = request.where
        engine = self.engine_of(caller)
        if request.entity_ids:
            key = scope_key(Scope(org_id=caller.org_id, project_id=caller.project_id, **ids.present()))
            mentioned = engine.browser.memories_with_all(key, request.entity_ids)
            where = conjoin_optional(where, Condition("id", "in", tuple(mentioned) or ("",)))
        return engine.list(
            request.filters,
            user_id=ids.user_id,
            agent_id=ids.agent_id,
            run_id=ids.run_id,
            app_id=ids.app_id,
            org_id=caller.org_id,
            project_id=caller.project_id,
            page=request.page,
            page_size=request.page_size,
            show_expired=request.show_expired,
            where=where,
            latest_only=request.latest_only,
            as_of=request.as_of,
            sort=request.sort,
        )

    @requires(Role.READER)
    def entity_graph(self, caller: Caller, ids: EntityIds) -> EntityGraphView:
        """The extracted entities of one user's (else agent's, run's, app's) memories and their links."""
        ids = confined_ids(caller, ids)
        require_entity(ids.all())
        key = scope_key(Scope(org_id=caller.org_id, project_id=caller.project_id, **ids.present()))
        return self.engine_of(caller).browser.graph(key)

    @requires(Role.READER)
    def memory_entities(self, caller: Caller, memory_id: str) -> list[dict[str, str]]:
        """The graph entities one memory of the caller's project mentions (404 as :meth:`get`)."""
        self.get(caller, memory_id)
        return self.engine_of(caller).browser.of_memory(memory_id)

    @requires(Role.READER)
    def links(self, caller: Caller, records: Sequence[MemoryRecord]) -> dict[str, Links]:
        """Each of ``records``' place among its fact's versions (records the caller already read)."""
        return self.engine_of(caller).links([r.id for r in records])

    @requires(Role.READER)
    def items(self, caller: Caller, records: Sequence[MemoryRecord]) -> list[MemoryItem]:
        """``records`` as get and list show them: each with its supersession links."""
        links = self.links(caller, records)
        return [MemoryItem.of(r, links[r.id]) for r in records]

    @requires(Role.READER)
    def item(self, caller: Caller, record: MemoryRecord) -> MemoryItem:
        return self.items(caller, [record])[0]

    @requires(Role.READER)
    def get(self, caller: Caller, memory_id: str) -> MemoryRecord:
        """One memory of the caller's project; 404 when it is missing, another tenant's or,
        for a confined caller, another user's (the same answer, so ids cannot be probed)."""
        return caller.check_owned(self.engine_of(caller).get(memory_id, **caller.tenant))

    @requires(Role.READER)
    def history(self, caller: Caller, memory_id: str) -> list[dict[str, Any]]:
        if caller.pinned:  # history rows carry no user/agent: the live memory proves ownership
            self.get(caller, memory_id)
        return self.engine_of(caller).history(memory_id, **caller.tenant)

    @requires(Role.READER)
    def linked_entities(self, caller: Caller, memory_ids: Sequence[str]) -> dict[str, list[str]]:
        """Names of the graph entities each memory mentions (ids a search of ``caller`` returned)."""
        graph = self.engine_of(caller).graph
        return {mid: graph.entities_of(mid) for mid in memory_ids}

    @requires(Role.READER)
    def entities(self, caller: Caller) -> list[EntityCount]:
        """Users, agents, runs and apps of the caller's project with their memory counts
        (a confined caller's: those of its own memories, see :func:`.confine.entity_tally`)."""
        if caller.pinned:
            return entity_tally(caller, lambda page: self.list_memories(caller, page))[0]
        return self.engine_of(caller).counts.list(caller.org_id, caller.project_id)

    # -- change (update and delete: .memory_changes) ------------------------------------
    def reset(self) -> None:
        """Every memory, entity and history row of every tenant (admin only, at the door)."""
        for engine in self._engines() if self._engines is not None else [self.engine]:
            engine.reset()
