"""Screenshots of the dashboard's main screens, light and dark, into ``docs/img/`` (for docs/dashboard.md).

    python benchmarks/dashboard_screenshots.py            # writes docs/img/dashboard-<screen>-<theme>.png
    python benchmarks/dashboard_screenshots.py --out /tmp/shots

It uses what the browser tests use: a real ``memorist serve`` (tests/server.py, the hashing
test embedder so nothing loads a model) and Playwright on Debian's ``/usr/bin/chromium``
(tests/browser/__init__.py's launch arguments; every host but 127.0.0.1 refused). The server is seeded
through the REST API with a few users, agents and runs, an edited memory and an API key, so
every screen shows real answers of a real server.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memorist.testing.server import Server, bearer  # noqa: E402
from playwright.sync_api import Page, Route, sync_playwright  # noqa: E402

from tests.browser import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.console_corpus import corpus  # noqa: E402

EMAIL, PASSWORD = "ada@example.com", "correct horse battery"
FACTS = [
    ("alice", "travel-bot", "trip-lisbon", "I am flying to Lisbon on 14 March and staying near Alfama."),
    ("alice", "travel-bot", "trip-lisbon", "I prefer window seats and vegetarian meals on flights."),
    ("alice", "health-coach", None, "I am allergic to peanuts and shellfish."),
    ("alice", "health-coach", None, "I run 5 km every Tuesday and Thursday morning."),
    ("alice", "travel-bot", None, "My sister Maria lives in Porto and loves hiking."),
    ("bob", "support-agent", "ticket-4711", "My order 4711 arrived with a cracked screen."),
    ("bob", "support-agent", None, "I use the Pro plan and pay yearly."),
    ("carol", "tutor", None, "I am learning Portuguese and practise every evening."),
]


def seed(server: Server) -> None:
    resp = server.post("/auth/register", json={"name": "Ada", "email": EMAIL, "password": PASSWORD})
    resp.raise_for_status()
    headers = bearer(resp.json()["access_token"])
    ids = []
    for user, agent, run, text in FACTS:
        body: dict[str, object] = {
            "messages": [{"role": "user", "content": text}],
            "user_id": user,
            "agent_id": agent,
            "infer": False,
        }
        if run:
            body["run_id"] = run
        answer = server.post("/memories", json=body, headers=headers)
        answer.raise_for_status()
        ids.append(answer.json()["results"][0]["id"])
    # A few hundred more of alice's memories, so the table pages and the entity graph has hubs.
    more = corpus(300, "alice", numbered=False)
    for at in range(0, len(more), 50):
        server.post("/memories/batch", json={"items": more[at : at + 50]}, headers=headers).raise_for_status()
    server.request(
        "PUT",
        f"/memories/{ids[2]}",
        json={"text": "I am allergic to peanuts, shellfish and kiwi.", "metadata": {"source": "doctor"}},
        headers=headers,
    ).raise_for_status()
    server.post("/api-keys", json={"label": "travel-bot (production)"}, headers=headers).raise_for_status()
    server.post(
        "/auth/users",
        json={"name": "Bea", "email": "bea@example.com", "password": "bea password", "role": "user"},
        headers=headers,
    ).raise_for_status()


def local_only(route: Route) -> None:
    if route.request.url.startswith("http://127.0.0.1:"):
        route.continue_()
    else:
        route.abort("addressunreachable")


def shoot(page: Page, server: Server, out: Path, theme: str) -> list[Path]:
    written = []

    def save(name: str) -> None:
        page.wait_for_load_state("networkidle")
        page.wait_for_timeout(150)
        path = out / f"dashboard-{name}-{theme}.png"
        page.screenshot(path=path)
        written.append(path)

    page.goto(f"{server.url}/dashboard")
    page.get_by_role("heading", name="Sign in").wait_for()
    save("signin")
    page.get_by_label("Email").fill(EMAIL)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("heading", name="Memories").wait_for()
    page.get_by_label("Whose memories").select_option("user:alice")
    page.locator("table.memtable tbody tr").first.wait_for()
    page.get_by_role("button", name="Sort by updated, descending").click()  # the edited memory first
    page.locator("th[aria-sort='descending']").wait_for()
    page.locator("table.memtable").get_by_role("button", name="I am allergic to peanuts, shellfish and kiwi.").click()
    page.get_by_role("complementary").get_by_role("list", name="History, oldest first").wait_for()
    page.locator("#browse-h").evaluate("h => h.scrollIntoView()")
    save("memories")
    page.get_by_text("Add a memory by hand").click()
    page.get_by_role("searchbox", name="Search").fill("Is Maria allergic to peanuts?")
    page.get_by_role("search").get_by_role("button", name="Search").click()
    page.get_by_role("list", name="Search results").wait_for()
    page.get_by_role("list", name="Search results").evaluate("l => l.scrollIntoView()")
    save("search-explain")
    page.goto(f"{server.url}/dashboard#/memory/{page.locator('table.memtable tr.current').get_attribute('data-id')}")
    page.get_by_role("list", name="History, oldest first").wait_for()
    save("memory-history")
    page.get_by_role("link", name="Entities").click()
    page.get_by_label("Whose entities").select_option("user:alice")
    page.get_by_role("button", name="Links of Maria").click()
    page.get_by_role("table", name="Entities mentioned with Maria").get_by_role("button").first.click()
    page.locator("ul.edge-memories").wait_for()
    page.locator("#explorer-h").evaluate("h => h.scrollIntoView()")
    save("entities-graph")
    page.locator("#edge-h").evaluate("h => h.scrollIntoView()")
    save("entity-links")
    page.get_by_role("link", name="API keys").click()
    page.get_by_label("Label").fill("ci-agent")
    page.get_by_role("button", name="Create key").click()
    page.locator("#new-key").wait_for()
    save("api-keys")
    page.get_by_role("link", name="Request log").click()
    page.get_by_role("table").wait_for()
    save("request-log")
    page.get_by_role("link", name="Configuration").click()
    page.get_by_label("candidate_pool").fill("5")
    page.get_by_role("button", name="Apply changes").click()
    page.locator("#cfg-engine-candidate_pool-error").wait_for()
    page.locator("#cfg-engine-candidate_pool-error").scroll_into_view_if_needed()
    save("configuration")
    page.get_by_role("link", name="Users").click()
    page.get_by_role("table", name="Accounts").wait_for()
    save("users")
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="memorist-shots-") as tmp:
        server = Server(Path(tmp) / "data", workers=1).start()
        try:
            seed(server)
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
                for theme in ("light", "dark"):
                    context = browser.new_context(viewport={"width": 1280, "height": 860}, color_scheme=theme)  # type: ignore[arg-type]
                    context.route("**/*", local_only)
                    for path in shoot(context.new_page(), server, args.out, theme):
                        print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
                    context.close()
                browser.close()
        finally:
            server.stop()


if __name__ == "__main__":
    main()
