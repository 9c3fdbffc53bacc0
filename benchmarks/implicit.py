"""Agent-turn retrieval: does the user's latest message bring up the facts an assistant needs?

    python benchmarks/implicit.py [--cases FILE] [--surfaces api,selfhosted,v3,mem0] [--misses tune|held-out|all]
                                  [--json OUT]

Agent frameworks built on mem0's clients search with the user's latest message
("Can you suggest a dinner recipe for tonight?"), not with a question about a fact,
and must still get "I'm vegetarian." back. ``implicit_cases.yaml`` holds one user's
facts, stated as she would say them (one add each, the default extractor,
``metadata.fact`` naming the fact), distractors she also said, agent turns that each
name the facts that should come back, and unrelated requests that no memory answers.

For every surface the script prints, per half (odd case ids tune, even ids are held
out; a retrieval change is kept only if the held-out half gains too):

- ``hit@3``: the share of cases with an expected fact among the top 3;
- ``>=0.1``: the share whose expected fact is in the top 3 with a score of at least the
  v3 default threshold 0.1 (what a client searching with its default gets);
- ``>=0.5``: the same at 0.5 (the calibrated scale's "this answers it");
- for the unrelated requests, the share whose best hit scores below 0.2.

Surfaces: ``api`` (``memorist.Memory``, the mem0-style Python API), ``selfhosted``
(``POST /memories`` and ``/search``) and ``v3`` (``/v3/memories/add/`` and
``/v3/memories/search/``), both in process on ``falcon.testing.TestClient`` with the
default embedded configuration, and ``mem0`` (mem0 OSS, ``infer=False``, the same
packaged MiniLM, local Qdrant; see ``scenarios/versus/mem0_side.py``). Scores are
deterministic: machine load does not change them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

CASES = Path(__file__).resolve().parent / "implicit_cases.yaml"
TOP = 3
DEFAULT_THRESHOLD = 0.1
ANSWERS = 0.5
UNRELATED_BELOW = 0.2
HALVES = ("tune", "held-out")

#: A hit as every surface reports it: (fact id or None, score), best first.
Hits = list[tuple[str | None, float]]


@dataclass(frozen=True)
class Case:
    id: int
    domain: str
    query: str
    expects: tuple[str, ...]

    @property
    def half(self) -> str:
        return "tune" if self.id % 2 else "held-out"


@dataclass(frozen=True)
class Suite:
    user: str
    statements: list[tuple[str, str]]  # (fact id, what the user said); distractors are "distractor-N"
    cases: list[Case]
    unrelated: list[str]


def load(path: Path) -> Suite:
    data = yaml.safe_load(path.read_text())
    statements = [(str(k), str(v)) for k, v in data["facts"].items()]
    statements += [(f"distractor-{i}", str(text)) for i, text in enumerate(data.get("distractors", []))]
    cases = [Case(int(c["id"]), str(c["domain"]), str(c["query"]), tuple(c["expects"])) for c in data["cases"]]
    known = {fact for fact, _ in statements}
    for case in cases:
        unknown = set(case.expects) - known
        if unknown:
            raise SystemExit(f"case {case.id} expects unknown facts {sorted(unknown)}")
    if len({c.id for c in cases}) != len(cases):
        raise SystemExit("case ids must be unique")
    return Suite(str(data["user"]), statements, cases, [str(q) for q in data.get("unrelated", [])])


def _fact_hits(results: list[dict[str, Any]]) -> Hits:
    return [((r.get("metadata") or {}).get("fact"), float(r["score"])) for r in results]


class ApiSurface:
    """``memorist.Memory`` (the mem0-style Python API) on a fresh data directory."""

    name = "api"

    def __init__(self, workdir: Path) -> None:
        from memorist import Memory

        self.memory = Memory.from_config({"data_dir": str(workdir / "api")})

    def add(self, user: str, fact: str, text: str) -> None:
        self.memory.add([{"role": "user", "content": text}], user_id=user, metadata={"fact": fact})

    def search(self, user: str, query: str) -> Hits:
        found = self.memory.search(query, filters={"user_id": user}, top_k=TOP, threshold=0.0)
        return _fact_hits(found["results"])

    def close(self) -> None:
        self.memory.close()


class HttpSurfaces:
    """One kernel (default configuration, auth disabled) serving both HTTP surfaces in process."""

    def __init__(self, workdir: Path) -> None:
        import falcon.testing
        from memorist.auth.api_keys import ApiKeyStore
        from memorist.auth.users import UserStore
        from memorist.config.settings import load_settings
        from memorist.http import create_app
        from memorist.kernel.core import Kernel
        from memorist.plugin.manager import load_plugins

        overrides = {
            "data_dir": str(workdir / "http"),
            "auth": {"disabled": True},
            "queue": {"workers": 0},
            # The in-process client's Host; an auth-disabled server answers only hosts it lists.
            "server": {"allowed_hosts": ["falconframework.org"]},
        }
        self.kernel = Kernel.build(load_settings(None, overrides), load_plugins({}))
        self.client = falcon.testing.TestClient(create_app(self.kernel))
        from memorist.tenancy import Tenancy

        tenancy = Tenancy(self.kernel.db)
        tenancy.create_org("Bench", org_id="bench")
        tenancy.create_project("bench", "Implicit", project_id="implicit")
        owner = UserStore(self.kernel.db).create("owner", "owner@bench.test", "a long password 123")
        tenancy.set_member("implicit", owner.id, "OWNER", create=True)
        _, key = ApiKeyStore(self.kernel.db).create(
            owner.id, "bench", kind="platform", org_id="bench", project_id="implicit"
        )
        self.platform = {"Authorization": f"Token {key}"}
        self.worker = self.kernel.worker(1)

    def selfhosted_add(self, user: str, fact: str, text: str) -> None:
        body = {"messages": [{"role": "user", "content": text}], "user_id": user, "metadata": {"fact": fact}}
        resp = self.client.simulate_post("/memories", json=body)
        assert resp.status_code == 200, resp.text

    def selfhosted_search(self, user: str, query: str) -> Hits:
        body = {"query": query, "user_id": user, "limit": TOP, "threshold": 0.0}
        resp = self.client.simulate_post("/search", json=body)
        assert resp.status_code == 200, resp.text
        return _fact_hits(resp.json["results"])

    def v3_add(self, user: str, fact: str, text: str) -> None:
        body = {"messages": [{"role": "user", "content": text}], "user_id": user, "metadata": {"fact": fact}}
        resp = self.client.simulate_post("/v3/memories/add/", json=body, headers=self.platform)
        assert resp.status_code == 200, resp.text
        while self.worker.run_once():  # the queued add, processed as a worker would
            pass

    def v3_search(self, user: str, query: str) -> Hits:
        body = {"query": query, "filters": {"user_id": user}, "top_k": TOP, "threshold": 0.0}
        resp = self.client.simulate_post("/v3/memories/search/", json=body, headers=self.platform)
        assert resp.status_code == 200, resp.text
        return _fact_hits(resp.json["results"])

    def close(self) -> None:
        self.kernel.close()


class Mem0Surface:
    """mem0 OSS as ``benchmarks/versus_mem0.py`` runs it: ``infer=False``, the packaged MiniLM."""

    name = "mem0"

    def __init__(self, workdir: Path) -> None:
        from scenarios.versus.mem0_side import Mem0Side

        self.side = Mem0Side(workdir / "mem0")

    def add(self, user: str, fact: str, text: str) -> None:
        self.side.memory.add([{"role": "user", "content": text}], user_id=user, metadata={"fact": fact}, infer=False)

    def search(self, user: str, query: str) -> Hits:
        found = self.side.memory.search(query, filters={"user_id": user}, top_k=TOP, threshold=0.0)
        return _fact_hits(found["results"])

    def close(self) -> None:
        self.side.close()


def score(suite: Suite, search: Callable[[str, str], Hits]) -> tuple[dict[str, Any], dict[int, Hits]]:
    """Figures per half and overall, and every case's hits (for ``--misses``)."""
    per_case: dict[int, Hits] = {}
    rows: dict[str, list[tuple[bool, bool, bool]]] = {h: [] for h in HALVES}
    for case in suite.cases:
        hits = search(suite.user, case.query)[:TOP]
        per_case[case.id] = hits
        found = [s for fact, s in hits if fact in case.expects]
        best = max(found, default=None)
        rows[case.half].append(
            (best is not None, best is not None and best >= DEFAULT_THRESHOLD, best is not None and best >= ANSWERS)
        )
    figures: dict[str, Any] = {}
    for half, marks in (*rows.items(), ("all", rows["tune"] + rows["held-out"])):
        n = len(marks)
        figures[half] = {
            "cases": n,
            "hit@3": round(sum(m[0] for m in marks) / n, 4),
            ">=0.1": round(sum(m[1] for m in marks) / n, 4),
            ">=0.5": round(sum(m[2] for m in marks) / n, 4),
        }
    if suite.unrelated:
        best_scores = [max((s for _, s in search(suite.user, q)[:1]), default=0.0) for q in suite.unrelated]
        figures["unrelated"] = {
            "queries": len(best_scores),
            "best_below_0.2": round(sum(s < UNRELATED_BELOW for s in best_scores) / len(best_scores), 4),
            "best_max": round(max(best_scores), 4),
        }
    return figures, per_case


def build_surfaces(names: list[str], workdir: Path) -> tuple[dict[str, tuple[Callable, Callable]], list[Any]]:
    surfaces: dict[str, tuple[Callable, Callable]] = {}
    owners: list[Any] = []
    if "api" in names:
        api = ApiSurface(workdir)
        owners.append(api)
        surfaces["api"] = (api.add, api.search)
    if "selfhosted" in names or "v3" in names:
        http = HttpSurfaces(workdir)
        owners.append(http)
        if "selfhosted" in names:
            surfaces["selfhosted"] = (http.selfhosted_add, http.selfhosted_search)
        if "v3" in names:
            surfaces["v3"] = (http.v3_add, http.v3_search)
    if "mem0" in names:
        mem0 = Mem0Surface(workdir)
        owners.append(mem0)
        surfaces["mem0"] = (mem0.add, mem0.search)
    return surfaces, owners


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=Path, default=CASES, help="the YAML case file")
    parser.add_argument("--surfaces", default="api,selfhosted,v3,mem0", help="comma-separated: api,selfhosted,v3,mem0")
    parser.add_argument("--misses", choices=("tune", "held-out", "all"), help="print the missed cases of this half")
    parser.add_argument("--workdir", type=Path, help="where the systems store (default: a fresh temporary dir)")
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    args = parser.parse_args(argv)

    suite = load(args.cases)
    names = [n.strip() for n in args.surfaces.split(",") if n.strip()]
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="memorist-implicit-"))
    surfaces, owners = build_surfaces(names, workdir)
    results: dict[str, Any] = {
        "cases": len(suite.cases),
        "domains": sorted({c.domain for c in suite.cases}),
        "statements": len(suite.statements),
        "surfaces": {},
    }
    try:
        for name, (add, search) in surfaces.items():
            for fact, text in suite.statements:
                add(suite.user, fact, text)
            figures, per_case = score(suite, search)
            results["surfaces"][name] = figures
            line = "  ".join(
                f"{half} hit@3 {figures[half]['hit@3']:.3f} >=0.1 {figures[half]['>=0.1']:.3f} "
                f">=0.5 {figures[half]['>=0.5']:.3f}"
                for half in (*HALVES, "all")
            )
            unrelated = figures.get("unrelated")
            tail = f"  unrelated best<0.2 {unrelated['best_below_0.2']:.3f}" if unrelated else ""
            print(f"{name:10s} {line}{tail}", flush=True)
            if args.misses:
                for case in suite.cases:
                    if args.misses != "all" and case.half != args.misses:
                        continue
                    hits = per_case[case.id]
                    if not any(fact in case.expects for fact, _ in hits):
                        shown = ", ".join(f"{fact}:{s:.2f}" for fact, s in hits)
                        print(f"    miss {case.id} {case.query!r} wants {list(case.expects)} got {shown}")
    finally:
        for owner in owners:
            owner.close()
    print(f"{len(suite.cases)} cases in {len(results['domains'])} domains, {len(suite.statements)} statements stored")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
