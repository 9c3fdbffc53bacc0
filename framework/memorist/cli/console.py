"""What every command line door shares: one-line errors, checked settings, ``--config``/``--data-dir``.

Kept apart from :mod:`memorist.cli` so that ``memorist.cli.admin`` (and plugins'
commands) can use it without importing the command group itself.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

if TYPE_CHECKING:
    from ..config.settings import Settings
    from ..errors import MemoristError
    from ..plugin.manager import Plugins

EXIT_CONFIG = 2
_DATA_DIR_KEY = "memorist.data_dir"


def fail(exc: MemoristError | str) -> None:
    """Print each problem on its own line and exit with status 2."""
    from ..errors import ConfigurationError

    if isinstance(exc, str):
        lines = [exc]
    else:
        lines = exc.problems if isinstance(exc, ConfigurationError) else [exc.message]
    for line in lines:
        click.echo(f"error: {line}", err=True)
    sys.exit(EXIT_CONFIG)


def _data_dir_overrides(overrides: dict[str, Any] | None) -> dict[str, Any]:
    """``overrides`` plus the ``--data-dir`` of the running command, if one was given."""
    merged = dict(overrides or {})
    ctx = click.get_current_context(silent=True)
    data_dir = ctx.meta.get(_DATA_DIR_KEY) if ctx is not None else None
    if data_dir and "data_dir" not in merged:
        merged["data_dir"] = data_dir
    return merged


def checked_settings(
    config: str | None, overrides: dict[str, Any] | None = None, plugins: Plugins | None = None
) -> tuple[Settings, Plugins]:
    """Settings validated against the installed providers, or exit 2 with every problem."""
    from ..config.settings import load_settings
    from ..engine.components import validate_settings
    from ..errors import MemoristError
    from ..plugin.manager import load_plugins
    from ..plugin.registry import ProviderRegistry

    try:
        plugins = plugins or load_plugins()
        settings = load_settings(config, _data_dir_overrides(overrides), sections=plugins.settings_sections())
        validate_settings(settings, ProviderRegistry.from_plugins(plugins))
    except MemoristError as exc:
        fail(exc)
        raise  # unreachable; keeps type checkers honest
    return settings, plugins


def writable_settings(config: str | None, overrides: dict[str, Any] | None = None) -> tuple[Settings, Plugins]:
    """:func:`checked_settings` for commands that write: the data directory must be usable."""
    from .config_check import data_dir_problems

    settings, plugins = checked_settings(config, overrides)
    if settings.database_url.startswith("sqlite") or settings.vector_store.provider == "lancedb":
        for line in data_dir_problems(settings.data_dir.expanduser().absolute()):
            fail(line)
    return settings, plugins


config_option = click.option(
    "--config",
    "config",
    envvar="MEMORIST_CONFIG",
    help="YAML config file, or a shipped one by name (default, openai, ollama, postgres).",
)


def _remember_data_dir(ctx: click.Context, _param: click.Parameter, value: str | None) -> None:
    if value:
        ctx.meta[_DATA_DIR_KEY] = value


F = TypeVar("F", bound=Callable[..., Any])


def data_dir_option(fn: F) -> F:
    """``--data-dir`` on any command; read by :func:`checked_settings` (no parameter to thread)."""
    return click.option(
        "--data-dir",
        type=click.Path(file_okay=False),
        expose_value=False,
        callback=_remember_data_dir,
        help="Data directory (default ./memorist-data, or $MEMORIST_DATA_DIR).",
    )(fn)
