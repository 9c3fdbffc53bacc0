"""Models of the self-hosted admin routes: configuration, health, the request log."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema


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
