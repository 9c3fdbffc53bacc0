"""The dashboard in a real headless Chromium (Playwright on Debian's ``chromium``) against the app.

One server for the module (the app as a ``memorist serve`` worker builds it, on a loopback socket
from this process: the page is the subject here, not gunicorn; hashing embedder, a JWT secret,
one-minute access tokens);
each test gets a fresh browser context (its own sessionStorage), signs in through the page and
ends by asserting that no request left 127.0.0.1. axe-core checks each screen it visits.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import jwt
import pytest
import requests
from memorist.testing.inprocess import AppServer
from memorist.testing.server import ADMIN, JWT_SECRET, bearer
from playwright.sync_api import Page, Route, expect

from tests import browser as pw
from tests.browser import NetworkGuard, axe_violations

# The Playwright fixtures of tests/browser/__init__.py (Debian's chromium, the network guard), for this module.
browser_type_launch_args = pw.browser_type_launch_args
context = pw.context
network_guard = pw.network_guard
playwright = pw.playwright
browser_type = pw.browser_type
browser = pw.browser
browser_context_args = pw.browser_context_args


EMAIL, PASSWORD = "ada@example.com", "correct horse battery"
#: Failed fetches the tests provoke on purpose log a console error; they are shown to the user.
EXPECTED_HTTP_ERRORS = ("the server responded with a status of",)
TOKENS_JS = "({a: sessionStorage.getItem('memorist.access'), r: sessionStorage.getItem('memorist.refresh')})"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServer]:
    env = {"MEMORIST_AUTH__ACCESS_TOKEN_MINUTES": "1", "MEMORIST_AUTH__LOGIN_ATTEMPTS": "1000"}
    srv = AppServer(tmp_path_factory.mktemp("dashboard") / "data", env=env).start().listening()
    yield srv
    srv.stop()


def no_serious_a11y(page: Page, where: str) -> None:
    violations = axe_violations(page)
    assert not violations, f"axe-core on {where}:\n" + "\n".join(violations)


def sign_in(page: Page, server: AppServer, email: str = EMAIL, password: str = PASSWORD) -> None:
    page.goto(f"{server.url}/dashboard")
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("navigation", name="Main")).to_be_visible()


def api_token(server: AppServer) -> str:
    resp = server.post("/auth/login", json={"email": EMAIL, "password": PASSWORD})
    assert resp.status_code == 200, resp.text
    return str(resp.json()["access_token"])


# The tests run in file order: the first one creates the admin through the page.


def test_first_run_setup_creates_the_admin(page: Page, server: AppServer, network_guard: NetworkGuard) -> None:
    page.goto(f"{server.url}/")  # a browser asking for / lands on the dashboard
    assert page.url == f"{server.url}/dashboard"
    expect(page.get_by_role("heading", name="Welcome to Memorist")).to_be_visible()
    no_serious_a11y(page, "first-run setup")
    page.get_by_label("Name").fill("Ada")
    page.get_by_label("Email").fill(EMAIL)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Create admin account").click()
    expect(page.get_by_role("heading", name="Memories")).to_be_visible()
    expect(page.locator("#who")).to_have_text(f"{EMAIL} (admin)")
    assert server.get("/auth/setup-status").json()["needsSetup"] is False
    no_serious_a11y(page, "memories (empty)")
    network_guard.assert_no_script_errors()


def test_sign_in_rejects_a_wrong_password_then_signs_in_and_out(
    page: Page, server: AppServer, network_guard: NetworkGuard
) -> None:
    page.goto(f"{server.url}/dashboard")
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    no_serious_a11y(page, "sign in")
    page.get_by_label("Email").fill(EMAIL)
    page.get_by_label("Password").fill("not the password")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_have_text("invalid email or password")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="Memories")).to_be_visible()
    refresh = page.evaluate("sessionStorage.getItem('memorist.refresh')")
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    expect(page.get_by_text("You are signed out.")).to_be_visible()
    assert page.evaluate("sessionStorage.length") == 0
    page.reload()
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()  # nothing kept the session alive
    # Signing out ended the login on the server too: its refresh token no longer works.
    assert server.post("/auth/refresh", json={"refresh_token": refresh}).status_code == 401
    network_guard.assert_no_script_errors(EXPECTED_HTTP_ERRORS)


def test_add_search_explain_edit_delete_a_memory_with_its_history(
    page: Page, server: AppServer, network_guard: NetworkGuard
) -> None:
    sign_in(page, server)
    page.get_by_text("Add a memory by hand").click()
    form = page.get_by_role("form", name="Add a memory")
    form.get_by_label("Message", exact=True).fill("I moved to Lisbon in March and I am allergic to peanuts.")
    form.get_by_label("user id").fill("alice")
    form.get_by_label("agent id").fill("travel-bot")
    form.get_by_role("checkbox", name=re.compile("Extract facts")).uncheck()  # stored verbatim: a known text
    form.get_by_role("button", name="Add").click()
    expect(form.locator(".add-result")).to_contain_text("Stored 1, merged 0, skipped 0")
    expect(form.locator(".add-result")).to_contain_text("allergic to peanuts")
    form.get_by_label("Message", exact=True).fill("My sister Maria lives in Porto and loves hiking.")
    form.get_by_role("button", name="Add").click()
    expect(form.locator(".add-result")).to_contain_text("Maria")
    # The picker now has alice, with her count; the list shows both, newest first.
    expect(page.get_by_label("Whose memories")).to_contain_text("alice (2)")
    items = page.locator("table.memtable tbody tr")
    expect(items).to_have_count(2)
    expect(items.first).to_contain_text("Maria")
    expect(page.get_by_text("Page 1 of 1 · 2 memories")).to_be_visible()
    no_serious_a11y(page, "memories list")

    page.get_by_role("searchbox", name="Search").fill("allergic to peanuts")
    page.get_by_role("search").get_by_role("button", name="Search").click()
    results = page.get_by_role("list", name="Search results")
    expect(results.get_by_role("listitem").first).to_contain_text("peanuts")
    first = results.get_by_role("listitem").first
    for signal in ("Semantic", "Keyword", "Entity", "Temporal", "Context"):
        expect(first.get_by_role("img", name=re.compile(rf"^{signal} \d\.\d{{3}}$"))).to_be_visible()
    expect(first).to_contain_text(re.compile(r"Score \d\.\d{3} \(raw fused \d\.\d{3}, calibrated\)"))
    keyword = first.get_by_role("img", name=re.compile("^Keyword")).get_attribute("aria-label")
    assert keyword is not None and float(keyword.split()[1]) > 0, keyword  # the words matched by the keyword retriever
    no_serious_a11y(page, "search results with explain")

    # Full text: memories containing every word, case-insensitive, newest first, with paging.
    page.get_by_role("radio", name=re.compile("^Full text")).check()
    page.get_by_role("searchbox", name="Search").fill("LISBON march")
    page.get_by_role("search").get_by_role("button", name="Search").click()
    full = page.get_by_role("list", name="Full-text results, newest first").get_by_role("listitem")
    expect(full).to_have_count(1)
    expect(full.first).to_contain_text("I moved to Lisbon in March")
    expect(page.get_by_text("Page 1 of 1 · 1 containing “LISBON march”")).to_be_visible()
    no_serious_a11y(page, "full-text results")
    page.get_by_role("searchbox", name="Search").fill("lisbon porto")  # no memory has both words
    page.get_by_role("search").get_by_role("button", name="Search").click()
    expect(page.get_by_text("No memory contains these words.")).to_be_visible()
    page.get_by_role("radio", name=re.compile("^Hybrid")).check()
    page.get_by_role("searchbox", name="Search").fill("allergic to peanuts")

    # Filters go to the server: a category no memory has leaves nothing.
    page.get_by_text("Filters (hybrid search)").click()
    page.get_by_label("Categories").fill("no-such-category")
    page.get_by_role("search").get_by_role("button", name="Search").click()
    expect(page.get_by_text("Nothing matched.")).to_be_visible()

    page.get_by_role("button", name="Close the results").click()
    expect(page.get_by_role("list", name="Search results")).to_have_count(0)
    page.locator("table.memtable").get_by_role("button", name=re.compile("allergic to peanuts")).click()
    pane = page.get_by_role("complementary", name="Selected memory")
    expect(pane.get_by_role("list", name="History, oldest first").get_by_role("listitem").first).to_contain_text("ADD")
    expect(pane.locator("dl.facts")).to_contain_text("alice")
    pane.get_by_role("link", name="Open to edit").click()
    expect(page.get_by_role("heading", name="Memory", exact=True)).to_be_visible()
    memory_id = page.url.rsplit("/", 1)[1]
    edit = page.get_by_role("form", name="Edit memory")
    edit.get_by_label("Text").fill("I moved to Lisbon in March and I am allergic to peanuts and shellfish.")
    edit.get_by_label("Metadata (JSON)").fill('{"source": "dashboard"}')
    edit.get_by_role("button", name="Save changes").click()
    expect(page.locator("#status")).to_have_text("Memory updated.")
    timeline = page.get_by_role("list", name="History, oldest first").get_by_role("listitem")
    # ADD first, then the UPDATE (a SUPERSEDED row may sit between: the Porto memory added just after
    # can count as a newer version of this one, depending on the two adds' timing).
    expect(timeline.nth(0)).to_contain_text("ADD")
    expect(timeline.filter(has_text="UPDATE")).to_have_count(1)
    expect(timeline.filter(has_text="UPDATE")).to_contain_text("shellfish")
    no_serious_a11y(page, "memory detail")
    token = api_token(server)
    stored = server.get(f"/memories/{memory_id}", headers=bearer(token)).json()
    assert stored["memory"].endswith("shellfish.") and stored["metadata"] == {"source": "dashboard"}

    # Delete asks first; cancelling keeps the memory.
    page.get_by_role("button", name="Delete memory").click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_contain_text("Its history is kept")
    dialog.get_by_role("button", name="Cancel").click()
    assert server.get(f"/memories/{memory_id}", headers=bearer(token)).status_code == 200
    page.get_by_role("button", name="Delete memory").click()
    page.get_by_role("dialog").get_by_role("button", name="Delete").click()
    expect(page.get_by_role("heading", name="Memories")).to_be_visible()
    assert server.get(f"/memories/{memory_id}", headers=bearer(token)).status_code == 404
    page.goto(f"{server.url}/dashboard#/memory/{memory_id}")  # a deleted memory still shows its history
    expect(page.get_by_role("heading", name="Memory not found")).to_be_visible()
    history = page.get_by_role("list", name="History, oldest first").get_by_role("listitem")
    expect(history.filter(has_text="DELETE")).to_have_count(1)
    expect(history.filter(has_text="UPDATE")).to_have_count(1)
    network_guard.assert_no_script_errors(EXPECTED_HTTP_ERRORS)


def test_entities_counts_graph_and_cascade_delete(page: Page, server: AppServer, network_guard: NetworkGuard) -> None:
    token = api_token(server)
    for text, agent, run in [
        ("Bob plays chess on Sundays", "coach", "r1"),
        ("Bob drinks green tea", "coach", "r2"),
        ("Bob's flight leaves Friday", "travel-bot", None),
    ]:
        body = {"messages": [{"role": "user", "content": text}], "user_id": "bob", "agent_id": agent, "infer": False}
        if run:
            body["run_id"] = run
        assert server.post("/memories", json=body, headers=bearer(token)).status_code == 200
    sign_in(page, server)
    page.get_by_role("link", name="Entities").click()
    table = page.get_by_role("table", name="Users, agents, runs and apps")
    bob = table.locator("tr[data-entity='user:bob']")
    expect(bob).to_contain_text("3")
    expect(table.locator("tr[data-entity='agent:coach']")).to_contain_text("2")
    no_serious_a11y(page, "entities")
    bob.get_by_role("button", name="Open").click()
    graph = page.get_by_role("img", name="Entities sharing memories with user bob")
    expect(graph).to_be_visible()
    expect(graph.locator("g.node")).to_have_count(5)  # bob, coach, travel-bot, r1, r2
    shares = page.get_by_role("table", name="Shares memories with")
    expect(shares.get_by_role("row", name=re.compile("agent:coach"))).to_contain_text("2")
    expect(page.get_by_text("Bob drinks green tea")).to_be_visible()
    # A short list (no "All N memories" link) used to end with the word "null".
    expect(page.locator(".entity-detail")).not_to_contain_text("null")
    no_serious_a11y(page, "entity detail with graph")

    bob.get_by_role("button", name="Delete user bob").click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_contain_text("all 3 of its memories")
    dialog.get_by_role("button", name="Delete all").click()
    expect(page.locator("#status")).to_contain_text("deleted user 'bob' and 3 memories")
    expect(table.locator("tr[data-entity='user:bob']")).to_have_count(0)
    assert server.get("/memories?user_id=bob", headers=bearer(token)).json()["count"] == 0
    network_guard.assert_no_script_errors()


def test_memory_page_shows_what_replaced_it_and_what_it_replaces(
    page: Page, server: AppServer, network_guard: NetworkGuard
) -> None:
    token = api_token(server)
    ids = []
    for text, when in [("I live in Lisbon.", "2026-03-02T09:00:00Z"), ("I moved to Porto.", "2026-03-06T09:00:00Z")]:
        body = {"messages": [{"role": "user", "content": text}], "user_id": "zoe", "timestamp": when}
        added = server.post("/memories", json=body, headers=bearer(token))
        assert added.status_code == 200, added.text
        ids.append(added.json()["results"][0]["id"])
    old, new = ids
    sign_in(page, server)
    page.goto(f"{server.url}/dashboard#/memory/{old}")
    expect(page.get_by_role("heading", name="Memory", exact=True)).to_be_visible()
    facts = page.locator("dl.facts")
    expect(facts).to_contain_text("Replaced by")
    timeline = page.get_by_role("list", name="History, oldest first").get_by_role("listitem")
    expect(timeline.nth(1)).to_contain_text("SUPERSEDED")
    no_serious_a11y(page, "replaced memory")
    facts.get_by_role("link", name=new).click()
    expect(page.locator("p.lead")).to_have_text("The user moved to Porto.")
    expect(page.locator("dl.facts")).to_contain_text("Replaces")
    expect(page.locator("dl.facts").get_by_role("link", name=old)).to_be_visible()
    network_guard.assert_no_script_errors()


def test_api_key_create_copy_use_and_revoke(page: Page, server: AppServer, network_guard: NetworkGuard) -> None:
    sign_in(page, server)
    page.get_by_role("link", name="API keys").click()
    expect(page.get_by_text("No keys yet.")).to_be_visible()
    page.get_by_label("Label").fill("ci-agent")
    page.get_by_role("button", name="Create key").click()
    shown = page.get_by_label("New key “ci-agent”")
    expect(shown).to_have_value(re.compile(r"^svcsk_"))
    key = shown.input_value()
    expect(page.get_by_text("Shown only this once")).to_be_visible()
    no_serious_a11y(page, "API keys with a new key")
    row = page.get_by_role("table", name="Your active keys").get_by_role("row", name=re.compile("ci-agent"))
    expect(row).to_contain_text(key[:10])
    expect(row).to_contain_text("never")
    assert key not in page.get_by_role("table").inner_text()  # the list shows a prefix only

    # The new key works from any client, and the dashboard then shows its last use.
    resp = requests.get(f"{server.url}/memories?user_id=alice", headers={"X-API-Key": key}, timeout=10)
    assert resp.status_code == 200, resp.text
    page.reload()
    expect(row).not_to_contain_text("never")

    page.get_by_role("button", name="Revoke ci-agent").click()
    page.get_by_role("dialog").get_by_role("button", name="Revoke").click()
    expect(page.locator("#status")).to_have_text("Key “ci-agent” revoked.")
    expect(page.get_by_text("No keys yet.")).to_be_visible()
    resp = requests.get(f"{server.url}/memories?user_id=alice", headers={"X-API-Key": key}, timeout=10)
    assert resp.status_code == 401
    network_guard.assert_no_script_errors()


def test_a_screen_still_loading_never_paints_over_the_one_the_user_moved_to(
    page: Page, server: AppServer, network_guard: NetworkGuard
) -> None:
    # The memories screen waits for GET /entities; hold that answer, go to the request log meanwhile,
    # then let it through: the request log must stay (it used to be painted over by "Memories").
    held: list[Route] = []
    page.route(re.compile(r"/entities(\?|$)"), lambda route: held.append(route))
    sign_in(page, server)
    page.wait_for_function("() => location.hash === '#/memories'")
    deadline = time.monotonic() + 10
    while not held and time.monotonic() < deadline:
        page.wait_for_timeout(50)  # lets Playwright dispatch the route handler
    assert held, "the memories screen never asked for /entities"
    page.get_by_role("link", name="Request log").click()
    page.wait_for_timeout(300)  # the click lands while the memories screen still waits for its data
    for route in held:
        route.continue_()  # a loopback request: the network guard has nothing to stop
    page.unroute(re.compile(r"/entities(\?|$)"))
    expect(page.get_by_role("heading", level=1)).to_have_text("Request log")
    expect(page.get_by_role("table").locator("caption")).to_have_text(re.compile(r"^\d+ requests, newest first$"))
    page.wait_for_timeout(300)
    expect(page.get_by_role("heading", level=1)).to_have_text("Request log")
    assert page.evaluate("location.hash") == "#/requests"
    network_guard.assert_no_script_errors()


def test_request_log_filters_and_refreshes_itself(page: Page, server: AppServer, network_guard: NetworkGuard) -> None:
    sign_in(page, server)
    page.get_by_role("link", name="Request log").click()
    table = page.get_by_role("table")
    expect(table.locator("caption")).to_have_text(re.compile(r"^\d+ requests, newest first$"))
    no_serious_a11y(page, "request log")
    # The page asks the server to filter (before it takes the newest 50): however many requests the
    # module's other tests made since, this sign-in and the wrong password of an earlier test are found.
    page.get_by_label("Path contains").fill("/auth/LOGIN")
    expect(table.locator("tbody tr").first).to_contain_text("/auth/login")
    page.get_by_label("Path contains").fill("")
    page.get_by_label("Status").select_option("4")
    statuses = table.locator("tbody td:nth-child(4)")
    expect(statuses.filter(has_not_text=re.compile(r"^\s*4\d\d"))).to_have_count(0)
    expect(statuses.filter(has_text="401").first).to_be_visible()  # the wrong password earlier
    page.get_by_label("Status").select_option("")
    page.get_by_label("Path contains").fill("/no-such-thing")
    expect(table.locator("caption")).to_have_text("0 requests, newest first")
    page.get_by_label("Path contains").fill("/health")
    expect(table.locator("caption")).to_have_text("0 requests, newest first")
    # A request made elsewhere appears without touching the page (auto-refresh every 5 s).
    assert server.get("/health").status_code == 200
    expect(table.locator("tbody tr").first).to_contain_text("/health", timeout=15_000)
    network_guard.assert_no_script_errors()


def test_configuration_change_and_the_servers_validation_error_beside_the_field(
    page: Page, server: AppServer, network_guard: NetworkGuard
) -> None:
    sign_in(page, server)
    page.get_by_role("link", name="Configuration").click()
    expect(page.get_by_role("heading", name="Health")).to_be_visible()
    expect(page.get_by_role("heading", name="Health").locator("..")).to_contain_text("hashing")
    expect(page.get_by_label("Provider").first).to_have_value("heuristic")
    no_serious_a11y(page, "configuration")

    pool = page.get_by_label("candidate_pool")
    pool.fill("5")  # the server requires >= 10
    page.get_by_role("button", name="Apply changes").click()
    error = page.locator("#cfg-engine-candidate_pool-error")
    expect(error).to_contain_text("engine.candidate_pool")
    expect(error).to_contain_text("10")
    expect(pool).to_have_attribute("aria-invalid", "true")
    expect(pool).to_be_focused()
    no_serious_a11y(page, "configuration with a validation error")
    assert server.get("/configure", headers=ADMIN).json()["engine"]["candidate_pool"] == 100  # nothing stored

    options = page.locator("#cfg-reranker-options")
    options.fill('{"bogus": 1}')
    pool.fill("150")
    page.get_by_role("button", name="Apply changes").click()
    expect(page.locator("#cfg-reranker-options-error")).to_contain_text("reranker.options.bogus: unknown option")
    options.fill("{}")
    page.get_by_role("button", name="Apply changes").click()
    expect(page.locator("#status")).to_have_text("Configuration applied.")
    expect(page.get_by_label("candidate_pool")).to_have_value("150")
    assert server.get("/configure", headers=ADMIN).json()["engine"]["candidate_pool"] == 150
    network_guard.assert_no_script_errors(EXPECTED_HTTP_ERRORS)


def test_users_admin_create_role_disable_password_delete(
    page: Page, server: AppServer, network_guard: NetworkGuard
) -> None:
    sign_in(page, server)
    page.get_by_role("link", name="Users").click()
    create = page.get_by_role("form", name="Create an account")
    create.get_by_label("Name").fill("Bea")
    create.get_by_label("Email").fill("bea@example.com")
    create.get_by_label("Password").fill("bea-password-1")
    create.get_by_role("button", name="Create account").click()
    row = page.locator("tr[data-user='bea@example.com']")
    expect(row).to_contain_text("active")
    no_serious_a11y(page, "users")
    login = {"email": "bea@example.com", "password": "bea-password-1"}
    assert server.post("/auth/login", json=login).status_code == 200

    row.get_by_role("button", name="Disable").click()
    expect(row).to_contain_text("disabled")
    assert server.post("/auth/login", json=login).status_code == 401
    row.get_by_role("button", name="Enable").click()
    expect(row).to_contain_text("active")
    assert server.post("/auth/login", json=login).status_code == 200

    row.get_by_label("Role of bea@example.com").select_option("admin")
    expect(page.locator("#status")).to_have_text("bea@example.com is now admin.")
    roles = {u["email"]: u["role"] for u in server.get("/users", headers=ADMIN).json()}
    assert roles["bea@example.com"] == "admin"

    row.get_by_role("button", name="Set password").click()
    dialog = page.get_by_role("dialog", name="New password for bea@example.com")
    dialog.get_by_label("New password").fill("bea-new-password")
    no_serious_a11y(page, "set-password dialog")
    dialog.get_by_role("button", name="Set password").click()
    expect(page.locator("#status")).to_have_text("Password of bea@example.com set.")
    assert server.post("/auth/login", json={**login, "password": "bea-new-password"}).status_code == 200

    # The signed-in admin cannot disable or delete themself from here.
    me = page.locator(f"tr[data-user='{EMAIL}']")
    expect(me.get_by_role("button", name="Disable")).to_be_disabled()
    row.get_by_role("button", name="Delete bea@example.com").click()
    page.get_by_role("dialog").get_by_role("button", name="Delete").click()
    expect(row).to_have_count(0)
    assert server.post("/auth/login", json={**login, "password": "bea-new-password"}).status_code == 401
    network_guard.assert_no_script_errors()


def test_change_password_signs_out_everywhere(page: Page, server: AppServer, network_guard: NetworkGuard) -> None:
    sign_in(page, server)
    page.get_by_role("link", name="Account").click()
    form = page.get_by_role("form", name="Change password")
    form.get_by_label("Current password").fill("wrong password")
    form.get_by_label("New password").fill("a new password 2")
    form.get_by_role("button", name="Change password").click()
    expect(form.get_by_role("alert")).to_contain_text("current password is wrong")
    no_serious_a11y(page, "account")
    form.get_by_label("Current password").fill(PASSWORD)
    form.get_by_role("button", name="Change password").click()
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    expect(page.get_by_text("Sign in with the new password.")).to_be_visible()
    assert server.post("/auth/login", json={"email": EMAIL, "password": PASSWORD}).status_code == 401
    sign_in(page, server, password="a new password 2")
    # Put the password back for the tests that follow.
    token = server.post("/auth/login", json={"email": EMAIL, "password": "a new password 2"}).json()["access_token"]
    resp = server.post(
        "/auth/change-password",
        headers=bearer(token),
        json={"current_password": "a new password 2", "new_password": PASSWORD},
    )
    assert resp.status_code == 200, resp.text
    network_guard.assert_no_script_errors(EXPECTED_HTTP_ERRORS)


def test_dark_mode_follows_the_system_and_the_toggle(
    page: Page, server: AppServer, network_guard: NetworkGuard
) -> None:
    page.emulate_media(color_scheme="dark")
    sign_in(page, server)
    html = page.locator("html")
    expect(html).to_have_attribute("data-theme", "dark")
    toggle = page.get_by_role("button", name="Light mode")
    expect(toggle).to_have_attribute("aria-pressed", "true")
    for screen_link in ("Memories", "Entities", "API keys", "Request log", "Configuration", "Users", "Account"):
        page.get_by_role("link", name=screen_link, exact=True).click()
        expect(page.get_by_role("heading", level=1)).to_be_visible()
        no_serious_a11y(page, f"{screen_link} (dark)")
    toggle.click()
    expect(html).to_have_attribute("data-theme", "light")
    page.reload()  # the choice outlives a reload, over the system preference
    expect(html).to_have_attribute("data-theme", "light")
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(245, 246, 250)", background
    network_guard.assert_no_script_errors()


def test_narrow_screen_has_no_horizontal_scroll(page: Page, server: AppServer, network_guard: NetworkGuard) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    sign_in(page, server)
    for screen_link in ("Memories", "Entities", "Request log", "Configuration", "Users"):
        page.get_by_role("link", name=screen_link, exact=True).click()
        expect(page.get_by_role("heading", level=1)).to_be_visible()
        page.wait_for_load_state("networkidle")
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{screen_link} scrolls sideways by {overflow}px at 390px wide"
    network_guard.assert_no_script_errors()


def test_expired_access_token_is_renewed_then_a_revoked_login_ends_the_session(
    page: Page, server: AppServer, network_guard: NetworkGuard
) -> None:
    """The page's access token is swapped for an expired copy (the same claims, ``exp`` in the past,
    signed with the server's secret) instead of waiting a real minute for it to lapse."""
    sign_in(page, server)
    first = page.evaluate(TOKENS_JS)
    assert server.get("/auth/me", headers=bearer(first["a"])).status_code == 200
    claims = jwt.decode(first["a"], JWT_SECRET, algorithms=["HS256"], options={"verify_signature": True})
    expired = jwt.encode(claims | {"iat": int(time.time()) - 120, "exp": int(time.time()) - 60}, JWT_SECRET, "HS256")
    answer = server.get("/auth/me", headers=bearer(expired))
    assert answer.status_code == 401 and "expired" in answer.json()["detail"]
    page.evaluate("t => sessionStorage.setItem('memorist.access', t)", expired)
    # The page's next call finds its token expired, rotates the pair and carries on.
    page.get_by_role("link", name="Entities").click()
    expect(page.get_by_role("heading", name="Entities")).to_be_visible()
    expect(page.locator("#main .error")).to_have_count(0)
    second = page.evaluate(TOKENS_JS)
    assert second["a"] != first["a"] and second["r"] != first["r"]
    # Replaying the used refresh token revokes the whole login (theft detection) ...
    replay = server.post("/auth/refresh", json={"refresh_token": first["r"]})
    assert replay.status_code == 401 and "already used" in replay.json()["detail"]
    # ... so once the page's access token is expired again, it cannot renew and asks to sign in.
    page.evaluate("t => sessionStorage.setItem('memorist.access', t)", expired)
    page.get_by_role("link", name="Memories").click()
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    expect(page.get_by_text(re.compile("Your session expired"))).to_be_visible()
    assert page.evaluate("sessionStorage.length") == 0
    network_guard.assert_no_script_errors(EXPECTED_HTTP_ERRORS)


def test_missing_jwt_secret_gets_a_screen_with_the_fix(
    page: Page, tmp_path_factory: pytest.TempPathFactory, network_guard: NetworkGuard
) -> None:
    """``memorist serve`` generates a secret on first run; an app built another way (e.g. gunicorn on
    ``memorist.wsgi``) without ``JWT_SECRET`` answers 500 on its auth routes: the page explains it."""
    with AppServer(tmp_path_factory.mktemp("no-secret") / "data", env={"JWT_SECRET": None}) as app:
        url = app.listen()
        body = {"name": "A", "email": "a@example.com", "password": "long enough"}
        assert requests.post(f"{url}/auth/register", json=body, timeout=30).status_code == 500
        page.goto(f"{url}/dashboard")
        expect(page.get_by_role("heading", name="The server cannot sign anyone in")).to_be_visible()
        expect(page.get_by_text("JWT_SECRET=<that value> memorist serve")).to_be_visible()
        no_serious_a11y(page, "missing JWT_SECRET")
    network_guard.assert_no_script_errors()


def test_keyboard_only_sign_in_navigation_and_a_cancelled_delete(
    page: Page, server: AppServer, network_guard: NetworkGuard
) -> None:
    token = api_token(server)
    body = {"messages": [{"role": "user", "content": "Dana keeps bees"}], "user_id": "dana", "infer": False}
    assert server.post("/memories", json=body, headers=bearer(token)).status_code == 200
    page.goto(f"{server.url}/dashboard")
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    expect(page.get_by_role("heading", name="Sign in")).to_be_focused()  # each screen's heading takes the focus
    page.keyboard.press("Tab")
    expect(page.get_by_label("Email")).to_be_focused()
    page.keyboard.type(EMAIL)
    page.keyboard.press("Tab")
    page.keyboard.type(PASSWORD)
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Memories", level=1)).to_be_focused()
    page.get_by_role("link", name="Skip to content").focus()
    page.keyboard.press("Enter")
    expect(page.locator("main")).to_be_focused()
    assert page.url.endswith("#/memories")  # the skip link leaves the route alone
    page.get_by_role("link", name="Entities").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Entities", level=1)).to_be_focused()
    page.get_by_role("button", name="Delete user dana").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("dialog")).to_be_visible()
    page.keyboard.press("Escape")  # a modal dialog: Escape cancels
    expect(page.get_by_role("dialog")).to_be_hidden()
    assert server.get("/memories?user_id=dana", headers=bearer(token)).json()["count"] == 1
    network_guard.assert_no_script_errors()


def test_auth_disabled_server_opens_without_sign_in(
    page: Page, tmp_path_factory: pytest.TempPathFactory, network_guard: NetworkGuard
) -> None:
    srv = AppServer(tmp_path_factory.mktemp("open") / "data", env={"AUTH_DISABLED": "true"}).start().listening()
    try:
        body = {"messages": [{"role": "user", "content": "Eli sails on weekends"}], "user_id": "eli", "infer": False}
        assert srv.post("/memories", json=body).status_code == 200
        page.goto(f"{srv.url}/dashboard")
        expect(page.get_by_role("heading", name="Memories")).to_be_visible()
        expect(page.locator("#who")).to_have_text("auth disabled")
        expect(page.get_by_role("button", name="Sign out")).to_be_hidden()
        expect(page.get_by_text("Eli sails on weekends")).to_be_visible()
        page.get_by_role("link", name="API keys").click()
        expect(page.get_by_text("API keys belong to a user account")).to_be_visible()
        page.get_by_role("link", name="Configuration").click()  # admin-level in this mode
        expect(page.get_by_role("heading", name="Health")).to_be_visible()
    finally:
        srv.stop()
    network_guard.assert_no_script_errors()


def test_page_helpers_keep_secrets_and_count_shared_memories(
    page: Page, server: AppServer, network_guard: NetworkGuard
) -> None:
    """The pure helpers, run in the page as its modules: redacted secrets are never sent back, errors
    find their field by the longest matching path, and co-occurrence counts each memory once."""
    page.goto(f"{server.url}/dashboard")
    result = page.evaluate(
        """async () => {
            const config = await import('/dashboard/static/config.js');
            const entities = await import('/dashboard/static/entities.js');
            const form = document.createElement('form');
            for (const path of ['reranker.options', 'reranker.provider', 'engine.candidate_pool']) {
                const input = document.createElement('input');
                input.dataset.path = path;
                form.append(input);
            }
            const found = (message) => (config.fieldFor(form, message) || {dataset: {}}).dataset.path || null;
            const graph = entities.cooccurrence([
                {user_id: 'u', agent_id: 'a', run_id: 'r'}, {user_id: 'u', agent_id: 'a'}, {user_id: 'u'},
            ]);
            return {
                stripped: config.withoutRedacted(
                    {api_key: '**********', model: 'm', nested: {token: '**********', n: 1}}),
                bogus: found('reranker.options.bogus: unknown option'),
                provider: found("reranker.provider 'x' is not installed; installed: mmr"),
                pool: found('engine.candidate_pool: Input should be greater than or equal to 10'),
                none: found('body: a non-empty object is required'),
                nodes: Object.fromEntries(graph.nodes),
                edges: Object.fromEntries(graph.edges),
            };
        }"""
    )
    assert result["stripped"] == {"model": "m", "nested": {"n": 1}}
    assert result["bogus"] == "reranker.options" and result["provider"] == "reranker.provider"
    assert result["pool"] == "engine.candidate_pool" and result["none"] is None
    assert result["nodes"] == {"user:u": 3, "agent:a": 2, "run:r": 1}
    assert result["edges"] == {"agent:a|user:u": 2, "run:r|user:u": 1, "agent:a|run:r": 1}
    network_guard.assert_no_script_errors()
