"""The published plugin API: one import surface, hooks with a context, plugin settings and migrations."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, ClassVar

import memorist_webhooks
import pytest
from memorist.context import PluginContext
from memorist.db import Database
from memorist.errors import ConfigurationError
from memorist.kernel import Kernel, open_context
from memorist.plugin_api import hookimpl
from memorist.plugins import load_plugins
from memorist.records import utcnow
from memorist.settings import load_settings
from memorist_webhooks.config import DeliveryPolicy, WebhooksSettings
from memorist_webhooks.tables import metadata as webhook_metadata
from memorist_webhooks.tables import webhooks
from pydantic import BaseModel, Field
from sqlalchemy import insert, inspect, select, text

from tests.conftest import ROOT, fast_settings
from tests.plugins import hashing

sys.path.insert(0, str(ROOT / "benchmarks"))
import imports  # noqa: E402


class Greeting(BaseModel):
    greeting: str = "hello"
    times: int = Field(1, ge=1)


class Greeter:
    """A throwaway plugin with its own settings section that records what its hooks receive."""

    seen: ClassVar[list[tuple[str, Any]]] = []

    @hookimpl
    def register_settings(self, register: Any) -> None:
        register("greeter", Greeting)

    @hookimpl
    def database_ready(self, context: PluginContext) -> None:
        Greeter.seen.append(("ready", context))

    @hookimpl
    def memory_added(self, memory: Any, context: PluginContext) -> None:
        Greeter.seen.append(("added", (memory, context.engine, context.db)))


def test_built_in_plugins_import_only_the_plugin_api() -> None:
    graph = imports.scan()
    framework = {name for name, path in graph.files.items() if path.is_relative_to(ROOT / "framework")}
    plugins = set(graph.files) - framework
    reached = {(source, target) for source in plugins for target in graph.edges.get(source, ()) if target in framework}
    assert reached and {target for _, target in reached} == {"memorist.plugin_api"}, sorted(reached)


def test_hooks_receive_the_context(tmp_path: Path) -> None:
    Greeter.seen.clear()
    settings = load_settings(None, fast_settings(tmp_path, queue={"workers": 0}))
    kernel = Kernel.build(settings, load_plugins({}, extra=[hashing, Greeter()]), watch=False)
    try:
        [(_, ready)] = [s for s in Greeter.seen if s[0] == "ready"]
        assert ready is kernel.context and ready.db is kernel.db and ready.settings is settings
        [record] = kernel.runtime.memory.add("I adopted a beagle named Rex.", user_id="ana", infer=False)
        [(_, (memory, engine, db))] = [s for s in Greeter.seen if s[0] == "added"]
        assert memory.id == record.id and engine is kernel.runtime.memory and db is kernel.db
    finally:
        kernel.close()


def test_a_plugin_declares_its_settings_section(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plugins = load_plugins({}, extra=[hashing, Greeter()])
    sections = plugins.settings_sections()
    assert sections["greeter"] is Greeting and sections["webhooks"] is WebhooksSettings
    config = tmp_path / "memorist.yaml"
    config.write_text("greeter:\n  greeting: hi\n")
    monkeypatch.setenv("MEMORIST_GREETER__TIMES", "3")
    settings = load_settings(config, fast_settings(tmp_path), sections=sections)
    context = open_context(settings, plugins)
    try:
        assert context.plugin_settings["greeter"] == Greeting(greeting="hi", times=3)
    finally:
        context.close()
    monkeypatch.delenv("MEMORIST_GREETER__TIMES")
    config.write_text("greeter:\n  times: 0\n")
    with pytest.raises(ConfigurationError, match=r"greeter\.times: Input should be greater than or equal to 1"):
        load_settings(config, sections=sections)
    config.write_text("greeters:\n  times: 2\n")
    with pytest.raises(ConfigurationError, match="greeters"):
        load_settings(config, sections=sections)


def test_webhooks_settings_section_over_the_legacy_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMORIST_WEBHOOKS_MAX_ATTEMPTS", "9")
    monkeypatch.setenv("MEMORIST_WEBHOOKS_POLL_SECONDS", "0.5")
    assert DeliveryPolicy.from_settings(None).max_attempts == 9  # the old variables still work
    monkeypatch.setenv("MEMORIST_WEBHOOKS__MAX_ATTEMPTS", "3")
    settings = load_settings(None, sections={"webhooks": WebhooksSettings})
    policy = DeliveryPolicy.from_settings(settings.webhooks)  # type: ignore[attr-defined]
    assert policy.max_attempts == 3 and policy.poll_seconds == 0.5  # the section wins, the rest falls through
    monkeypatch.setenv("MEMORIST_WEBHOOKS__LEASE_SECONDS", "1")
    with pytest.raises(ConfigurationError, match="webhooks: .*lease_seconds must exceed timeout_seconds"):
        load_settings(None, sections={"webhooks": WebhooksSettings})


def _tables(db: Database) -> set[str]:
    return set(inspect(db.engine).get_table_names())


def test_plugin_migrations_run_with_their_own_version_table(tmp_path: Path) -> None:
    db = Database(f"sqlite:///{tmp_path / 'fresh.db'}")
    db.upgrade()
    assert not {"webhooks", "webhook_deliveries"} & _tables(db)  # the kernel no longer creates them
    db.upgrade([("webhooks", memorist_webhooks.MIGRATIONS)])
    assert {"webhooks", "webhook_deliveries", "alembic_version_webhooks"} <= _tables(db)
    with db.connect() as conn:
        kernel_head = conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
        assert kernel_head and kernel_head[0].isdigit()  # the kernel's own revision, never the plugin's
        assert conn.execute(text("SELECT version_num FROM alembic_version_webhooks")).scalar() == "w0001"
    db.upgrade()  # the plugin disabled later: the kernel's history does not name its revisions
    db.dispose()


def test_plugin_migrations_under_a_path_with_a_space_and_a_comma(tmp_path: Path) -> None:
    """Alembic's legacy splitting of ``version_locations`` cut such a path in pieces."""
    import shutil

    versions = tmp_path / "My Plugins, v2" / "migrations"
    shutil.copytree(memorist_webhooks.MIGRATIONS, versions)
    db = Database(f"sqlite:///{tmp_path / 'spaced.db'}")
    db.upgrade([("webhooks", versions)])
    assert {"webhooks", "webhook_deliveries", "alembic_version_webhooks"} <= _tables(db)
    db.dispose()


def test_a_database_at_revision_0003_from_before_the_move_still_migrates(tmp_path: Path) -> None:
    """Revision 0003 used to create the webhooks tables; such a database keeps them and their rows."""
    db = Database(f"sqlite:///{tmp_path / 'old.db'}")
    db.upgrade()
    webhook_metadata.create_all(db.engine)  # what the old revision 0003 created
    row = {
        "id": "w1",
        "project_id": "p",
        "name": "old",
        "url": "http://127.0.0.1:9/x",
        "event_types": ["memory_add"],
        "secret": "whsec_x",
        "is_active": 1,
        "created_at": utcnow(),
        "updated_at": utcnow(),
    }
    with db.begin() as conn:
        conn.execute(insert(webhooks).values(**row))
    settings = load_settings(None, fast_settings(tmp_path, database={"url": db.url}, queue={"workers": 0}))
    kernel = Kernel.build(settings, load_plugins({}, extra=[hashing]), watch=False)
    try:
        with kernel.db.connect() as conn:
            assert conn.execute(select(webhooks.c.name)).scalars().all() == ["old"]
            assert conn.execute(text("SELECT version_num FROM alembic_version_webhooks")).scalar() == "w0001"
    finally:
        kernel.close()
        db.dispose()


def test_providers_get_the_database_url_from_the_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memorist.providers import ProviderContext
    from memorist_pgvector.store import resolve_url

    monkeypatch.setenv("MEMORIST_DATABASE__URL", "postgresql://from-the-environment/x")
    context = ProviderContext(data_dir=tmp_path, database_url="postgresql://from-the-settings/x")
    assert resolve_url(None, context) == "postgresql://from-the-settings/x"
    with pytest.raises(ConfigurationError, match="needs a PostgreSQL URL"):
        resolve_url(None, ProviderContext(data_dir=tmp_path))  # the environment is not read behind its back


def test_one_slot_table_describes_the_five_provider_kinds() -> None:
    from memorist import hookspecs
    from memorist.components import Components
    from memorist.http.selfhosted.models import Providers
    from memorist.providers import PROVIDER_KINDS, Provider
    from memorist.runtime import CONFIGURABLE
    from memorist.settings import Settings
    from memorist.slots import SLOT_NAMES, SLOTS, build_order

    assert len(SLOTS) == 5 and list(PROVIDER_KINDS) == list(SLOT_NAMES)
    defaults = Settings().provider_slots()
    assert list(defaults) == list(SLOT_NAMES)
    for slot in SLOTS:
        assert issubclass(PROVIDER_KINDS[slot.kind], Provider)
        assert callable(getattr(hookspecs, slot.hook)) and defaults[slot.kind].provider == slot.default
    assert list(Components.__dataclass_fields__) == list(SLOT_NAMES)
    assert list(Providers.model_fields) == list(SLOT_NAMES) and CONFIGURABLE[:-1] == SLOT_NAMES
    order = [slot.kind for slot in build_order()]
    assert all(order.index(dep) < order.index(slot.kind) for slot in SLOTS for dep in slot.depends_on)


def test_a_relative_path_option_lives_in_the_data_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What POST /configure's policy checks (a path inside the data directory) is where a
    provider puts it, whatever the process's working directory."""
    from memorist.plugin_api import ProviderContext

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    context = ProviderContext(data_dir=tmp_path / "data")
    assert context.path("lance2") == tmp_path / "data" / "lance2"
    assert context.path("stores/a") == tmp_path / "data" / "stores" / "a"
    assert context.path(tmp_path / "elsewhere") == tmp_path / "elsewhere"
    assert context.path("~/cache") == tmp_path / "home" / "cache"


def test_every_published_name_resolves_to_its_home_and_nothing_else_does() -> None:
    """The plugin API imports its names on first use: each one named in ``__all__`` must still
    resolve, to the very object of the module it comes from, and a typo must fail as usual."""
    import importlib

    import memorist.plugin_api as api

    for home, names in api._HOMES.items():
        module = importlib.import_module(home)
        for name in names:
            assert getattr(api, name) is getattr(module, name), name
    assert set(api.__all__) == set(api._HOME_OF) | {"hookimpl", "LazyExports", "__version__"}
    with pytest.raises(AttributeError, match="Vectorstore"):
        api.Vectorstore  # noqa: B018


def test_a_plugins_lazy_exports_load_on_registration_and_on_attribute_access() -> None:
    import memorist_lancedb
    from memorist.plugin_api import LazyExports, VectorStore

    exports = LazyExports("memorist_lancedb", {"LanceDBVectorStore": ".store"})
    assert issubclass(exports.load("LanceDBVectorStore"), VectorStore)
    assert memorist_lancedb.LanceDBVectorStore is exports.load("LanceDBVectorStore")
    with pytest.raises(AttributeError, match="'memorist_lancedb' has no attribute 'Nope'"):
        memorist_lancedb.Nope  # noqa: B018
    registered: list[type[VectorStore]] = []
    memorist_lancedb.register_vector_stores(registered.append)
    assert registered == [memorist_lancedb.LanceDBVectorStore]
