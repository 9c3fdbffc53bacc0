"""``POST /memories/batch``: many adds in one request (bulk import), onto the operations layer.

Each item is the body of one ``POST /memories`` and answers what that add alone
would (``results``, ``merged``, ``skipped``). The batch is checked whole before
anything is stored: a bad item is a 4xx naming it (``items[3].user_id: ...``),
a batch past ``limits.max_batch_items`` / ``limits.max_batch_chars`` (or an item
past one add's limits) a 413. A batch of more than ``limits.sync_add_chars``
characters of content is queued like a large single add: 202, and each item
carries the ``event_id`` of its own durable event (poll ``GET /events/{id}``).
"""

from __future__ import annotations

from typing import Literal

import falcon
from pydantic import BaseModel, ConfigDict, Field

from ...config.settings import LimitsSettings
from ...operations import AddedMemory, Operations
from ...queue.events import Event
from ..declaration import operation
from . import models as m
from .memories import TAGS, add_input, caller


class AddBatch(BaseModel):
    model_config = ConfigDict(extra="forbid")

    items: list[m.AddMemories] = Field(min_length=1, description="Each item is the body of one POST /memories.")


class BatchItemResult(m.AddResult):
    """One add of the batch, as ``POST /memories`` answers it; a queued item carries its event instead."""

    event_id: str | None = None
    status: Literal["PENDING"] | None = None


class AddBatchResult(BaseModel):
    """One entry per item, in the order sent."""

    items: list[BatchItemResult]


class MemoriesBatch:
    def __init__(self, ops: Operations, limits: LimitsSettings) -> None:
        self._ops = ops
        self._limits = limits

    @operation(
        "Create memories from many adds at once (bulk import)",
        auth="user",
        tags=TAGS,
        body=AddBatch,
        response=AddBatchResult,
        errors=(400, 401, 413, 422, 429),
        description=f"Every item is validated before any is stored (a 400/422 names the item). Past "
        f"limits.max_batch_items (default {LimitsSettings().max_batch_items}) adds or limits.max_batch_chars "
        f"(default {LimitsSettings().max_batch_chars}) characters: 413. A batch of more than "
        f"limits.sync_add_chars characters (default {LimitsSettings().sync_add_chars}) is queued: 202, each "
        "item with the event_id of its own event (poll GET /events/{event_id}).",
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response, body: AddBatch) -> None:
        outcome = self._ops.add_batch_or_queue(caller(req), [add_input(item) for item in body.items])
        items = []
        for one in outcome:
            if isinstance(one, Event):
                items.append({"results": [], "event_id": one.id, "status": one.status})
            else:
                items.append(one.wire(AddedMemory))
        if outcome and isinstance(outcome[0], Event):
            resp.status = falcon.HTTP_202
        resp.media = {"items": items}
