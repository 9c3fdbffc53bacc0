"""Many adds in one call: the rules every bulk door (HTTP batch routes, the facade, ``memorist import``) shares.

A batch is all or nothing at the door: every item is checked (the scope rule,
the size limits of one add, the engine's own validation of messages and
dates) before anything is stored, and a bad item is a 4xx naming it
(``items[3].user_id: ...``). The stored part then runs through the engine's
batch seam :meth:`memorist.engine.memory.MemoryEngine.add_many`, so each item
answers exactly what the same add alone would (stored, merged, skipped).

Limits (``limits`` settings, :class:`memorist.config.settings.LimitsSettings`):
``max_batch_items`` adds and ``max_batch_chars`` characters of content per
batch (413 naming the limit), at most ``MAX_BATCH_STORED_BYTES`` stored bytes over all items
(content plus each add's metadata once per memory it can store), and each item within one
add's limits. A batch
whose content is over ``sync_add_chars`` characters in total is too much to
answer within a request: the doors queue it, one durable event per item
(:meth:`memorist.queue.events.EventStore.submit_many`), the same threshold a single
add uses (:mod:`memorist.queue.admission`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pydantic

from ..engine.add_request import MAX_BATCH_STORED_BYTES, AddRequest, possible_memories, stored_bytes
from ..engine.memory import MemoryEngine
from ..engine.scope import require_entity
from ..errors import InputTooLarge, MemoristError, ValidationError
from ..queue.admission import QUEUE, RUN_NOW, admit, measure
from .caller import Caller
from .inputs import AddInput

#: Requests handed to ``Memory.add_many`` at a time: the doors' batches fit in one call; a long
#: list from Python (no batch caps there) is stored in calls of this size, all checked first.
CHUNK = 1000


def _item_error(index: int, exc: Exception) -> MemoristError:
    """``exc`` as a 400 (or the 413 it was) whose message names the item it concerns."""
    if isinstance(exc, pydantic.ValidationError):
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "messages"
        return ValidationError(f"items[{index}].messages.{where}: {first['msg']}")
    if isinstance(exc, InputTooLarge):
        return InputTooLarge(f"items[{index}].{exc.message}")
    if isinstance(exc, MemoristError):
        return ValidationError(f"items[{index}].{exc.message}")
    return ValidationError(f"items[{index}].messages: a string, a message object or a list of them")


def admit_batch(items: Sequence[AddInput], limits: Any, *, capped: bool = True) -> str:
    """``RUN_NOW`` or ``QUEUE`` for a batch; 400 when empty, 413 past a batch or item limit (nothing stored).

    ``capped=False`` (the in-process doors: the Python API, ``memorist import``): each item
    is still held to one add's limits, but the batch's own caps, which bound one request,
    do not apply; a long list is stored in chunks of :data:`CHUNK`.
    """
    if not items:
        raise ValidationError("items: at least one add is required")
    if limits is None:
        return RUN_NOW
    if capped and len(items) > limits.max_batch_items:
        raise InputTooLarge(
            f"items: {len(items)} adds in one batch; the limit is {limits.max_batch_items} "
            "(limits.max_batch_items), split them into several batches"
        )
    total = 0
    for index, item in enumerate(items):
        try:
            admit(item.messages, limits)
            total += measure(item.messages).chars
        except (InputTooLarge, TypeError, AttributeError) as exc:
            raise _item_error(index, exc) from None
    if capped and total > limits.max_batch_chars:
        raise InputTooLarge(
            f"items: {total} characters of content in one batch; the limit is {limits.max_batch_chars} "
            "(limits.max_batch_chars), split them into several batches"
        )
    return QUEUE if total > limits.sync_add_chars else RUN_NOW


def batch_payloads(memory: MemoryEngine, caller: Caller, items: Sequence[AddInput]) -> list[dict[str, Any]]:
    """Each item's add arguments, validated by the engine (400 naming the first bad item; nothing stored)."""
    return [payload for payload, _ in validated(memory, caller, items)]


def validated(
    memory: MemoryEngine, caller: Caller, items: Sequence[AddInput]
) -> list[tuple[dict[str, Any], AddRequest]]:
    """Every item's JSON-safe payload and the engine's validated request, or the first item's error."""
    out: list[tuple[dict[str, Any], AddRequest]] = []
    total = 0
    for index, item in enumerate(items):
        try:
            require_entity(item.ids.all())
            payload = item.payload(caller.org_id, caller.project_id, caller.actor)
            request = memory.add_request(**payload)
            total += stored_bytes(request.messages, request.metadata, possible_memories(request.messages))
        except (MemoristError, pydantic.ValidationError, TypeError, AttributeError) as exc:
            raise _item_error(index, exc) from None
        if total > MAX_BATCH_STORED_BYTES:
            raise InputTooLarge(
                f"items: this batch would store more than {MAX_BATCH_STORED_BYTES} bytes (MAX_BATCH_STORED_BYTES: "
                f"content plus each add's metadata once per memory) by items[{index}], split it into several batches"
            )
        out.append((payload, request))
    return out
