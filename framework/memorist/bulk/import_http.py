"""``memorist import --server URL``: the adds sent to a running server's ``POST /memories/batch``.

A batch the server queues (202) is followed to the end: each item's event is
polled at ``GET /events/{id}`` until it has SUCCEEDED, so the summary counts
what was stored, as for a local import. A 4xx naming an item
(``items[3].user_id: ...``) is reported with that item's file and line; with
``--skip-invalid`` the item is left out and the batch sent again. Batches
already stored stay stored: re-running the import merges them (nothing twice).
A batch past the server's batch caps (413 on ``items``) is sent in halves.
"""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from typing import Any

from ..cli.console import fail
from .importer import BadLine, Item, Sink

_ITEM = re.compile(r"items[.\[](\d+)")
DONE = ("SUCCEEDED", "FAILED")
#: Longest wait for one queued add (the queue's own max_run_seconds default is 900).
MAX_WAIT_SECONDS = 1800.0


def wire_item(item: Item) -> dict[str, Any]:
    """One add as the body of ``POST /memories`` (unset fields left out)."""
    add = item.add
    messages = add.messages
    if isinstance(messages, str):
        messages = [{"role": "user", "content": messages}]
    elif isinstance(messages, dict):
        messages = [messages]
    body: dict[str, Any] = {"messages": messages, **add.ids.present(), "infer": add.infer}
    for key in ("metadata", "timestamp", "expiration_date", "custom_instructions", "includes", "excludes"):
        if (value := getattr(add, key)) is not None:
            body[key] = value
    if add.custom_categories is not None:
        body["custom_categories"] = add.custom_categories
    if add.multilingual:
        body["multilingual"] = True
    return body


class Client:
    def __init__(self, server: str, api_key: str) -> None:
        self.base = server.rstrip("/")
        self.headers = {"X-API-Key": api_key, "Content-Type": "application/json"}

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data=data, method=method, headers=self.headers)
        try:
            with urllib.request.urlopen(request, timeout=600) as resp:  # noqa: S310 (the user's own server URL)
                return resp.status, json.loads(resp.read() or b"null")
        except urllib.error.HTTPError as exc:
            raw = exc.read()
            try:
                return exc.code, json.loads(raw or b"null")
            except json.JSONDecodeError:
                return exc.code, {"detail": raw.decode(errors="replace")[:200]}
        except (urllib.error.URLError, OSError) as exc:
            fail(f"--server {self.base}: cannot reach it ({exc})")
            raise  # unreachable

    def wait(self, event_id: str) -> dict[str, Any]:
        """The finished event of a queued add (polled with a growing pause)."""
        deadline, pause = time.monotonic() + MAX_WAIT_SECONDS, 0.05
        while True:
            status, body = self.call("GET", f"/events/{event_id}")
            if status != 200:
                fail(f"GET /events/{event_id}: {status} {detail(body)}")
            if body["status"] in DONE:
                return dict(body)
            if time.monotonic() > deadline:
                fail(f"event {event_id} still {body['status']} after {MAX_WAIT_SECONDS:.0f} s")
            time.sleep(pause)
            pause = min(pause * 1.5, 1.0)


def detail(body: Any) -> str:
    return str(body.get("detail")) if isinstance(body, dict) else str(body)


def http_sink(server: str, api_key: str, reject: Callable[[BadLine], None]) -> Sink:
    """``reject(bad)`` is told of an item the server refused (it exits, or notes it and the batch goes on)."""
    client = Client(server, api_key)

    def store(batch: Sequence[Item]) -> list[dict[str, Any]]:
        items = list(batch)
        while True:
            if not items:
                return []
            status, body = client.call("POST", "/memories/batch", {"items": [wire_item(i) for i in items]})
            if status in (200, 202):
                break
            if status == 413 and detail(body).startswith("items: ") and len(items) > 1:
                half = len(items) // 2  # over the server's batch caps: send it in two halves
                return store(items[:half]) + store(items[half:])
            found = _ITEM.search(detail(body))
            if status in (400, 413, 422) and found and int(found.group(1)) < len(items):
                bad = items.pop(int(found.group(1)))
                message = _ITEM.sub("", detail(body), count=1).lstrip(".]")
                reject(BadLine(bad.where, message))
                continue
            fail(f"POST {client.base}/memories/batch: {status} {detail(body)}")
        answers = []
        for item, answer in zip(items, body["items"], strict=True):
            if answer.get("event_id"):
                event = client.wait(answer["event_id"])
                if event["status"] == "FAILED":
                    fail(f"{item.where}: the server could not store this add: {event.get('error')}")
                answer = {**{k: event.get(k) for k in ("results", "merged", "skipped")}, "queued": True}
            answers.append(answer)
        return answers

    return store
