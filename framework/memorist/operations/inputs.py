"""Typed requests of the operations layer: what a door hands over after parsing its wire format.

Each door (self-hosted REST, platform API, worker, dashboard, MCP) translates
its own body or arguments into one of these; the rules that apply to the
operation (the scope rule, limits) are checked by :class:`~.service.Operations`,
not by the door.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import ValidationError
from ..filters import Filter
from ..records import ENTITY_SCOPE_FIELDS, ENTITY_TYPES

#: Path word -> scope field (``DELETE /entities/user/alice``, ``/v2/entities/user/alice/``).
ENTITY_FIELDS = {entity_type: name for name, entity_type in ENTITY_TYPES.items()}
#: What an update may change.
CHANGEABLE = frozenset({"text", "metadata", "timestamp", "expiration_date"})
#: The one answer to an update that changes nothing.
NO_CHANGE = "update needs a change: give text, metadata, timestamp or expiration_date"
#: ``expiration_date`` not given (``None`` means "clear it").
UNSET: Any = ...


@dataclass(frozen=True)
class EntityIds:
    """``user_id`` / ``agent_id`` / ``run_id`` / ``app_id``; any may be unset."""

    user_id: str | None = None
    agent_id: str | None = None
    run_id: str | None = None
    app_id: str | None = None

    @classmethod
    def of(cls, source: Any) -> EntityIds:
        """The identifiers read off a parsed body or query (attributes, or keys of a mapping)."""
        if isinstance(source, dict):
            return cls(**{f: source.get(f) or None for f in ENTITY_SCOPE_FIELDS})
        return cls(**{f: getattr(source, f, None) or None for f in ENTITY_SCOPE_FIELDS})

    @classmethod
    def entity(cls, entity_type: str, entity_id: str) -> EntityIds:
        """One entity named by a path (``user``, ``alice``); 400 for an unknown type."""
        field_name = ENTITY_FIELDS.get(entity_type)
        if field_name is None:
            raise ValidationError(f"entity_type: '{entity_type}' is not one of {', '.join(ENTITY_FIELDS)}")
        return cls(**{field_name: entity_id})

    def present(self) -> dict[str, str]:
        return {f: v for f in ENTITY_SCOPE_FIELDS if (v := getattr(self, f)) is not None}

    def wildcards(self) -> list[str]:
        """The fields given as ``"*"`` (every entity of that type), in field order."""
        return [f for f in ENTITY_SCOPE_FIELDS if getattr(self, f) == "*"]

    def all(self) -> dict[str, str | None]:
        return {f: getattr(self, f) for f in ENTITY_SCOPE_FIELDS}


@dataclass
class AddInput:
    """An add as every door hands it over (the engine's ``add_request`` arguments)."""

    messages: Any
    ids: EntityIds = field(default_factory=EntityIds)
    metadata: dict[str, Any] | None = None
    timestamp: Any = None
    expiration_date: Any = None
    infer: bool = True
    custom_instructions: str | None = None
    includes: str | None = None
    excludes: str | None = None
    custom_categories: Any = None
    multilingual: bool = False

    def payload(self, org_id: str, project_id: str, actor: str | None) -> dict[str, Any]:
        """Keyword arguments of ``Memory.add_request``; JSON-safe, so the queue stores it as is."""
        return {
            "messages": self.messages,
            **self.ids.present(),
            "org_id": org_id,
            "project_id": project_id,
            "metadata": self.metadata,
            "timestamp": self.timestamp,
            "expiration_date": self.expiration_date,
            "infer": self.infer,
            "custom_instructions": self.custom_instructions,
            "includes": self.includes,
            "excludes": self.excludes,
            "custom_categories": self.custom_categories,
            "multilingual": self.multilingual,
            "actor": actor,
        }


@dataclass
class SearchInput:
    """A hybrid search. ``scoped``: the scope rule applies (ids or filters required)."""

    query: str
    ids: EntityIds = field(default_factory=EntityIds)
    filters: dict[str, Any] | None = None
    where: Filter | None = None
    top_k: int = 10
    threshold: float = 0.1
    rerank: bool = False
    explain: bool = False
    show_expired: bool = False
    scoped: bool = True
    #: Leave out memories a newer one superseded.
    latest_only: bool = False
    #: Answer as of this date-time (memories observed by then; versions current then).
    as_of: Any = None
    #: Anchors relative time in the query ("last week") at this date.
    reference_date: Any = None
    #: Memory decay (None: the server's ``engine.decay``; a platform project passes its own).
    decay: bool | None = None


@dataclass
class ListInput:
    """One page of memories. ``scoped``: the scope rule applies (an identifier required)."""

    ids: EntityIds = field(default_factory=EntityIds)
    filters: dict[str, Any] | None = None
    where: Filter | None = None
    page: int = 1
    page_size: int = 100
    show_expired: bool = False
    scoped: bool = True
    latest_only: bool = False
    as_of: Any = None
    #: The page's order (:data:`memorist.engine.browse.SORTS`).
    sort: str = "-created_at"
    #: Only memories that mention every one of these graph entities (ids from ``GET /graph``).
    entity_ids: tuple[str, ...] = ()


@dataclass
class UpdateInput:
    """An explicit change; ``expiration_date=None`` clears it, :data:`UNSET` leaves it."""

    text: str | None = None
    metadata: dict[str, Any] | None = None
    timestamp: Any = None
    expiration_date: Any = UNSET
    #: Fields the caller set explicitly, even to null (``{"metadata": null}`` is a change request).
    given: frozenset[str] = frozenset()

    def check(self) -> None:
        """At least one change is asked for: the one rule and wording for every door (REST, platform,
        MCP, Python), checked by :meth:`Operations.update` before the memory is looked up."""
        values = (self.text, self.metadata, self.timestamp)
        if all(v is None for v in values) and self.expiration_date is UNSET and not self.given & CHANGEABLE:
            raise ValidationError(NO_CHANGE)
