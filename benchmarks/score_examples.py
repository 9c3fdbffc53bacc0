"""Score examples for docs/platform.md: four verbatim memories, six queries, the v3 search scores.

Runs the default embedded configuration (its real embedder; set ``HF_HUB_OFFLINE=1``) in
process through the platform routes and prints one JSON line per query.
"""

from __future__ import annotations

import json
import tempfile

import falcon.testing
from memorist.auth.api_keys import ApiKeyStore
from memorist.auth.users import UserStore
from memorist.db import Database
from memorist.http import create_app
from memorist.plugins import load_plugins
from memorist.settings import load_settings
from memorist.tenancy import Tenancy

MEMORIES = (
    "I just adopted a greyhound named Comet.",
    "My sister Noor lives in Utrecht.",
    "I am allergic to peanuts.",
    "Work meetings are on Tuesdays at 10.",
)
QUERIES = (
    "greyhound named Comet",
    "What pet does Alice have?",
    "Where does Noor live?",
    "peanuts",
    "food allergies",
    "favourite movie",
)


def main() -> None:
    data = tempfile.mkdtemp()
    app = create_app(load_settings(None, {"data_dir": data, "queue": {"workers": 0}}), load_plugins({}))
    db = Database(f"sqlite:///{data}/memorist.db")
    tenancy = Tenancy(db)
    tenancy.create_org("A", org_id="a")
    tenancy.create_project("a", "W", project_id="w")
    user = UserStore(db).create("o", "o@a.test", "a long password 123")
    tenancy.set_member("w", user.id, "OWNER", create=True)
    _, key = ApiKeyStore(db).create(user.id, "t", kind="platform", org_id="a", project_id="w")
    headers = {"Authorization": f"Token {key}"}
    client = falcon.testing.TestClient(app)
    for text in MEMORIES:
        body = {"messages": [{"role": "user", "content": text}], "user_id": "alice", "infer": False}
        resp = client.simulate_post("/v3/memories/add/", headers=headers, json=body)
        assert resp.status_code == 200, resp.text
    for query in QUERIES:
        body = {"query": query, "filters": {"user_id": "alice"}, "threshold": 0.0, "top_k": 2}
        resp = client.simulate_post("/v3/memories/search/", headers=headers, json=body)
        print(json.dumps({"query": query, "hits": [(x["memory"], x["score"]) for x in resp.json["results"]]}))


if __name__ == "__main__":
    main()
