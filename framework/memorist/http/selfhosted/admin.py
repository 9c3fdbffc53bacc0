"""``/configure``, ``/requests`` and ``/entities``."""

from __future__ import annotations

from typing import Any

import falcon

from ...config.settings import LimitsSettings
from ...kernel.runtime import CONFIGURABLE, Runtime
from ...observability.request_log import RequestLog
from ...operations import EntityOut, Operations, iso
from ...plugin.contracts import PROVIDER_KINDS
from ...plugin.registry import ProviderRegistry
from ...redaction import redact
from ..declaration import operation
from . import admin_models as am
from . import models as m
from .memories import caller


class Configure:
    def __init__(self, runtime: Runtime, limits: LimitsSettings) -> None:
        self._runtime = runtime
        self._limits = limits

    def _view(self) -> dict[str, Any]:
        dumped = self._runtime.settings.model_dump(mode="python")
        view = {k: dumped[k] for k in CONFIGURABLE}
        view["auth"] = {
            "disabled": dumped["auth"]["disabled"],
            "jwt_secret": dumped["auth"]["jwt_secret"],
            "admin_api_key": dumped["auth"]["admin_api_key"],
        }
        view["overrides"] = self._runtime.overrides
        redacted: dict[str, Any] = redact(view)
        return redacted

    @operation(
        "Current configuration (secrets redacted)",
        auth="user",
        tags=("configure",),
        response=am.ConfigView,
        errors=(401,),
    )
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.media = self._view()

    @operation(
        "Change providers or engine settings at runtime (deep-merged, validated, persisted)",
        auth="admin",
        tags=("configure",),
        body=am.ConfigurePatch,
        response=am.ConfigView,
        errors=(400, 401, 403, 409, 422, 429),
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response, body: am.ConfigurePatch) -> None:
        self._runtime.configure(body.model_dump(exclude_unset=True))
        resp.media = self._view()


class ProvidersList:
    def __init__(self, registry: ProviderRegistry) -> None:
        self._registry = registry

    @operation(
        "Installed providers of each kind, from the plugin registry",
        auth="user",
        tags=("configure",),
        response=m.Providers,
        errors=(401,),
    )
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.media = {kind: self._registry.names(kind) for kind in PROVIDER_KINDS}


class Requests:
    def __init__(self, request_log: RequestLog) -> None:
        self._log = request_log

    @operation(
        "Recent API calls, newest first (admins see all, users their own); ``status``/``path`` filter them",
        auth="user",
        tags=("requests",),
        query=am.RequestsQuery,
        response=list[am.RequestEntry],
        errors=(401, 422),
    )
    def on_get(self, req: falcon.Request, resp: falcon.Response, query: am.RequestsQuery) -> None:
        principal = req.context.principal
        rows = self._log.recent(
            query.limit, None if principal.is_admin else principal.label, status=query.status, path=query.path
        )
        resp.media = [
            {
                "id": r["id"],
                "method": r["method"],
                "path": r["path"],
                "status_code": r["status_code"],
                "latency_ms": r["latency_ms"],
                "auth_type": r["auth_type"],
                "principal": r["principal"],
                "request_id": r["request_id"],
                "created_at": iso(r["created_at"]),
            }
            for r in rows
        ]


class Entities:
    def __init__(self, ops: Operations) -> None:
        self._ops = ops

    @operation(
        "Each user, agent, run and app with its memory count and activity",
        auth="user",
        tags=("entities",),
        response=list[m.EntityOut],
        errors=(401,),
    )
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.media = [EntityOut.of(c).wire() for c in self._ops.entities(caller(req))]


class OneEntity:
    def __init__(self, ops: Operations) -> None:
        self._ops = ops

    @operation(
        "Delete an entity and all its memories (history stays)",
        auth="user",
        tags=("entities",),
        response=m.DeletedCount,
        errors=(400, 401),
    )
    def on_delete(self, req: falcon.Request, resp: falcon.Response, entity_type: str, entity_id: str) -> None:
        deleted = self._ops.delete_entity(caller(req), entity_type, entity_id)
        resp.media = {"message": f"deleted {entity_type} '{entity_id}' and {deleted} memories", "deleted": deleted}
