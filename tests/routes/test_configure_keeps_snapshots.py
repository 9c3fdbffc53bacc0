"""``POST /configure`` keeps what stays valid, and builds one engine at a time (issue 39).

Every ``/configure`` builds a new engine. Its scope index (the in-memory snapshots a
pinned search ranks, :mod:`memorist.engine.scope_index`) used to start empty, so every
user's next search reloaded its scope from the store: under configure calls every 2 s
that was most searches. A change that keeps the embedder and the vector store (a
language model, a reranker, a threshold) now keeps the snapshots; one that changes
them starts empty. Observed through the index's load counter, never through timing.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import falcon.testing
import pytest
from memorist.config.settings import load_settings
from memorist.engine.scope_index import carried_index
from memorist.http import create_app
from memorist.kernel.core import Kernel
from memorist.kernel.runtime import CONFIGURE_RETRY_AFTER
from memorist.plugin.manager import load_plugins

from tests.conftest import fast_settings
from tests.plugins import hashing

ADMIN_KEY = "configure-snapshots-admin-key-0123456789abcdef"
HEADERS = {"X-API-Key": ADMIN_KEY}
LOCAL_MODEL = {"provider": "openai", "options": {"model": "m", "base_url": "http://127.0.0.1:9/v1"}}


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Kernel, falcon.testing.TestClient]]:
    settings = load_settings(
        None,
        fast_settings(
            tmp_path,
            auth={"admin_api_key": ADMIN_KEY},
            queue={"workers": 0},
            security={"outbound_allow": ["127.0.0.0/8"]},
        ),
    )
    kernel = Kernel.build(settings, load_plugins({}, extra=[hashing]))
    yield kernel, falcon.testing.TestClient(create_app(kernel))
    kernel.close()


def _add(client: falcon.testing.TestClient, text: str, user: str) -> None:
    resp = client.simulate_post(
        "/memories",
        headers=HEADERS,
        json={"messages": [{"role": "user", "content": text}], "user_id": user, "infer": False},
    )
    assert resp.status_code == 200, resp.text


def _found(client: falcon.testing.TestClient, query: str, user: str) -> list[str]:
    resp = client.simulate_post("/search", headers=HEADERS, json={"query": query, "user_id": user})
    assert resp.status_code == 200, resp.text
    return [r["memory"] for r in resp.json["results"]]


def _configure(client: falcon.testing.TestClient, patch: dict[str, Any]) -> falcon.testing.Result:
    return client.simulate_post("/configure", headers=HEADERS, json=patch)


def _loads(kernel: Kernel) -> int:
    index = kernel.runtime.memory.scope_index
    assert index is not None
    return index.loads


def test_a_new_language_model_keeps_every_users_snapshot(served: tuple[Kernel, falcon.testing.TestClient]) -> None:
    kernel, client = served
    _add(client, "I drink green tea every morning.", "mika")
    _add(client, "Ich wohne seit zwei Jahren in Leipzig.", "jonas")
    assert any("green tea" in m for m in _found(client, "green tea", "mika"))
    assert any("Leipzig" in m for m in _found(client, "wohne Leipzig", "jonas"))
    loaded = _loads(kernel)
    old = kernel.runtime.memory
    scopes = sorted(old.scope_index.cached())
    assert len(scopes) == 2

    for patch in ({"language_model": LOCAL_MODEL}, {"engine": {"candidate_pool": 120}}):
        assert _configure(client, patch).status_code == 200
        assert kernel.runtime.memory is not old
        # The new engine serves its first search from the snapshots already loaded.
        assert sorted(kernel.runtime.memory.scope_index.cached()) == scopes
        assert any("green tea" in m for m in _found(client, "green tea", "mika"))
        assert any("Leipzig" in m for m in _found(client, "Leipzig", "jonas"))
        assert _loads(kernel) == loaded, "a configure that kept the store made a search reload its scope"

    # Read-your-writes on the kept snapshot: an add through the new engine, and one through the
    # replaced engine still finishing a request, are both found by the next search.
    _add(client, "My sister lives in Porto.", "mika")
    old.add([{"role": "user", "content": "I am learning the cello."}], user_id="mika", infer=False)
    found = _found(client, "sister Porto cello green tea", "mika")
    assert any("Porto" in m for m in found) and any("cello" in m for m in found)
    # A delete is seen too (the generation moved: that scope alone reloads).
    hits = client.simulate_post("/search", headers=HEADERS, json={"query": "green tea", "user_id": "mika"}).json
    tea = next(r for r in hits["results"] if "green tea" in r["memory"])
    assert client.simulate_delete(f"/memories/{tea['id']}", headers=HEADERS).status_code == 200
    assert not any("green tea" in m for m in _found(client, "green tea", "mika"))


def test_a_new_store_or_embedder_starts_with_no_snapshot(served: tuple[Kernel, falcon.testing.TestClient]) -> None:
    """A store can only be replaced while it is empty (else 409), so the scope is searched
    empty first; the engine built over the new store has its own index and loads afresh."""
    kernel, client = served
    assert _found(client, "green tea", "mika") == []
    assert _loads(kernel) == 1
    kept = kernel.runtime.memory.scope_index

    moved = _configure(client, {"vector_store": {"options": {"path": "lance-moved"}}})
    assert moved.status_code == 200, moved.text
    assert kernel.runtime.memory.scope_index is not kept
    assert _loads(kernel) == 0
    _add(client, "I drink green tea every morning.", "mika")
    assert any("green tea" in m for m in _found(client, "green tea", "mika"))
    assert (tmp := _loads(kernel)) == 1, tmp

    assert client.simulate_post("/reset", headers=HEADERS).status_code == 200
    assert _found(client, "green tea", "mika") == []
    before = kernel.runtime.memory.scope_index
    embedder = _configure(
        client,
        {"embedder": {"options": {"dimension": 32}}, "vector_store": {"options": {"path": "lance-32"}}},
    )
    assert embedder.status_code == 200, embedder.text
    assert kernel.runtime.memory.scope_index is not before and _loads(kernel) == 0
    _add(client, "Ich trinke jeden Morgen grünen Tee.", "mika")
    assert any("Tee" in m for m in _found(client, "grünen Tee", "mika"))

    resized = kernel.runtime.memory.scope_index
    limits = _configure(client, {"engine": {"scope_index_rows": 50_000}})
    assert limits.status_code == 200, limits.text
    assert kernel.runtime.memory.scope_index is not resized


def test_the_same_store_under_another_embedder_is_not_carried(
    served: tuple[Kernel, falcon.testing.TestClient],
) -> None:
    """The guard itself: a store object shared with a different embedder (vectors of another
    model in the same table) never keeps snapshots of the old model's vectors."""
    kernel, _ = served
    memory = kernel.runtime.memory
    components = memory.components
    engine = memory.settings.engine
    assert carried_index(memory.scope_index, components, components, engine, memory.db) is memory.scope_index
    other = SimpleNamespace(embedder=object(), vector_store=components.vector_store)
    assert carried_index(memory.scope_index, components, other, engine, memory.db) is None


def test_one_configure_builds_at_a_time(
    served: tuple[Kernel, falcon.testing.TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A configure arriving while another builds gets 429 with Retry-After at once (it holds
    no serving thread); the first one completes; the next one after it is accepted."""
    kernel, client = served
    runtime = kernel.runtime
    building, release = threading.Event(), threading.Event()
    build = runtime._build

    def slow_build(*args: Any, **kwargs: Any) -> Any:
        building.set()
        assert release.wait(30)
        return build(*args, **kwargs)

    monkeypatch.setattr(runtime, "_build", slow_build)
    first: list[falcon.testing.Result] = []
    thread = threading.Thread(target=lambda: first.append(_configure(client, {"engine": {"candidate_pool": 111}})))
    thread.start()
    try:
        assert building.wait(30)
        refused = _configure(client, {"engine": {"candidate_pool": 222}})
        assert refused.status_code == 429, refused.text
        assert refused.headers["Retry-After"] == str(CONFIGURE_RETRY_AFTER)
        assert "another configuration change" in refused.json["detail"]
        # Serving goes on meanwhile.
        searched = client.simulate_post("/search", headers=HEADERS, json={"query": "tea", "user_id": "u"})
        assert searched.status_code == 200
    finally:
        release.set()
        thread.join(30)
    assert first and first[0].status_code == 200, first
    assert runtime.overrides["engine"]["candidate_pool"] == 111
    monkeypatch.setattr(runtime, "_build", build)
    after = _configure(client, {"engine": {"candidate_pool": 333}})
    assert after.status_code == 200 and runtime.overrides["engine"]["candidate_pool"] == 333
