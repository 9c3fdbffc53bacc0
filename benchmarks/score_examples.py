"""Search scores on labelled examples: the data behind docs/platform.md's score scale and the calibration.

Twenty verbatim memories of one user, and three kinds of query:

* ``exact``: the memory's own words (a keyword subset or the sentence itself);
* ``paraphrase``: the same meaning in other words (mostly a question the memory answers);
* ``unrelated``: about nothing stored (its *best* hit is what a threshold must reject).

Runs the default embedded configuration (its real embedder; set ``HF_HUB_OFFLINE=1``) in
process through the v3 platform route with ``explain``, and prints, per kind, the raw fused
score (``score_details.raw_score``) and the returned (calibrated) ``score``: min, 10th
percentile, median, max, and how many clear 0.3 / 0.5 / 0.7. ``--examples`` prints the six
queries of the docs' table. Scores do not depend on machine load.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from typing import Any

import falcon.testing
from memorist.auth.api_keys import ApiKeyStore
from memorist.auth.users import UserStore
from memorist.config.settings import load_settings
from memorist.db import Database
from memorist.http import create_app
from memorist.plugin.manager import load_plugins
from memorist.tenancy import Tenancy

MEMORIES = (
    "I just adopted a greyhound named Comet.",
    "My sister Noor lives in Utrecht.",
    "I am allergic to peanuts.",
    "Work meetings are on Tuesdays at 10.",
    "I drive a blue Volvo station wagon.",
    "My favourite band is Radiohead.",
    "I am training for the Berlin marathon in September.",
    "I work as a nurse at the city hospital.",
    "My daughter Lena starts school next year.",
    "I prefer green tea over coffee.",
    "I am learning Japanese on weekends.",
    "My landlord raised the rent by ten percent.",
    "I keep a vegetable garden with tomatoes and basil.",
    "I broke my left wrist skiing last winter.",
    "My best friend Omar is a carpenter.",
    "I play chess online every evening.",
    "I am saving money for a trip to Peru.",
    "My grandmother taught me to bake sourdough bread.",
    "I am afraid of flying.",
    "I moved to Lisbon in March.",
)
EXACT = (
    ("greyhound named Comet", 0),
    ("sister Noor lives in Utrecht", 1),
    ("allergic to peanuts", 2),
    ("peanuts", 2),
    ("meetings on Tuesdays", 3),
    ("blue Volvo", 4),
    ("Radiohead", 5),
    ("Berlin marathon", 6),
    ("nurse at the city hospital", 7),
    ("My daughter Lena starts school next year", 8),
    ("green tea", 9),
    ("learning Japanese", 10),
    ("landlord raised the rent", 11),
    ("vegetable garden tomatoes basil", 12),
    ("broke my wrist skiing", 13),
    ("Omar carpenter", 14),
    ("chess online", 15),
    ("trip to Peru", 16),
    ("sourdough bread", 17),
    ("afraid of flying", 18),
    ("moved to Lisbon", 19),
    ("I drive a blue Volvo station wagon", 4),
)
PARAPHRASE = (
    ("What pet does the user have?", 0),
    ("Where does Noor live?", 1),
    ("food allergies", 2),
    ("When are the work meetings?", 3),
    ("What car do they own?", 4),
    ("What music do they like?", 5),
    ("Which race are they preparing for?", 6),
    ("What is their job?", 7),
    ("Does the user have children?", 8),
    ("What do they like to drink?", 9),
    ("Which language are they studying?", 10),
    ("housing costs went up", 11),
    ("Do they grow their own food?", 12),
    ("any past injuries?", 13),
    ("Who is their closest friend?", 14),
    ("board games hobby", 15),
    ("upcoming travel plans", 16),
    ("baking with family", 17),
    ("fear of airplanes", 18),
    ("Where do they live now?", 19),
)
UNRELATED = (
    "favourite movie",
    "stock market investments",
    "quantum physics lecture",
    "how to fix a leaking faucet",
    "the weather in Toronto",
    "cryptocurrency wallet password",
    "basketball playoffs",
    "renewing a passport",
    "the history of the Roman empire",
    "best pizza toppings",
    "printer driver installation",
    "wedding anniversary gift ideas",
    "learning to play the violin",
    "mortgage interest rates",
    "volcanoes in Iceland",
)
DOC_QUERIES = (
    "greyhound named Comet",
    "What pet does the user have?",
    "Where does Noor live?",
    "peanuts",
    "food allergies",
    "favourite movie",
)


class Site:
    """One platform project with the memories stored verbatim, searched through the v3 route."""

    def __init__(self) -> None:
        data = tempfile.mkdtemp()
        app = create_app(load_settings(None, {"data_dir": data, "queue": {"workers": 0}}), load_plugins({}))
        db = Database(f"sqlite:///{data}/memorist.db")
        tenancy = Tenancy(db)
        tenancy.create_org("A", org_id="a")
        tenancy.create_project("a", "W", project_id="w")
        user = UserStore(db).create("o", "o@a.test", "a long password 123")
        tenancy.set_member("w", user.id, "OWNER", create=True)
        _, key = ApiKeyStore(db).create(user.id, "t", kind="platform", org_id="a", project_id="w")
        self.headers = {"Authorization": f"Token {key}"}
        self.client = falcon.testing.TestClient(app)
        for text in MEMORIES:
            body = {"messages": [{"role": "user", "content": text}], "user_id": "sam", "infer": False}
            resp = self.client.simulate_post("/v3/memories/add/", headers=self.headers, json=body)
            assert resp.status_code == 200, resp.text

    def search(self, query: str, top_k: int = len(MEMORIES)) -> list[dict[str, Any]]:
        body = {"query": query, "filters": {"user_id": "sam"}, "threshold": 0.0, "top_k": top_k, "explain": True}
        resp = self.client.simulate_post("/v3/memories/search/", headers=self.headers, json=body)
        assert resp.status_code == 200, resp.text
        return list(resp.json["results"])


def raw(hit: dict[str, Any]) -> float:
    details = hit["score_details"]
    return float(details.get("raw_score", details["score"]))


def summary(kind: str, pairs: list[tuple[float, float]], ranks: list[int] | None) -> dict[str, Any]:
    def stats(values: list[float]) -> dict[str, float]:
        ordered = sorted(values)
        return {
            "min": round(ordered[0], 3),
            "p10": round(ordered[max(0, len(ordered) // 10)], 3),
            "median": round(statistics.median(ordered), 3),
            "max": round(ordered[-1], 3),
        }

    scores = [s for _, s in pairs]
    line: dict[str, Any] = {
        "kind": kind,
        "n": len(pairs),
        "raw": stats([r for r, _ in pairs]),
        "score": stats(scores),
        "at_least": {t: sum(s >= float(t) for s in scores) for t in ("0.2", "0.3", "0.5", "0.7")},
    }
    if ranks is not None:
        line["target_ranked_first"] = sum(r == 1 for r in ranks)
    return line


def labelled(site: Site) -> None:
    for kind, cases in (("exact", EXACT), ("paraphrase", PARAPHRASE)):
        pairs, ranks = [], []
        for query, index in cases:
            hits = site.search(query)
            position = next(i for i, h in enumerate(hits) if h["memory"] == MEMORIES[index])
            pairs.append((raw(hits[position]), float(hits[position]["score"])))
            ranks.append(position + 1)
        print(json.dumps(summary(kind, pairs, ranks)))
    best = [site.search(query, top_k=1)[0] for query in UNRELATED]
    print(json.dumps(summary("unrelated (best hit)", [(raw(h), float(h["score"])) for h in best], None)))


def examples(site: Site) -> None:
    for query in DOC_QUERIES:
        hits = site.search(query, top_k=2)
        print(json.dumps({"query": query, "hits": [(h["memory"], h["score"], round(raw(h), 3)) for h in hits]}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", action="store_true", help="the docs' six example queries, best two hits")
    args = parser.parse_args()
    site = Site()
    examples(site) if args.examples else labelled(site)


if __name__ == "__main__":
    main()
