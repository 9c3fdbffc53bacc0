"""``/api/v1/webhooks/...``: the platform client's webhook calls.

A key sees and changes only its own project's webhooks: a path naming another
project, or a webhook of another project, answers 404 whether or not it
exists, so a key cannot probe other tenants. Reading needs membership
(``READER``); creating, changing and deleting need ``OWNER``.
"""

from __future__ import annotations

import falcon
from memorist.plugin_api import NotFoundError, OutboundGuard, ValidationError
from memorist.plugin_api.http import LimitsSettings, Tenancy, access, operation
from pydantic import BaseModel, ConfigDict, Field

from .store import EVENT_TYPES, Webhook, WebhookStore, check_url

TAGS = ("webhooks",)
EVENTS_NOTE = (
    f"Event types: {', '.join(EVENT_TYPES)} (the spelling 'memory:add' is accepted too). "
    "memory_categorize is sent for an added memory that was given categories. Deliveries are "
    "POSTed with X-Memorist-Timestamp and X-Memorist-Signature: sha256=HMAC-SHA256(secret, "
    "timestamp + '.' + raw body)."
)


class WebhookCreate(BaseModel):
    model_config = ConfigDict(extra="ignore")

    url: str = Field(min_length=1, max_length=2048)
    name: str = Field(default="webhook", min_length=1, max_length=255)
    event_types: list[str] = Field(min_length=1, max_length=len(EVENT_TYPES) * 2)


class WebhookUpdate(BaseModel):
    model_config = ConfigDict(extra="ignore")

    url: str | None = Field(default=None, min_length=1, max_length=2048)
    name: str | None = Field(default=None, min_length=1, max_length=255)
    event_types: list[str] | None = Field(default=None, min_length=1, max_length=len(EVENT_TYPES) * 2)
    is_active: bool | None = None
    #: Issue a new signing secret (returned once, in this answer).
    rotate_secret: bool = False


class WebhookOut(BaseModel):
    webhook_id: str
    name: str
    url: str
    event_types: list[str]
    project: str
    project_id: str
    is_active: bool
    created_at: str
    updated_at: str


class WebhookCreated(WebhookOut):
    secret: str = Field(description="HMAC-SHA256 key of X-Memorist-Signature; shown only here")


class WebhookChanged(WebhookOut):
    message: str
    secret: str | None = Field(default=None, description="Present only when rotate_secret was true")


class WebhookMessage(BaseModel):
    message: str


def _own_webhook(req: falcon.Request, store: WebhookStore, tenancy: Tenancy, webhook_id: str) -> Webhook:
    """A webhook of a project the key's user is an OWNER of (another project's: 404, like an unknown one)."""
    hook = store.get(webhook_id)
    if hook is None:
        raise NotFoundError(f"webhook '{webhook_id}' not found")
    try:
        access(req, tenancy, write=True, project_id=hook.project_id)
    except NotFoundError:
        raise NotFoundError(f"webhook '{webhook_id}' not found") from None
    return hook


class ProjectWebhooks:
    def __init__(
        self, store: WebhookStore, tenancy: Tenancy, limits: LimitsSettings, guard: OutboundGuard | None = None
    ) -> None:
        self._store, self._tenancy, self._limits = store, tenancy, limits
        self._guard = guard or OutboundGuard()

    @operation("List the project's webhooks", auth="platform", tags=TAGS, response=list[WebhookOut], errors=(403, 404))
    def on_get(self, req: falcon.Request, resp: falcon.Response, project_id: str) -> None:
        access(req, self._tenancy, project_id=project_id)  # a project the key's user is not in: 404
        resp.media = [hook.public() for hook in self._store.for_project(project_id)]

    @operation(
        "Create a webhook (the answer carries its signing secret, shown once)",
        auth="platform",
        tags=TAGS,
        body=WebhookCreate,
        response=WebhookCreated,
        status=201,
        errors=(400, 403, 404, 422),
        description=EVENTS_NOTE,
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response, project_id: str, body: WebhookCreate) -> None:
        access(req, self._tenancy, write=True, project_id=project_id)
        self._guard.check(check_url(body.url))  # no loopback, private, link-local or metadata receivers
        hook = self._store.create(project_id, body.name, body.url, body.event_types)
        resp.media = hook.public(with_secret=True)


class OneWebhook:
    def __init__(
        self, store: WebhookStore, tenancy: Tenancy, limits: LimitsSettings, guard: OutboundGuard | None = None
    ) -> None:
        self._store, self._tenancy, self._limits = store, tenancy, limits
        self._guard = guard or OutboundGuard()

    @operation(
        "Change a webhook's name, URL, event types or state; rotate its secret",
        auth="platform",
        tags=TAGS,
        body=WebhookUpdate,
        response=WebhookChanged,
        errors=(400, 403, 404, 422),
        description=EVENTS_NOTE,
    )
    def on_put(self, req: falcon.Request, resp: falcon.Response, webhook_id: str, body: WebhookUpdate) -> None:
        _own_webhook(req, self._store, self._tenancy, webhook_id)
        if not body.model_fields_set:
            raise ValidationError("body: give name, url, event_types, is_active or rotate_secret")
        if body.url is not None:
            self._guard.check(check_url(body.url))
        hook = self._store.update(
            webhook_id,
            name=body.name,
            url=body.url,
            event_types=body.event_types,
            is_active=body.is_active,
            rotate_secret=body.rotate_secret,
        )
        if hook is None:  # deleted concurrently
            raise NotFoundError(f"webhook '{webhook_id}' not found")
        resp.media = {"message": "Webhook updated successfully", **hook.public(with_secret=body.rotate_secret)}

    @operation(
        "Delete a webhook and its pending deliveries",
        auth="platform",
        tags=TAGS,
        response=WebhookMessage,
        errors=(403, 404),
    )
    def on_delete(self, req: falcon.Request, resp: falcon.Response, webhook_id: str) -> None:
        _own_webhook(req, self._store, self._tenancy, webhook_id)
        if not self._store.delete(webhook_id):
            raise NotFoundError(f"webhook '{webhook_id}' not found")
        resp.media = {"message": "Webhook deleted successfully"}
