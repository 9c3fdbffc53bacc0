"""Request and response models of the platform API (what the existing platform client sends and reads).

The memory results are the operations layer's response models (:mod:`memorist.operations.wire`),
which serialize them for every door; the platform's item is derived from the self-hosted one
(:data:`MemoryItemV1`), so the two surfaces cannot drift apart.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator

from ...auth.users import normalize_email
from ...errors import ValidationError
from ...limits import MAX_BATCH_CHANGES, MAX_PAGE, MAX_PLATFORM_PAGE_SIZE, MAX_QUERY_CHARS, MAX_TOP_K
from ...operations.results import AddedMemoryV3 as AddedMemoryV3
from ...operations.results import EventOut as EventOut
from ...operations.wire import EntityV1 as EntityV1
from ...operations.wire import HistoryEntryV1 as HistoryEntryV1
from ...operations.wire import MemoryItem, MergedInput, SearchResult, SkippedPart
from ...records import MESSAGE_ROLES

ENTITY_KEYS = ("user_id", "agent_id", "run_id", "app_id")
#: What the tenancy accepts as an organization or project id.
TENANT_ID = r"^[A-Za-z0-9_\-]{1,64}$"


class PlatformBody(BaseModel):
    # The client adds fields over time (output_format, version, async_mode, ...): accept and ignore.
    model_config = ConfigDict(extra="ignore")


class AddV3(PlatformBody):
    messages: list[dict[str, Any]] | str = Field(min_length=1)
    user_id: str | None = Field(default=None, min_length=1, max_length=255)
    agent_id: str | None = Field(default=None, min_length=1, max_length=255)
    run_id: str | None = Field(default=None, min_length=1, max_length=255)
    app_id: str | None = Field(default=None, min_length=1, max_length=255)
    filters: dict[str, Any] | None = None
    metadata: dict[str, Any] | None = None
    infer: bool = True
    custom_categories: list[dict[str, Any] | str] | dict[str, Any] | None = None
    custom_instructions: str | None = Field(default=None, max_length=20_000)
    agent_custom_instructions: str | None = Field(default=None, max_length=20_000)
    includes: str | None = Field(default=None, max_length=20_000)
    excludes: str | None = Field(default=None, max_length=20_000)
    timestamp: int | float | str | None = None
    expiration_date: str | None = None
    enable_graph: bool | None = None

    @field_validator("messages")
    @classmethod
    def _messages(cls, value: list[dict[str, Any]] | str) -> list[dict[str, Any]] | str:
        """Each message checked here, so a bad role or name is a 4xx naming it, never a 500 later."""
        if isinstance(value, str):
            return value
        for i, message in enumerate(value):
            role = message.get("role", "user")
            if role not in MESSAGE_ROLES:
                raise ValueError(f"messages[{i}].role: one of {', '.join(MESSAGE_ROLES)}, got {role!r}")
            if not isinstance(message.get("content"), str):
                raise ValueError(f"messages[{i}].content: a string is required")
            if message.get("name") is not None and not isinstance(message["name"], str):
                raise ValueError(f"messages[{i}].name: a string is required")
        return value


class SearchV3(PlatformBody):
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    filters: dict[str, Any] | None = None
    top_k: int = Field(default=10, ge=1, le=MAX_TOP_K)
    threshold: float = Field(default=0.1, ge=0.0, le=1.0)
    rerank: bool = False
    fields: list[str] | None = None
    categories: list[str] | None = None
    show_expired: bool = False
    explain: bool = False
    enable_graph: bool | None = None
    reference_date: str | int | float | None = Field(
        default=None, description='Anchors relative time in the query ("last week"): a date or Unix seconds'
    )
    latest_only: bool = Field(default=False, description="Leave out memories a newer one superseded")
    as_of: str | int | float | None = Field(
        default=None, description="Answer as of this date-time: memories observed by then, versions current then"
    )


class ListV3(PlatformBody):
    filters: dict[str, Any] | None = None
    start_date: str | None = None
    end_date: str | None = None
    categories: list[str] | None = None
    show_expired: bool = False
    fields: list[str] | None = None
    latest_only: bool = Field(default=False, description="Leave out memories a newer one superseded")
    as_of: str | int | float | None = Field(
        default=None, description="Answer as of this date-time: memories observed by then, versions current then"
    )


class Paging(BaseModel):
    model_config = ConfigDict(extra="ignore")

    page: int = Field(default=1, ge=1, le=MAX_PAGE)
    page_size: int = Field(default=100, ge=1, le=MAX_PLATFORM_PAGE_SIZE)


class UpdateV1(PlatformBody):
    text: str | None = Field(default=None, min_length=1, max_length=100_000)
    metadata: dict[str, Any] | None = None
    timestamp: int | float | str | None = None
    expiration_date: str | None = None


class DeleteQuery(BaseModel):
    model_config = ConfigDict(extra="ignore")

    user_id: str | None = None
    agent_id: str | None = None
    run_id: str | None = None
    app_id: str | None = None
    delete_linked: bool = False
    filters: str | None = Field(
        default=None,
        description="A filter document (JSON, or the Python dict literal mem0ai 2.x sends); its ids count as ids",
    )


class DeleteOneQuery(BaseModel):
    model_config = ConfigDict(extra="ignore")

    delete_linked: bool = Field(
        default=False, description="Also delete the older memories this one superseded, transitively"
    )


class BatchItem(BaseModel):
    model_config = ConfigDict(extra="ignore")

    memory_id: str = Field(min_length=1, max_length=64)
    text: str | None = Field(default=None, min_length=1, max_length=100_000)
    metadata: dict[str, Any] | None = None


class Batch(PlatformBody):
    memories: list[BatchItem] = Field(min_length=1, max_length=MAX_BATCH_CHANGES)


class ProjectPatch(PlatformBody):
    model_config = ConfigDict(extra="allow")


class ProjectCreate(PlatformBody):
    name: str = Field(min_length=1, max_length=255)
    description: str = Field(default="", max_length=10_000)


class Member(PlatformBody):
    email: str = Field(min_length=3, max_length=320)
    role: str = Field(default="READER")


class EventsQuery(BaseModel):
    model_config = ConfigDict(extra="ignore")

    page: int = Field(default=1, ge=1, le=MAX_PAGE)
    page_size: int = Field(default=50, ge=1, le=MAX_PLATFORM_PAGE_SIZE)


class Bootstrap(BaseModel):
    """``POST /api/v1/admin/bootstrap/``: org, project, user and key in one call (admin key)."""

    model_config = ConfigDict(extra="forbid")

    org_name: str = Field(min_length=1, max_length=255)
    project_name: str = Field(min_length=1, max_length=255)
    email: str = Field(min_length=3, max_length=320)
    name: str = Field(default="owner", min_length=1, max_length=255)
    password: str | None = Field(default=None, min_length=8, max_length=1024)
    # Checked here, before anything is created: the bootstrap writes the org, project and user
    # one after another, so a role or id refused half-way used to leave them behind.
    role: Literal["READER", "OWNER"] = "OWNER"
    org_id: str | None = Field(default=None, pattern=TENANT_ID)
    project_id: str | None = Field(default=None, pattern=TENANT_ID)

    @field_validator("email")
    @classmethod
    def _email(cls, value: str) -> str:
        try:
            normalize_email(value)
        except ValidationError as exc:
            raise ValueError(exc.message.removeprefix("email: ")) from None
        return value

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be blank")
        return value


class ProjectQuery(BaseModel):
    """``GET`` project: ``fields`` (repeated, or comma-separated) narrows the answer to those keys."""

    model_config = ConfigDict(extra="ignore")  # the client also sends org_id / project_id here

    fields: list[str] | None = Field(default=None, description="Project fields to return (all when absent)")

    @field_validator("fields", mode="before")
    @classmethod
    def _split(cls, value: Any) -> Any:
        items = [value] if isinstance(value, str) else value
        if isinstance(items, list):
            return [part.strip() for item in items for part in str(item).split(",") if part.strip()]
        return value


class MemberQuery(BaseModel):
    model_config = ConfigDict(extra="ignore")

    email: str = Field(min_length=1, max_length=320, description="The member to remove")


# -- response models (documentation: /openapi.json) ------------------------------------------
class PlatformMessage(BaseModel):
    message: str


class ProjectMessage(PlatformMessage):
    """Project and member routes answer ``{"message"}``."""


class PingOut(BaseModel):
    status: str
    org_id: str
    project_id: str
    user_email: str | None


class MemberOut(BaseModel):
    """A member in the project details (with ``email``)."""

    username: str | None
    role: str
    email: str | None


class MemberListed(BaseModel):
    """A member in the member list: the spec reserves ``email`` for the project details."""

    username: str | None
    role: str


class MembersOut(BaseModel):
    members: list[MemberListed]


class ProjectOut(BaseModel):
    """A project with its settings (the settings keys the platform client reads)."""

    model_config = ConfigDict(extra="allow")

    project_id: str
    org_id: str
    name: str
    description: str | None
    created_at: str | None
    updated_at: str | None
    members: list[MemberOut]
    is_default: bool
    user_role: str
    enable_graph: bool = Field(default=True, description="Always true: graph memory is always on")
    ignored: dict[str, str] | None = Field(
        default=None, description="PATCH only: settings sent that change nothing, with why (``enable_graph``)"
    )


class ProjectCreated(BaseModel):
    message: str
    project_id: str
    name: str
    org_id: str
    user_role: str


class ProjectDeleted(BaseModel):
    """What a project delete removed; keys whose home it was moved to another project of theirs or were revoked."""

    message: str
    project_id: str
    memories_deleted: int
    keys_rehomed: int
    keys_revoked: int


class AddV3Result(BaseModel):
    """``infer=true``: ``event_id`` + ``status`` PENDING; ``infer=false``: ``results`` + ``status`` SUCCEEDED."""

    status: Literal["PENDING", "SUCCEEDED"]
    event_id: str | None = None
    message: str | None = None
    results: list[AddedMemoryV3] | None = None
    merged: list[MergedInput] | None = None
    skipped: list[SkippedPart] | None = None


def _narrowable(model: type[BaseModel], name: str, doc: str) -> type[BaseModel]:
    """``model`` with every field but ``id`` optional: ``fields`` in a v3 request narrows the answer."""
    fields: dict[str, Any] = {"id": (str, ...)}
    for key, info in model.model_fields.items():
        if key != "id":
            annotation: Any = info.annotation
            fields[key] = (annotation | None, Field(default=None, description=info.description))
    return create_model(name, __doc__=doc, **fields)


if TYPE_CHECKING:  # the type checker sees the models they are derived from
    MemoryItemV1 = MemoryItem
    SearchHitV3 = SearchResult
else:
    MemoryItemV1 = _narrowable(
        MemoryItem,
        "MemoryItemV1",
        "A memory (``fields`` in a v3 request may narrow it to some keys; ``id`` always stays).",
    )
    SearchHitV3 = _narrowable(
        SearchResult, "SearchHitV3", "A search hit (``fields`` may narrow it; ``id`` always stays)."
    )


class SearchResultsV3(BaseModel):
    results: list[SearchHitV3]


class MemoryListV3(BaseModel):
    count: int
    next: str | None
    previous: str | None
    results: list[MemoryItemV1]


class DeletedOut(PlatformMessage):
    deleted: int


class EntitiesV1Out(BaseModel):
    count: int
    results: list[EntityV1]


class EventListOut(BaseModel):
    count: int
    next: str | None
    previous: str | None
    results: list[EventOut]


class BootstrapOut(BaseModel):
    id: str
    key: str
    label: str
    key_prefix: str
    org_id: str
    project_id: str
    email: str


class PlatformKeyOut(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: str
    label: str
    key_prefix: str
    org_id: str | None
    project_id: str | None
    email: str | None
    revoked: bool


class PlatformKeysOut(BaseModel):
    results: list[PlatformKeyOut]
