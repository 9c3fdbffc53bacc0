"""The memory console at 5,000 memories, in a real headless Chromium (Playwright, Debian's chromium).

One server for the module with one user's 5,000 memories (stored through ``POST
/memories/batch``, infer off); each test signs in through the page. The table sorts,
filters and pages on the server, bulk-deletes a page, opens a memory in the side pane;
search results sit above the add form; the entity explorer works with the keyboard. axe-core
checks each screen, light and dark. Page load and a search are timed and printed (the host is
shared: figures, not assertions; ``benchmarks/dashboard_scale.py`` prints them too).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest
from memorist.testing.inprocess import AppServer
from memorist.testing.server import bearer
from playwright.sync_api import Page, expect

from tests import browser as pw
from tests.browser import NetworkGuard, axe_violations
from tests.console_corpus import corpus

browser_type_launch_args = pw.browser_type_launch_args
context = pw.context
network_guard = pw.network_guard
playwright = pw.playwright
browser_type = pw.browser_type
browser = pw.browser
browser_context_args = pw.browser_context_args


EMAIL, PASSWORD = "ada@example.com", "correct horse battery"
USER = "maria-user"
SIZE = 5_000


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServer]:
    env = {"MEMORIST_LIMITS__SYNC_ADD_CHARS": "10000000", "MEMORIST_AUTH__LOGIN_ATTEMPTS": "1000"}
    srv = AppServer(tmp_path_factory.mktemp("console") / "data", env=env).start().listening()
    resp = srv.post("/auth/register", json={"name": "Ada", "email": EMAIL, "password": PASSWORD})
    assert resp.status_code == 201, resp.text
    items = corpus(SIZE, USER)
    started = time.perf_counter()
    for at in range(0, SIZE, 1000):
        stored = srv.post("/memories/batch", json={"items": items[at : at + 1000]}, headers=token(srv))
        assert stored.status_code == 200, stored.text[:300]
    print(f"\nstored {SIZE} memories in {time.perf_counter() - started:.1f} s")
    assert srv.get(f"/memories?user_id={USER}&page_size=1", headers=token(srv)).json()["count"] == SIZE
    yield srv
    srv.stop()


def token(server: AppServer) -> dict[str, str]:
    resp = server.post("/auth/login", json={"email": EMAIL, "password": PASSWORD})
    return bearer(resp.json()["access_token"])


def no_serious_a11y(page: Page, where: str) -> None:
    violations = axe_violations(page)
    assert not violations, f"axe-core on {where}:\n" + "\n".join(violations)


def sign_in(page: Page, server: AppServer) -> None:
    page.goto(f"{server.url}/dashboard")
    page.get_by_label("Email").fill(EMAIL)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page.locator("table.memtable tbody tr")).to_have_count(25)


def api_page(server: AppServer, **params: object) -> dict[str, object]:
    query = "&".join(f"{k}={v}" for k, v in {"user_id": USER, **params}.items())
    resp = server.get(f"/memories?{query}", headers=token(server))
    assert resp.status_code == 200, resp.text
    return dict(resp.json())


def test_table_loads_sorts_filters_and_pages_on_the_server(
    page: Page, server: AppServer, network_guard: NetworkGuard
) -> None:
    sign_in(page, server)
    started = time.perf_counter()
    page.reload()
    rows = page.locator("table.memtable tbody tr")
    expect(rows).to_have_count(25)
    print(f"\npage load at {SIZE} memories: {(time.perf_counter() - started) * 1000:.0f} ms (reload to 25 rows)")
    expect(page.get_by_text(f"Page 1 of {SIZE // 25} · {SIZE} memories")).to_be_visible()
    newest = api_page(server, page_size=1)["results"][0]["memory"]  # type: ignore[index]
    expect(rows.first).to_contain_text(newest)
    no_serious_a11y(page, "memory table at 5,000")

    # Sorting is the server's: the first row by text is the first of all 5,000, not of a page.
    page.get_by_role("button", name=re.compile("^Sort by memory")).click()
    first_by_text = api_page(server, sort="memory", page_size=1)["results"][0]["memory"]  # type: ignore[index]
    expect(rows.first).to_contain_text(first_by_text)
    expect(page.locator("th[aria-sort='ascending']")).to_contain_text("Memory")
    page.get_by_role("button", name=re.compile("^Sort by memory")).click()
    expect(page.locator("th[aria-sort='descending']")).to_contain_text("Memory")
    last_by_text = api_page(server, sort="-memory", page_size=1)["results"][0]["memory"]  # type: ignore[index]
    expect(rows.first).to_contain_text(last_by_text)  # the header toggles the direction
    page.get_by_role("button", name=re.compile("^Sort by created")).click()  # newest first, then oldest first
    page.get_by_role("button", name=re.compile("^Sort by created, ascending")).click()
    expect(page.locator("th[aria-sort='ascending']")).to_contain_text("Created")
    expect(rows.first).to_contain_text("(note 0)")

    # Filters: a metadata key and a date range, counted by the server.
    filters = page.get_by_role("form", name="Filter the table")
    filters.get_by_label("Metadata key").fill("topic")
    filters.get_by_label("Created from").fill("2025-01-01")
    filters.get_by_label("Created until").fill("2025-03-31")
    filters.get_by_label("Rows per page").select_option("50")
    filters.get_by_role("button", name="Apply filters").click()
    expected = api_page(
        server,
        metadata_key="topic",
        created_from=page.evaluate("new Date('2025-01-01T00:00:00').toISOString()"),
        created_to=page.evaluate("new Date('2025-03-31T23:59:59.999').toISOString()"),
        page_size=1,
    )["count"]
    assert 0 < int(expected) < SIZE  # type: ignore[call-overload]
    expect(page.locator("table.memtable caption")).to_have_text(f"user {USER}: {expected} memories")
    expect(rows).to_have_count(min(50, int(expected)))  # type: ignore[call-overload]
    page.get_by_role("button", name="Next", exact=True).click()
    expect(page.get_by_text(re.compile(r"^Page 2 of \d+"))).to_be_visible()
    filters = page.get_by_role("form", name="Filter the table")
    filters.get_by_role("button", name="Clear").click()
    expect(page.locator("table.memtable caption")).to_have_text(f"user {USER}: {SIZE} memories")
    network_guard.assert_no_script_errors()


def test_search_results_sit_above_the_open_add_form(page: Page, server: AppServer, network_guard: NetworkGuard) -> None:
    sign_in(page, server)
    page.get_by_text("Add a memory by hand").click()  # the add form open, as a user leaves it
    page.get_by_role("searchbox", name="Search").fill("Who works at Siemens in Oslo?")
    started = time.perf_counter()
    page.get_by_role("search").get_by_role("button", name="Search").click()
    results = page.get_by_role("list", name="Search results").get_by_role("listitem")
    expect(results.first).to_be_visible()
    print(f"\nsearch at {SIZE} memories: {(time.perf_counter() - started) * 1000:.0f} ms (click to results)")
    expect(results.filter(has_text="Siemens").first).to_be_visible()
    add_form = page.get_by_role("form", name="Add a memory")
    results_top = results.first.bounding_box()["y"]  # type: ignore[index]
    assert results_top < add_form.bounding_box()["y"], "results must come before the add form"  # type: ignore[index]
    # Each hit shows how its score was made, and the page says why one ranks above a higher raw score.
    steps = page.get_by_role("list", name="Search results").locator("dl.steps").first
    expect(steps).to_contain_text("Raw fused")
    expect(steps).to_contain_text("Final")
    no_serious_a11y(page, "search results at 5,000")
    network_guard.assert_no_script_errors()


def test_bulk_delete_a_page_and_the_side_pane(page: Page, server: AppServer, network_guard: NetworkGuard) -> None:
    sign_in(page, server)
    rows = page.locator("table.memtable tbody tr")
    doomed = [rows.nth(i).get_attribute("data-id") for i in range(25)]
    page.get_by_role("checkbox", name="Select every memory on this page").check()
    bulk = page.get_by_role("button", name="Delete selected (25)")
    bulk.click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_contain_text("Delete 25 selected memories?")
    dialog.get_by_role("button", name="Cancel").click()
    assert api_page(server, page_size=1)["count"] == SIZE  # cancelled: nothing went
    rows.nth(0).get_by_role("checkbox").uncheck()
    expect(page.get_by_role("button", name="Delete selected (24)")).to_be_visible()
    page.get_by_role("button", name="Delete selected (24)").click()
    page.get_by_role("dialog").get_by_role("button", name="Delete 24").click()
    expect(page.locator("#status")).to_have_text("Deleted 24 memories.")
    expect(page.locator("table.memtable caption")).to_have_text(f"user {USER}: {SIZE - 24} memories")
    headers = token(server)
    assert all(server.get(f"/memories/{i}", headers=headers).status_code == 404 for i in doomed[1:])
    assert server.get(f"/memories/{doomed[0]}", headers=headers).status_code == 200

    # The side pane: fields, entities (each filters the table) and history, beside the table.
    rows.nth(0).get_by_role("button").first.click()
    pane = page.get_by_role("complementary", name="Selected memory")
    expect(pane.get_by_role("heading", name="Selected memory")).to_be_focused()
    expect(pane.get_by_role("list", name="History, oldest first").get_by_role("listitem").first).to_contain_text("ADD")
    chips = pane.get_by_role("list", name=re.compile("^Entities in this memory")).get_by_role("button")
    expect(chips.first).to_be_visible()
    name = str(chips.first.get_attribute("data-name"))
    no_serious_a11y(page, "side pane")
    chips.first.click()
    expect(page.locator("table.memtable caption")).not_to_have_text(f"user {USER}: {SIZE - 24} memories")
    for i in range(min(5, rows.count())):
        expect(rows.nth(i)).to_contain_text(re.compile(re.escape(name), re.I))
    network_guard.assert_no_script_errors()


def test_entity_explorer_with_the_keyboard_light_and_dark(
    page: Page, server: AppServer, network_guard: NetworkGuard
) -> None:
    sign_in(page, server)
    page.get_by_role("link", name="Entities").click()
    table = page.get_by_role("table", name="Extracted entities, most linked first")
    expect(table.get_by_role("row", name=re.compile("^Maria"))).to_be_visible()
    graph = page.get_by_role("img", name=re.compile("^Entity graph"))
    found = server.get(f"/graph?user_id={USER}", headers=token(server)).json()
    assert {"Maria", "Porto", "Google", "Berlin"} <= {e["name"] for e in found["entities"]}
    expect(graph.locator("g.node")).to_have_count(min(40, len(found["entities"])))  # the 40 most linked are drawn
    no_serious_a11y(page, "entity explorer")
    # Keyboard only: the entity's links, then the memories behind one link.
    page.get_by_role("button", name="Links of Maria").focus()
    page.keyboard.press("Enter")
    links = page.get_by_role("table", name="Entities mentioned with Maria")
    expect(page.get_by_role("heading", name=re.compile("^Maria: \\d+ memories"))).to_be_focused()
    heaviest = links.locator("tbody tr").first  # the heaviest link first
    other = heaviest.locator("th").inner_text()
    weight = int(heaviest.locator("td.num").inner_text())
    heaviest.get_by_role("button", name=f"Memories linking Maria and {other}").focus()
    page.keyboard.press("Enter")
    heading = page.get_by_role("heading", name=re.compile(rf"^\d+ memories mention Maria and {re.escape(other)}"))
    expect(heading).to_be_focused()
    assert heading.inner_text().startswith(f"{weight} memories")
    behind = page.locator("ul.edge-memories li")
    expect(behind).to_have_count(min(50, weight))
    for i in range(min(5, weight)):
        text = behind.nth(i).inner_text()
        assert "Maria" in text and other.casefold() in text.casefold(), text
    page.emulate_media(color_scheme="dark")
    page.reload()
    expect(page.get_by_role("table", name="Extracted entities, most linked first")).to_be_visible()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    no_serious_a11y(page, "entity explorer (dark)")
    page.get_by_role("link", name="Memories").click()
    expect(page.locator("table.memtable tbody tr")).to_have_count(25)
    no_serious_a11y(page, "memory table (dark)")
    network_guard.assert_no_script_errors()


def test_explain_says_why_a_lower_raw_score_ranks_first(page: Page, server: AppServer) -> None:
    """The reasons are computed from the hits' own explain fields (run in the page as its module)."""
    page.goto(f"{server.url}/dashboard")
    reasons = page.evaluate(
        """async () => {
            const explain = await import('/dashboard/static/explain.js');
            const hit = (score, raw, decay, extra = {}) =>
                ({score, score_details: {raw_score: raw, score: raw, decay, ...extra}});
            const ranked = (r) => ({reranked_score: r});
            return {
                decay: explain.rankReasons([hit(0.52, 0.484, 1.0), hit(0.45, 0.570, 0.7)]),
                rerank: explain.rankReasons([hit(0.9, 0.3, 1, ranked(0.9)), hit(0.4, 0.6, 1, ranked(0.4))]),
                plain: explain.rankReasons([hit(0.7, 0.6, 1), hit(0.5, 0.4, 1)]),
                newer: explain.rankReasons([hit(0.7, 0.5, 1, {reordered: 'newer_version'}), hit(0.6, 0.6, 1)]),
            };
        }"""
    )
    assert reasons["decay"][1] is None and reasons["plain"] == [None, None]
    assert "0.570 against 0.484" in reasons["decay"][0] and "decay factor" in reasons["decay"][0]
    assert "1.000 here and 0.700 for #2" in reasons["decay"][0] and "0.484 against 0.399" in reasons["decay"][0]
    assert "reranker scored this one 0.900 and #2 0.400" in reasons["rerank"][0]
    assert "newer version of the same fact" in reasons["newer"][0]
