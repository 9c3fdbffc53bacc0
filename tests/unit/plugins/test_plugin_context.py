"""The plugin context is a read-only view of the kernel, and the kernel composes what the doors share.

Issue 40, item 3: a plugin reads the running system but cannot replace its parts;
``create_app`` mounts routes over the kernel's authenticator, request log and workers
instead of building its own.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, ClassVar

import falcon
import falcon.testing
import pytest
from memorist.config.settings import load_settings
from memorist.errors import InputTooLarge
from memorist.http import create_app
from memorist.kernel.context import PluginContext
from memorist.kernel.core import Kernel
from memorist.plugin.manager import load_plugins
from memorist.plugin_api import hookimpl
from memorist.python.engine import Engine

from tests.conftest import fast_settings
from tests.plugins import hashing


class Hello:
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.media = {"bonjour": "le monde"}


class Recorder:
    """A plugin that keeps state, registers a closer and adds a route, as the webhooks plugin does."""

    closed: ClassVar[list[str]] = []
    contexts: ClassVar[list[PluginContext]] = []

    @hookimpl
    def database_ready(self, context: PluginContext) -> None:
        context.state["recorder"] = {"started": True}
        context.closers.append(lambda: Recorder.closed.append("stopped"))

    @hookimpl
    def configure_app(self, app: Any, context: PluginContext) -> None:
        Recorder.contexts.append(context)
        context.add_route("/bonjour", Hello())


def build(tmp_path: Path, **extra: Any) -> Kernel:
    settings = load_settings(None, fast_settings(tmp_path, queue={"workers": 0}, **extra))
    return Kernel.build(settings, load_plugins({}, extra=[hashing, Recorder()]), watch=False)


def test_a_plugin_cannot_replace_or_change_the_kernels_parts(tmp_path: Path) -> None:
    kernel = build(tmp_path)
    context = kernel.context
    try:
        for name, value in (
            ("operations", None),
            ("db", None),
            ("settings", None),
            ("events", None),
            ("state", {}),
            ("add_route", print),
            ("anything_new", 1),
        ):
            with pytest.raises(AttributeError):
                setattr(context, name, value)
        with pytest.raises(AttributeError):
            del context.operations
        with pytest.raises(TypeError):
            context.plugin_settings["webhooks"] = None  # type: ignore[index]
        # Reading still gives the kernel's own parts, per use.
        assert context.operations is kernel.operations and context.events is kernel.events
        assert context.db is kernel.db and context.settings is kernel.settings
        assert context.engine is kernel.runtime.memory and context.tenancy is kernel.tenancy
        assert not hasattr(context, "runtime")  # reconfiguration is the kernel's, not a plugin's
        # What is the plugin's own stays writable: its state and its closers.
        assert context.state["recorder"] == {"started": True}
    finally:
        Recorder.closed.clear()
        kernel.close()
    assert Recorder.closed == ["stopped"]


def test_configure_app_gets_routes_without_the_kernels_context_changing(tmp_path: Path) -> None:
    """The HTTP door hands ``configure_app`` a view that can add routes; the kernel's own context
    (what the memory hooks receive) is not rewired by building an app."""
    kernel = build(tmp_path, auth={"disabled": True})
    Recorder.contexts.clear()
    try:
        client = falcon.testing.TestClient(create_app(kernel))
        assert client.simulate_get("/bonjour").json == {"bonjour": "le monde"}
        [given] = Recorder.contexts
        assert given is not kernel.context and given.operations is kernel.operations
        assert given.state is kernel.context.state
        kernel.context.add_route("/ignored", Hello())  # outside an app: nowhere to add, no error
        assert client.simulate_get("/ignored").status_code == 404
    finally:
        kernel.close()


def test_the_app_serves_from_the_kernels_request_log_and_workers(tmp_path: Path) -> None:
    """Two apps over one kernel (e.g. a test's, then a plugin's) share its request log and start
    its queue workers once; the app composes none of them."""
    settings = load_settings(None, fast_settings(tmp_path, queue={"workers": 1}, auth={"disabled": True}))
    kernel = Kernel.build(settings, load_plugins({}, extra=[hashing]), watch=False)
    try:
        first = falcon.testing.TestClient(create_app(kernel))
        worker = kernel.running_worker
        assert worker is not None
        second = falcon.testing.TestClient(create_app(kernel))
        assert kernel.running_worker is worker  # not a second set of threads
        first.simulate_get("/memories", params={"user_id": "kaito"})
        second.simulate_get("/entities")
        paths = {row["path"] for row in kernel.serving.request_log.recent(10)}
        assert {"/memories", "/entities"} <= paths
        assert {"/memories", "/entities"} <= {row["path"] for row in second.simulate_get("/requests").json}
    finally:
        kernel.close()


def test_the_python_apis_context_carries_its_operations_with_the_operators_limits(tmp_path: Path) -> None:
    settings = load_settings(None, fast_settings(tmp_path, limits={"max_add_chars": 30}))
    engine = Engine.from_settings(settings, load_plugins({}, extra=[hashing]))
    try:
        ops = engine.context.operations
        assert ops is not None and ops.engine is engine
        from memorist.operations import AddInput, Caller, EntityIds

        with pytest.raises(InputTooLarge, match=r"the limit is 30 \(limits.max_add_chars\)"):
            said = "Мы переехали в Казань прошлой весной."
            ops.add(Caller(actor="python"), AddInput(said, EntityIds(user_id="ivan")))
        assert engine.list(user_id="ivan").records == []
        with pytest.raises(dataclasses.FrozenInstanceError):
            engine.context.operations = None  # type: ignore[misc]
    finally:
        engine.close()
