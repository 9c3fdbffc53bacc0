"""``GET /v1/event/{id}/`` and ``GET /v1/events/``: the outcome of asynchronous adds."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import falcon

from ...events import Event, EventStore
from ...tenancy import Tenancy
from .. import parsing
from ..operations import operation
from ..present import iso
from . import models as m
from .access import access

TAGS = ("events",)


def _untagged(items: list[dict[str, Any]], tag: str) -> list[dict[str, Any]]:
    return [{k: v for k, v in item.items() if k != "event"} for item in items if item.get("event") == tag]


def event_view(event: Event) -> dict[str, Any]:
    """An event as the API shows it; an add's merged and skipped inputs (stored among its
    results, tagged) come out under their own keys."""
    stored = event.results or []
    return {
        "id": event.id,
        "event_type": event.event_type,
        "status": event.status,
        "results": [r for r in stored if r.get("event") not in ("MERGED", "SKIPPED")],
        "merged": _untagged(stored, "MERGED"),
        "skipped": _untagged(stored, "SKIPPED"),
        "error": event.error,
        "attempts": event.attempts,
        "latency": event.latency_ms,
        "created_at": iso(event.created_at),
        "updated_at": iso(event.updated_at),
        "started_at": iso(event.started_at),
        "finished_at": iso(event.finished_at),
    }


class EventResource:
    def __init__(self, events: EventStore, tenancy: Tenancy) -> None:
        self._events, self._tenancy = events, tenancy

    @operation(
        "One add event: PENDING, RUNNING, SUCCEEDED or FAILED, with results or the error",
        auth="platform",
        tags=TAGS,
        errors=(403, 404),
    )
    def on_get(self, req: falcon.Request, resp: falcon.Response, event_id: str) -> None:
        who = access(req, self._tenancy)
        resp.media = event_view(self._events.get(event_id, who.org_id, who.project_id))


class EventList:
    def __init__(self, events: EventStore, tenancy: Tenancy) -> None:
        self._events, self._tenancy = events, tenancy

    @operation(
        "The project's events, newest first (paginated)",
        auth="platform",
        tags=TAGS,
        query=m.EventsQuery,
        errors=(403, 422),
    )
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        q = parsing.query(req, m.EventsQuery)
        who = access(req, self._tenancy)
        rows, total = self._events.list(who.org_id, who.project_id, (q.page - 1) * q.page_size, q.page_size)
        base = f"{req.prefix}{req.path}"

        def link(number: int) -> str:
            return f"{base}?{urlencode({'page': number, 'page_size': q.page_size})}"

        resp.media = {
            "count": total,
            "next": link(q.page + 1) if q.page * q.page_size < total else None,
            "previous": link(q.page - 1) if q.page > 1 else None,
            "results": [event_view(e) for e in rows],
        }
