"""The client threads (adds, searches, lists, deletes) and the event poller."""

from __future__ import annotations

import argparse
import random
import threading
import time
from collections.abc import Callable
from typing import Any

import requests
from harness import ServeProcess, session

from .state import ADJECTIVES, NOUNS, PLACES, VERBS, AddRecord, SoakState, describe, never_sent


class Traffic:
    """The client threads and the event poller."""

    def __init__(
        self, state: SoakState, server: ServeProcess, headers: dict[str, str], args: argparse.Namespace
    ) -> None:
        self.state = state
        self.server = server
        self.headers = headers
        self.args = args
        self.users = [f"soak-{i}" for i in range(args.users)]
        self.stop = threading.Event()
        self.local = threading.local()

    def request(
        self, http: requests.Session, method: str, path: str, op: str, **kwargs: Any
    ) -> requests.Response | None:
        """One timed request; success latencies and error kinds go to the state.

        Returns the response, or None when there was none; ``self.unsent`` (per
        thread) then tells whether the request provably never reached the
        server (connection refused), which verification treats as "not done".
        """
        began = time.perf_counter()
        self.local.unsent = False
        try:
            resp = http.request(
                method, f"{self.server.url}{path}", headers=self.headers, timeout=self.args.timeout, **kwargs
            )
        except requests.RequestException as exc:
            self.local.unsent = never_sent(exc)
            self.state.error(op, describe(exc))
            time.sleep(0.2)  # the server is away: do not spin
            return None
        ms = (time.perf_counter() - began) * 1000
        if resp.status_code == 200:
            self.state.ok(op, ms)
        else:
            self.state.error(op, f"HTTP {resp.status_code}")
            if resp.status_code >= 500 or resp.status_code == 429:
                time.sleep(0.2)
        return resp

    def add(self, http: requests.Session, rng: random.Random) -> None:
        user = rng.choice(self.users)
        token = self.state.token()
        text = (
            f"I {rng.choice(VERBS)} {rng.randint(2, 99)} {rng.choice(ADJECTIVES)} {rng.choice(NOUNS)} "
            f"in the {rng.choice(PLACES)} near marker {token}."
        )
        record = AddRecord(token=token, user_id=user)
        with self.state.lock:
            self.state.adds[token] = record
        resp = self.request(
            http,
            "POST",
            "/v3/memories/add/",
            "add",
            json={"messages": [{"role": "user", "content": text}], "user_id": user},
        )
        if resp is None and self.local.unsent:
            record.outcome = "refused"  # never reached the server: must not be stored
            return
        if resp is None or resp.status_code >= 500:
            record.outcome = "uncertain"
            return
        if resp.status_code != 200:
            record.outcome = "refused"
            return
        try:
            event_id = str(resp.json()["event_id"])
        except (ValueError, KeyError, TypeError):
            record.outcome = "uncertain"  # 200 without an event id: not an acknowledgement
            self.state.error("add", "200 without event_id")
            return
        record.outcome, record.event_id = "acked", event_id
        with self.state.lock:
            self.state.pending[event_id] = record

    def search(self, http: requests.Session, rng: random.Random) -> None:
        query = f"Where are the {rng.choice(ADJECTIVES)} {rng.choice(NOUNS)} kept, in the {rng.choice(PLACES)}?"
        self.request(
            http,
            "POST",
            "/v3/memories/search/",
            "search",
            json={"query": query, "filters": {"user_id": rng.choice(self.users)}, "top_k": 10},
        )

    def list(self, http: requests.Session, rng: random.Random) -> None:
        self.request(
            http,
            "POST",
            "/v3/memories/",
            "list",
            params={"page": 1, "page_size": 20},
            json={"filters": {"user_id": rng.choice(self.users)}},
        )

    def delete(self, http: requests.Session, rng: random.Random) -> None:
        with self.state.lock:
            if not self.state.deletable:
                target = None
            else:
                index = rng.randrange(len(self.state.deletable))
                target = self.state.deletable.pop(index)[0]
        if target is None:
            self.search(http, rng)  # nothing finished yet: keep the load steady
            return
        resp = self.request(http, "DELETE", f"/v1/memories/{target}/", "delete")
        with self.state.lock:
            if resp is not None and resp.status_code == 200:
                self.state.deleted.add(target)
            elif resp is not None and resp.status_code == 404:
                self.state.delete_404.append(target)
            elif (resp is None and not self.local.unsent) or (resp is not None and resp.status_code >= 500):
                self.state.delete_uncertain.add(target)
            # otherwise refused (4xx) or never sent: the memory must still be there

    def client(self, index: int) -> None:
        rng = random.Random(self.args.seed * 1000 + index)
        http = session()
        names = list(self.args.mix)
        weights = [self.args.mix[n] for n in names]
        actions: dict[str, Callable[[requests.Session, random.Random], None]] = {
            "add": self.add,
            "search": self.search,
            "list": self.list,
            "delete": self.delete,
        }
        while not self.stop.is_set():
            actions[rng.choices(names, weights)[0]](http, rng)

    def poll_once(self, http: requests.Session, event_id: str, record: AddRecord) -> bool:
        """Poll one event; True once it is final (its outcome is then recorded)."""
        resp = self.request(http, "GET", f"/v1/event/{event_id}/", "event")
        if resp is None or resp.status_code != 200:
            return False
        body = resp.json()
        if body["status"] not in ("SUCCEEDED", "FAILED"):
            return False
        record.status, record.results = body["status"], list(body.get("results") or [])
        record.error, record.attempts, record.latency_ms = body.get("error"), body.get("attempts"), body.get("latency")
        with self.state.lock:
            self.state.pending.pop(event_id, None)
            if record.status == "SUCCEEDED":
                self.state.deletable.extend((r["id"], record.user_id) for r in record.results)
        return True

    def poller(self) -> None:
        http = session()
        while not self.stop.is_set():
            with self.state.lock:
                batch = list(self.state.pending.items())[:25]
            for event_id, record in batch:
                if self.stop.is_set():
                    break
                self.poll_once(http, event_id, record)
            self.stop.wait(0.1)
