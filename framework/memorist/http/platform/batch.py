"""``POST /v3/memories/add/batch/``: many v3 adds in one request (bulk import), one event per add.

Each item is the body of one ``POST /v3/memories/add/`` and is acknowledged as
that add alone would be, with its own event: ``infer=true`` items are queued
(``PENDING``, poll ``GET /v1/event/{id}/``), ``infer=false`` items are stored at
once and answer their memories with a born-finished ``SUCCEEDED`` event (unless
they hold more than ``limits.sync_add_chars`` characters together: then they are
queued too). One event per item, not one per batch: a client that polls the
event of an add keeps working unchanged, and ``GET /v1/events/`` lists every
add of the batch with its own results.

The batch is checked whole first: a READER key is refused (403), a bad item is a
4xx naming it (``items[2].user_id: ...``), a batch past ``limits.max_batch_items``
or ``limits.max_batch_chars`` a 413; nothing is stored or queued then. Every item
lands in the key's own organization and project (a body cannot name another).
"""

from __future__ import annotations

from typing import Any

import falcon
from pydantic import BaseModel, Field

from ...errors import MemoristError, ValidationError
from ...operations import AddedMemoryV3, AddInput, Operations
from ...queue.events import Event
from ...tenancy import Tenancy
from ..declaration import operation
from . import models as m
from .access import access
from .memories import TAGS, add_input


class AddV3Batch(m.PlatformBody):
    items: list[m.AddV3] = Field(min_length=1, description="Each item is the body of one POST /v3/memories/add/.")


class AddV3BatchResult(BaseModel):
    """One entry per item, in the order sent, each as ``POST /v3/memories/add/`` answers it."""

    items: list[m.AddV3Result]


def queued(event: Event) -> dict[str, Any]:
    return {"event_id": event.id, "status": event.status, "message": "memory processing queued"}


class AddV3BatchResource:
    def __init__(self, ops: Operations, tenancy: Tenancy, limits: Any) -> None:
        self._ops, self._tenancy, self._limits = ops, tenancy, limits

    @operation(
        "Add many memories at once (bulk import): one event per add",
        auth="platform",
        tags=TAGS,
        body=AddV3Batch,
        response=AddV3BatchResult,
        errors=(400, 403, 413, 422, 429),
        description="Every item is validated before any is stored or queued (a 400/422 names the item). "
        "infer=true items are queued (PENDING); infer=false items are answered at once with a SUCCEEDED "
        "event, unless together larger than limits.sync_add_chars (then queued). Past limits.max_batch_items "
        "or limits.max_batch_chars: 413.",
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response, body: AddV3Batch) -> None:
        who = access(req, self._tenancy)
        settings = self._tenancy.project(who.org_id, who.project_id).settings
        items: list[AddInput] = []
        for index, item in enumerate(body.items):
            try:
                items.append(add_input(item, settings))
            except MemoristError as exc:
                raise ValidationError(f"items[{index}].{exc.message}") from None
        self._ops.check_batch(who.caller, items)
        verbatim = [i for i, item in enumerate(items) if not item.infer]
        inferred = [i for i, item in enumerate(items) if item.infer]
        answers: dict[int, dict[str, Any]] = {}
        if inferred:
            events = self._ops.submit_batch(who.caller, [items[i] for i in inferred])
            answers.update((i, queued(e)) for i, e in zip(inferred, events, strict=True))
        if verbatim:
            results, events = self._ops.add_batch_recorded(who.caller, [items[i] for i in verbatim])
            for n, (i, event) in enumerate(zip(verbatim, events, strict=True)):
                done = results[n].wire(AddedMemoryV3) if results is not None else None
                answers[i] = queued(event) if done is None else {**done, "event_id": event.id, "status": event.status}
        resp.media = {"items": [answers[i] for i in range(len(items))]}
