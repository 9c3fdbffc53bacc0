"""Request and response models of the self-hosted REST API.

Request models validate and, through :mod:`memorist.http.openapi`, document requests. The
memory results (items, hits, add answers, history, entities) are the operations layer's
response models (:mod:`memorist.operations.wire`), which serialize them for every door;
this module imports them so routes name every model from one place.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ...errors import ValidationError
from ...limits import MAX_PAGE, MAX_PAGE_SIZE, MAX_QUERY_CHARS, MAX_TOP_K
from ...operations.results import AddedMemory as AddedMemory
from ...operations.wire import EntityOut as EntityOut
from ...operations.wire import HistoryEntry as HistoryEntry
from ...operations.wire import MemoryItem as MemoryItem
from ...operations.wire import MergedInput, SkippedPart
from ...operations.wire import SearchResult as SearchResult

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
    page: int = Field(default=1, ge=1, le=MAX_PAGE)
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
        default=None, description='Anchors relative time in the query ("last week"): a date or Unix seconds'
    )
    latest_only: bool = Field(default=False, description="Leave out memories a newer one superseded")
    as_of: str | int | float | None = Field(
        default=None, description="Answer as of this date-time: memories observed by then, versions current then"
    )


class SearchResults(BaseModel):
    results: list[SearchResult]


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


class Providers(BaseModel):
    language_model: list[str]
    embedder: list[str]
    vector_store: list[str]
    reranker: list[str]
    entity_extractor: list[str]
