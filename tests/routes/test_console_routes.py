"""The routes behind the dashboard's console, in process: sorted and filtered pages of
``GET /memories``, the entity graph of ``GET /graph`` and ``GET /memories/{id}/entities``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import falcon.testing
import pytest
from memorist.config.settings import load_settings
from memorist.engine import browse
from memorist.http import create_app
from memorist.plugin.manager import load_plugins

from tests.conftest import fast_settings
from tests.plugins import hashing

ADMIN_KEY = {"X-API-Key": "console-admin-key-0123456789"}
NOTES = [
    # (text, timestamp, categories via metadata, metadata)
    ("My sister Maria lives in Porto.", "2026-01-05T10:00:00Z", {"topic": "family"}),
    ("Maria works at Google in Porto.", "2026-02-10T10:00:00Z", {"topic": "work"}),
    ("Ich trinke gern Kaffee mit Maria in Berlin.", "2026-03-15T10:00:00Z", {}),
    ("Alberto plays chess on Sundays.", "2026-04-20T10:00:00Z", {"source": "chat"}),
    ("Le vélo de Alberto est à Lyon.", "2026-05-25T10:00:00Z", {}),
]


@pytest.fixture
def client(tmp_path: Path) -> falcon.testing.TestClient:
    auth = {"jwt_secret": "console-test-secret-0123456789abcdef", "admin_api_key": ADMIN_KEY["X-API-Key"]}
    settings = load_settings(None, fast_settings(tmp_path, auth=auth))
    app = falcon.testing.TestClient(create_app(settings, load_plugins({}, extra=[hashing])))
    for text, when, meta in NOTES:
        body = {"messages": [{"role": "user", "content": text}], "user_id": "alice", "infer": False, "timestamp": when}
        if meta:
            body["metadata"] = meta
        resp = app.simulate_post("/memories", json=body, headers=ADMIN_KEY)
        assert resp.status_code == 200, resp.text
    return app


def page(client: falcon.testing.TestClient, **params: Any) -> dict[str, Any]:
    resp = client.simulate_get("/memories", params={"user_id": "alice", **params}, headers=ADMIN_KEY)
    assert resp.status_code == 200, resp.text
    return dict(resp.json)


def texts(answer: dict[str, Any]) -> list[str]:
    return [r["memory"] for r in answer["results"]]


def test_every_sort_pages_through_all_memories_in_its_order(client: falcon.testing.TestClient) -> None:
    newest = texts(page(client))
    assert newest[0].startswith("Le vélo") and newest[-1].startswith("My sister")
    oldest = [t for p in (1, 2, 3) for t in texts(page(client, sort="created_at", page=p, page_size=2))]
    assert oldest == list(reversed(newest))
    by_text = [t for p in (1, 2) for t in texts(page(client, sort="memory", page=p, page_size=3))]
    assert by_text == sorted(newest, key=str.casefold)
    assert texts(page(client, sort="-memory")) == sorted(newest, key=str.casefold, reverse=True)
    assert page(client, sort="created_at", page=9, page_size=2)["results"] == []
    bad = client.simulate_get("/memories", params={"user_id": "alice", "sort": "score"}, headers=ADMIN_KEY)
    assert bad.status_code in (400, 422) and "sort" in bad.text


def test_updated_at_order_follows_the_last_edit(client: falcon.testing.TestClient) -> None:
    oldest = page(client, sort="created_at")["results"][0]
    resp = client.simulate_put(
        f"/memories/{oldest['id']}", json={"text": "My sister Maria lives in Porto now."}, headers=ADMIN_KEY
    )
    assert resp.status_code == 200, resp.text
    assert texts(page(client, sort="-updated_at"))[0] == "My sister Maria lives in Porto now."


def test_filters_by_dates_metadata_key_and_text_together(client: falcon.testing.TestClient) -> None:
    spring = page(client, created_from="2026-02-01T00:00:00Z", created_to="2026-04-30T23:59:59Z")
    assert spring["count"] == 3 and all(("Google" in t or "Kaffee" in t or "chess" in t) for t in texts(spring))
    assert texts(page(client, metadata_key="topic")) == [
        "Maria works at Google in Porto.",
        "My sister Maria lives in Porto.",
    ]
    assert page(client, metadata_key="topic", text="google")["count"] == 1
    assert page(client, category="no-such-category")["count"] == 0
    bad = client.simulate_get("/memories", params={"user_id": "alice", "metadata_key": "a b"}, headers=ADMIN_KEY)
    assert bad.status_code in (400, 422) and "metadata_key" in bad.text


def test_graph_links_the_entities_of_a_users_memories(client: falcon.testing.TestClient) -> None:
    resp = client.simulate_get("/graph", params={"user_id": "alice"}, headers=ADMIN_KEY)
    assert resp.status_code == 200, resp.text
    graph = resp.json
    names = {e["name"]: e for e in graph["entities"]}
    assert {"Maria", "Porto", "Alberto"} <= set(names), names
    assert names["Maria"]["memories"] == 3 and names["Maria"]["kind"] == "proper_noun"
    maria, porto = names["Maria"]["id"], names["Porto"]["id"]
    edge = next(e for e in graph["edges"] if {e["source"], e["target"]} == {maria, porto})
    assert edge["weight"] == 2 and len(edge["memory_ids"]) == 2
    # The memories behind the edge, through the list route's entity filter.
    both = page(client, entity=f"{maria},{porto}")
    assert both["count"] == 2 and sorted(r["id"] for r in both["results"]) == sorted(edge["memory_ids"])
    assert page(client, entity=maria)["count"] == 3
    assert page(client, entity="no-such-entity")["count"] == 0
    too_many = client.simulate_get(
        "/memories", params={"user_id": "alice", "entity": ",".join("abcdefghi")}, headers=ADMIN_KEY
    )
    assert too_many.status_code == 400 and "at most 8" in too_many.text
    assert client.simulate_get("/graph", headers=ADMIN_KEY).status_code == 400  # an identifier is required
    other = client.simulate_get("/graph", params={"user_id": "nobody"}, headers=ADMIN_KEY).json
    assert other["entities"] == [] and other["edges"] == []


def test_a_memorys_entities_and_a_missing_memory(client: falcon.testing.TestClient) -> None:
    first = next(r for r in page(client)["results"] if "Google" in r["memory"])
    resp = client.simulate_get(f"/memories/{first['id']}/entities", headers=ADMIN_KEY)
    assert resp.status_code == 200
    assert {"Maria", "Google", "Porto"} <= {e["name"] for e in resp.json}
    assert client.simulate_get("/memories/nope/entities", headers=ADMIN_KEY).status_code == 404
    assert client.simulate_get(f"/memories/{first['id']}/entities").status_code == 401


def test_an_in_memory_order_is_bounded(client: falcon.testing.TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(browse, "MAX_SORTED_SCAN", 3)
    resp = client.simulate_get("/memories", params={"user_id": "alice", "sort": "memory"}, headers=ADMIN_KEY)
    assert resp.status_code == 400 and "at most 3" in resp.text and "5 match" in resp.text
    assert page(client, sort="created_at")["count"] == 5  # the index orders stay unbounded
