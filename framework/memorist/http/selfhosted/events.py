"""``GET /events/{event_id}``: the outcome of an add the self-hosted surface queued (answered 202).

Self-hosted adds live in the ``default`` organization and project (the self-hosted
caller's); an event of a platform project is not found here, as if it did not exist.
"""

from __future__ import annotations

import falcon

from ...operations import EventOut, Operations
from ..declaration import operation
from .memories import caller


class OneEvent:
    def __init__(self, ops: Operations) -> None:
        self._ops = ops

    @operation(
        "A queued add: PENDING, RUNNING, SUCCEEDED (with the memories) or FAILED (with the error)",
        auth="user",
        tags=("memories",),
        response=EventOut,
        errors=(401, 404),
    )
    def on_get(self, req: falcon.Request, resp: falcon.Response, event_id: str) -> None:
        resp.media = EventOut.of(self._ops.event(caller(req), event_id)).wire()
