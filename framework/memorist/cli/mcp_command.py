"""The ``memorist mcp`` command (stdio).

Importing this module is cheap and never imports the ``mcp`` SDK: the command
checks for it first and prints a one-line hint when it is missing.
"""

from __future__ import annotations

import getpass
import os
import sys
from typing import Any

import click

from ..records import DEFAULT_ORG, DEFAULT_PROJECT

MISSING_SDK = "error: the MCP server needs the 'mcp' package: pip install 'memorist[mcp]'"


def sdk_available() -> bool:
    """Whether the official ``mcp`` SDK can be imported (it is imported to serve anyway)."""
    try:
        import mcp.server  # noqa: F401
    except ImportError:
        return False
    return True


def default_data_dir(config: str | None) -> str | None:
    """Where memories live when nothing says: a per-user directory, not the working directory.

    A desktop client starts ``memorist mcp`` in a working directory of its choosing
    (often ``/``), so the ``serve`` default ``./memorist-data`` would scatter or fail.
    A config file or ``MEMORIST_DATA_DIR`` decides instead when given."""
    if config or os.environ.get("MEMORIST_DATA_DIR"):
        return None
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(base, "memorist")


def default_user() -> str:
    """The OS login name: one person's desktop memory without any flag."""
    try:
        return getpass.getuser() or "default"
    except Exception:  # no login name (some containers)
        return "default"


@click.command("mcp")
@click.option("--config", "config", type=click.Path(dir_okay=False), envvar="MEMORIST_CONFIG", help="YAML config file.")
@click.option(
    "--data-dir",
    type=click.Path(file_okay=False),
    help="Data directory (default: the config's, $MEMORIST_DATA_DIR, else ~/.local/share/memorist).",
)
@click.option("--user-id", help="Confine every tool call to this user (default: your login name).")
@click.option("--agent-id", help="Confine every tool call to this agent.")
@click.option("--run-id", help="Confine every tool call to this run/session.")
@click.option("--app-id", help="Confine every tool call to this app.")
@click.option("--org-id", default=DEFAULT_ORG, show_default=True, help="Organization of the memories.")
@click.option("--project-id", default=DEFAULT_PROJECT, show_default=True, help="Project of the memories.")
@click.option(
    "--unscoped",
    is_flag=True,
    help="Confine nothing: the model names user_id/agent_id in each call (for an operator, not a desktop).",
)
@click.option("--read-only", is_flag=True, help="Refuse add, update and delete.")
def mcp_command(
    config: str | None,
    data_dir: str | None,
    user_id: str | None,
    agent_id: str | None,
    run_id: str | None,
    app_id: str | None,
    org_id: str,
    project_id: str,
    unscoped: bool,
    read_only: bool,
) -> None:
    """Serve memory to an MCP client (Claude, Cursor, VS Code, ...) over stdio."""
    if not sdk_available():
        click.echo(MISSING_SDK, err=True)
        sys.exit(2)
    from ..operations import Caller, Role
    from .console import checked_settings

    pins = {
        k: v for k, v in {"user_id": user_id, "agent_id": agent_id, "run_id": run_id, "app_id": app_id}.items() if v
    }
    if unscoped and pins:
        raise click.UsageError("--unscoped cannot be combined with --user-id/--agent-id/--run-id/--app-id")
    if not unscoped and not pins:
        pins = {"user_id": default_user()}
    overrides: dict[str, Any] = {"data_dir": data_dir or default_data_dir(config)}
    if overrides["data_dir"] is None:
        del overrides["data_dir"]
    settings, plugins = checked_settings(config, overrides)
    try:
        caller = Caller(
            org_id=org_id,
            project_id=project_id,
            actor=f"mcp:{pins.get('user_id') or pins.get('agent_id') or 'stdio'}",
            role=Role.READER if read_only else Role.OWNER,
            pinned=pins,
        )
    except ValueError as exc:  # pragma: no cover - option names are fixed
        raise click.UsageError(str(exc)) from None
    scope = ", ".join(f"{k}={v}" for k, v in pins.items()) or "unscoped"
    click.echo(f"memorist mcp: serving on stdio ({scope}; data {settings.data_dir})", err=True)
    from ..mcp.stdio import run_stdio

    run_stdio(settings, plugins, caller)
