"""The injected faults: SIGKILL a worker, restart the server, stop PostgreSQL."""

from __future__ import annotations

import argparse
import itertools
import random
import threading
import time

from harness import PostgresCluster, ServeProcess

from .state import FAULTS, SoakState, Window


class Faults:
    """Runs the enabled faults in turn every ``--fault-every`` seconds during the load phase."""

    def __init__(
        self,
        state: SoakState,
        server: ServeProcess,
        pg: PostgresCluster | None,
        headers: dict[str, str],
        args: argparse.Namespace,
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
        self.server.start(timeout=240.0)
        window.detail = f"SIGTERM master (exited in {stopped:.1f} s), started again on port {self.server.port}"
        self.ready(120)

    def db_outage(self, window: Window) -> None:
        assert self.pg is not None
        self.pg.stop_server(self.args.outage_mode)
        time.sleep(self.args.outage_seconds)
        self.pg.start_server()
        window.detail = f"pg_ctl stop -m {self.args.outage_mode}, down {self.args.outage_seconds:.0f} s"
        self.ready(120)
