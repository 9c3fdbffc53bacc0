"""The ``memorist`` command line.

Every problem a user can fix is printed as one line (``error: what: what to do``)
and exits with status 2, never with a traceback. Plugins may add subcommands
through the ``register_commands`` hook.

Imports are lazy: ``memorist --help`` must answer in well under a second, so this
module imports only click at the top, and plugins are loaded only when a command
needs them (or to list plugin commands in the help).
"""

from __future__ import annotations

import sys
from typing import Any

import click

from .console import (
    EXIT_CONFIG,
    _data_dir_overrides,
    checked_settings,
    config_option,
    data_dir_option,
    fail,
    writable_settings,
)

__all__ = ["EXIT_CONFIG", "checked_settings", "cli", "config_option", "data_dir_option", "fail", "main"]


#: Commands imported only when run (name -> module, attribute, one-line help for ``--help``).
LAZY_COMMANDS = {
    "mcp": ("memorist.cli.mcp_command", "mcp_command", "Serve memory to an MCP client (stdio); see docs/mcp.md."),
    "import": (
        "memorist.bulk.import_command",
        "import_command",
        "Import conversations (JSONL or LoCoMo JSON) in batches; see docs/import.md.",
    ),
    "reembed": (
        "memorist.bulk.reembed",
        "reembed_command",
        "Re-embed stored memories with another embedder (resumable); see docs/multilingual.md.",
    ),
}


class MemoristGroup(click.Group):
    """Built-in commands at once; plugin commands (``register_commands``) loaded on demand."""

    _plugins_added = False

    def _add_plugin_commands(self) -> None:
        if MemoristGroup._plugins_added:
            return
        MemoristGroup._plugins_added = True
        from ..errors import MemoristError
        from ..plugin.manager import load_plugins

        try:
            load_plugins().hook.register_commands(cli=self)
        except MemoristError as exc:
            fail(exc)

    def invoke(self, ctx: click.Context) -> Any:
        """Any command's :class:`MemoristError` (a store of another embedder's vectors met by
        ``memorist worker``, a bad import file...) ends it with the reason, not a traceback."""
        from ..errors import MemoristError

        try:
            return super().invoke(ctx)
        except MemoristError as exc:
            fail(exc)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name) or self._lazy(cmd_name)
        if command is None:
            self._add_plugin_commands()
            command = super().get_command(ctx, cmd_name)
        return command

    def list_commands(self, ctx: click.Context) -> list[str]:
        self._add_plugin_commands()
        return sorted(set(super().list_commands(ctx)) | set(LAZY_COMMANDS))

    def _lazy(self, cmd_name: str) -> click.Command | None:
        if cmd_name not in LAZY_COMMANDS or cmd_name in self.commands:
            return None
        import importlib

        module, attribute, _ = LAZY_COMMANDS[cmd_name]
        command: click.Command = getattr(importlib.import_module(module), attribute)
        self.add_command(command, cmd_name)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list, with the lazy commands' one-liners (``--help`` must not import them)."""
        rows = []
        for name in self.list_commands(ctx):
            if name in LAZY_COMMANDS and name not in self.commands:
                rows.append((name, LAZY_COMMANDS[name][2]))
            elif (command := self.get_command(ctx, name)) is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(formatter.width - 6 - len(name))))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group(cls=MemoristGroup)
@click.version_option(package_name="memorist", prog_name="memorist")
def cli() -> None:
    """Memorist: long-term memory for AI applications.

    Start with `memorist serve`, then `KEY=$(memorist init)` in another shell for an
    admin account and an API key. `memorist config check` lists every configuration
    problem at once.
    """


@cli.command()
@config_option
@click.option("--host", help="Interface to bind (default 127.0.0.1, or server.host).")
@click.option("--port", type=int, help="Port (default 8000, or server.port).")
@click.option("--workers", type=int, help="gunicorn worker processes (default 2, or server.workers).")
@data_dir_option
def serve(config: str | None, host: str | None, port: int | None, workers: int | None) -> None:
    """Run the HTTP server under gunicorn.

    With authentication on and no JWT_SECRET, a secret is generated once in the
    data directory and reused on later starts (see `memorist init` for a key).
    """
    from ..serve.gunicorn_app import run_gunicorn
    from .first_run import with_jwt_secret
    from .preflight import bind_problem, environment_warnings

    overrides: dict[str, Any] = {}
    server = {k: v for k, v in {"host": host, "port": port, "workers": workers}.items() if v is not None}
    if server:
        overrides["server"] = server
    # The configuration first, then the port: a typo in the file must not hide behind "port in use"
    # (a second `memorist serve` beside the quick start's would otherwise only ever say that).
    settings, _ = writable_settings(config, overrides)
    for line in environment_warnings(settings):
        click.echo(f"warning: {line}", err=True)
    if problem := bind_problem(settings.server.host, settings.server.port):
        fail(problem)

    settings, note = with_jwt_secret(settings)  # a MemoristError: one line (MemoristGroup.invoke)
    if note:
        click.echo(f"memorist: {note}", err=True)
    run_gunicorn(settings)


@cli.command()
@config_option
@data_dir_option
@click.option("--email", help="The account's email (default: the existing admin, else a new admin@localhost).")
@click.option("--password", help="Password of a new account (default: generated and printed once).")
@click.option("--label", default="memorist init", show_default=True, help="Label of the new API key.")
def init(config: str | None, email: str | None, password: str | None, label: str) -> None:
    """Create the admin account (unless one exists) and an API key; print the key.

    The key alone goes to standard output, so `KEY=$(memorist init)` captures it;
    what happened goes to standard error. Run it again for another key.
    """
    from .first_run import init_admin

    settings, _ = writable_settings(config)
    result = init_admin(settings, email, password, label)
    if result.created_account:
        shown = f" with password {result.password}" if result.password else ""
        click.echo(f"created the admin account {result.email}{shown} and an API key", err=True)
    else:
        click.echo(f"added an API key to the existing account {result.email}", err=True)
    click.echo(result.key)


@cli.command()
@config_option
@data_dir_option
@click.option("--threads", type=int, help="Worker threads (default: queue.workers, at least 1).")
def worker(config: str | None, threads: int | None) -> None:
    """Process queued asynchronous adds without serving HTTP (run as many as you like)."""
    import signal

    from ..kernel.core import Kernel

    settings, plugins = writable_settings(config)
    kernel = Kernel.build(settings, plugins)
    count = threads or max(settings.queue.workers, 1)
    add_worker = kernel.worker(count)
    kernel.adopt_worker(add_worker)  # Kernel.close stops it, however the command ends
    signal.signal(signal.SIGTERM, lambda *_: add_worker.stop())
    signal.signal(signal.SIGINT, lambda *_: add_worker.stop())
    click.echo(f"memorist worker: {count} threads on {settings.database_url.split('@')[-1]}")
    try:
        add_worker.start()
        add_worker.wait()
    finally:  # stopped: the vector store moves what it acknowledged out of its journal, the database closes
        kernel.close()
        click.echo("memorist worker: stopped")


@cli.group()
def db() -> None:
    """Relational database maintenance."""


@db.command("upgrade")
@config_option
@data_dir_option
def db_upgrade(config: str | None) -> None:
    """Run the Alembic migrations to the newest revision (also done at startup)."""
    from ..db import Database

    settings, plugins = writable_settings(config)
    Database(settings.database_url).upgrade(plugins.migrations())
    click.echo("database is at the newest revision")


@cli.command("plugins")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def list_plugins(as_json: bool) -> None:
    """List loaded plugins with their version and the hooks they implement."""
    import json

    from ..plugin.manager import load_plugins
    from ..plugin.registry import ProviderRegistry

    plugins = load_plugins()
    registry = ProviderRegistry.from_plugins(plugins)
    infos = plugins.info()
    if as_json:
        click.echo(json.dumps([info.__dict__ for info in infos], indent=2))
        return
    for info in infos:
        click.echo(f"{info.name} {info.version or '-'}: {', '.join(info.hooks) or '(no hooks)'}")
    click.echo("")
    from ..plugin.slots import SLOT_NAMES

    for kind in SLOT_NAMES:
        click.echo(f"{kind}: {', '.join(registry.names(kind)) or '-'}")


@cli.group()
def config() -> None:
    """Inspect configuration."""


@config.command("check")
@config_option
@data_dir_option
def config_check(config: str | None) -> None:
    """Report every configuration problem at once: file, environment, provider options,
    unknown MEMORIST_* variables, authentication, data directory. Exit status 2 on errors."""
    from .config_check import run_checks

    _, problems = run_checks(config, _data_dir_overrides(None))
    for problem in problems:
        click.echo(f"{problem.level}: {problem.message}", err=True)
    if any(problem.level == "error" for problem in problems):
        sys.exit(EXIT_CONFIG)
    warnings = len(problems)
    click.echo("configuration ok" + (f" ({warnings} warning{'s' * (warnings > 1)})" if warnings else ""))


@config.command("show")
@config_option
@data_dir_option
def config_show(config: str | None) -> None:
    """Print the effective configuration as JSON (secrets redacted), including the runtime
    overrides stored by `POST /configure` that a server on this database is using."""
    import json

    from ..config.overrides import effective_settings
    from ..redaction import redact

    settings, _ = checked_settings(config)
    effective, overrides, note = effective_settings(settings)
    document = redact(effective.model_dump(mode="python"))
    document["runtime_overrides"] = redact(overrides)
    if note:  # inside the document: the output stays one JSON value for tools
        document["runtime_overrides_unavailable"] = note
    click.echo(json.dumps(document, indent=2, default=str))


def main(argv: list[str] | None = None) -> None:
    """Console entry point."""
    cli.main(args=argv, prog_name="memorist")


# Last: admin_cli imports this module's options (cheap: click only until a command runs).
from .admin import admin  # noqa: E402

cli.add_command(admin)
