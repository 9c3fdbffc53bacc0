"""An acknowledged add survives ``kill -9``: a real process adds memories one by one (the
default embedded stack), reports each acknowledged add, and is killed with SIGKILL in the
middle of the stream; the reopened data directory holds every acknowledged memory exactly
once, readable, searchable and with its history.

Two settings: the default write-behind (flushes run beside the adds, so the kill lands
anywhere), and a flush delay longer than the test (every acknowledged row is still only in
the journal when the process dies, which the test checks).
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from memorist.config.settings import load_settings
from memorist.python.engine import Engine

ACKS = 30


def overrides(data_dir: Path, delay: float | None) -> dict[str, Any]:
    found: dict[str, Any] = {"data_dir": str(data_dir)}
    if delay is not None:
        found["vector_store"] = {"provider": "lancedb", "options": {"flush_delay_seconds": delay}}
    return found


def add_until_killed(data_dir: Path, delay: float | None) -> list[dict[str, str]]:
    script = textwrap.dedent(
        f"""
        import json, sys
        from memorist.python.engine import Engine as Memory
        from memorist.config.settings import load_settings
        memory = Memory.from_settings(load_settings(None, {overrides(data_dir, delay)!r}))
        for i in range(100_000):
            text = f"My locker number {{i}} at the pool has the code {{i * 7919 % 10_000}}."
            outcome = memory.add_outcome(text, user_id="swimmer", infer=False)
            for record in outcome.stored:
                print(json.dumps({{"id": record.id, "text": record.text}}), flush=True)
        """
    )
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, env=os.environ)
    acknowledged: list[dict[str, str]] = []
    assert child.stdout is not None
    try:
        for line in child.stdout:
            acknowledged.append(json.loads(line))
            if len(acknowledged) >= ACKS:
                os.kill(child.pid, signal.SIGKILL)  # mid-stream: the next add may be half done
                break
    finally:
        child.kill()
        child.wait(timeout=60)
    assert child.returncode == -signal.SIGKILL
    return acknowledged


@pytest.mark.parametrize("delay", [None, 3600.0], ids=["default-flushing", "all-pending"])
def test_every_acknowledged_add_survives_kill_9_exactly_once(tmp_path: Path, delay: float | None) -> None:
    acknowledged = add_until_killed(tmp_path, delay)
    assert len(acknowledged) == ACKS
    journal = tmp_path / "lancedb" / "memories.journal.sqlite"
    if delay is not None:  # nothing was flushed: every acknowledged row is only in the journal
        with sqlite3.connect(journal) as conn:
            (pending,) = conn.execute("SELECT count(*) FROM pending").fetchone()
        assert pending >= ACKS
    memory = Engine.from_settings(load_settings(None, overrides(tmp_path, delay)))
    try:
        page = memory.list(user_id="swimmer", page_size=1000)
        ids = [r.id for r in page.records]
        assert len(ids) == len(set(ids)) == page.total
        assert ACKS <= page.total <= ACKS + 1  # the add in flight at the kill may have been journaled
        texts = [r.text for r in page.records]
        for item in acknowledged:
            assert memory.get(item["id"]).text == item["text"]
            assert texts.count(item["text"]) == 1
            # Exactly one ADD (a later fact may have superseded it: a derived SUPERSEDED row).
            assert [h["event"] for h in memory.history(item["id"]) if h["event"] != "SUPERSEDED"] == ["ADD"]
        for item in acknowledged[-5:]:  # the youngest: the likeliest to have been pending
            hits = memory.search(item["text"], user_id="swimmer", top_k=3)
            assert item["id"] in [h.record.id for h in hits]
    finally:
        memory.close()
