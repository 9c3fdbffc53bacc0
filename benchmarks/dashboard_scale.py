"""The dashboard's console at a few thousand memories: page load and a search, in Chromium.

    python benchmarks/dashboard_scale.py                  # 5,000 memories, 5 rounds
    python benchmarks/dashboard_scale.py --memories 2000 --rounds 3

One user's memories (tests/console_corpus.py, stored through ``POST /memories/batch`` with
infer off) on the app in process (``memorist.testing.inprocess.AppServer``, the hashing test
embedder: no model loads) behind a loopback socket, and Playwright on Debian's
``/usr/bin/chromium``. Printed: each route the memories screen calls (median of the rounds,
server side through the same socket), then in the browser the page load (reload of the
memories screen until its 25 rows show) and a search (click until the results show), as
median and worst of the rounds. The host is shared: compare figures of one run only.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memorist.testing.inprocess import AppServer  # noqa: E402
from memorist.testing.server import bearer  # noqa: E402
from playwright.sync_api import expect, sync_playwright  # noqa: E402

from tests.browser import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.console_corpus import corpus  # noqa: E402

EMAIL, PASSWORD, USER = "ada@example.com", "correct horse battery", "maria-user"
QUERIES = ["Who works at Siemens in Oslo?", "Maria Porto", "bakery recommendation", "Kaffee in Berlin"]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def seed(server: AppServer, n: int) -> dict[str, str]:
    resp = server.post("/auth/register", json={"name": "Ada", "email": EMAIL, "password": PASSWORD})
    resp.raise_for_status()
    headers = bearer(resp.json()["access_token"])
    items = corpus(n, USER)
    started = time.perf_counter()
    for at in range(0, n, 1000):
        server.post("/memories/batch", json={"items": items[at : at + 1000]}, headers=headers).raise_for_status()
    print(f"stored {n} memories in {time.perf_counter() - started:.1f} s (batch route, infer off)")
    return headers


def routes(server: AppServer, headers: dict[str, str], rounds: int) -> None:
    calls = {
        "GET /entities": lambda: server.get("/entities", headers=headers),
        "GET /graph": lambda: server.get(f"/graph?user_id={USER}", headers=headers),
        "GET /memories (page 1 of 25, newest)": lambda: server.get(
            f"/memories?user_id={USER}&page=1&page_size=25", headers=headers
        ),
        "GET /memories (page 100, oldest)": lambda: server.get(
            f"/memories?user_id={USER}&page=100&page_size=25&sort=created_at", headers=headers
        ),
        "GET /memories (sorted by text)": lambda: server.get(
            f"/memories?user_id={USER}&page=1&page_size=25&sort=memory", headers=headers
        ),
        "GET /memories (metadata key)": lambda: server.get(
            f"/memories?user_id={USER}&page_size=25&metadata_key=topic", headers=headers
        ),
        "POST /search (explain)": lambda: server.post(
            "/search", json={"query": QUERIES[0], "user_id": USER, "explain": True, "limit": 20}, headers=headers
        ),
    }
    print("\nroute (server, through the socket)       median   worst")
    for name, call in calls.items():
        call().raise_for_status()  # warm
        times = []
        for _ in range(rounds):
            started = time.perf_counter()
            call().raise_for_status()
            times.append(time.perf_counter() - started)
        print(f"  {name:<38} {ms(statistics.median(times)):>7} {ms(max(times)):>7}")


def browser(server: AppServer, rounds: int) -> None:
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        page = chromium.new_context(viewport={"width": 1280, "height": 900}).new_page()
        page.goto(f"{server.url}/dashboard")
        page.get_by_label("Email").fill(EMAIL)
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Sign in").click()
        rows = page.locator("table.memtable tbody tr")
        expect(rows).to_have_count(25, timeout=30_000)
        loads, searches = [], []
        for i in range(rounds):
            started = time.perf_counter()
            page.reload()
            expect(rows).to_have_count(25, timeout=30_000)
            loads.append(time.perf_counter() - started)
            page.get_by_role("searchbox", name="Search").fill(QUERIES[i % len(QUERIES)])
            started = time.perf_counter()
            page.get_by_role("search").get_by_role("button", name="Search").click()
            expect(page.get_by_role("list", name="Search results").get_by_role("listitem").first).to_be_visible(
                timeout=30_000
            )
            searches.append(time.perf_counter() - started)
        chromium.close()
    print("\nin Chromium                                median   worst")
    print(f"  page load (reload to 25 rows)            {ms(statistics.median(loads)):>7} {ms(max(loads)):>7}")
    print(f"  search (click to results, explain)       {ms(statistics.median(searches)):>7} {ms(max(searches)):>7}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=5_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {"MEMORIST_LIMITS__SYNC_ADD_CHARS": "10000000", "MEMORIST_AUTH__ACCESS_TOKEN_MINUTES": "60"}
        server = AppServer(Path(tmp) / "data", env=env).start().listening()
        try:
            headers = seed(server, args.memories)
            routes(server, headers, args.rounds)
            browser(server, args.rounds)
        finally:
            server.stop()


if __name__ == "__main__":
    main()
