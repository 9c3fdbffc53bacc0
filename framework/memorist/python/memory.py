"""``memorist.Memory``: mem0's ``Memory`` calls and dictionary results over the Memorist engine.

Code written for ``from mem0 import Memory`` runs with only the import changed:
``Memory()`` opens the embedded default (``./memorist-data``, or ``MEMORIST_*``),
``Memory.from_config(dict)`` takes Memorist settings (mem0's ``llm`` and
``{"provider", "config"}`` spellings are translated), and ``add``, ``search``,
``get_all``, ``get``, ``update``, ``delete``, ``delete_all``, ``history`` and
``reset`` take mem0's argument names and answer mem0's dictionaries
(``{"results": [{"id", "memory", "score", "metadata", "created_at", ...}]}``).
Those dictionaries are the REST API's response models projected as mem0 shows them
(:meth:`memorist.operations.wire.MemoryItem.mem0`), so a field added to the wire reaches
Python too.

Both generations of mem0 call styles are accepted: identifiers at the top level
(``search(q, user_id="alice")``, mem0 1.x) or in ``filters`` (mem0 2.x), and
``limit`` as well as ``top_k``. Invalid arguments raise ``ValueError`` (the
engine's :class:`~memorist.errors.ValidationError` is one), as mem0's do.

Every call goes through the operations layer (:mod:`memorist.operations`), like the
HTTP surfaces: the scope rule, tenant confinement and the add outcome (what was
stored, merged or skipped) are the same in every door. The typed engine stays
available as :class:`memorist.Engine` (records and ``SearchHit`` objects instead of
dictionaries); ``Memory.engine`` is the one a facade wraps.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..config.mem0_config import IGNORED_MEM0_KEYS, translate_config  # noqa: F401 (re-exported)
from ..config.settings import Settings
from ..engine.supersession import Links
from ..errors import NotFoundError, ValidationError
from ..kernel.core import in_process_operations
from ..operations import Operations
from ..operations.caller import Caller
from ..operations.inputs import UNSET, AddInput, EntityIds, ListInput, SearchInput, UpdateInput
from ..operations.results import AddedMemory, AddResult
from ..operations.wire import HistoryEntry, MemoryItem, SearchResult
from ..records import ENTITY_SCOPE_FIELDS, MemoryRecord
from .engine import Engine

Config = Mapping[str, Any] | Settings | str | os.PathLike[str] | None
_UNSET: Any = UNSET
#: Memorist-only add arguments the facade passes through (mem0 code never sets them).
ADD_OPTIONS = ("includes", "excludes", "custom_categories", "multilingual")


def memory_dict(record: MemoryRecord, links: Links | None = None) -> dict[str, Any]:
    """One memory as mem0 answers it: the wire item without the observation time and unset scope ids
    (with ``links``: get and get_all, its ``linked_memory_ids`` / ``superseded_by`` / ``superseded_at``)."""
    return MemoryItem.of(record, links).mem0()


def add_dict(result: AddResult) -> dict[str, Any]:
    """mem0's add answer (each stored memory in full, with ``event``), plus what was merged into an
    existing memory or skipped (and why), as the REST answer says it."""
    out = result.wire(AddedMemory)
    out["results"] = [{**memory_dict(record), "event": "ADD"} for record in result.stored]
    return out


def _scope_filters(
    filters: Mapping[str, Any] | None, ids: Mapping[str, Any], what: str
) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """``filters`` and top-level identifiers, reconciled (mem0 2.x puts them in filters, 1.x at the top)."""
    top: dict[str, str] = {k: str(v).strip() for k, v in ids.items() if v is not None}
    for key, given in top.items():
        if not given:
            raise ValidationError(f"{key}: must not be empty")
    if filters is not None and not isinstance(filters, Mapping):
        raise ValidationError(f"{what}: filters must be a dict")
    rest = dict(filters or {})
    for key in ENTITY_SCOPE_FIELDS:  # mem0 2.x scopes by {"user_id": "alice"} in filters: lift it
        value = rest.get(key)
        if isinstance(value, str | int) and not isinstance(value, bool) and key not in top:
            top[key] = str(rest.pop(key)).strip()
            if not top[key]:
                raise ValidationError(f"filters.{key}: must not be empty")
    return (rest or None), top


class Memory:
    """mem0's ``Memory`` interface over one Memorist engine (see the module docstring)."""

    def __init__(self, config: Config = None, *, engine: Engine | None = None) -> None:
        instructions = None
        if engine is None:
            if isinstance(config, Mapping):
                config, instructions = translate_config(config)
            engine = Engine.from_config(config)
        self.engine = engine
        # The operator's limits, as on every door (memorist.kernel.core.in_process_operations).
        self.operations: Operations = in_process_operations(lambda: self.engine, engine.settings)
        self._caller = Caller(actor="python")
        self._instructions = instructions

    @classmethod
    def from_config(cls, config_dict: Config = None) -> Memory:
        """From a dict of settings (Memorist's, or mem0's spelling), a YAML path or ``Settings``."""
        return cls(config_dict)

    # -- writes --------------------------------------------------------------------
    def add(
        self,
        messages: str | Mapping[str, Any] | Sequence[Any],
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        app_id: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        timestamp: Any = None,
        expiration_date: Any = None,
        infer: bool = True,
        memory_type: str | None = None,
        prompt: str | None = None,
        **options: Any,
    ) -> dict[str, Any]:
        """Extract and store memories: ``{"results": [{"id", "memory", "event": "ADD", ...}]}``.

        ``prompt`` (or the config's ``custom_fact_extraction_prompt``) reaches the
        language model as custom instructions; ``memory_type`` is accepted for mem0
        compatibility (procedural memories are stored like any other).
        """
        request = self._add_input(
            messages,
            user_id=user_id,
            agent_id=agent_id,
            run_id=run_id,
            app_id=app_id,
            metadata=metadata,
            timestamp=timestamp,
            expiration_date=expiration_date,
            infer=infer,
            prompt=prompt,
            **options,
        )
        return add_dict(self.operations.add(self._caller, request))

    def add_many(self, items: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """Many adds in one call (bulk import): each item is a dict of :meth:`add`'s arguments
        (``messages`` plus ``user_id``, ``metadata``, ``timestamp``, ``infer``, ...).

        Answers one :meth:`add` answer per item, in order. Every item is checked before any
        is stored: a bad one raises ``ValueError`` naming it (``items[3].user_id: ...``) and
        nothing is stored. The adds run through the engine's batch path
        (:meth:`memorist.Engine.add_many`), faster than one :meth:`add` per item.
        """
        requests = []
        for index, item in enumerate(items):
            if not isinstance(item, Mapping) or "messages" not in item:
                raise ValidationError(f"items[{index}]: a dict with 'messages' (and add's other arguments)")
            args = dict(item)
            try:
                requests.append(self._add_input(args.pop("messages"), **args))
            except ValidationError as exc:
                raise ValidationError(f"items[{index}].{exc.message}") from None
            except TypeError as exc:
                raise TypeError(f"items[{index}]: {exc}") from None
        return [add_dict(result) for result in self.operations.add_batch(self._caller, requests)]

    def _add_input(
        self,
        messages: Any,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        app_id: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        timestamp: Any = None,
        expiration_date: Any = None,
        infer: bool = True,
        memory_type: str | None = None,
        prompt: str | None = None,
        **options: Any,
    ) -> AddInput:
        """The operations layer's add from :meth:`add`'s arguments (one add, or one item of :meth:`add_many`)."""
        _, ids = _scope_filters(None, dict(user_id=user_id, agent_id=agent_id, run_id=run_id, app_id=app_id), "add")
        instructions = prompt or options.pop("custom_instructions", None) or self._instructions
        if unknown := sorted(set(options) - set(ADD_OPTIONS)):
            raise TypeError(f"add() got an unexpected keyword argument {unknown[0]!r}")
        request = AddInput(
            messages=messages,
            ids=EntityIds(**ids),
            metadata=dict(metadata) if metadata is not None else None,
            timestamp=timestamp,
            expiration_date=expiration_date,
            infer=infer,
            custom_instructions=instructions,
            **options,
        )
        return request

    def update(
        self,
        memory_id: str,
        text: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        expiration_date: Any = _UNSET,
        data: str | None = None,
        timestamp: Any = None,
    ) -> dict[str, str]:
        """Change a memory's text (``text``, or mem0's older ``data``), metadata, expiration or
        ``timestamp`` (when it was said); a call that changes nothing raises ``ValueError``."""
        text = text if text is not None else data
        request = UpdateInput(
            text=text,
            metadata=dict(metadata) if metadata is not None else None,
            expiration_date=expiration_date,
            timestamp=timestamp,
        )
        self.operations.update(self._caller, memory_id, request)
        return {"message": "Memory updated successfully!"}

    def delete(self, memory_id: str, delete_linked: bool = False) -> dict[str, str]:
        """One memory; ``delete_linked``: the older memories it superseded too, transitively."""
        self.operations.delete(self._caller, memory_id, delete_linked=delete_linked)
        return {"message": "Memory deleted successfully!"}

    def delete_all(
        self,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        app_id: str | None = None,
    ) -> dict[str, Any]:
        """Every memory of the identifiers (never capped); refuses to run without one (use ``reset``)."""
        _, ids = _scope_filters(
            None, dict(user_id=user_id, agent_id=agent_id, run_id=run_id, app_id=app_id), "delete_all"
        )
        if not ids:
            raise ValidationError(
                "delete_all needs user_id, agent_id, run_id or app_id; use reset() to delete everything"
            )
        deleted = self.operations.delete_all(self._caller, EntityIds(**ids))
        return {"message": "Memories deleted successfully!", "deleted": deleted}

    def reset(self) -> None:
        """Delete every memory, entity link and history row."""
        self.operations.reset()

    # -- reads ---------------------------------------------------------------------
    def search(
        self,
        query: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        app_id: str | None = None,
        top_k: int | None = None,
        limit: int | None = None,
        filters: Mapping[str, Any] | None = None,
        threshold: float | None = None,
        rerank: bool = False,
        explain: bool = False,
        show_expired: bool = False,
        latest_only: bool = False,
        as_of: Any = None,
        reference_date: Any = None,
        **ignored: Any,
    ) -> dict[str, Any]:
        """Hybrid search: ``{"results": [memory + "score"]}``, best first (``top_k`` default 20, as mem0).

        Without a ``threshold`` nothing is cut by score (mem0 OSS's habit: a broad question
        such as "What do you know about me?" still lists the user's memories, best first);
        pass ``threshold=0.1`` for the engine's and the REST API's default.
        """
        parsed, ids = _scope_filters(
            filters, dict(user_id=user_id, agent_id=agent_id, run_id=run_id, app_id=app_id), "search"
        )
        request = SearchInput(
            query=query,
            ids=EntityIds(**ids),
            filters=parsed,
            top_k=top_k or limit or 20,
            threshold=0.0 if threshold is None else threshold,
            rerank=rerank,
            explain=explain,
            show_expired=show_expired,
            latest_only=latest_only,
            as_of=as_of,
            reference_date=reference_date,
        )
        return {"results": [SearchResult.of_hit(hit).mem0() for hit in self.operations.search(self._caller, request)]}

    def get(self, memory_id: str) -> dict[str, Any] | None:
        """One memory, or ``None`` when there is none with that id (as mem0)."""
        try:
            record = self.operations.get(self._caller, memory_id)
            return memory_dict(record, self.operations.links(self._caller, [record])[record.id])
        except NotFoundError:
            return None

    def get_all(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        app_id: str | None = None,
        filters: Mapping[str, Any] | None = None,
        top_k: int | None = None,
        limit: int | None = None,
        show_expired: bool = False,
        latest_only: bool = False,
        as_of: Any = None,
        **ignored: Any,
    ) -> dict[str, Any]:
        """Memories of the identifiers, newest first: ``{"results": [...]}`` (``top_k`` default 20, as mem0)."""
        parsed, ids = _scope_filters(
            filters, dict(user_id=user_id, agent_id=agent_id, run_id=run_id, app_id=app_id), "get_all"
        )
        request = ListInput(
            ids=EntityIds(**ids),
            filters=parsed,
            page_size=top_k or limit or 20,
            show_expired=show_expired,
            latest_only=latest_only,
            as_of=as_of,
        )
        page = self.operations.list_memories(self._caller, request)
        links = self.operations.links(self._caller, page.records)
        return {"results": [memory_dict(record, links[record.id]) for record in page.records]}

    def history(self, memory_id: str) -> list[dict[str, Any]]:
        """Every ADD / UPDATE / DELETE of a memory, oldest first (kept after deletion)."""
        return [HistoryEntry.of(row).mem0() for row in self.operations.history(self._caller, memory_id)]

    # -- lifecycle -----------------------------------------------------------------
    def close(self) -> None:
        self.engine.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncMemory:
    """mem0's ``AsyncMemory``: the same calls as :class:`Memory`, awaited.

    Each call runs the synchronous engine in a worker thread (``asyncio.to_thread``),
    so an event loop keeps serving while embeddings and storage do their work.
    """

    def __init__(self, config: Config = None, *, memory: Memory | None = None) -> None:
        self.sync = memory or Memory(config)

    @classmethod
    async def from_config(cls, config_dict: Config = None) -> AsyncMemory:
        return cls(memory=await asyncio.to_thread(Memory, config_dict))

    @property
    def engine(self) -> Engine:
        return self.sync.engine

    async def add(self, messages: Any, **kwargs: Any) -> dict[str, Any]:
        return await asyncio.to_thread(self.sync.add, messages, **kwargs)

    async def add_many(self, items: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
        return await asyncio.to_thread(self.sync.add_many, list(items))

    async def search(self, query: str, **kwargs: Any) -> dict[str, Any]:
        return await asyncio.to_thread(self.sync.search, query, **kwargs)

    async def get_all(self, **kwargs: Any) -> dict[str, Any]:
        return await asyncio.to_thread(self.sync.get_all, **kwargs)

    async def get(self, memory_id: str) -> dict[str, Any] | None:
        return await asyncio.to_thread(self.sync.get, memory_id)

    async def update(self, memory_id: str, *args: Any, **kwargs: Any) -> dict[str, str]:
        return await asyncio.to_thread(self.sync.update, memory_id, *args, **kwargs)

    async def delete(self, memory_id: str, delete_linked: bool = False) -> dict[str, str]:
        return await asyncio.to_thread(self.sync.delete, memory_id, delete_linked)

    async def delete_all(self, **kwargs: Any) -> dict[str, Any]:
        return await asyncio.to_thread(self.sync.delete_all, **kwargs)

    async def history(self, memory_id: str) -> list[dict[str, Any]]:
        return await asyncio.to_thread(self.sync.history, memory_id)

    async def reset(self) -> None:
        await asyncio.to_thread(self.sync.reset)

    def close(self) -> None:
        self.sync.close()

    async def __aenter__(self) -> AsyncMemory:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()
