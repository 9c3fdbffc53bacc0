"""Load benchmark: searches and health checks while the largest adds run and slow clients hold sockets.

    python benchmarks/load.py --seconds 60 --searchers 8 --slow-clients 4 --json load.json

One ``memorist serve`` is started on a free loopback port with ``--config``
(default ``configs/default.yaml``: 2 processes x 8 threads, sentence-transformers
ONNX embedder, heuristic extractor, LanceDB + SQLite) in a temporary data
directory. A project is bootstrapped for the platform surface, and ``--seed``
memories are stored for the searchers to find. Then, for ``--seconds``:

- ``--searchers`` threads run hybrid searches (``POST /search``) back to back;
- one thread checks ``GET /health`` every 100 ms;
- one writer sends the **largest allowed add** (``limits.max_add_chars`` of
  content, through ``POST /v3/memories/add/``: it is queued and processed by a
  worker thread inside a server process), then, back to back, the **largest
  synchronous add** (``limits.sync_add_chars``, ``POST /memories``);
- ``--slow-clients`` sockets each send a request head one byte per second
  (slowloris; the server answers 408 after ``server.header_timeout`` and the
  client reconnects), and as many sockets connect and send nothing.

With ``--hostile``, the hostile mix of :mod:`load_hostile` runs beside them for the same
time: metadata-heavy verbatim adds, filter floods, failed-auth floods from the normal users'
own address, and ``POST /configure`` calls; the server's RSS and data directory size are
sampled every second. The report adds the normal users' refusals (4xx to a valid request),
the hostile requests' answers, the memories the metadata-heavy adds were acknowledged with
(checked like the others), and RSS and disk at start, end and peak; PASS then also needs
zero 5xx of any request and no refused normal request::

    python benchmarks/load.py --seconds 60 --searchers 4 --slow-clients 2 --hostile --json hostile.json

Afterwards the queued add is awaited (``--drain-seconds``) and every memory of
the writer's users is listed: every acknowledged memory id must be listed
exactly once, and no message token may appear in two memories. The report
prints ``/health`` and search p50/p99 (seconds), the count of 5xx answers and
of other failures, and PASS only when both p99 are under 1 s, no answer was a
5xx, and every acknowledged write is stored once. Figures depend on the
machine and on what else runs on it: say which when quoting them.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent))
from load_hostile import Footprint, Hostile  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
ADMIN_KEY = "load-admin-key-0123456789abcdef"
JWT_SECRET = "load-jwt-secret-0123456789abcdef0123456789"
ADMIN = {"X-API-Key": ADMIN_KEY}
DATA = ROOT.parent / "shared" / "data" / "locomo"
TOKEN = re.compile(r"\[t-([0-9a-f]{12})\]")
#: Longest message the writer sends: under the heuristic extractor's 480 characters, so one message is one memory.
MESSAGE_CHARS = 400

FALLBACK_TURNS = [
    "I started learning the cello last spring and practice every evening after work.",
    "My sister moved to Lisbon and opened a small bakery near the river.",
    "We adopted a grey cat called Pixel from the shelter in March.",
    "I run five kilometres on Saturdays with my neighbour Tom.",
    "Our team shipped the new billing system two weeks ahead of schedule.",
    "I am allergic to peanuts, so I always read the labels.",
    "My favourite book is still The Left Hand of Darkness.",
    "I volunteer at the food bank on the first Sunday of every month.",
]


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (the convention of the other benchmark scripts)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def corpus() -> list[str]:
    """Conversation turns to build messages from: LoCoMo when present, else a few fixed sentences."""
    turns: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("text"), str) and "speaker" in node:
                turns.append(f"{node['speaker']} said: {node['text']}")
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    for path in sorted(DATA.glob("*.json")) if DATA.is_dir() else []:
        walk(json.loads(path.read_text()))
    return [t for t in turns if 20 <= len(t) <= MESSAGE_CHARS - 20] or FALLBACK_TURNS


@dataclass
class Stats:
    lock: threading.Lock = field(default_factory=threading.Lock)
    latency: dict[str, list[float]] = field(default_factory=lambda: {"health": [], "search": [], "add": []})
    statuses: Counter[str] = field(default_factory=Counter)
    failures: Counter[str] = field(default_factory=Counter)
    slow_closed: int = 0

    def record(self, kind: str, started: float, resp: requests.Response | None, error: str | None = None) -> None:
        with self.lock:
            if resp is not None:
                self.statuses[f"{kind} {resp.status_code}"] += 1
                if resp.status_code < 400:  # a refusal is counted, not timed: fast 429s would flatter p99
                    self.latency[kind].append(time.monotonic() - started)
            else:
                self.failures[f"{kind}: {error}"] += 1

    @property
    def server_errors(self) -> int:
        return sum(n for key, n in self.statuses.items() if key.split()[-1].startswith("5"))


class Server:
    def __init__(self, args: argparse.Namespace, workdir: Path) -> None:
        self.port = args.port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = workdir / "server.log"
        self.data_dir = workdir / "data"
        env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORIST_")}
        env.update(
            PYTHONPATH=os.pathsep.join([str(ROOT / "framework"), str(ROOT / "plugins"), str(ROOT)]),
            HF_HUB_OFFLINE="1",
            JWT_SECRET=JWT_SECRET,
            ADMIN_API_KEY=ADMIN_KEY,
            MEMORIST_DATA_DIR=str(workdir / "data"),
        )
        if args.embedder == "hashing":
            env.update(MEMORIST_PLUGIN_MODULES="tests.plugins.hashing", MEMORIST_EMBEDDER__PROVIDER="hashing")
        command = [sys.executable, "-m", "memorist.cli", "serve", "--port", str(self.port)]
        if args.embedder == "default":  # the hashing embedder takes none of the config's embedder options
            command += ["--config", str(args.config)]
        command += ["--data-dir", str(workdir / "data")]
        if args.workers:
            command += ["--workers", str(args.workers)]
        self.command, self.env = command, env
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 300) -> None:
        log = open(self.log_path, "ab")
        self.process = subprocess.Popen(
            self.command, env=self.env, cwd=str(ROOT), stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SystemExit(f"server exited with {self.process.returncode}; see {self.log_path}")
            try:
                if requests.get(f"{self.url}/health", timeout=5).status_code == 200:
                    return
            except requests.RequestException:
                pass
            time.sleep(0.5)
        raise SystemExit(f"server did not start in {timeout:.0f} s; see {self.log_path}")

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)


class Load:
    def __init__(self, server: Server, platform: dict[str, str], args: argparse.Namespace, limits: dict[str, int]):
        self.server, self.platform, self.args, self.limits = server, platform, args, limits
        self.stats = Stats()
        self.stop = threading.Event()
        self.turns = itertools.cycle(corpus())
        self.turn_lock = threading.Lock()
        self.acknowledged: dict[str, list[str]] = {"load-sync": [], "load-big": []}  # user -> memory ids
        self.big_event: str | None = None
        self.hostile = Hostile(server.url, platform, ADMIN, args, self.stop) if args.hostile else None
        self.footprint = (
            Footprint(server.process.pid, server.data_dir) if args.hostile and server.process is not None else None
        )

    def messages(self, chars: int, max_messages: int = 1000) -> tuple[list[dict[str, str]], int]:
        """Messages holding about ``chars`` characters of content (at most ``max_messages`` of them,
        each under ``MESSAGE_CHARS``), each ending with a unique token."""
        target = min(MESSAGE_CHARS, max(-(-chars // max_messages), 60))
        out: list[dict[str, str]] = []
        total = 0
        with self.turn_lock:
            while total < chars and len(out) < max_messages:
                token = f" [t-{uuid.uuid4().hex[:12]}]"
                room = min(target, chars - total) - len(token)
                if room < 20:
                    break
                text = next(self.turns)
                while len(text) < room:
                    text += " " + next(self.turns)
                text = text[:room] + token
                out.append({"role": "user", "content": text})
                total += len(text)
        return out, total

    def call(
        self, kind: str, method: str, path: str, http: requests.Session, **kwargs: Any
    ) -> requests.Response | None:
        started = time.monotonic()
        try:
            resp = http.request(method, f"{self.server.url}{path}", timeout=self.args.timeout, **kwargs)
        except requests.RequestException as exc:
            self.stats.record(kind, started, None, type(exc).__name__)
            return None
        self.stats.record(kind, started, resp)
        return resp

    def health(self) -> None:
        http = requests.Session()
        while not self.stop.is_set():
            self.call("health", "GET", "/health", http)
            self.stop.wait(0.1)

    def searcher(self, index: int) -> None:
        http = requests.Session()
        queries = ["what does she like to do on weekends", "where did they travel", "who is their family", "pets"]
        for n in itertools.count(index):
            if self.stop.is_set():
                return
            body = {"query": queries[n % len(queries)], "user_id": "load-seed", "limit": 10}
            self.call("search", "POST", "/search", http, headers=ADMIN, json=body)

    def writer(self) -> None:
        http = requests.Session()
        messages, chars = self.messages(self.limits["max_add_chars"], self.limits["max_add_messages"])
        resp = self.call(
            "add",
            "POST",
            "/v3/memories/add/",
            http,
            headers=self.platform,
            json={"messages": messages, "user_id": "load-big"},
        )
        print(
            f"  largest add: {chars} characters in {len(messages)} messages -> {resp and resp.status_code}", flush=True
        )
        if resp is not None and resp.status_code == 200:
            self.big_event = resp.json()["event_id"]
        while not self.stop.is_set():
            messages, _ = self.messages(self.limits["sync_add_chars"])
            resp = self.call(
                "add", "POST", "/memories", http, headers=ADMIN, json={"messages": messages, "user_id": "load-sync"}
            )
            if resp is not None and resp.status_code == 200:
                self.acknowledged["load-sync"].extend(r["id"] for r in resp.json()["results"])

    def slow_client(self) -> None:
        """A slowloris: a request head one byte per second; reconnect whenever the server closes."""
        head = (
            b"POST /search HTTP/1.1\r\nHost: localhost\r\nX-API-Key: "
            + ADMIN_KEY.encode()
            + b"\r\nX-Pad: "
            + b"a" * 200
        )
        while not self.stop.is_set():
            try:
                with socket.create_connection(("127.0.0.1", self.server.port), timeout=30) as sock:
                    for byte in head:
                        if self.stop.is_set():
                            return
                        sock.sendall(bytes([byte]))
                        self.stop.wait(1.0)
            except OSError:
                with self.stats.lock:
                    self.stats.slow_closed += 1

    def idle_client(self) -> None:
        """A connection that sends nothing at all."""
        while not self.stop.is_set():
            try:
                with socket.create_connection(("127.0.0.1", self.server.port), timeout=5) as sock:
                    sock.settimeout(1.0)
                    while not self.stop.is_set():
                        try:
                            if not sock.recv(1):
                                break  # closed by the server
                        except TimeoutError:
                            continue
            except OSError:
                self.stop.wait(0.5)

    def run(self) -> None:
        threads = [threading.Thread(target=self.health, daemon=True), threading.Thread(target=self.writer, daemon=True)]
        threads += [threading.Thread(target=self.searcher, args=(i,), daemon=True) for i in range(self.args.searchers)]
        for _ in range(self.args.slow_clients):
            threads += [threading.Thread(target=self.slow_client, daemon=True)]
            threads += [threading.Thread(target=self.idle_client, daemon=True)]
        if self.hostile is not None:
            threads += self.hostile.threads()
        if self.footprint is not None:
            threads += [threading.Thread(target=self.footprint.watch, args=(self.stop,), daemon=True)]
        for thread in threads:
            thread.start()
        self.stop.wait(self.args.seconds)
        self.stop.set()
        for thread in threads:
            thread.join(self.args.timeout + 5)


def patient(send: Any, *args: Any, **kwargs: Any) -> requests.Response:
    """A checking request after the load, waiting out a 429 (``Retry-After``): a failed-auth
    flood from this address may still hold the address's throttle for its window."""
    deadline = time.monotonic() + 180
    while True:
        resp: requests.Response = send(*args, **kwargs)
        if resp.status_code != 429 or time.monotonic() > deadline:
            return resp
        time.sleep(float(resp.headers.get("Retry-After") or 5))


def list_user(server: Server, user: str, platform: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """Every memory of ``user``: in the self-hosted space, or (``platform`` key) in the key's project."""
    out: list[dict[str, Any]] = []
    size = 1000 if platform is None else 200  # the platform's largest page
    page = 0
    while True:
        page += 1
        if platform is None:
            resp = patient(
                requests.get,
                f"{server.url}/memories",
                headers=ADMIN,
                params={"user_id": user, "page": str(page), "page_size": str(size)},
                timeout=120,
            )
        else:
            resp = patient(
                requests.post,
                f"{server.url}/v3/memories/",
                headers=platform,
                params={"page": page, "page_size": size},
                json={"filters": {"user_id": user}},
                timeout=120,
            )
        resp.raise_for_status()
        out.extend(resp.json()["results"])
        if len(resp.json()["results"]) < size:
            return out


def verify(load: Load, args: argparse.Namespace) -> dict[str, Any]:
    """Every acknowledged memory listed exactly once; no token in two memories."""
    problems: list[str] = []
    if load.big_event is None:
        problems.append("the largest add was not acknowledged")
    else:
        deadline = time.monotonic() + args.drain_seconds
        while True:
            event = patient(
                requests.get, f"{load.server.url}/v1/event/{load.big_event}/", headers=load.platform, timeout=60
            ).json()
            if event["status"] in ("SUCCEEDED", "FAILED") or time.monotonic() > deadline:
                break
            time.sleep(2)
        print(f"  largest add: {event['status']} after {event.get('latency')} ms, attempts {event['attempts']}")
        if event["status"] != "SUCCEEDED":
            problems.append(f"the largest add ended {event['status']}: {event.get('error')}")
        load.acknowledged["load-big"] = [r["id"] for r in event.get("results") or [] if r.get("event") == "ADD"]
    if load.hostile is not None:
        load.acknowledged["load-meta"] = list(load.hostile.stats.acknowledged)
    checked = 0
    for user, ids in load.acknowledged.items():
        listed = list_user(load.server, user, None if user == "load-sync" else load.platform)
        counts = Counter(m["id"] for m in listed)
        missing = [i for i in ids if counts[i] != 1]
        tokens = Counter(t for m in listed for t in TOKEN.findall(m["memory"]))
        doubled = [t for t, n in tokens.items() if n > 1]
        checked += len(ids)
        if missing:
            problems.append(f"{user}: {len(missing)} acknowledged memories not listed exactly once")
        if doubled:
            problems.append(f"{user}: {len(doubled)} messages stored in more than one memory")
    return {"checked": checked, "problems": problems}


def configured_limits(config: Path) -> Any:
    """The ``limits`` the server runs with (the same settings loader, this tree's code)."""
    sys.path[:0] = [str(ROOT / "framework"), str(ROOT / "plugins")]
    from memorist.config.settings import load_settings

    return load_settings(config, environ={}).limits


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", type=Path, default=ROOT / "configs" / "default.yaml")
    parser.add_argument("--workers", type=int, help="server processes (default: the config's)")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--searchers", type=int, default=8)
    parser.add_argument("--slow-clients", type=int, default=4, help="slowloris sockets (and as many idle ones)")
    parser.add_argument("--seed", type=int, default=120, help="memories stored for the searchers first")
    parser.add_argument("--embedder", choices=("default", "hashing"), default="default")
    parser.add_argument("--timeout", type=float, default=60.0, help="client timeout per request (s)")
    parser.add_argument("--drain-seconds", type=float, default=900.0, help="wait this long for the queued add")
    parser.add_argument("--port", type=int)
    parser.add_argument("--hostile", action="store_true", help="run the hostile mix beside the normal users")
    parser.add_argument("--hostile-messages", type=int, default=50, help="messages per metadata-heavy add")
    parser.add_argument("--hostile-metadata-kb", type=int, default=64, help="metadata per metadata-heavy add (KB)")
    parser.add_argument("--hostile-filter-lists", type=int, default=100, help="'in' lists OR-ed in a flood filter")
    parser.add_argument("--hostile-filter-values", type=int, default=200, help="values per 'in' list")
    parser.add_argument(
        "--hostile-without",
        nargs="*",
        choices=("metadata", "filters", "auth", "configure"),
        help="leave these hostile clients out (e.g. auth: its throttle refuses everyone else at this address)",
    )
    parser.add_argument("--hostile-configure-every", type=float, default=2.0, help="seconds between /configure")
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument("--keep", action="store_true", help="keep the work directory (server log, data)")
    args = parser.parse_args(argv)

    workdir = Path(tempfile.mkdtemp(prefix="memorist-load-"))
    server = Server(args, workdir)
    began = time.monotonic()
    server.start()
    what = args.config.name if args.embedder == "default" else "built-in defaults, hashing embedder"
    print(f"server {server.url} ({what}) started in {time.monotonic() - began:.1f} s; work dir {workdir}")
    try:
        configured = configured_limits(args.config)
        limits = {
            "max_add_chars": configured.max_add_chars,
            "max_add_messages": configured.max_add_messages,
            "sync_add_chars": configured.sync_add_chars,
        }
        key = requests.post(
            f"{server.url}/api/v1/admin/bootstrap/",
            headers=ADMIN,
            json={"org_name": "Load", "project_name": "Load", "email": "load@example.com"},
            timeout=60,
        ).json()["key"]
        platform = {"Authorization": f"Token {key}"}
        load = Load(server, platform, args, limits)
        seeded = 0
        while seeded < args.seed:
            batch, _ = load.messages(min(limits["sync_add_chars"], 40 * 100))
            resp = requests.post(
                f"{server.url}/memories", headers=ADMIN, json={"messages": batch, "user_id": "load-seed"}, timeout=300
            )
            resp.raise_for_status()
            seeded += len(resp.json()["results"]) or len(batch)
        print(
            f"seeded {seeded} memories; load for {args.seconds:.0f} s: {args.searchers} searchers, "
            f"{args.slow_clients} slow + {args.slow_clients} idle sockets, limits {limits}",
            flush=True,
        )
        load.run()
        outcome = verify(load, args)
    finally:
        server.stop()
    stats = load.stats
    figures: dict[str, dict[str, Any]] = {
        kind: {
            "count": len(values),
            "p50": round(percentile(values, 0.5), 4),
            "p99": round(percentile(values, 0.99), 4),
            "max": round(max(values), 4) if values else None,
        }
        for kind, values in stats.latency.items()
    }
    refused = {key: n for key, n in stats.statuses.items() if key.split()[-1].startswith("4")}
    hostile = load.hostile.stats if load.hostile is not None else None
    hostile_5xx = hostile.server_errors if hostile is not None else 0
    verdict = (
        float(figures["health"]["p99"]) < 1.0
        and float(figures["search"]["p99"]) < 1.0
        and stats.server_errors == 0
        and not outcome["problems"]
        and (hostile is None or (hostile_5xx == 0 and not refused))
    )
    report = {
        "verdict": "PASS" if verdict else "FAIL",
        "seconds": args.seconds,
        "searchers": args.searchers,
        "slow_clients": args.slow_clients,
        "limits": limits,
        "latency_seconds": figures,
        "statuses": dict(stats.statuses),
        "failures": dict(stats.failures),
        "server_errors_5xx": stats.server_errors,
        "slow_client_disconnects": stats.slow_closed,
        "writes": outcome,
        "normal_refused_4xx": refused,
        "hostile": None
        if hostile is None
        else {
            "statuses": dict(hostile.statuses),
            "failures": dict(hostile.failures),
            "server_errors_5xx": hostile_5xx,
            "metadata_adds_acknowledged_memories": len(hostile.acknowledged),
            "footprint": load.footprint.report() if load.footprint is not None else {},
        },
        "cpu_count": os.cpu_count(),
        "load_average": os.getloadavg(),
    }
    for kind, f in figures.items():
        print(f"{kind:>7}: n={f['count']:>5}  p50 {f['p50']:.3f} s  p99 {f['p99']:.3f} s  max {f['max']} s")
    print(
        f"5xx: {stats.server_errors}; other failures: {dict(stats.failures) or 'none'}; "
        f"slow-client disconnects: {stats.slow_closed}"
    )
    print(f"writes: {outcome['checked']} acknowledged memories checked; problems: {outcome['problems'] or 'none'}")
    if hostile is not None:
        print(f"normal users refused (4xx): {refused or 'none'}")
        print(
            f"hostile answers: {dict(sorted(hostile.statuses.items()))}; no answer: {dict(hostile.failures) or 'none'}"
        )
        print(f"5xx of hostile requests: {hostile_5xx}")
        print(f"footprint: {report['hostile']['footprint']}")  # type: ignore[index]
    print(f"verdict: {report['verdict']}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    if not args.keep and verdict:
        import shutil

        shutil.rmtree(workdir, ignore_errors=True)
    return 0 if verdict else 1


if __name__ == "__main__":
    sys.exit(main())
