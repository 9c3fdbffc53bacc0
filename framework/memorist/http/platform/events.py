"""``GET /v1/event/{id}/`` and ``GET /v1/events/``: the outcome of asynchronous adds."""

from __future__ import annotations

from urllib.parse import urlencode

import falcon

from ...operations import EventOut, Operations
from ...tenancy import Tenancy
from ..declaration import operation
from . import models as m
from .access import access

__all__ = ["EventList", "EventResource"]

TAGS = ("events",)


class EventResource:
    def __init__(self, ops: Operations, tenancy: Tenancy) -> None:
        self._ops, self._tenancy = ops, tenancy

    @operation(
        "One add event: PENDING, SUCCEEDED or FAILED, with results or the error",
        auth="platform",
        tags=TAGS,
        response=m.EventOut,
        errors=(403, 404),
    )
    def on_get(self, req: falcon.Request, resp: falcon.Response, event_id: str) -> None:
        who = access(req, self._tenancy)
        resp.media = EventOut.of(self._ops.event(who.caller, event_id)).wire()


class EventList:
    def __init__(self, ops: Operations, tenancy: Tenancy) -> None:
        self._ops, self._tenancy = ops, tenancy

    @operation(
        "The project's events, newest first (paginated)",
        auth="platform",
        tags=TAGS,
        query=m.EventsQuery,
        response=m.EventListOut,
        errors=(403, 422),
    )
    def on_get(self, req: falcon.Request, resp: falcon.Response, query: m.EventsQuery) -> None:
        who = access(req, self._tenancy)
        rows, total = self._ops.list_events(who.caller, query.page, query.page_size)
        base = f"{req.prefix}{req.path}"

        def link(number: int) -> str:
            return f"{base}?{urlencode({'page': number, 'page_size': query.page_size})}"

        resp.media = {
            "count": total,
            "next": link(query.page + 1) if query.page * query.page_size < total else None,
            "previous": link(query.page - 1) if query.page > 1 else None,
            "results": [EventOut.of(e).wire() for e in rows],
        }
