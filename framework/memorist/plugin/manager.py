"""The plugin manager: entry points, allow/deny lists, and what is loaded.

Every plugin, built-in or third-party, comes in through the ``memorist``
entry-point group. ``MEMORIST_PLUGINS`` (comma-separated) loads only the named
plugins; ``MEMORIST_DISABLE_PLUGINS`` skips the named ones; ``MEMORIST_PLUGIN_MODULES``
adds modules by import path (a local plugin without packaging). After loading,
``check_pending`` turns a misspelled hook name into a startup error instead of
a hook that silently never runs.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from types import ModuleType

import pluggy
from pydantic import BaseModel

from ..errors import PluginError
from . import hookspecs

ENTRY_POINT_GROUP = hookspecs.PROJECT_NAME


@dataclass(frozen=True)
class PluginInfo:
    """What ``memorist plugins`` prints for one plugin."""

    name: str
    version: str | None
    distribution: str | None
    hooks: tuple[str, ...]


def _canonical(name: str) -> str:
    return name.strip().lower().replace("-", "_")


def _module_names(value: str | None) -> list[str]:
    return [n.strip() for n in (value or "").split(",") if n.strip()]


def _names(value: str | None) -> set[str] | None:
    if value is None or not value.strip():
        return None
    return {_canonical(n) for n in value.split(",") if n.strip()}


class Plugins:
    """A loaded, validated plugin manager plus where each plugin came from."""

    def __init__(self, manager: pluggy.PluginManager, origins: Mapping[str, tuple[str | None, str | None]]):
        self.manager = manager
        self.hook = manager.hook
        self._origins = dict(origins)

    def settings_sections(self) -> dict[str, type[BaseModel]]:
        """Settings sections the plugins declare (``register_settings``): name -> model."""
        sections: dict[str, type[BaseModel]] = {}

        def register(name: str, model: type[BaseModel]) -> None:
            if not (isinstance(model, type) and issubclass(model, BaseModel)):
                raise PluginError(f"settings section '{name}': {model!r} is not a pydantic model")
            if name in sections and sections[name] is not model:
                raise PluginError(f"settings section '{name}' is registered twice")
            sections[name] = model

        self.hook.register_settings(register=register)
        return sections

    def migrations(self) -> list[tuple[str, Path]]:
        """Alembic revision directories the plugins declare (``register_migrations``)."""
        found: list[tuple[str, Path]] = []

        def register(name: str, path: Path) -> None:
            if not Path(path).is_dir():
                raise PluginError(f"migrations '{name}': {path} is not a directory")
            found.append((name, Path(path)))

        self.hook.register_migrations(register=register)
        return found

    def info(self) -> list[PluginInfo]:
        infos = []
        for name, plugin in sorted(self.manager.list_name_plugin()):
            if plugin is None:
                continue
            callers = self.manager.get_hookcallers(plugin) or []
            dist, version = self._origins.get(name, (None, None))
            infos.append(PluginInfo(name, version, dist, tuple(sorted(c.name for c in callers))))
        return infos


def load_plugins(environ: Mapping[str, str] | None = None, extra: Iterable[object] = ()) -> Plugins:
    """Load entry-point plugins (filtered by the env lists) and ``extra`` objects.

    ``extra`` is how tests and embedding applications add a plugin object
    without packaging it; it is registered after the entry points.
    """
    env = os.environ if environ is None else environ
    allow = _names(env.get("MEMORIST_PLUGINS"))
    deny = _names(env.get("MEMORIST_DISABLE_PLUGINS")) or set()
    manager = pluggy.PluginManager(hookspecs.PROJECT_NAME)
    manager.add_hookspecs(hookspecs)
    origins: dict[str, tuple[str | None, str | None]] = {}

    available = {_canonical(ep.name): ep for ep in entry_points(group=ENTRY_POINT_GROUP)}
    if allow is not None and (missing := allow - available.keys()):
        raise PluginError(
            f"MEMORIST_PLUGINS names {', '.join(sorted(missing))}, not installed; "
            f"installed: {', '.join(sorted(available))}"
        )
    for name, ep in sorted(available.items()):
        if (allow is not None and name not in allow) or name in deny:
            continue
        try:
            module = ep.load()
        except Exception as exc:  # a broken plugin must say which one it is
            raise PluginError(f"plugin '{name}' ({ep.value}) failed to import: {exc}") from exc
        _register(manager, module, name)
        dist = ep.dist
        origins[name] = (dist.name if dist else None, dist.version if dist else None)

    for module_name in _module_names(env.get("MEMORIST_PLUGIN_MODULES")):
        try:
            module = importlib.import_module(module_name)
        except Exception as exc:
            raise PluginError(f"MEMORIST_PLUGIN_MODULES: cannot import '{module_name}': {exc}") from exc
        _register(manager, module, module_name)
        origins[module_name] = (None, None)

    for plugin in extra:
        name = getattr(plugin, "__name__", None) or type(plugin).__name__
        _register(manager, plugin, name)
        origins[name] = (None, None)

    try:
        manager.check_pending()
    except pluggy.PluginValidationError as exc:
        name = manager.get_name(exc.plugin) or repr(exc.plugin)
        hooks = ", ".join(sorted(_unknown_hooks(manager, exc.plugin)))
        raise PluginError(
            f"plugin '{name}' implements unknown hook(s) {hooks}; "
            f"known hooks: {', '.join(sorted(_spec_names(manager)))}"
        ) from exc
    return Plugins(manager, origins)


def _spec_names(manager: pluggy.PluginManager) -> set[str]:
    return {name for name, caller in vars(manager.hook).items() if caller.spec is not None}


def _unknown_hooks(manager: pluggy.PluginManager, plugin: object) -> set[str]:
    specs = _spec_names(manager)
    return {c.name for c in manager.get_hookcallers(plugin) or [] if c.name not in specs}


def _register(manager: pluggy.PluginManager, plugin: object | ModuleType, name: str) -> None:
    try:
        manager.register(plugin, name=name)
    except pluggy.PluginValidationError as exc:
        raise PluginError(f"plugin '{name}': {exc}") from exc
    except ValueError as exc:  # duplicate name or object
        raise PluginError(f"plugin '{name}' could not be registered: {exc}") from exc
