"""After the load: every acknowledged add stored once, nothing refused stored, every delete gone."""

from __future__ import annotations

import argparse
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from typing import Any

import requests
from harness import percentile, session

from .state import TOKEN
from .traffic import Traffic


def list_all(traffic: Traffic, http: requests.Session, user: str) -> list[dict[str, Any]]:
    """Every memory of ``user``, page by page (nothing writes during verification)."""
    out: list[dict[str, Any]] = []
    page = 1
    while True:
        resp = retrying(
            lambda p=page: http.post(  # type: ignore[misc]
                f"{traffic.server.url}/v3/memories/",
                headers=traffic.headers,
                timeout=60,
                params={"page": p, "page_size": 200},
                json={"filters": {"user_id": user}},
            )
        )
        body = resp.json()
        out.extend(body["results"])
        if not body.get("next"):
            return out
        page += 1


def retrying(call: Callable[[], requests.Response], attempts: int = 5) -> requests.Response:
    """Verification requests must not fail on a transient error: retry a few times."""
    for attempt in range(attempts):
        try:
            resp = call()
            if resp.status_code < 500:
                return resp
        except requests.RequestException:
            if attempt == attempts - 1:
                raise
        time.sleep(1.0)
    return resp


def verify(traffic: Traffic, args: argparse.Namespace) -> dict[str, Any]:
    state = traffic.state
    http = session()
    began = time.monotonic()
    while state.pending and time.monotonic() - began < args.drain_seconds:
        for event_id, record in list(state.pending.items()):
            traffic.poll_once(http, event_id, record)
        if state.pending:
            time.sleep(0.5)
    drain_seconds = time.monotonic() - began

    adds = list(state.adds.values())
    acked = [a for a in adds if a.outcome == "acked"]
    listed: list[dict[str, Any]] = []
    for user in traffic.users:
        listed.extend(list_all(traffic, http, user))
    id_counts = Counter(m["id"] for m in listed)
    by_token: dict[str, list[dict[str, Any]]] = defaultdict(list)
    untokened = []
    for memory in listed:
        found = TOKEN.findall(memory.get("memory") or "")
        if len(found) != 1:
            untokened.append(memory["id"])
        for token in set(found):
            by_token[token].append(memory)
    listed_ids = set(id_counts)

    problems: dict[str, list[Any]] = defaultdict(list)
    for record in acked:
        if record.status is None:
            problems["unfinished"].append(record.event_id)
            continue
        if record.status != "SUCCEEDED":
            problems["failed"].append({"event": record.event_id, "error": record.error, "attempts": record.attempts})
            continue
        if len(record.results) != 1:
            problems["lost_empty_result" if not record.results else "extra_results"].append(
                {"event": record.event_id, "results": [r["id"] for r in record.results]}
            )
        for result in record.results:
            memory_id = result["id"]
            text = (result.get("data") or {}).get("memory", "")
            if record.token not in text:
                problems["wrong_text"].append({"event": record.event_id, "memory": memory_id, "text": text})
            if memory_id in state.deleted or memory_id in state.delete_uncertain:
                continue
            if memory_id not in listed_ids:
                status = retrying(
                    lambda m=memory_id: http.get(  # type: ignore[misc]
                        f"{traffic.server.url}/v1/memories/{m}/", headers=traffic.headers, timeout=30
                    )
                ).status_code
                problems["lost_missing"].append({"event": record.event_id, "memory": memory_id, "get": status})
    for memory_id, count in id_counts.items():
        if count > 1:
            problems["duplicate_id"].append({"memory": memory_id, "count": count})
    for token, memories in by_token.items():
        if len(memories) > 1:
            problems["duplicate_text"].append({"token": token, "memories": [m["id"] for m in memories]})
        source = state.adds.get(token)
        if source is None:
            problems["phantom"].append({"token": token, "memories": [m["id"] for m in memories]})
        elif source.outcome == "refused":
            problems["refused_but_stored"].append({"token": token, "memories": [m["id"] for m in memories]})
    for memory_id in sorted(state.deleted):
        status = retrying(
            lambda m=memory_id: http.get(  # type: ignore[misc]
                f"{traffic.server.url}/v1/memories/{m}/", headers=traffic.headers, timeout=30
            )
        ).status_code
        if memory_id in listed_ids or status != 404:
            problems["resurrected_delete"].append(
                {"memory": memory_id, "listed": memory_id in listed_ids, "get": status}
            )
    if state.delete_404:
        problems["delete_404"].extend(state.delete_404)
    if untokened:
        problems["untraceable"].extend(untokened)

    uncertain = [a for a in adds if a.outcome == "uncertain"]
    stored_uncertain = sum(1 for a in uncertain if a.token in by_token)
    queue_latency = [a.latency_ms for a in acked if a.latency_ms is not None and a.status == "SUCCEEDED"]
    return {
        "verdict": "PASS" if not problems else "FAIL",
        "drain_seconds": round(drain_seconds, 1),
        "adds_attempted": len(adds),
        "adds_acknowledged": len(acked),
        "adds_refused": sum(1 for a in adds if a.outcome == "refused"),
        "adds_uncertain": len(uncertain),
        "adds_uncertain_stored": stored_uncertain,
        "events_succeeded": sum(1 for a in acked if a.status == "SUCCEEDED"),
        "events_retried": sum(1 for a in acked if (a.attempts or 0) > 1),
        "queue_latency_p50_ms": round(percentile(queue_latency, 0.5), 1) if queue_latency else None,
        "queue_latency_p95_ms": round(percentile(queue_latency, 0.95), 1) if queue_latency else None,
        "memories_listed": len(listed),
        "deletes_acknowledged": len(state.deleted),
        "deletes_uncertain": len(state.delete_uncertain),
        "problems": {k: v for k, v in problems.items()},
    }
