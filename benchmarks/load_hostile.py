"""The hostile mix of ``benchmarks/load.py --hostile``: what an attacker or a heavy tenant sends
beside the normal users (issue 39's findings), and the server's footprint while it runs.

- **metadata-heavy adds**: verbatim platform adds (``infer=false``: one memory per message)
  of many short messages carrying a large shared ``metadata`` object;
- **filter floods**: platform searches whose filter is ``OR`` of many ``in`` lists of many
  values, back to back;
- **failed-auth floods**: wrong ``X-API-Key`` values from the same address the normal users
  come from (loopback), as fast as they are answered;
- **configure calls**: ``POST /configure`` with the admin key every couple of seconds,
  alternating an engine setting (each call builds a new engine).

The hostile requests are counted apart from the normal users' (their 4xx answers are
the point; their 5xx are not). A footprint thread samples the server's RSS (every
process of its session) and the data directory's size once a second.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests


@dataclass
class HostileStats:
    lock: threading.Lock = field(default_factory=threading.Lock)
    statuses: Counter[str] = field(default_factory=Counter)
    failures: Counter[str] = field(default_factory=Counter)
    #: Memory ids the metadata-heavy adds were acknowledged with (they must be stored once too).
    acknowledged: list[str] = field(default_factory=list)

    def record(self, kind: str, resp: requests.Response | None, error: str | None = None) -> None:
        with self.lock:
            if resp is not None:
                self.statuses[f"{kind} {resp.status_code}"] += 1
            else:
                self.failures[f"{kind}: {error}"] += 1

    @property
    def server_errors(self) -> int:
        return sum(n for key, n in self.statuses.items() if key.split()[-1].startswith("5"))


def session_rss_bytes(session_id: int) -> int:
    """Resident memory of every process in the session ``session_id`` (the server's master
    and its workers, started with ``start_new_session``), from ``/proc``."""
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[3]) != session_id:  # field 6 (session), counted after the command name
                continue
            pages = int((stat.parent / "statm").read_text().split()[1])
        except (OSError, ValueError, IndexError):
            continue
        total += pages * 4096
    return total


def directory_bytes(path: Path) -> int:
    total = 0
    for file in path.rglob("*"):
        try:
            if file.is_file():
                total += file.stat().st_size
        except OSError:
            continue
    return total


@dataclass
class Footprint:
    """RSS and disk at the start, at the end and at their peak."""

    session_id: int
    data_dir: Path
    samples: list[tuple[float, int, int]] = field(default_factory=list)

    def sample(self) -> None:
        self.samples.append((time.monotonic(), session_rss_bytes(self.session_id), directory_bytes(self.data_dir)))

    def watch(self, stop: threading.Event) -> None:
        while not stop.is_set():
            self.sample()
            stop.wait(1.0)
        self.sample()

    def report(self) -> dict[str, Any]:
        if not self.samples:
            return {}
        mib = 1024 * 1024
        rss = [s[1] for s in self.samples]
        disk = [s[2] for s in self.samples]
        return {
            "rss_mib_start": round(rss[0] / mib, 1),
            "rss_mib_end": round(rss[-1] / mib, 1),
            "rss_mib_peak": round(max(rss) / mib, 1),
            "disk_mib_start": round(disk[0] / mib, 1),
            "disk_mib_end": round(disk[-1] / mib, 1),
            "disk_mib_peak": round(max(disk) / mib, 1),
        }


class Hostile:
    """The hostile clients, counted in their own :class:`HostileStats`."""

    def __init__(
        self, url: str, platform: dict[str, str], admin: dict[str, str], args: Any, stop: threading.Event
    ) -> None:
        self.url, self.platform, self.admin, self.args, self.stop = url, platform, admin, args, stop
        self.stats = HostileStats()

    def call(
        self, kind: str, method: str, path: str, http: requests.Session, **kwargs: Any
    ) -> requests.Response | None:
        try:
            resp = http.request(method, f"{self.url}{path}", timeout=self.args.timeout, **kwargs)
        except requests.RequestException as exc:
            self.stats.record(kind, None, type(exc).__name__)
            return None
        self.stats.record(kind, resp)
        return resp

    def threads(self) -> list[threading.Thread]:
        """One thread per hostile client, but those named in ``--hostile-without``."""
        targets = {
            "metadata": self.metadata_adds,
            "filters": self.filter_flood,
            "auth": self.auth_flood,
            "configure": self.configure_calls,
        }
        left_out = set(self.args.hostile_without or ())
        return [
            threading.Thread(target=t, name=f"hostile-{name}", daemon=True)
            for name, t in targets.items()
            if name not in left_out
        ]

    def metadata_adds(self) -> None:
        """Verbatim adds of ``--hostile-messages`` messages sharing ``--hostile-metadata-kb`` of metadata."""
        http = requests.Session()
        blob = "x" * 1000
        metadata = {f"field{i}": blob for i in range(self.args.hostile_metadata_kb)}
        while not self.stop.is_set():
            token = uuid.uuid4().hex[:8]
            messages = [
                {"role": "user", "content": f"Hostile note {token} number {i} about the weather."}
                for i in range(self.args.hostile_messages)
            ]
            body = {"messages": messages, "user_id": "load-meta", "infer": False, "metadata": metadata}
            resp = self.call("metadata-add", "POST", "/v3/memories/add/", http, headers=self.platform, json=body)
            if resp is not None and resp.status_code == 200:
                results = resp.json().get("results") or []
                with self.stats.lock:
                    self.stats.acknowledged.extend(r["id"] for r in results if r.get("event") == "ADD")

    def filter_flood(self) -> None:
        """Searches filtered by ``OR`` of ``--hostile-filter-lists`` ``in`` lists of
        ``--hostile-filter-values`` values each."""
        http = requests.Session()
        lists, values = self.args.hostile_filter_lists, self.args.hostile_filter_values
        flood = {
            "AND": [
                {"user_id": "load-meta"},
                {"OR": [{"metadata.tag": {"in": [f"v{j}-{i}" for i in range(values)]}} for j in range(lists)]},
            ]
        }
        while not self.stop.is_set():
            body = {"query": "weather", "filters": flood}
            self.call("filter-flood", "POST", "/v3/memories/search/", http, headers=self.platform, json=body)

    def auth_flood(self) -> None:
        """Wrong API keys from the normal users' own address, back to back."""
        http = requests.Session()
        while not self.stop.is_set():
            wrong = {"X-API-Key": f"wrong-{uuid.uuid4().hex}"}
            self.call("bad-auth", "POST", "/search", http, headers=wrong, json={"query": "x", "user_id": "u"})

    def configure_calls(self) -> None:
        """``POST /configure`` every ``--hostile-configure-every`` seconds, alternating a setting."""
        http = requests.Session()
        for n in range(1_000_000):
            if self.stop.wait(self.args.hostile_configure_every):
                return
            body = {"engine": {"candidate_pool": 100 + n % 2}}
            self.call("configure", "POST", "/configure", http, headers=self.admin, json=body)
