"""``GET /events/{event_id}``: the outcome of an add the self-hosted surface queued (answered 202).

Self-hosted adds live in the ``default`` organization and project; an event of a
platform project is not found here, as if it did not exist.
"""

from __future__ import annotations

import falcon

from ...events import EventStore
from ...records import DEFAULT_ORG, DEFAULT_PROJECT
from ..operations import operation
from ..platform.events import event_view


class OneEvent:
    def __init__(self, events: EventStore) -> None:
        self._events = events

    @operation(
        "A queued add: PENDING, RUNNING, SUCCEEDED (with the memories) or FAILED (with the error)",
        auth="user",
        tags=("memories",),
        errors=(401, 404),
    )
    def on_get(self, req: falcon.Request, resp: falcon.Response, event_id: str) -> None:
        resp.media = event_view(self._events.get(event_id, DEFAULT_ORG, DEFAULT_PROJECT))
