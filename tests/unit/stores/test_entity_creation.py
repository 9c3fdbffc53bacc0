"""An entity is created with two inserts that skip a name already taken, on SQLite and
PostgreSQL: the writer that finds the name taken (another writer's committed row) uses that
entity and leaves no half-created one behind."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from memorist.db import Database
from memorist.db.schema import entities, entity_aliases
from memorist.engine.entities import EntityGraph, scope_key
from memorist.records import EntityMention, Scope
from memorist.testing.vector_store import make_record
from sqlalchemy import func, select


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    url = (
        f"sqlite:///{tmp_path / 'memorist.db'}"
        if request.param == "sqlite"
        else request.getfixturevalue("pg_fresh_url")
    )
    database = Database(url)
    database.upgrade()
    yield database
    database.dispose()


def rows(db: Database) -> tuple[int, int]:
    with db.connect() as conn:
        made = conn.execute(select(func.count()).select_from(entities)).scalar_one()
        named = conn.execute(select(func.count()).select_from(entity_aliases)).scalar_one()
    return int(made), int(named)


def test_a_name_another_writer_created_is_used_not_created_again(db: Database) -> None:
    graph = EntityGraph(db)
    key = scope_key(Scope(user_id="alice"))
    with db.begin() as conn:
        (caroline,) = graph.link(make_record("m1", user_id="alice"), [EntityMention(text="Caroline")], conn)
    assert rows(db) == (1, 1)
    # What a writer that read the aliases before that commit does next: create the name.
    with db.begin() as conn:
        found = graph._resolve_or_create(conn, key, EntityMention(text="caroline", kind="noun_phrase"), [])
    assert found == caroline
    assert rows(db) == (1, 1)  # no second entity, no orphan row


def test_an_alias_taken_by_another_entity_wins_over_a_new_entity(db: Database) -> None:
    graph = EntityGraph(db)
    key = scope_key(Scope(user_id="alice"))
    with db.begin() as conn:
        (melanie,) = graph.link(make_record("m1", user_id="alice"), [EntityMention(text="Melanie")], conn)
        graph.link(make_record("m2", user_id="alice"), [EntityMention(text="Mel")], conn)  # "mel" -> Melanie
    assert rows(db) == (1, 2)
    # A writer that missed the alias "mel" creates an entity named "mel": the alias is taken.
    with db.begin() as conn:
        found = graph._resolve_or_create(conn, key, EntityMention(text="MEL", kind="noun_phrase"), [])
    assert found == melanie
    assert rows(db) == (1, 2)  # the entity it began is gone with the alias it could not take


def test_new_names_in_many_languages_are_created_once_each(db: Database) -> None:
    graph = EntityGraph(db)
    names = ["Zoë", "São Paulo", "Müller", "東京", "Алёна", "the pottery class"]
    mentions = [EntityMention(text=n, kind="noun_phrase" if n.islower() else "proper_noun") for n in names]
    with db.begin() as conn:
        first = graph.link(make_record("m1", user_id="alice"), mentions, conn)
    with db.begin() as conn:
        again = graph.link(make_record("m2", user_id="alice"), mentions, conn)
    assert len(set(first)) == len(names) and again == first
    assert rows(db) == (len(names), len(names))
