"""What every command line door shares: one-line errors and checked settings.

``memorist`` and ``memorist admin`` both use these; they live apart from
either so neither command module imports the other.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from .components import validate_settings
from .errors import ConfigurationError, MemoristError
from .plugins import Plugins, load_plugins
from .registry import ProviderRegistry
from .settings import Settings, load_settings

EXIT_CONFIG = 2


def fail(exc: MemoristError) -> None:
    """Print each problem on its own line and exit non-zero."""
    lines = exc.problems if isinstance(exc, ConfigurationError) else [exc.message]
    for line in lines:
        click.echo(f"error: {line}", err=True)
    sys.exit(EXIT_CONFIG)


def checked_settings(
    config: str | None, overrides: dict[str, Any] | None = None, plugins: Plugins | None = None
) -> tuple[Settings, Plugins]:
    """Settings validated against the installed providers, or exit 2 with the problems."""
    try:
        plugins = plugins or load_plugins()
        settings = load_settings(config, overrides, sections=plugins.settings_sections())
        validate_settings(settings, ProviderRegistry.from_plugins(plugins))
    except MemoristError as exc:
        fail(exc)
        raise  # unreachable; keeps type checkers honest
    return settings, plugins
