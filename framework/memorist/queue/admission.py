"""How large an add may be, and which adds run at once or go to the durable queue.

The rule (``limits`` settings; figures in ``docs/operations.md``):

- An add whose messages hold more than ``limits.max_add_chars`` characters of
  content, or more than ``limits.max_add_messages`` messages, is refused with
  413 before anything is stored: it would hold a worker for longer than one add
  should (a split into several adds is processed the same way, in fairer turns).
- An add above ``limits.sync_add_chars`` characters is too large to answer
  within a request: the self-hosted ``POST /memories`` queues it and answers
  202 with an event id (poll ``GET /events/{id}``), and the platform's
  ``infer=false`` add (otherwise answered at once) queues it like an
  ``infer=true`` add.
- Anything smaller runs in the request, as before.

Why characters: the cost of an add is its extraction and the embedding of
every fact it yields, both linear in the text. On the embedded default
(ONNX all-MiniLM-L6-v2, heuristic extractor, LanceDB) the embedding dominates.
The defaults keep the synchronous path to about a second on a quiet 2-core
machine and the largest add to a few minutes under heavy load, well inside the
queue's ``max_run_seconds``.

This module knows no HTTP: the doors call :func:`admit` with what they parsed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import InputTooLarge

RUN_NOW, QUEUE = "run_now", "queue"


@dataclass(frozen=True)
class AddSize:
    messages: int
    chars: int


def measure(messages: str | Mapping[str, Any] | Sequence[Any]) -> AddSize:
    """Messages and characters of content in an add's ``messages`` (any accepted shape)."""
    if isinstance(messages, str):
        return AddSize(1, len(messages))
    items: Sequence[Any] = [messages] if isinstance(messages, Mapping) else messages
    chars = 0
    for item in items:
        if isinstance(item, str):
            chars += len(item)
        elif isinstance(item, Mapping):
            content = item.get("content")
            chars += len(content) if isinstance(content, str) else 0
        else:
            content = getattr(item, "content", None)
            chars += len(content) if isinstance(content, str) else 0
    return AddSize(len(items), chars)


def admit(messages: str | Mapping[str, Any] | Sequence[Any], limits: Any) -> str:
    """``RUN_NOW`` or ``QUEUE`` for an add of ``messages``; :class:`InputTooLarge` (413) past the bounds."""
    size = measure(messages)
    if size.messages > limits.max_add_messages:
        raise InputTooLarge(
            f"messages: {size.messages} messages in one add; the limit is {limits.max_add_messages} "
            "(limits.max_add_messages), split them into several adds"
        )
    if size.chars > limits.max_add_chars:
        raise InputTooLarge(
            f"messages: {size.chars} characters of content in one add; the limit is {limits.max_add_chars} "
            "(limits.max_add_chars), split them into several adds"
        )
    return QUEUE if size.chars > limits.sync_add_chars else RUN_NOW
