"""Request and response models of the self-hosted REST API.

They validate requests and, through :mod:`memorist.http.openapi`, document them.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema

from ...errors import ValidationError
from ...limits import MAX_PAGE_SIZE, MAX_QUERY_CHARS, MAX_TOP_K

Identifier = Field(default=None, min_length=1, max_length=255)


class MessageIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    #: ``developer`` is OpenAI's newer name for ``system`` and is stored as such.
    role: Literal["user", "assistant", "system", "tool", "developer"] = "user"
    content: str = Field(max_length=100_000)
    name: str | None = Field(default=None, max_length=255)


class AddMemories(BaseModel):
    model_config = ConfigDict(extra="forbid")

    messages: list[MessageIn] = Field(min_length=1, max_length=500)
    user_id: str | None = Identifier
    agent_id: str | None = Identifier
    run_id: str | None = Identifier
    app_id: str | None = Identifier
    metadata: dict[str, Any] | None = None
    infer: bool = True
    expiration_date: str | None = None
    timestamp: str | int | float | None = None
    custom_categories: list[dict[str, str]] | dict[str, str] | None = None
    custom_instructions: str | None = Field(default=None, max_length=20_000)
    includes: str | None = Field(default=None, max_length=20_000)
    excludes: str | None = Field(default=None, max_length=20_000)
    multilingual: bool = False
    enable_graph: bool | None = None


class AddedMemory(BaseModel):
    id: str
    memory: str
    event: Literal["ADD"]


class MergedInput(BaseModel):
    """A proposed fact not stored because a memory already says it (see docs/memory-rules.md)."""

    memory: str
    event: Literal["MERGED"]
    memory_id: str
    matched_memory: str | None
    reason: str
    similarity: float
    source_message: int | None


class SkippedPart(BaseModel):
    """An input message, or a part of one, that held nothing to remember, and why."""

    memory: str
    event: Literal["SKIPPED"]
    reason: str
    source_message: int | None


class AddResult(BaseModel):
    """``merged`` and ``skipped`` are present when the add had any."""

    results: list[AddedMemory]
    merged: list[MergedInput] = []
    skipped: list[SkippedPart] = []


class ListQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    user_id: str | None = Identifier
    agent_id: str | None = Identifier
    run_id: str | None = Identifier
    app_id: str | None = Identifier
    page: int = Field(default=1, ge=1, le=1_000_000)
    page_size: int = Field(default=100, ge=1, le=MAX_PAGE_SIZE)
    show_expired: bool = False
    latest_only: bool = Field(default=False, description="Leave out memories a newer one superseded")
    as_of: str | int | float | None = Field(
        default=None, description="Answer as of this date-time: memories observed by then, versions current then"
    )
    text: str | None = Field(
        default=None,
        min_length=1,
        max_length=1000,
        description="Full-text: only memories whose text contains every word of this, case-insensitive "
        '(the filter `{"memory": {"icontains": word}}` per word); still newest first',
    )

    sort: Literal["-created_at", "created_at", "-updated_at", "updated_at", "memory", "-memory"] = Field(
        default="-created_at",
        description="Order of the pages: a field, `-` first for descending. `updated_at` and `memory` sort "
        "at most 20,000 matching memories (a 400 past that: filter first)",
    )
    category: str | None = Field(
        default=None, min_length=1, max_length=1000, description="Comma-separated: memories in any of these categories"
    )
    created_from: str | None = Field(default=None, max_length=64, description="Created at or after this ISO date-time")
    created_to: str | None = Field(default=None, max_length=64, description="Created at or before this ISO date-time")
    metadata_key: str | None = Field(
        default=None,
        min_length=1,
        max_length=255,
        pattern=r"^[A-Za-z0-9_\-]+$",
        description="Memories whose metadata has this key",
    )
    entity: str | None = Field(
        default=None,
        min_length=1,
        max_length=400,
        description="Comma-separated graph entity ids (from GET /graph, at most 8): memories that mention every one",
    )

    def text_filter(self) -> dict[str, Any] | None:
        """``text`` and the column filters as one filter: every word must occur (at most 32 words; a
        longer text is a 400 from parsing), and every filter given must hold."""
        clauses: list[dict[str, Any]] = [{"memory": {"icontains": w}} for w in (self.text or "").split()]
        categories = [c.strip() for c in (self.category or "").split(",") if c.strip()]
        if categories:
            clauses.append({"categories": {"in": categories}})
        if self.created_from:
            clauses.append({"created_at": {"gte": self.created_from}})
        if self.created_to:
            clauses.append({"created_at": {"lte": self.created_to}})
        if self.metadata_key:
            clauses.append({f"metadata.{self.metadata_key}": "*"})
        if not clauses:
            return None
        return clauses[0] if len(clauses) == 1 else {"AND": clauses}

    def entity_ids(self) -> tuple[str, ...]:
        """``entity`` split; more than 8 ids is a 400."""
        ids = tuple(dict.fromkeys(i.strip() for i in (self.entity or "").split(",") if i.strip()))
        if len(ids) > 8:
            raise ValidationError(f"entity: at most 8 entity ids; got {len(ids)}")
        return ids


class DeleteAllQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    user_id: str | None = Identifier
    agent_id: str | None = Identifier
    run_id: str | None = Identifier
    app_id: str | None = Identifier


class DeleteOneQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    delete_linked: bool = Field(
        default=False, description="Also delete the older memories this one superseded, transitively"
    )


class MemoryItem(BaseModel):
    id: str
    memory: str
    hash: str
    metadata: dict[str, Any]
    categories: list[str]
    created_at: str | None
    updated_at: str | None
    expiration_date: str | None
    observed_at: str | None = Field(default=None, description="When the fact was said (the conversation's time)")
    attributed_to: str | None
    user_id: str | None
    agent_id: str | None
    run_id: str | None
    app_id: str | None
    #: On get and list (never on search results): the memory's place among its fact's versions.
    linked_memory_ids: list[str] | None = Field(default=None, description="Older memories this one superseded")
    superseded_by: str | None = Field(default=None, description="The memory that superseded this one")
    superseded_at: str | None = Field(default=None, description="When it was superseded")


class MemoryPage(BaseModel):
    results: list[MemoryItem]
    count: int
    page: int
    page_size: int


class UpdateMemory(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str | None = Field(default=None, min_length=1, max_length=100_000)
    memory: str | None = Field(default=None, min_length=1, max_length=100_000, description="alias of text")
    data: str | None = Field(default=None, min_length=1, max_length=100_000, description="alias of text")
    metadata: dict[str, Any] | None = None
    expiration_date: str | None = None
    timestamp: str | int | float | None = None


class SearchBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    user_id: str | None = Identifier
    agent_id: str | None = Identifier
    run_id: str | None = Identifier
    app_id: str | None = Identifier
    filters: dict[str, Any] | None = None
    top_k: int = Field(default=10, ge=1, le=MAX_TOP_K)
    limit: int | None = Field(default=None, ge=1, le=MAX_TOP_K, description="alias of top_k")
    threshold: float = Field(default=0.1, ge=0.0, le=1.0)
    rerank: bool = False
    explain: bool = False
    show_expired: bool = False
    enable_graph: bool | None = None
    reference_date: str | int | float | None = Field(
        default=None, description="Anchors relative time in the query (\"last week\"): a date or Unix seconds"
    )
    latest_only: bool = Field(default=False, description="Leave out memories a newer one superseded")
    as_of: str | int | float | None = Field(
        default=None, description="Answer as of this date-time: memories observed by then, versions current then"
    )


class SearchResult(MemoryItem):
    score: float
    score_details: dict[str, Any] | None = None


class SearchResults(BaseModel):
    results: list[SearchResult]


class HistoryEntry(BaseModel):
    id: str
    memory_id: str
    event: str
    old_memory: str | None
    new_memory: str | None
    old_metadata: dict[str, Any] | None = None
    new_metadata: dict[str, Any] | None = None
    actor: str | None
    role: str | None
    created_at: str
    input: str | None = Field(default=None, description="ADD: the message the memory was extracted from")
    linked_memory_ids: list[str] = Field(default_factory=list, description="ADD: the memories this add superseded")
    superseded_by: str | None = Field(default=None, description="SUPERSEDED: the memory that replaced this one")


class Message(BaseModel):
    message: str


class DeletedCount(Message):
    deleted: int


class Register(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=255)
    email: str = Field(min_length=3, max_length=320)
    password: str = Field(min_length=1, max_length=1024)


class CreateUser(Register):
    role: Literal["admin", "user"] = "user"


class Login(BaseModel):
    model_config = ConfigDict(extra="forbid")

    email: str = Field(max_length=320)
    password: str = Field(max_length=1024)


class Refresh(BaseModel):
    model_config = ConfigDict(extra="forbid")

    refresh_token: str = Field(min_length=1, max_length=4096)


class Tokens(BaseModel):
    access_token: str
    refresh_token: str
    token_type: Literal["bearer"]


class UserOut(BaseModel):
    id: str
    name: str
    email: str
    role: str
    created_at: str


class UpdateMe(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(default=None, min_length=1, max_length=255)
    email: str | None = Field(default=None, min_length=3, max_length=320)
    #: Required with ``email``: an account's login email changes only with its password.
    current_password: str | None = Field(default=None, max_length=1024)


class ChangePassword(BaseModel):
    model_config = ConfigDict(extra="forbid")

    current_password: str = Field(max_length=1024)
    new_password: str = Field(max_length=1024)


class PasswordChanged(BaseModel):
    message: str
    #: Only for a session from before sessions were tracked (all were revoked): its new login.
    access_token: str | None = None
    refresh_token: str | None = None
    token_type: Literal["bearer"] | None = None


class Logout(BaseModel):
    model_config = ConfigDict(extra="forbid")

    #: Sign out the login of this refresh token (one of the caller's) instead of the calling session.
    refresh_token: str | None = Field(default=None, min_length=1, max_length=4096)
    #: Sign out every session of the account (access tokens included, at once).
    everywhere: bool = False


class AdminUserOut(UserOut):
    disabled: bool
    last_login: str | None


class UserPatch(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: Literal["admin", "user"] | None = None
    disabled: bool | None = None


class PasswordReset(BaseModel):
    model_config = ConfigDict(extra="forbid")

    password: str = Field(max_length=1024)


class SetupStatus(BaseModel):
    needsSetup: bool  # noqa: N815 - the wire name the dashboard reads
    authDisabled: bool = False  # noqa: N815
    jwtConfigured: bool = True  # noqa: N815


class CreateKey(BaseModel):
    model_config = ConfigDict(extra="forbid")

    label: str = Field(default="default", min_length=1, max_length=255)


class KeyOut(BaseModel):
    id: str
    label: str
    key_prefix: str
    created_at: str
    last_used_at: str | None


class CreatedKey(BaseModel):
    id: str
    key: str
    label: str
    key_prefix: str
    created_at: str


class RequestsQuery(BaseModel):
    """Filters run in the database, before ``limit``: the newest ``limit`` rows *that match*."""

    model_config = ConfigDict(extra="forbid")

    limit: int = Field(default=50, ge=1, le=500)
    status: str | None = Field(
        default=None,
        pattern=r"^[1-5](\d\d)?$",
        description="A status class (`4`: every 4xx) or one status code (`401`)",
    )
    path: str | None = Field(
        default=None, min_length=1, max_length=2048, description="Only paths containing this (case-insensitive)"
    )


class RequestEntry(BaseModel):
    id: str
    method: str
    path: str
    status_code: int
    latency_ms: float
    auth_type: str
    created_at: str


class GraphEntityOut(BaseModel):
    id: str
    name: str
    kind: str = Field(description="proper_noun (a name), quoted or noun_phrase (a thing), as the extractor found it")
    memories: int


class GraphEdgeOut(BaseModel):
    source: str
    target: str
    weight: int = Field(description="How many memories mention both entities")
    memory_ids: list[str] = Field(description="Up to 5 of them; GET /memories?entity=source,target lists all")


class EntityGraphOut(BaseModel):
    entities: list[GraphEntityOut]
    edges: list[GraphEdgeOut]
    total_entities: int
    linked_memories: int


class GraphQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    user_id: str | None = Identifier
    agent_id: str | None = Identifier
    run_id: str | None = Identifier
    app_id: str | None = Identifier


class MemoryEntityOut(BaseModel):
    id: str
    name: str
    kind: str


class EntityOut(BaseModel):
    id: str
    type: str
    total_memories: int
    created_at: str
    updated_at: str


class Providers(BaseModel):
    language_model: list[str]
    embedder: list[str]
    vector_store: list[str]
    reranker: list[str]
    entity_extractor: list[str]


#: A section of ``POST /configure``: documented as an object; anything else reaches the
#: runtime's own checks, which answer 400 naming the section (not a 422 from here).
ConfigSection = Annotated[
    Any,
    WithJsonSchema({"type": "object", "additionalProperties": True, "description": "deep-merged into the section"}),
]


class ConfigurePatch(BaseModel):
    """Settings to change at runtime; each section is deep-merged into the current overrides.

    A provider slot takes ``{"provider": name, "options": {...}}`` (either part may be
    left out); ``engine`` takes engine tuning keys. Other sections cannot change at
    runtime and are refused with a 400 naming them.
    """

    model_config = ConfigDict(extra="allow")

    language_model: ConfigSection = Field(default=None, examples=[{"provider": "heuristic"}])
    embedder: ConfigSection = None
    vector_store: ConfigSection = None
    reranker: ConfigSection = Field(default=None, examples=[{"provider": "mmr", "options": {}}])
    entity_extractor: ConfigSection = None
    engine: ConfigSection = Field(default=None, examples=[{"candidate_pool": 200}])


class ConfigAuthView(BaseModel):
    disabled: bool
    jwt_secret: str | None
    admin_api_key: str | None


class ConfigView(BaseModel):
    """The configurable sections in effect (secrets redacted) and the stored runtime overrides."""

    language_model: dict[str, Any]
    embedder: dict[str, Any]
    vector_store: dict[str, Any]
    reranker: dict[str, Any]
    entity_extractor: dict[str, Any]
    engine: dict[str, Any]
    auth: ConfigAuthView
    overrides: dict[str, Any]


class HealthOut(BaseModel):
    status: Literal["ok"]
    version: str
    ready: bool = Field(
        True, description="false while this worker is still building its engine (components empty until then)"
    )
    components: dict[str, str] = Field(description="slot -> provider description")


class ReadyOut(BaseModel):
    status: Literal["ready"]


class RootOut(BaseModel):
    name: str
    version: str
    docs: str
    openapi: str
    dashboard: str
