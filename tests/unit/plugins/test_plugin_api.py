"""The published plugin API: one import surface, hooks with a context, plugin settings and migrations."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, ClassVar

import memorist_webhooks
import pytest
from memorist.config.settings import load_settings
from memorist.db import Database
from memorist.errors import ConfigurationError
from memorist.kernel.context import PluginContext, close_context
from memorist.kernel.core import Kernel, open_context
from memorist.plugin.manager import load_plugins
from memorist.plugin_api import hookimpl
from memorist.records import utcnow
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
    assert reached and {target for _, target in reached} == {"memorist.plugin_api", "memorist.plugin_api.http"}
    web = {source for source, target in reached if target == "memorist.plugin_api.http"}
    assert web and all(source.startswith("memorist_webhooks") for source in web), sorted(web)


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
        close_context(context)
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
    from memorist.plugin.contracts import ProviderContext
    from memorist_pgvector.store import resolve_url

    monkeypatch.setenv("MEMORIST_DATABASE__URL", "postgresql://from-the-environment/x")
    context = ProviderContext(data_dir=tmp_path, database_url="postgresql://from-the-settings/x")
    assert resolve_url(None, context) == "postgresql://from-the-settings/x"
    with pytest.raises(ConfigurationError, match="needs a PostgreSQL URL"):
        resolve_url(None, ProviderContext(data_dir=tmp_path))  # the environment is not read behind its back


def test_one_slot_table_describes_the_five_provider_kinds() -> None:
    from memorist.config.settings import Settings
    from memorist.engine.components import Components
    from memorist.http.selfhosted.models import Providers
    from memorist.kernel.runtime import CONFIGURABLE
    from memorist.plugin import hookspecs
    from memorist.plugin.contracts import PROVIDER_KINDS, Provider
    from memorist.plugin.slots import SLOT_NAMES, SLOTS, build_order

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
    import memorist.plugin_api.http as web

    for module in (api, web):
        homes = module._PUBLISHED.homes
        assert module.__all__ == sorted({*homes, *module._PUBLISHED.always})
        for name, home in homes.items():
            assert getattr(module, name) is getattr(importlib.import_module(home), name), name
    assert {"Embedder", "hookimpl", "LazyExports", "__version__", "Database"} <= set(api.__all__)
    assert api.__version__ == importlib.import_module("memorist").__version__
    assert set(web.__all__) == {"Access", "LimitsSettings", "ProjectError", "Tenancy", "access", "operation"}
    assert not set(web.__all__) & set(api.__all__)  # each name published once
    assert "Tenancy" in dir(web) and "VectorStore" in dir(api)
    with pytest.raises(AttributeError, match="Vectorstore"):
        api.Vectorstore  # noqa: B018
    with pytest.raises(AttributeError, match="'memorist.plugin_api.http' has no attribute 'Embedder'"):
        web.Embedder  # noqa: B018


def test_the_published_list_is_the_type_checking_imports() -> None:
    """One list: the names type checkers see are exactly the names ``__getattr__`` and
    ``__all__`` serve (a name added to one cannot be missing from the others)."""
    import ast

    import memorist.plugin_api as api
    import memorist.plugin_api.http as web

    for module in (api, web):
        tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
        [block] = [n for n in tree.body if isinstance(n, ast.If) and getattr(n.test, "id", "") == "TYPE_CHECKING"]
        imported = [alias for statement in block.body for alias in statement.names]  # type: ignore[attr-defined]
        assert all(alias.asname == alias.name for alias in imported)  # the explicit re-export form
        assert sorted(alias.name for alias in imported) == sorted(module._PUBLISHED.homes)


@pytest.mark.process  # starts another Python process
def test_the_core_plugin_api_stays_out_of_the_web_layer() -> None:
    """A provider plugin (and ``memorist worker``) never pulls in the web layer through the API;
    only ``memorist.plugin_api.http`` reaches it, and importing that imports nothing yet."""
    import subprocess

    code = (
        "import sys, memorist.plugin_api as api, memorist.plugin_api.http; "
        "api.VectorStore, api.Database, api.lexicon, api.PluginContext; "
        "print(sorted(m for m in sys.modules if m.startswith('memorist.http')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    graph = imports.scan()
    assert not {t for t in graph.edges["memorist.plugin_api"] if t.startswith("memorist.http")}
    assert any(t.startswith("memorist.http") for t in graph.edges["memorist.plugin_api.http"])


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


def test_the_list_is_read_whatever_loader_loaded_the_module(monkeypatch: pytest.MonkeyPatch) -> None:
    """pytest's assertion-rewriting loader (it loads every module of a distribution that registers
    a pytest plugin, as memorist does) has no ``get_source``: the names are still found."""
    import memorist.plugin_api as api
    from memorist.plugin_api._published import homes

    monkeypatch.setattr(api.__spec__, "loader", object())
    assert homes(api) == api._PUBLISHED.homes and homes(api)["Embedder"] == "memorist.plugin.contracts"
