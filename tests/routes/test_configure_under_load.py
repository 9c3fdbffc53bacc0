"""``POST /configure`` beside serving threads, and a database too busy to serve (issue 39, item 10).

Every engine a ``/configure`` built took one more pooled SQLite connection per serving
thread (kept for scope-generation reads, never returned): with 8 threads, two or three
calls used up the pool (5 + 20), and requests waited 30 s and answered 500. Now the
kept connections are outside the pool, one per thread whatever number of engines, and a
pool that does run dry answers 503 with ``Retry-After`` after a bounded wait.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import falcon.testing
import pytest
from memorist.config.settings import load_settings
from memorist.http import create_app
from memorist.kernel.core import Kernel
from memorist.plugin.manager import load_plugins

from tests.conftest import fast_settings
from tests.plugins import hashing

ADMIN_KEY = "configure-load-admin-key-0123456789abcdef"
HEADERS = {"X-API-Key": ADMIN_KEY}


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Kernel, falcon.testing.TestClient]]:
    settings = load_settings(
        None,
        fast_settings(
            tmp_path,
            auth={"admin_api_key": ADMIN_KEY},
            queue={"workers": 0},
            database={"pool_timeout_seconds": 1.0},
        ),
    )
    kernel = Kernel.build(settings, load_plugins({}, extra=[hashing]))
    client = falcon.testing.TestClient(create_app(kernel))
    yield kernel, client
    kernel.close()


def _add(client: falcon.testing.TestClient, text: str, user: str) -> falcon.testing.Result:
    return client.simulate_post(
        "/memories", headers=HEADERS, json={"messages": [{"role": "user", "content": text}], "user_id": user}
    )


def _search(client: falcon.testing.TestClient, query: str, user: str) -> falcon.testing.Result:
    return client.simulate_post("/search", headers=HEADERS, json={"query": query, "user_id": user})


def _pool_drains(kernel: Kernel, within_seconds: float) -> bool:
    deadline = time.monotonic() + within_seconds
    while kernel.db.engine.pool.checkedout():  # type: ignore[attr-defined]
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_configure_calls_beside_serving_threads_never_run_the_pool_dry(
    served: tuple[Kernel, falcon.testing.TestClient],
) -> None:
    """Eight long-lived serving threads (as gunicorn's) search and add while five ``/configure``
    calls each build a new engine: every answer is 200, and no connection stays checked out."""
    kernel, client = served
    assert _add(client, "I drink green tea every morning.", "mika").status_code == 200
    answers: list[int] = []

    def serve(round_: int, n: int) -> list[int]:
        codes = [_search(client, "green tea", "mika").status_code for _ in range(2)]
        codes.append(_add(client, f"Round {round_}: I walked {n} kilometres by the lake.", f"walker{n}").status_code)
        return codes

    with ThreadPoolExecutor(8) as threads:
        for round_ in range(5):
            for codes in threads.map(lambda n, r=round_: serve(r, n), range(16)):
                answers.extend(codes)
            configured = client.simulate_post(
                "/configure", headers=HEADERS, json={"engine": {"candidate_pool": 100 + round_}}
            )
            assert configured.status_code == 200, configured.text
    assert answers and set(answers) == {200}, sorted(set(answers))
    # The request log's writer thread borrows a connection for a moment every second, so a
    # leak is a connection still out after it has had time to finish, not one out right now.
    assert _pool_drains(kernel, within_seconds=5.0), kernel.db.engine.pool.status()  # type: ignore[attr-defined]
    found = _search(client, "green tea", "mika").json["results"]
    assert found and "green tea" in found[0]["memory"]


def test_a_dry_pool_answers_503_with_retry_after_and_recovers(
    served: tuple[Kernel, falcon.testing.TestClient],
) -> None:
    """Every pooled connection held elsewhere: a request waits ``database.pool_timeout_seconds``
    and answers 503 with ``Retry-After`` (not 500); once connections free up it is served."""
    kernel, client = served
    assert _add(client, "Ich wohne in Leipzig.", "jonas").status_code == 200
    pool: Any = kernel.db.engine.pool
    with ExitStack() as held:
        while pool.checkedout() < pool.size() + pool._max_overflow:
            held.enter_context(kernel.db.engine.connect())
        busy = _add(client, "Ich spiele Cello.", "jonas")
        assert busy.status_code == 503, busy.text
        assert busy.headers.get("Retry-After") and "retry" in busy.json["detail"]
    assert _add(client, "Ich spiele Cello.", "jonas").status_code == 200
    listed = client.simulate_get("/memories", headers=HEADERS, params={"user_id": "jonas"}).json
    texts = [m["memory"] for m in (listed["results"] if isinstance(listed, dict) else listed)]
    assert any("Cello" in t for t in texts) and any("Leipzig" in t for t in texts)
