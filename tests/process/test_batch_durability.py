"""Bulk doors against a real server: acknowledged batches survive kill -9; ``memorist import --server``.

A synchronous ``POST /memories/batch`` answers 200 only after ``Memory.add_many``
has returned, i.e. after the vectors and the relational rows are written. The
test kills every server process (SIGKILL, master and workers) while batches are
being sent and checks, after a restart on the same data, that every memory an
answer acknowledged is there with its text. (Queued batches are the durable
queue's guarantee, covered by ``tests/process/test_crash.py``.)
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import requests
from click.testing import CliRunner
from memorist.cli import cli
from memorist.testing.server import ADMIN, ADMIN_KEY, Server

BATCHES = 60


def send_batches(server: Server, acknowledged: dict[str, str], stop: threading.Event) -> None:
    http = requests.Session()
    http.trust_env = False
    for b in range(BATCHES):
        if stop.is_set():
            return
        items = [
            {
                "messages": [
                    {"role": "user", "content": f"Batch {b} fact {i}: my locker number {b * 10 + i} is blue."}
                ],
                "user_id": f"kill-{i}",
                "infer": False,
            }
            for i in range(4)
        ]
        try:
            resp = http.post(f"{server.url}/memories/batch", headers=ADMIN, json={"items": items}, timeout=10)
        except requests.RequestException:
            continue  # not acknowledged: nothing is owed
        if resp.status_code == 200:
            for answer in resp.json()["items"]:
                for result in answer["results"]:
                    acknowledged[result["id"]] = result["memory"]


def test_acknowledged_batches_survive_kill_9_and_import_goes_through_the_server(tmp_path: Path) -> None:
    env = {"MEMORIST_LIMITS__SYNC_ADD_CHARS": "300", "MEMORIST_LIMITS__MAX_BATCH_ITEMS": "6"}
    server = Server(tmp_path / "data", env=env, workers=2).start()
    acknowledged: dict[str, str] = {}
    stop = threading.Event()
    producer = threading.Thread(target=send_batches, args=(server, acknowledged, stop))
    producer.start()
    deadline = time.monotonic() + 90
    while len(acknowledged) < 4 * 10 and time.monotonic() < deadline:
        time.sleep(0.02)
    server.kill9()
    stop.set()
    producer.join()
    assert 0 < len(acknowledged) < 4 * BATCHES

    restarted = Server(tmp_path / "data", env=env, workers=2)
    restarted.port, restarted.url = server.port, server.url
    restarted.start()
    try:
        for memory_id, text in acknowledged.items():
            resp = restarted.get(f"/memories/{memory_id}", headers=ADMIN)
            assert resp.status_code == 200, f"acknowledged memory {memory_id} lost: {resp.text}"
            assert resp.json()["memory"] == text

        # memorist import through the server's batch route: a batch over its caps is halved, a queued one
        # is polled to the end, an item the server refuses is named by its line (--skip-invalid: left out).
        lines = [
            {"text": f"I visited city number {i} of my travel list last spring.", "user_id": "via"} for i in range(12)
        ]
        lines[4] = {"text": "I have no valid date.", "user_id": "via", "timestamp": "not a date"}
        path = tmp_path / "server.jsonl"
        path.write_text("\n".join(json.dumps(line) for line in lines))
        runner = CliRunner()
        args = ["import", "--server", restarted.url, "--api-key", ADMIN_KEY, "--batch-size", "11", str(path)]
        refused = runner.invoke(cli, args)
        assert refused.exit_code == 2 and f"{path}:5: timestamp: " in refused.stderr, refused.output
        result = runner.invoke(cli, [*args, "--skip-invalid"])
        assert result.exit_code == 0, result.output
        assert "imported 11 adds" in result.stdout and "1 invalid lines left out" in result.stdout
        # 11 adds are over the server's 6 per batch: sent as 5 (4 once the bad line is left out: 220
        # characters, answered at once) and 6 (330 characters > 300: queued, awaited), then the 12th line.
        assert "(6 adds queued by the server and awaited)" in result.stdout
        listed = restarted.get("/memories", headers=ADMIN, params={"user_id": "via"}).json()
        stored = result.stdout.split(": ", 1)[1].split(" memories stored")[0]
        assert listed["count"] == int(stored) > 0
    finally:
        restarted.stop()
