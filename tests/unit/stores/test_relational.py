"""The relational layer on SQLite and PostgreSQL: migrations and every store class.

Each test runs twice, on a SQLite file and on a fresh PostgreSQL 18 database,
through the public classes the engine and the HTTP layer use, so a query that
only works on one dialect (or a race only one of them exposes) fails here.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import memorist.db
import pytest
from memorist.auth.api_keys import ApiKeyStore
from memorist.auth.errors import AuthenticationError, ConflictError, PermissionDenied, RateLimited
from memorist.auth.rate_limit import RateLimiter
from memorist.auth.tokens import TokenService
from memorist.auth.users import UserStore
from memorist.db import Database
from memorist.db.schema import metadata, rate_limits, scope_counts
from memorist.engine.counts import ScopeCounts
from memorist.engine.entities import EntityGraph, scope_key
from memorist.engine.history import HistoryLog
from memorist.records import EntityMention, Scope
from memorist.testing.vector_store import make_record
from sqlalchemy import inspect, select, text

PASSWORD = "correct horse battery"

#: The newest migration (file names start with their revision id).
HEAD_REVISION = sorted(
    p.name[:4] for p in (Path(memorist.db.__file__).parent / "migrations" / "versions").glob("0*.py")
)[-1]


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    """A migrated database of each kind (PostgreSQL: a new database per test)."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'memorist.db'}"
    else:
        url = request.getfixturevalue("pg_fresh_url")
    database = Database(url)
    database.upgrade()
    yield database
    database.dispose()


def run_threads(count: int, work: Callable[[int], None]) -> list[BaseException]:
    """Run ``work(i)`` on ``count`` threads released together; returns what they raised."""
    errors: list[BaseException] = []
    barrier = threading.Barrier(count)

    def body(i: int) -> None:
        try:
            barrier.wait()
            work(i)
        except BaseException as exc:  # noqa: BLE001 - reported by the caller
            errors.append(exc)

    threads = [threading.Thread(target=body, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


# -- migrations -----------------------------------------------------------------------------


def test_upgrade_is_idempotent_and_creates_every_table(db: Database) -> None:
    db.upgrade()  # the fixture ran it once already
    tables = set(inspect(db.engine).get_table_names())
    assert set(metadata.tables) <= tables
    with db.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all() == [HEAD_REVISION]


def test_concurrent_upgrades_serialize(db: Database) -> None:
    def upgrade(_: int) -> None:
        other = Database(db.url)  # as several processes starting at once would
        try:
            other.upgrade()
        finally:
            other.dispose()

    assert run_threads(3, upgrade) == []


# -- history --------------------------------------------------------------------------------


def test_history_keeps_events_in_order_and_clears_by_scope(db: Database) -> None:
    log = HistoryLog(db)
    first = make_record("m1", "likes tea", org_id="o1", project_id="p1", metadata={"a": [1, "x"]})
    second = make_record("m1", "likes green tea", org_id="o1", project_id="p1", metadata={"a": 2})
    log.record([HistoryLog.row("ADD", first, actor="u", role="user")])
    log.record([HistoryLog.row("UPDATE", second, previous=first)])
    with db.begin() as conn:  # inside the caller's transaction, as the engine writes it
        log.record([HistoryLog.row("DELETE", second, previous=second)], conn)
    log.record([HistoryLog.row("ADD", make_record("m2", org_id="o2"))])
    events = log.for_memory("m1")
    assert [e["event"] for e in events] == ["ADD", "UPDATE", "DELETE"]
    assert events[1]["old_memory"] == "likes tea" and events[1]["new_memory"] == "likes green tea"
    assert events[1]["old_metadata"] == {"a": [1, "x"]} and events[1]["new_metadata"] == {"a": 2}
    assert events[2]["new_memory"] is None and events[0]["actor"] == "u"
    assert all(e["created_at"].tzinfo is not None for e in events)
    log.clear(org_id="o1", project_id="p1")
    assert log.for_memory("m1") == [] and len(log.for_memory("m2")) == 1


# -- entity graph ---------------------------------------------------------------------------


def _link(db: Database, graph: EntityGraph, memory_id: str, *names: str, user: str = "alice") -> list[str]:
    record = make_record(memory_id, user_id=user)
    mentions = [EntityMention(text=n, kind="noun_phrase" if n.islower() else "proper_noun") for n in names]
    with db.begin() as conn:
        return graph.link(record, mentions, conn)


def test_entity_graph_links_merges_variants_and_unlinks(db: Database) -> None:
    graph = EntityGraph(db)
    (melanie,) = _link(db, graph, "m1", "Melanie")
    assert _link(db, graph, "m2", "Mel", "the pottery class")[0] == melanie  # short form merges
    assert _link(db, graph, "m3", "melanie")[0] == melanie  # case never splits an entity
    assert _link(db, graph, "m4", "Melanie", user="bob")[0] != melanie  # another user's graph
    keys = [scope_key(Scope(user_id="alice"))]
    matches = graph.match([EntityMention(text="MEL")], keys)
    assert [m.entity_id for m in matches] == [melanie]
    assert 0 < matches[0].weight <= 1
    assert graph.memories_of([melanie], limit=10) == {m: {melanie} for m in ("m1", "m2", "m3")}
    assert graph.entities_of("m2") == ["Melanie", "the pottery class"]
    graph.unlink(["m1", "m2"])
    assert set(graph.memories_of([melanie], limit=10)) == {"m3"}
    assert graph.match([EntityMention(text="Zed")], keys) == []
    graph.clear()
    assert graph.match([EntityMention(text="Melanie")], None) == []


def test_entity_created_by_concurrent_writers_exists_once(db: Database) -> None:
    graph = EntityGraph(db)
    linked: dict[int, str] = {}

    def work(i: int) -> None:
        linked[i] = _link(db, graph, f"m{i}", "Caroline")[0]

    assert run_threads(4, work) == []
    assert len(set(linked.values())) == 1
    assert len(graph.memories_of(list(linked.values())[:1], limit=10)) == 4


# -- scope counts ---------------------------------------------------------------------------


def test_scope_counts_follow_adds_and_deletes(db: Database) -> None:
    counts = ScopeCounts(db)
    records = [make_record("a", user_id="alice", agent_id="bot"), make_record("b", user_id="alice")]
    with db.begin() as conn:
        counts.adjust(conn, records, +1)
    listed = {(c.entity_type, c.entity_id): c.total for c in counts.list("default", "default")}
    assert listed == {("user", "alice"): 2, ("agent", "bot"): 1}
    with db.begin() as conn:
        counts.adjust(conn, records[:1], -1)
    listed = {(c.entity_type, c.entity_id): c.total for c in counts.list("default", "default")}
    assert listed == {("user", "alice"): 1}  # an entity at zero disappears
    assert counts.list("default", "other") == []


def test_concurrent_scope_count_adjustments_lose_nothing(db: Database) -> None:
    counts = ScopeCounts(db)

    def work(i: int) -> None:
        for n in range(10):
            with db.begin() as conn:
                counts.adjust(conn, [make_record(f"{i}-{n}", user_id="shared", agent_id=f"a{i % 2}")], +1)

    assert run_threads(4, work) == []
    with db.connect() as conn:
        totals = dict(conn.execute(select(scope_counts.c.entity_id, scope_counts.c.total)).all())
    assert totals == {"shared": 40, "a0": 20, "a1": 20}


# -- users, API keys, tokens, rate limits ---------------------------------------------------


def test_users_register_authenticate_and_update(db: Database) -> None:
    users = UserStore(db)
    admin = users.register_first("Ada", "Ada@Example.com", PASSWORD)
    assert admin.role == "admin" and admin.email == "ada@example.com"
    with pytest.raises(PermissionDenied):
        users.register_first("Eve", "eve@example.com", PASSWORD)
    bob = users.create("Bob", "bob@example.com", PASSWORD)
    with pytest.raises(ConflictError):
        users.create("Bob again", "BOB@example.com", PASSWORD)
    assert users.authenticate(" Bob@Example.com ", PASSWORD).id == bob.id
    with pytest.raises(AuthenticationError):
        users.authenticate("bob@example.com", "wrong password!")
    with pytest.raises(ConflictError):
        users.update_profile(bob.id, None, "ada@example.com")
    assert users.update_profile(bob.id, "Robert", None).name == "Robert"
    users.change_password(bob.id, PASSWORD, "another long password")
    assert users.authenticate("bob@example.com", "another long password").id == bob.id
    assert [u.id for u in users.list()] == [admin.id, bob.id] and users.count() == 2
    assert users.by_email("ADA@example.com") == admin and users.get(bob.id).created_at.tzinfo


def test_api_keys_are_found_by_value_and_revoked(db: Database) -> None:
    keys = ApiKeyStore(db)
    key, full = keys.create("u1", "laptop")
    assert full.startswith("svcsk_") and key.key_prefix == full[:12]
    found = keys.lookup(full)
    assert found is not None and found.id == key.id
    assert keys.list("u1")[0].last_used_at is not None  # touched by the lookup
    platform, platform_full = keys.create("u1", "ci", kind="platform", org_id="o", project_id="p")
    assert platform_full.startswith("m0-") and keys.list("u1", kind="platform")[0].org_id == "o"
    assert keys.revoke(key.id, user_id="someone else") is False
    assert keys.revoke(key.id) is True and keys.revoke(key.id) is False
    assert keys.lookup(full) is None and keys.lookup("svcsk_unknown") is None
    assert [k.id for k in keys.list("u1", include_revoked=True)] == [key.id]


def test_refresh_tokens_rotate_and_reuse_revokes_the_family(db: Database) -> None:
    tokens = TokenService(db, "s" * 32, access_minutes=5, refresh_days=1)
    first = tokens.issue("u1")
    assert tokens.decode(first.access_token, "access")["sub"] == "u1"
    user, second = tokens.rotate(first.refresh_token)
    assert user == "u1" and second.refresh_token != first.refresh_token
    with pytest.raises(AuthenticationError, match="already used"):
        tokens.rotate(first.refresh_token)  # replay: the whole login is revoked
    with pytest.raises(AuthenticationError, match="revoked"):
        tokens.rotate(second.refresh_token)
    other = tokens.issue("u1")
    tokens.revoke_user("u1")
    with pytest.raises(AuthenticationError, match="revoked"):
        tokens.rotate(other.refresh_token)
    with pytest.raises(AuthenticationError):
        tokens.decode(first.refresh_token, "access")


def test_concurrent_rotations_of_one_token_let_exactly_one_win(db: Database) -> None:
    tokens = TokenService(db, "s" * 32, access_minutes=5, refresh_days=1)
    pair = tokens.issue("u1")
    wins: list[int] = []

    def work(i: int) -> None:
        try:
            tokens.rotate(pair.refresh_token)
            wins.append(i)
        except AuthenticationError:
            pass

    assert run_threads(4, work) == []
    assert len(wins) == 1


def test_rate_limiter_counts_a_window_and_resets(db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    import memorist.auth.rate_limit as module

    now = datetime(2024, 1, 1, tzinfo=UTC)
    monkeypatch.setattr(module, "utcnow", lambda: now)
    limiter = RateLimiter(db, attempts=3, window_seconds=60)
    for _ in range(3):
        limiter.hit("login:1.2.3.4")
    with pytest.raises(RateLimited) as raised:
        limiter.hit("login:1.2.3.4")
    assert raised.value.retry_after == 60
    limiter.hit("login:5.6.7.8")  # keys are independent
    limiter.reset("login:1.2.3.4")
    limiter.hit("login:1.2.3.4")
    now = now + timedelta(seconds=61)
    for _ in range(3):  # a new window
        limiter.hit("login:1.2.3.4")


def test_concurrent_rate_limit_hits_lose_no_increment(db: Database) -> None:
    limiter = RateLimiter(db, attempts=10_000, window_seconds=3600)

    def work(i: int) -> None:
        for _ in range(15):
            limiter.hit("login:shared")

    assert run_threads(4, work) == []
    with db.connect() as conn:
        count = conn.execute(select(rate_limits.c.count).where(rate_limits.c.key == "login:shared")).scalar()
    assert count == 60


def test_rate_limit_is_never_exceeded_under_concurrency(db: Database) -> None:
    limiter = RateLimiter(db, attempts=5, window_seconds=3600)
    allowed: list[Any] = []

    def work(i: int) -> None:
        for _ in range(5):
            try:
                limiter.hit("register:shared")
                allowed.append(i)
            except RateLimited:
                pass

    assert run_threads(4, work) == []
    assert len(allowed) == 5


def test_last_admin_guard_first_admin_and_token_versions(db: Database) -> None:
    """The conditional statements behind /users (issue 14 item 11) on both databases."""
    users = UserStore(db)
    first = users.register_first("Ada", "ada@example.com", "correct horse")
    with pytest.raises(PermissionDenied):
        users.register_first("Eve", "eve@example.com", "correct horse")
    other = users.create("Bob", "bob@example.com", "bob-password")
    with pytest.raises(ConflictError, match="last admin"):
        users.administer(first.id, role="user")
    with pytest.raises(ConflictError, match="last admin"):
        users.administer(first.id, disabled=True)
    with pytest.raises(ConflictError, match="last admin"):
        users.delete(first.id)
    promoted = users.administer(other.id, role="admin")
    assert promoted.role == "admin" and promoted.token_version == 1
    assert users.administer(first.id, role="user").role == "user"
    with pytest.raises(ConflictError):
        users.delete(other.id)
    users.set_password(first.id, "another-password")
    assert users.get(first.id).token_version == 2
    users.delete(first.id)
    assert [u.email for u in users.list()] == ["bob@example.com"]
