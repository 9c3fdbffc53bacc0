"""The ``memorist`` command line.

Configuration problems are printed one per line (``error: key: message``) and
exit with status 2, never with a traceback. Plugins may add subcommands
through the ``register_commands`` hook.
"""

from __future__ import annotations

import json
from typing import Any

import click

from . import __version__
from .console import EXIT_CONFIG, checked_settings, fail
from .errors import MemoristError
from .plugins import load_plugins
from .registry import ProviderRegistry

__all__ = ["EXIT_CONFIG", "checked_settings", "cli", "fail", "main"]


config_option = click.option(
    "--config",
    "config",
    type=click.Path(dir_okay=False),
    envvar="MEMORIST_CONFIG",
    help="YAML config file (default: $MEMORIST_CONFIG, else built-in defaults).",
)


@click.group()
@click.version_option(__version__, prog_name="memorist")
def cli() -> None:
    """Memorist: long-term memory for AI applications."""


@cli.command()
@config_option
@click.option("--host", help="Interface to bind (default 127.0.0.1, or server.host).")
@click.option("--port", type=int, help="Port (default 8000, or server.port).")
@click.option("--workers", type=int, help="gunicorn worker processes (default 1).")
@click.option(
    "--data-dir",
    type=click.Path(file_okay=False),
    help="Data directory (default ./memorist-data, or $MEMORIST_DATA_DIR).",
)
def serve(
    config: str | None,
    host: str | None,
    port: int | None,
    workers: int | None,
    data_dir: str | None,
) -> None:
    """Run the HTTP server under gunicorn."""
    overrides: dict[str, Any] = {}
    server = {k: v for k, v in {"host": host, "port": port, "workers": workers}.items() if v is not None}
    if server:
        overrides["server"] = server
    if data_dir:
        overrides["data_dir"] = data_dir
    settings, _ = checked_settings(config, overrides)
    from .server import run_gunicorn

    run_gunicorn(settings)


@cli.command()
@config_option
@click.option("--threads", type=int, help="Worker threads (default: queue.workers, at least 1).")
def worker(config: str | None, threads: int | None) -> None:
    """Process queued asynchronous adds without serving HTTP (run as many as you like)."""
    import signal

    from .kernel import Kernel

    settings, plugins = checked_settings(config)
    kernel = Kernel.build(settings, plugins)
    count = threads or max(settings.queue.workers, 1)
    add_worker = kernel.worker(count)
    signal.signal(signal.SIGTERM, lambda *_: add_worker.stop())
    signal.signal(signal.SIGINT, lambda *_: add_worker.stop())
    click.echo(f"memorist worker: {count} threads on {settings.database_url.split('@')[-1]}")
    add_worker.start()
    add_worker.wait()


@cli.group()
def db() -> None:
    """Relational database maintenance."""


@db.command("upgrade")
@config_option
def db_upgrade(config: str | None) -> None:
    """Run the Alembic migrations to the newest revision (also done at startup)."""
    from .db import Database

    settings, plugins = checked_settings(config)
    Database(settings.database_url).upgrade(plugins.migrations())
    click.echo("database is at the newest revision")


@cli.command("plugins")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def list_plugins(as_json: bool) -> None:
    """List loaded plugins with their version and the hooks they implement."""
    try:
        plugins = load_plugins()
        registry = ProviderRegistry.from_plugins(plugins)
    except MemoristError as exc:
        fail(exc)
        return
    infos = plugins.info()
    if as_json:
        click.echo(json.dumps([info.__dict__ for info in infos], indent=2))
        return
    for info in infos:
        click.echo(f"{info.name} {info.version or '-'}: {', '.join(info.hooks) or '(no hooks)'}")
    click.echo("")
    for kind in ("language_model", "embedder", "vector_store", "reranker", "entity_extractor"):
        click.echo(f"{kind}: {', '.join(registry.names(kind)) or '-'}")


@cli.group()
def config() -> None:
    """Inspect configuration."""


@config.command("check")
@config_option
def config_check(config: str | None) -> None:
    """Validate the configuration (file, environment, provider options); warn about weak secrets."""
    from .http.auth import secret_warnings

    settings, _ = checked_settings(config)
    warnings = secret_warnings(settings.auth)
    for warning in warnings:
        click.echo(f"warning: {warning}", err=True)
    click.echo("configuration ok" + (f" ({len(warnings)} warning{'s' * (len(warnings) > 1)})" if warnings else ""))


@config.command("show")
@config_option
def config_show(config: str | None) -> None:
    """Print the effective configuration as JSON (secrets redacted)."""
    import json

    from .redaction import redact

    settings, _ = checked_settings(config)
    shown = redact(settings.model_dump(mode="python"))
    click.echo(json.dumps(shown, indent=2, default=str))


def _add_admin() -> None:
    from .admin_cli import admin
    from .mcp.command import mcp_command

    cli.add_command(admin)
    cli.add_command(mcp_command)


def main(argv: list[str] | None = None) -> None:
    """Console entry point: add plugin commands, then run the group."""
    try:
        plugins = load_plugins()
    except MemoristError as exc:
        fail(exc)
        return
    _add_admin()
    plugins.hook.register_commands(cli=cli)
    cli.main(args=argv, prog_name="memorist")


if __name__ == "__main__":  # pragma: no cover
    main()
